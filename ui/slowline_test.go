package ui

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
)

// TestSlowLineTruncated: a slow Looper line cut off before its duration shows "? ms", never
// "0 ms"; a complete one shows its duration.
func TestSlowLineTruncated(t *testing.T) {
	cut := slowLine(&metrics.SlowLooperReport{Kind: "activity_late", Truncated: true})
	if !strings.Contains(cut, "? ms") || strings.Contains(cut, " 0 ms") {
		t.Errorf("truncated line shown as %q", cut)
	}
	full := slowLine(&metrics.SlowLooperReport{Kind: "dispatch", Ms: 110, Handler: "android.os.Handler"})
	if !strings.Contains(full, "110 ms") || !strings.Contains(full, "android.os.Handler") {
		t.Errorf("complete line shown as %q", full)
	}
}
