package config

import (
	"testing"
)

// FuzzParse (issue 13): any bytes as a configuration file never panic the loader; what it
// accepts is a list of named single values.
func FuzzParse(f *testing.F) {
	f.Add([]byte("theme: dark\nrefresh: 250ms\n"))
	f.Add([]byte("# only a comment\n"))
	f.Add([]byte("theme: [a, b]\n"))
	f.Add([]byte("a: 1\na: 2\n"))
	f.Add([]byte("record: ~/x.jsonl\n&a x: *a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parse("fuzz.yaml", b)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Key == "" {
				t.Fatalf("entry without a name: %+v", e)
			}
		}
	})
}
