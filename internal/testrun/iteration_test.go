package testrun

import "testing"

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
