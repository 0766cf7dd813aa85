package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestBlameAndPresentTypes: FrameTimeline's jank bits counted per party (a frame with several
// bits under each; run-wide once per process and token; SF_STUFFING alone and the
// non-perceivable kinds under none), present types counted, and a frame no user saw janky or
// not never dropped.
func TestBlameAndPresentTypes(t *testing.T) {
	p := NewPipeline(Config{})
	const T = 16_666_667
	frames := []struct {
		win           string
		jank          int64
		present       int32
		late, same    bool
		noExp, unseen bool
	}{
		{"a", source.JankNone, 1, false, false, false, false},
		{"a", source.JankAppDeadline, 2, true, false, false, false},                         // app
		{"a", source.JankSFCPU | source.JankAppDeadline, 2, true, false, false, false},      // app + surfaceflinger
		{"a", source.JankSFStuffing, 2, false, false, false, false},                         // none
		{"a", source.JankSFStuffing | source.JankSFGPU, 2, false, false, false, false},      // surfaceflinger
		{"a", source.JankBufferStuffing, 2, false, false, false, false},                     // buffer_stuffing
		{"b", source.JankBufferStuffing, 2, false, true, false, false},                      // window b only
		{"a", source.JankDisplayHAL | source.JankPrediction, 3, false, false, false, false}, // display + prediction
		{"a", source.JankDropped, 4, false, false, false, false},                            // dropped
		{"a", source.JankUnknown, 5, true, false, true, false},                              // app, no deadline: 0 dropped
		{"a", source.JankPowerMode, 1, true, false, false, true},                            // unseen: 0 dropped
	}
	v := int64(1_000_000_000)
	for i, fr := range frames {
		cost := int64(10_000_000)
		if fr.late {
			cost = 60_000_000
		}
		f := &source.Frame{Window: fr.win, Process: "app", VsyncNs: v, DoneNs: v + cost, IntervalNs: T,
			DeadlineNs: v + 20_000_000, Timeline: &source.FrameTimeline{Token: int64(100 + i), JankType: fr.jank,
				PresentType: fr.present, SameToken: fr.same, NoExpected: fr.noExp}}
		if fr.noExp {
			f.DeadlineNs = 0
		}
		p.Add(f)
		v += 4 * T
	}
	r := p.Report(ReportMeta{})
	want := Blame{App: 3, SurfaceFlinger: 2, Display: 1, Prediction: 1, BufferStuffing: 1, Dropped: 1}
	if r.Blame == nil || *r.Blame != want {
		t.Errorf("blame %+v, want %+v", r.Blame, want)
	}
	wantP := PresentTypes{OnTime: 2, Late: 6, Early: 1, Dropped: 1, Unknown: 1}
	if r.PresentTypes == nil || *r.PresentTypes != wantP {
		t.Errorf("present types %+v, want %+v", r.PresentTypes, wantP)
	}
	// janky: the two late frames with a deadline (60 ms against a 20 ms budget); the late frame
	// with no expected frame and the unseen one are not
	if r.JankyFrames != 2 {
		t.Errorf("janky %d, want 2", r.JankyFrames)
	}
	for _, w := range r.Windows {
		if w.Name == "b" && (w.Blame == nil || w.Blame.BufferStuffing != 1) {
			t.Errorf("window b blame %+v, want its buffer stuffing frame", w.Blame)
		}
	}
}

// TestSlowSections: sections grouped by name with digits folded, listed from --slow-ms.
func TestSlowSections(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Frame{Window: "w", VsyncNs: 1e9, DoneNs: 1e9 + 5e6, IntervalNs: 16_666_667})
	for i, ms := range []int64{30, 5, 40} {
		s := int64(1e9) + int64(i)*100e6
		p.Add(&source.Section{Thread: "main", Name: "Choreographer#doFrame " + string(rune('1'+i)), StartNs: s, EndNs: s + ms*1e6})
	}
	p.Add(&source.Section{Thread: "main", Name: "inflate", StartNs: 2e9, EndNs: 2e9 + 2e6})
	r := p.Report(ReportMeta{})
	if len(r.SlowSections) != 1 || r.SlowSections[0].Name != "Choreographer#doFrame N" || r.SlowSections[0].Count != 3 ||
		r.SlowSections[0].MaxMs != 40 || r.SlowSections[0].TotalMs != 75 {
		t.Errorf("slow sections %+v", r.SlowSections)
	}
}

func TestSectionName(t *testing.T) {
	for in, want := range map[string]string{
		"Choreographer#doFrame 4000289":                           "Choreographer#doFrame N",
		"DrawFrames 12":                                           "DrawFrames N",
		"GPU completion fence 1101 has signaled":                  "GPU completion fence N has signaled",
		"android.os.Handler: com.example.FeedActivity$3@1f2e3d":   "android.os.Handler: com.example.FeedActivity$3",
		"Handler: com.x.Loader$$ExternalSyntheticLambda0@f9bfe4d": "Handler: com.x.Loader$$ExternalSyntheticLambda",
		"h264 decode": "h264 decode",
		"traversal":   "traversal",
	} {
		if got := SectionName(in); got != want {
			t.Errorf("SectionName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSectionEvictionDeterministic: among groups with the same slowest section, the one evicted
// is chosen by count, then name and thread, never by map order (a report past the table's limit
// must be the same on every run).
func TestSectionEvictionDeterministic(t *testing.T) {
	for run := 0; run < 50; run++ {
		tab := &sectionTable{groups: map[sectionKey]*sectionGroup{}}
		for _, k := range []sectionKey{{"measure", "main"}, {"draw", "main"}, {"layout", "main"}, {"draw", "RenderThread"}} {
			tab.groups[k] = &sectionGroup{key: k, count: 2, maxMs: 5}
		}
		tab.groups[sectionKey{"inflate", "main"}] = &sectionGroup{key: sectionKey{"inflate", "main"}, count: 1, maxMs: 5}
		tab.evictLeast()
		if _, ok := tab.groups[sectionKey{"inflate", "main"}]; ok {
			t.Fatal("the group with the fewest occurrences was kept")
		}
		tab.evictLeast()
		if _, ok := tab.groups[sectionKey{"draw", "RenderThread"}]; ok || len(tab.groups) != 3 {
			t.Fatalf("run %d: evicted the wrong group; left %v", run, tab.groups)
		}
	}
}
