package exit

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fpstop/fpstop/internal/outfile"
)

// Every kind of error maps to its exit status, and an error that already carries one keeps it
// when wrapped again.
func TestCode(t *testing.T) {
	plain := errors.New("adb: connection refused")
	for name, c := range map[string]struct {
		err  error
		want int
	}{
		"nil":                  {nil, OK},
		"usage":                {Usagef("--hz %v: want 30 to 240", 1), Usage},
		"runtime":              {RuntimeErr(plain), Runtime},
		"plain":                {plain, Runtime},
		"gate":                 {&GateError{Failures: []string{"fps 50 < 55"}}, Gate},
		"wrapped gate":         {fmt.Errorf("run: %w", &GateError{Failures: []string{"x"}}), Gate},
		"usage kept":           {RuntimeErr(Usagef("bad")), Usage},
		"existing output file": {RuntimeErr(fmt.Errorf("x.json: %w", outfile.ErrExists)), Usage},
	} {
		if got := Code(c.err); got != c.want {
			t.Errorf("%s: Code = %d, want %d", name, got, c.want)
		}
	}
	if RuntimeErr(nil) != nil {
		t.Error("RuntimeErr(nil) is not nil")
	}
	if !errors.Is(RuntimeErr(plain), plain) {
		t.Error("RuntimeErr hides the error it carries")
	}
}

// Sentence keeps the first line and ends it like a sentence, once.
func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"no device":                   "no device.",
		"no device.":                  "no device.",
		"which one?":                  "which one?",
		"device lost (unplugged)":     "device lost (unplugged)",
		"  first line \nsecond line":  "first line.",
		"gate failed: fps 50 < 55; x": "gate failed: fps 50 < 55; x.",
	} {
		if got := Sentence(errors.New(in)); got != want {
			t.Errorf("Sentence(%q) = %q, want %q", in, got, want)
		}
	}
	g := &GateError{Failures: []string{"a", "b"}}
	if g.Error() != "gate failed: a; b" {
		t.Errorf("GateError = %q", g.Error())
	}
}
