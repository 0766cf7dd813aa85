package source

import (
	"encoding/json"
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

// FuzzParseLine holds ParseLine (segmentio/encoding, encoding/json when it refuses) to
// encoding/json's answer: the same event for a line the standard library reads, an error for
// one it refuses.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"frame","window":"w","vsync_ns":1000,"done_ns":17000000,"phases":{"sync_start_ns":8000000}}`,
		`{"type":"message","pid":10,"tid":10,"handler":"h","callback":"null","what":159,"start_ns":5,"end_ns":9}`,
		`{"type":"slow_looper","at_ns":8,"kind":"dispatch","ms":292,"what":3}`,
		`{"type":"session","source":"sim","refresh_hz":120}`,
		`{"type":"frame","window":"a\"b\u00e9","vsync_ns":1}`,
		`{"type":"frame","Window":"a","VSYNC_NS":1}`,
		`{"type":"frame","vsync_ns":1.5}`,
		`{"type":"frame","vsync_ns":1e3}`,
		`{"type":"frame","vsync_ns":null,"phases":null}`,
		`{"type":"frame","vsync_ns":01}`,
		`{"type":"frame","vsync_ns":99999999999999999999}`,
		"{\"type\":\"frame\",\"window\":\"\xff\"}",
		`{"type":"frame","phases":{},"phases":{"sync_start_ns":3}}`,
		`{"type":"frame","vsync_ns":1} x`,
		`{"type":"message" , "what" : -7 }`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		typ, got, err := ParseLine(line)
		if err != nil || got == nil {
			if want := newEvent(typ); err != nil && want != nil && json.Unmarshal(line, want) == nil {
				t.Fatalf("ParseLine(%q) refused a %s line encoding/json reads: %v", line, typ, err)
			}
			return
		}
		want := newEvent(typ)
		if err := json.Unmarshal(line, want); err != nil {
			t.Fatalf("ParseLine(%q) read a line encoding/json refuses (%v): %#v", line, err, got)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseLine(%q):\n got %#v\nwant %#v", line, got, want)
		}
	})
}
