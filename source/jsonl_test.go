package source

import (
	"reflect"
	"testing"
)

func TestLineRoundTrip(t *testing.T) {
	what := 159
	evs := []Event{
		&Frame{Window: "com.example/.Main", VsyncNs: 1000, DoneNs: 17000000, UIDoneNs: 9000000, IntervalNs: 16666667,
			Phases: &Phases{SyncStart: 8000000, GpuCompleted: 16000000}},
		&Message{Pid: 10, Tid: 10, Handler: "android.app.ActivityThread$H", Callback: "null", What: 159, StartNs: 5, EndNs: 9},
		&Skipped{AtNs: 7, Frames: 31},
		&SlowLooper{AtNs: 8, Kind: "dispatch", Ms: 292, Thread: "main", What: &what},
		&Tick{NowNs: 99},
		&Notice{AtNs: 3, Level: LevelWarn, Text: "x"},
		&Session{Source: KindSim, Package: "p", RefreshHz: 120, CostBasis: CostFrame, Seed: 7},
	}
	for _, ev := range evs {
		b, err := AppendLine(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		typ, got, err := ParseLine(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if typ != LineType(ev) || !reflect.DeepEqual(got, ev) {
			t.Errorf("round trip of %s: got %#v", b, got)
		}
	}
	if typ, ev, err := ParseLine([]byte(`{"type":"header","format":1}`)); err != nil || ev != nil || typ != "header" {
		t.Errorf("unknown type: %q %v %v", typ, ev, err)
	}
	for _, bad := range []string{``, `{`, `[]`, `{"x":1}`, `{"type":"frame","vsync_ns":"a"}`} {
		if _, _, err := ParseLine([]byte(bad)); err == nil {
			t.Errorf("ParseLine(%q): no error", bad)
		}
	}
}
