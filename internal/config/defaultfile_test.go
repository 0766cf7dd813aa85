package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// uncomment turns every "# key: value" setting line of a DefaultFile into "key: value": the
// last line of each block (help lines before it may look like settings, e.g. "# gate: …").
var settingLine = regexp.MustCompile(`(?m)^# ([a-z0-9-]+: .*)\n(\n|\z)`)

func uncomment(s string) string { return settingLine.ReplaceAllString(s, "$1\n$2") }

func TestDefaultFile(t *testing.T) {
	fakeHome(t)
	fs, _ := testFlags()
	out := DefaultFile(fs)

	// every settable flag appears once, commented, with its default; the others do not
	var settable []string
	fs.VisitAll(func(fl *pflag.Flag) {
		_, refused := Refused[fl.Name]
		line := "\n# " + fl.Name + ": "
		switch {
		case refused || fl.Hidden || fl.Deprecated != "":
			if strings.Contains(out, line) {
				t.Errorf("%s is offered as a setting", fl.Name)
			}
		default:
			settable = append(settable, fl.Name)
			if strings.Count(out, line) != 1 {
				t.Errorf("%s: want exactly one %q line", fl.Name, strings.TrimSpace(line))
			}
		}
	})
	for _, want := range []string{
		"# where frames come from: auto, sim, gfxinfo, logcat, gfxinfo+logcat\n# source: auto\n",
		`# drop-levels: "3,9,24,42"` + "\n",
		"# refresh: 250ms\n",
		"# interval: 0s\n",
		"# target-fps: 55\n",
		"# serial: \"\"\n",
		"# no-mouse: false\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("DefaultFile lacks %q", want)
		}
	}
	if flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "\n# ", " ")), " "); !strings.Contains(flat,
		"Only on the command line: config, duration, force, headless, input, json, record, reset, set-slow-threshold, truth.") {
		t.Error("DefaultFile does not list the flags only the command line can set")
	}
	if strings.Contains(out, "help") || strings.Contains(out, "secret") {
		t.Error("DefaultFile mentions cobra's help flag or a hidden flag")
	}
	for i, line := range strings.Split(out, "\n") {
		if len(line) > 100 {
			t.Errorf("line %d is %d columns long", i+1, len(line))
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			t.Errorf("line %d is not a comment: %q", i+1, line)
		}
	}

	// as is, it is an empty configuration
	f := loadString(t, out)
	if len(f.Entries) != 0 {
		t.Errorf("the commented file sets %d flags", len(f.Entries))
	}

	// uncommented, it is valid and sets every settable flag to its default
	f = loadString(t, uncomment(out))
	if len(f.Entries) != len(settable) {
		t.Errorf("uncommented: %d entries, want %d (%v)", len(f.Entries), len(settable), settable)
	}
	fresh, _ := testFlags()
	if err := Apply(fresh, f); err != nil {
		t.Fatalf("Apply(uncommented DefaultFile): %v", err)
	}
	fresh.VisitAll(func(fl *pflag.Flag) {
		if fl.Value.String() != fl.DefValue {
			t.Errorf("%s = %q after applying the defaults, want %q", fl.Name, fl.Value.String(), fl.DefValue)
		}
	})
}

func TestDefaultValueQuoting(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("a", "true", "a string that looks like a bool")
	fs.String("b", "#hash", "a string starting with #")
	fs.String("c", "1,2", "a comma list")
	fs.String("d", "x: y", "a colon")
	fs.String("e", "~", "a tilde")
	fs.StringSlice("f", []string{"p", "q"}, "a slice")
	fs.Int("g", 7, "an int")
	fs.String("h", "", "write to `FILE`")
	out := DefaultFile(fs)
	if !strings.Contains(out, "\n# write to FILE\n") {
		t.Errorf("help text placeholders not unquoted:\n%s", out)
	}
	f := loadString(t, uncomment(out))
	want := map[string]string{"a": "true", "b": "#hash", "c": "1,2", "d": "x: y", "e": "~", "f": "p,q", "g": "7", "h": ""}
	if len(f.Entries) != len(want) {
		t.Fatalf("entries = %+v", f.Entries)
	}
	for _, e := range f.Entries {
		if e.Value != want[e.Key] {
			t.Errorf("%s: round-tripped to %q, want %q", e.Key, e.Value, want[e.Key])
		}
	}
}
