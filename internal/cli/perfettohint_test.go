package cli

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// auto says why it reads gfxinfo on Android 11 (Perfetto cannot name the frames' work there);
// nothing on 12+ (the dashboard offers Perfetto with P instead) or when the phone or the app is
// unknown.
func TestPerfettoHint(t *testing.T) {
	for _, c := range []struct {
		sdk     int
		android string
		pkg     string
		want    string
	}{
		{30, "11", "com.x", "Android 11: reading gfxinfo"},
		{29, "", "com.x", "Android SDK 29: reading gfxinfo"},
		{34, "14", "com.x", ""},
		{31, "12", "com.x", ""},
		{34, "14", "", ""},
		{0, "", "com.x", ""},
	} {
		got := perfettoHint(source.Session{Package: c.pkg, Device: source.Device{SDK: c.sdk, Android: c.android}})
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("SDK %d %q: %q, want %q", c.sdk, c.pkg, got, c.want)
		}
	}
}
