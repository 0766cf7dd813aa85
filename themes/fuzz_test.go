package themes

import "testing"

// FuzzParse (issue 13): any bytes as a user theme never panic the loader.
func FuzzParse(f *testing.F) {
	f.Add([]byte("name: mine\nbackground: dark\n"))
	f.Add([]byte("name: x\ncolors: [this is: not a mapping\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		if th, err := Parse(b); err == nil && th.Name == "" {
			t.Fatalf("theme without a name accepted")
		}
	})
}
