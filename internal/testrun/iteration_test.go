package testrun

import (
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/exit"
)

// fpstop test keeps auto's choice: an auto run that measured the windows and a layer in turn
// is auto again on the same window source (no second Looper probe); other choices are kept
// as they are.
func TestKeptKind(t *testing.T) {
	for in, want := range map[string]string{"gfxinfo+surfaceflinger": "auto+gfxinfo", "gfxinfo+logcat+surfaceflinger": "auto+logcat",
		"gfxinfo": "gfxinfo", "gfxinfo+logcat": "gfxinfo+logcat", "surfaceflinger": "surfaceflinger"} {
		if got := keptKind(in); got != want {
			t.Errorf("keptKind(%q) = %q, want %q", in, got, want)
		}
	}
}

// Validate refuses what cannot make a test: each case is one flag out of range or a
// combination that means nothing; the base configuration passes.
func TestValidate(t *testing.T) {
	base := Config{Options: Options{Iterations: 3, Command: "true", Format: "text", Confidence: 0.95, Resamples: 2000,
		Grace: time.Second}, Source: "auto"}
	if err := base.Validate(); err != nil {
		t.Fatalf("base: %v", err)
	}
	for name, change := range map[string]func(*Config){
		"no iterations":              func(c *Config) { c.Iterations = 0 },
		"too many iterations":        func(c *Config) { c.Iterations = 1001 },
		"nothing to measure against": func(c *Config) { c.Command = "" },
		"simulator without duration": func(c *Config) { c.Source = "sim" },
		"cold simulator":             func(c *Config) { c.Source, c.Duration, c.Cold = "sim", time.Second, true },
		"format":                     func(c *Config) { c.Format = "xml" },
		"confidence":                 func(c *Config) { c.Confidence = 1 },
		"resamples":                  func(c *Config) { c.Resamples = 10 },
		"grace":                      func(c *Config) { c.Grace = -time.Second },
	} {
		c := base
		change(&c)
		if err := c.Validate(); exit.Code(err) != exit.Usage {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
}
