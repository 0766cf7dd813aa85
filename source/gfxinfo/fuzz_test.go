package gfxinfo

import (
	"bytes"
	"testing"
)

// FuzzParse: Parse and ParseAll never panic, and every frame they return obeys the invariants
// metrics relies on. Seeds are synthetic (the real captures are never copied into the repo).
func FuzzParse(f *testing.F) {
	w := synthWin{title: pkg + "/.Main", rows: 3, start: 1e9, period: 8_333_333, firstID: 5, total: 3, jankEach: 2}
	for _, layout := range []int{14, 16, 17, 20, 22, 23, 24} {
		f.Add(synthDump(nil, layout, 2000, 1, pkg, []synthWin{w}))
	}
	two := synthDump(nil, 23, 2000, 1, pkg, []synthWin{w, {title: "Popup", vis: 8, total: 0}})
	f.Add(append(two, two...))
	f.Add(toUTF16(synthDump(nil, 23, 2000, 1, pkg, []synthWin{w}), false))
	f.Add(toUTF16(synthDump(nil, 17, 2000, 1, pkg, []synthWin{w}), true))
	f.Add([]byte("0,27965466202353,27965466202353,27965449758000,27965461202353,27965467153286,27965471442505,27965471925682,27965474025318,27965474588547,27965474860786,27965475078599,27965479796151,27965480589068,\n"))
	f.Add([]byte("** Graphics info for pid 1 [a] **\nNo process found for: a\nFailure while dumping the app: x\nHISTOGRAM: 5ms=1 6ms=\n\tDraw\tPrepare\tProcess\tExecute\n\t1.0\t2.0\t3.0\t4.0\n"))
	f.Add([]byte("---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,FrameInterval,FrameStartTime,\n0,100,200,-1,9223372036854775807,\n0,-5,99999999999999999999,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _ := Parse(data)
		ds, _ := ParseAll(data)
		for _, dump := range append(ds, d) {
			if dump == nil {
				continue
			}
			for _, p := range dump.Processes {
				for _, w := range p.Windows {
					if w.Rows != len(w.Frames)+w.Incomplete || w.ProfileRows < 0 {
						t.Fatalf("window %q: rows %d frames %d incomplete %d", w.Title, w.Rows, len(w.Frames), w.Incomplete)
					}
					if w.Summary != nil && w.Summary.TotalFrames != nil && w.TotalFrames != *w.Summary.TotalFrames {
						t.Fatalf("TotalFrames %d vs summary %d", w.TotalFrames, *w.Summary.TotalFrames)
					}
					for i := range w.Frames {
						fr := &w.Frames[i]
						if fr.VsyncNs <= 0 || fr.DoneNs <= fr.VsyncNs || fr.DoneNs-fr.VsyncNs >= maxFrameNs ||
							fr.Phases == nil || fr.Phases.FrameCompleted != fr.DoneNs ||
							(fr.IntervalNs != 0 && (fr.IntervalNs < minPeriodNs || fr.IntervalNs > maxPeriodNs)) ||
							fr.DeadlineNs < 0 || fr.DeadlineNs == int64Max || fr.Window != w.Title || fr.Process != p.Name {
							t.Fatalf("frame breaks invariants: %+v %+v", *fr, *fr.Phases)
						}
					}
				}
			}
		}
		if !bytes.Contains(data, dumpHeader) && len(ds) > 1 {
			t.Fatalf("%d dumps without a dump header", len(ds))
		}
	})
}
