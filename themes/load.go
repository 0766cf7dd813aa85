package themes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// fileTheme is the YAML shape of a user theme file (see Load).
type fileTheme struct {
	Name       string               `yaml:"name"`
	Base       string               `yaml:"base"`
	Background string               `yaml:"background"`
	Colors     map[string]fileColor `yaml:"colors"`
	Extra      map[string]yaml.Node `yaml:",inline"`
}

// fileColor is a colour in a theme file: a scalar (both backgrounds) or {dark, light}.
type fileColor struct {
	Color
	line int
}

// UnmarshalYAML accepts "#RRGGBB" or {dark: ..., light: ...}.
func (c *fileColor) UnmarshalYAML(n *yaml.Node) error {
	c.line = n.Line
	switch n.Kind {
	case yaml.ScalarNode:
		c.Dark, c.Light = n.Value, n.Value
		return nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: %s: want a colour string", v.Line, k.Value)
			}
			switch k.Value {
			case "dark":
				c.Dark = v.Value
			case "light":
				c.Light = v.Value
			default:
				return fmt.Errorf("line %d: unknown key %q in a colour (want dark and light)", k.Line, k.Value)
			}
		}
		if c.Dark == "" || c.Light == "" {
			return fmt.Errorf("line %d: a colour given per background needs both dark and light", n.Line)
		}
		return nil
	}
	return fmt.Errorf("line %d: want a colour (\"#RRGGBB\") or {dark: ..., light: ...}", n.Line)
}

// Load reads a user theme file and returns the validated theme. The file is YAML:
//
//	name: my-theme        # required
//	base: dark            # optional: the built-in theme whose colours are the defaults
//	background: auto      # optional: dark, light or auto (default: the base theme's)
//	colors:
//	  text: "#E0E0E0"                          # one value for both backgrounds
//	  muted: {dark: "#A0A0A0", light: "#505050"} # or one per background
//	  drop_frozen: "196"                       # ANSI numbers 0-255 work too
//
// Colour keys are those ColorKeys returns. Unknown keys, malformed colours and a missing name
// are errors that name the file, the key and what was expected.
func Load(path string) (Theme, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Theme{}, fmt.Errorf("theme file: %w", err)
	}
	t, err := Parse(b)
	if err != nil {
		return Theme{}, fmt.Errorf("theme file %s: %w", path, err)
	}
	return t, nil
}

// Parse reads a user theme from YAML text (the format Load documents).
func Parse(b []byte) (Theme, error) {
	var f fileTheme
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return Theme{}, fmt.Errorf("empty file (want at least a name and some colors)")
		}
		return Theme{}, fmt.Errorf("not a valid theme: %w", err)
	}
	if len(f.Extra) > 0 {
		keys := make([]string, 0, len(f.Extra))
		for k := range f.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := f.Extra[keys[0]]
		return Theme{}, fmt.Errorf("line %d: unknown key %q (want name, base, background, colors)", n.Line, keys[0])
	}
	if strings.TrimSpace(f.Name) == "" {
		return Theme{}, fmt.Errorf("no name: add a line such as `name: my-theme`")
	}
	base := f.Base
	if base == "" {
		base = Default
	}
	t, err := Get(base)
	if err != nil {
		return Theme{}, fmt.Errorf("base: %w", err)
	}
	t.Name = f.Name
	if f.Background != "" {
		t.Background = Background(f.Background)
	}
	byKey := map[string]colorField{}
	for _, fl := range fields() {
		byKey[fl.key] = fl
	}
	keys := make([]string, 0, len(f.Colors))
	for k := range f.Colors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := f.Colors[k]
		fl, ok := byKey[k]
		if !ok {
			return Theme{}, fmt.Errorf("line %d: unknown colour key %q (known keys: %s)", c.line, k,
				strings.Join(ColorKeys(), ", "))
		}
		if err := checkColor(c.Dark); err != nil {
			return Theme{}, fmt.Errorf("line %d: colors.%s: %w", c.line, k, err)
		}
		if err := checkColor(c.Light); err != nil {
			return Theme{}, fmt.Errorf("line %d: colors.%s: %w", c.line, k, err)
		}
		*fl.get(&t) = c.Color
	}
	if err := t.Validate(); err != nil {
		return Theme{}, err
	}
	return t, nil
}

// Resolve returns the built-in theme called nameOrPath, or loads it from a file when it is not
// a built-in name and looks like a path (contains a path separator or ends in .yaml/.yml).
func Resolve(nameOrPath string) (Theme, error) {
	if t, err := Get(nameOrPath); err == nil {
		return t, nil
	} else if !strings.ContainsAny(nameOrPath, `/\`) &&
		!strings.HasSuffix(nameOrPath, ".yaml") && !strings.HasSuffix(nameOrPath, ".yml") {
		return Theme{}, err
	}
	return Load(nameOrPath)
}
