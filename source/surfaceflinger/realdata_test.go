package surfaceflinger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realdata.Dir(t, "surfaceflinger"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The catapult fixture: period 16954612 and three rows; the same rows after SurfaceFlinger's
// "appears to be unresponsive" line, whose period is on the second line.
func TestRealLatencyCatapult(t *testing.T) {
	plain := ParseLatency(readReal(t, "catapult-devil-test-sf-latency-3rows-period16954612.txt"))
	warned := ParseLatency(readReal(t, "catapult-devil-test-sf-latency-unresponsive-warning-first-line.txt"))
	for name, l := range map[string]*Latency{"plain": plain, "warned": warned} {
		if l.PeriodNs != 16954612 {
			t.Errorf("%s: period %d, want 16954612", name, l.PeriodNs)
		}
		if len(l.Records) != 3 || l.Zero != 0 || l.Pending != 0 || l.Bad != 0 {
			t.Fatalf("%s: %d records, %d zero, %d pending, %d bad; want 3 records", name, len(l.Records), l.Zero, l.Pending, l.Bad)
		}
		// column 2 is the actual present time, oldest first
		want := []int64{7657482691352, 7657499645964, 7657516600576}
		for i, r := range l.Records {
			if r.Actual != want[i] {
				t.Errorf("%s: record %d actual %d, want %d", name, i, r.Actual, want[i])
			}
		}
		if l.Records[0].Desired != 7657467895508 || l.Records[0].Ready != 7657493499756 {
			t.Errorf("%s: first record %+v", name, l.Records[0])
		}
	}
	if len(warned.Preamble) != 1 || !strings.Contains(warned.Preamble[0], "appears to be unresponsive") {
		t.Errorf("preamble %q", warned.Preamble)
	}
	if len(plain.Preamble) != 0 {
		t.Errorf("plain dump has a preamble %q", plain.Preamble)
	}
}

// Pixel 2 / Android 8: a period and unwritten 0 0 0 slots only — no frames, and not the
// Android 16 period-only shape either.
func TestRealLatencyAllZero(t *testing.T) {
	l := ParseLatency(readReal(t, "mobileperf-comment-pixel2-android8-sf-latency-all-zero-rows.txt"))
	if l.PeriodNs != 16666666 || len(l.Records) != 0 || l.Zero != 4 || l.Bad != 0 {
		t.Fatalf("got period %d, %d records, %d zero, %d bad", l.PeriodNs, len(l.Records), l.Zero, l.Bad)
	}
	if l.PeriodOnly() {
		t.Error("zero rows taken for Android 16's period-only output")
	}
}

// Honor 9 / Android 8: desired and ready are INT64_MAX, actual is valid: the frames count,
// the unsignalled columns become 0.
func TestRealLatencyInt64Max(t *testing.T) {
	l := ParseLatency(readReal(t, "mobileperf-comment-honor9-android8-sf-latency-desired-ready-pending-int64max.txt"))
	if l.PeriodNs != 16666666 || len(l.Records) != 3 || l.Pending != 0 {
		t.Fatalf("got period %d, %d records, %d pending", l.PeriodNs, len(l.Records), l.Pending)
	}
	for _, r := range l.Records {
		if r.Desired != 0 || r.Ready != 0 || r.Actual < 3618832932780 {
			t.Errorf("record %+v", r)
		}
	}
	if d := l.Records[1].Actual - l.Records[0].Actual; d != 16659375 {
		t.Errorf("present interval %d, want 16659375", d)
	}
}

// Android 15's --list wraps names in RequestedLayerState{… parentId=N z=N}: the names inside
// are found, the ActivityRecord and its input sink skipped, and every name offered to a shell
// passes the device layer's check.
func TestRealListAndroid15(t *testing.T) {
	const pkg = "ctrip.android.view"
	data := readReal(t, "solox303-android15-sf-list-grep-requestedlayerstate.txt")
	ls := ListLayers(data, pkg)
	want := []string{
		"54dfae7 ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity#28989",
		"ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity#29149",
	}
	if len(ls) != len(want) {
		t.Fatalf("layers %+v, want %q", ls, want)
	}
	for i, l := range ls {
		if l.Name != want[i] || l.Kind != KindWindow {
			t.Errorf("layer %d = %+v, want window %q", i, l, want[i])
		}
		if l.Component != "ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity" {
			t.Errorf("component %q", l.Component)
		}
		if err := device.ValidLayerName(l.Name); err != nil {
			t.Errorf("real layer name refused: %v", err)
		}
	}
	first := StripListLine(strings.SplitN(string(data), "\n", 2)[0])
	if first != "ff5d6b3 ActivityRecordInputSink ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity#28994" {
		t.Errorf("stripped %q", first)
	}
}

// Pre-12 naming as printed in a full dump (Android TV, Buffering stats): "SurfaceView - pkg/Act#0".
func TestRealPre12SurfaceViewName(t *testing.T) {
	data := string(readReal(t, "flutter113314-androidtv-sf-buffering-stats-surfaceview-dash-name-TRUNCATED.txt"))
	i := strings.Index(data, "[SurfaceView - ")
	if i < 0 {
		t.Fatal("no SurfaceView name in the capture")
	}
	name := data[i+1:]
	name = name[:strings.Index(name, "]")]
	l, ok := ClassifyLayer(name, "com.example.android_tv_glitch_poc")
	if !ok || l.Kind != KindSurfaceView || l.Name != "SurfaceView - com.example.android_tv_glitch_poc/com.example.android_tv_glitch_poc.MainActivity#0" {
		t.Fatalf("ClassifyLayer(%q) = %+v, %v", name, l, ok)
	}
	if err := device.ValidLayerName(l.Name); err != nil {
		t.Errorf("real layer name refused: %v", err)
	}
	if _, ok := ClassifyLayer("BootAnimation#0", "com.example.android_tv_glitch_poc"); ok {
		t.Error("another app's layer classified as the app's")
	}
}
