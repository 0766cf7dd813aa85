package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestAggLevels checks agg's per-level counter array against DropLevels.add, the plain
// computation it replaces.
func TestAggLevels(t *testing.T) {
	a := newAgg(8)
	var want DropLevels
	for i := 0; i < 200; i++ {
		l := Levels[(i*7+i/3)%len(Levels)]
		a.add(&frameFacts{level: l, displayNs: 16_666_667, interval: 16_666_667}, int64(i/10), int64(i+1)*16_666_667)
		want.add(l)
	}
	if got := a.dropLevels(); got != want {
		t.Fatalf("dropLevels = %+v, want %+v", got, want)
	}
}

// TestWindowProcess: interleaved windows stay apart, and a window first named without a
// process takes the one a later frame gives.
func TestWindowProcess(t *testing.T) {
	const T = 16_666_667
	p := NewPipeline(Config{})
	names := []string{"a/Main", "b/Other", "a/Main2"}
	for i := 0; i < 600; i++ {
		name := names[(i/7+i/50)%len(names)]
		proc := ""
		if i > 20 {
			proc = "proc." + name[:1]
		}
		v := int64(1+i) * T
		p.Add(&source.Frame{Window: name, Process: proc, VsyncNs: v, DoneNs: v + int64(5+i%30)*1e6, IntervalNs: T})
	}
	shared := p.Report(ReportMeta{})
	if len(shared.Windows) != 3 {
		t.Fatalf("%d windows, want 3", len(shared.Windows))
	}
	for _, w := range shared.Windows {
		if w.Process != "proc."+w.Name[:1] || w.Frames == 0 {
			t.Errorf("window %q: process %q, %d frames", w.Name, w.Process, w.Frames)
		}
	}
	// one window throughout: its process is given by its third frame
	p = NewPipeline(Config{})
	for i := 0; i < 10; i++ {
		proc := ""
		if i >= 2 {
			proc = "proc"
		}
		v := int64(1+i) * T
		p.Add(&source.Frame{Window: "solo", Process: proc, VsyncNs: v, DoneNs: v + 5e6, IntervalNs: T})
	}
	if r := p.Report(ReportMeta{}); len(r.Windows) != 1 || r.Windows[0].Process != "proc" {
		t.Errorf("one window named without a process, then with one: %+v", r.Windows)
	}
}

// add counts one frame of level l: the plain count that agg's levels array (indexed by level,
// no switch) keeps on the frame path; TestAggLevels holds that against this.
func (d *DropLevels) add(l Level) {
	switch l {
	case LevelNormal:
		d.Normal++
	case LevelMiddle:
		d.Middle++
	case LevelHigh:
		d.High++
	case LevelFrozen:
		d.Frozen++
	default:
		d.Best++
	}
}
