package surfaceflinger

import (
	"testing"

	"github.com/fpstop/fpstop/device"
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
