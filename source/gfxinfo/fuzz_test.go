package gfxinfo

import (
	"bytes"
	"testing"

	"github.com/fpstop/fpstop/source"
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

// FuzzTrackerDamage (issue 13): the state the tracker carries between polls under damaged
// text. The input says which lines of three successive dumps are damaged and how (truncated,
// garbage, newline lost, duplicated); whatever it says, no real frame is counted twice, no
// window is invented, and no more frames come out than rows went in. Its first byte's two top
// bits choose how the dumps are read: after a clean first dump (the tracker has a memory to
// tell damage by) or damaged from the first, and by a live tracker that knows the package or
// as a capture (FromReader: the package is taken from the first dump, and a line lost between
// two dumps runs them together).
func FuzzTrackerDamage(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 7, 2, 40, 3, 90, 0, 5, 2})
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4}, 64))
	f.Add([]byte{0x80, 0, 0x80 + 3, 1, 6, 2, 9, 3})         // damaged from the first dump
	f.Add([]byte{0xc0, 2, 0xc0 + 6, 0, 0xc0 + 9, 2, 12, 1}) // a damaged capture
	// Small dumps (16 and 4 rows, each dump sharing half its rows with the one before): what
	// is checked needs rows carried between polls and two windows, not a full ring, and a
	// cheap input is what lets CI's 5 s smoke run try thousands of damage patterns.
	dumps := pollCapture(3, 24, 0)
	titles := map[string]bool{pkg + "/.Main": true, pkg + "/.Popup": true} // pollCapture's windows
	real := map[int64]bool{}
	for _, d := range dumps {
		for _, p := range mustParse(f, d).Processes {
			for _, w := range p.Windows {
				for _, fr := range w.Frames {
					real[fr.VsyncID] = true
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		cleanFirst, capture := len(ops) == 0 || ops[0]&0x80 == 0, len(ops) > 0 && ops[0]&0x40 != 0
		damaged := 0
		var in [][]byte
		if cleanFirst {
			// A first clean dump gives the tracker its memory; then every dump may be damaged.
			in = append(in, dumps[0])
		}
		for i, d := range dumps {
			var dd []byte
			dd, damaged = damageLines(d, ops, i, damaged)
			in = append(in, dd)
		}
		var evs []source.Event
		if capture {
			evs, _ = readAllEvents(t, bytes.NewReader(bytes.Join(in, nil)))
		} else {
			tr := newTracker(pkg, "")
			for _, d := range in {
				evs = tr.apply(evs, d)
			}
		}
		checkDamaged(t, evs, titles, real, damaged)
	})
}

// checkDamaged is what FuzzTrackerDamage and FuzzUntitledBlocks hold a damaged run's events
// to: no window but the app's (untitled rows are the process's window, named after it, where
// no title was to be had), no real frame twice, no more frames than rows and damaged lines went in.
func checkDamaged(t *testing.T, evs []source.Event, titles map[string]bool, real map[int64]bool, damaged int) {
	t.Helper()
	seen := map[int64]bool{}
	n := 0
	for _, e := range evs {
		fr, ok := e.(*source.Frame)
		if !ok {
			continue
		}
		n++
		if !titles[fr.Window] && fr.Window != pkg {
			t.Fatalf("invented window %q", fr.Window)
		}
		if real[fr.VsyncID] && seen[fr.VsyncID] {
			t.Fatalf("frame %d counted twice", fr.VsyncID)
		}
		seen[fr.VsyncID] = true
	}
	if n > len(real)+damaged {
		t.Fatalf("%d frames out of %d rows and %d damaged lines", n, len(real), damaged)
	}
}

// damageLines damages the lines of dump i that ops names: ops is read in pairs (line number
// modulo the dump's lines, what to do), the first byte of a pair also choosing the dump.
func damageLines(d, ops []byte, i, count int) ([]byte, int) {
	lines := bytes.SplitAfter(d, []byte("\n"))
	orig := append([][]byte(nil), lines...)
	for k := 0; k+1 < len(ops); k += 2 {
		if int(ops[k])%3 != i {
			continue
		}
		j := (int(ops[k]) * 7919) % len(lines)
		l := lines[j]
		switch ops[k+1] % 4 {
		case 0:
			l = l[:len(l)/2]
		case 1:
			l = append([]byte(nil), l...)
			if len(l) > 0 {
				l[int(ops[k+1])%len(l)] = ops[k+1] ^ 0x5a
			}
		case 2:
			l = bytes.TrimSuffix(l, []byte("\n"))
		case 3: // the line printed once more (not the damaged copy doubled: that grew 2^n)
			l = append(append([]byte(nil), l...), orig[j]...)
		}
		lines[j] = l
		count += 2
	}
	return bytes.Join(lines, nil), count
}
