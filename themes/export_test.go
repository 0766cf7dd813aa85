package themes

// Both is a Color with the same value on both backgrounds (the tests' shorthand).
func Both(v string) Color { return Color{Dark: v, Light: v} }

// All is the built-in themes in cycling order.
func All() []Theme { return builtins() }
