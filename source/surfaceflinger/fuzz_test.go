package surfaceflinger

import (
	"testing"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source"
)

// The parsers read device text: never a panic, and what they return holds its promises
// (signalled records only; names offered to a shell pass the device layer's check).
func FuzzParseLatency(f *testing.F) {
	f.Add([]byte("SurfaceFlinger appears to be unresponsive, dumping anyways\n16954612\n7657467895508\t7657482691352\t7657493499756\n0\t0\t0\n"))
	f.Add([]byte("16666666\n9223372036854775807\t3618832932780\t9223372036854775807\n"))
	f.Add([]byte("8333333\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := ParseLatency(data)
		for _, r := range l.Records {
			if r.Actual <= 0 || r.Actual == pendingNs || r.Desired < 0 || r.Ready < 0 {
				t.Fatalf("record %+v", r)
			}
		}
	})
}

func FuzzCandidates(f *testing.F) {
	f.Add([]byte("RequestedLayerState{54dfae7 SurfaceView[a.b/a.b.C]@0(BLAST)#12 parentId=3 z=0}\nSurfaceView - a.b/a.b.C#0\n"), "a.b")
	f.Add([]byte("SurfaceView[a.b/x'; reboot](BLAST)#1\n"), "a.b")
	f.Fuzz(func(t *testing.T, data []byte, pkg string) {
		if pkg == "" {
			return
		}
		ok, _ := Candidates(data, pkg)
		for _, l := range ok {
			if err := device.ValidLayerName(l.Name); err != nil {
				t.Fatalf("candidate %q: %v", l.Name, err)
			}
		}
	})
}

func FuzzParseTimestats(f *testing.F) {
	f.Add([]byte("statsEnd = 12\nlayerName = SurfaceView[a/b]#1\npackageName = a\ntotalFrames = 10\ndroppedFrames = 1\npresent2present histogram is as below:\n0ms=0 16ms=9 33ms=1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts := ParseTimestats(data)
		for _, l := range ts.Layers {
			for _, b := range l.Present2Present {
				if b.Count <= 0 {
					t.Fatalf("bucket %+v", b)
				}
			}
		}
	})
}

// Saved text of any shape: events or an error, never a panic; frames strictly ascending with a
// positive present time, and an error (not an empty run) when there are none.
func FuzzFileEvents(f *testing.F) {
	f.Add([]byte("16954612\n7657467895508\t7657482691352\t7657493499756\n16954612\n7657484466553 7657499645964 7657511077881\n"))
	f.Add([]byte("SurfaceFlinger TimeStats:\nstatsStart = 5\nstatsEnd = 9\nlayerName = a/b#1\ntotalFrames = 3\npresent2present histogram is as below:\n0ms=0 16ms=3\n"))
	f.Add([]byte("RequestedLayerState{a/b#1 parentId=2}\n"))
	f.Add([]byte("16666666\n0 0 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := FileEvents(data, "x", "")
		if err != nil {
			return
		}
		var last int64
		var frames int
		for _, ev := range evs {
			switch e := ev.(type) {
			case *source.LayerFrame:
				if e.PresentNs <= last {
					t.Fatalf("frame at %d after %d", e.PresentNs, last)
				}
				last = e.PresentNs
				frames++
			case *source.LayerSample:
				if e.Frames <= 0 || e.ToNs <= e.FromNs {
					t.Fatalf("sample %+v", e)
				}
				frames++
			}
		}
		if frames == 0 {
			t.Fatalf("no frames and no error: %d events", len(evs))
		}
	})
}

// What each saved shape is detected as.
func TestDetect(t *testing.T) {
	for text, want := range map[string]Shape{
		"16954612\n7657467895508   7657482691352   7657493499756\n":                     ShapeLatency,
		"SurfaceFlinger appears to be unresponsive, dumping anyways\n16954612\n1 2 3\n": ShapeLatency,
		"8333333\n": ShapeLatency,
		"SurfaceFlinger TimeStats:\nLegacy stats are as follows:\n":         ShapeTimestats,
		"RequestedLayerState{a.b/a.b.C#28989 parentId=28983}\n":             ShapeList,
		"SurfaceView - a.b/a.b.C#0\na.b/a.b.C#1\n":                          ShapeList,
		"Buffering stats:\n  [Layer name] <Active time>\n":                  ShapeFullDump,
		"12-01 10:00:00.000  100  100 I Choreographer: Skipped 5 frames!\n": ShapeNone,
		"16954612 1\n": ShapeNone,
		"500\n1 2 3\n": ShapeNone, // not a period
		"Applications Graphics Acceleration Info:\n": ShapeNone,
	} {
		if got := Detect([]byte(text)); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}
