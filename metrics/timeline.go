package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// What a Perfetto trace adds to a frame (DESIGN §4b): SurfaceFlinger's verdict on who missed
// (blame), how each frame was presented, and the atrace sections that ran in it.

// Blame counts frames by who SurfaceFlinger's FrameTimeline says missed: every actual surface
// frame whose jank bits name the party counts once under it (a frame with several bits under
// each), whether or not fpstop's own rule calls it janky — as Perfetto's
// android_frame_timeline_metric counts.
type Blame struct {
	// App: the app missed its deadline (APP_DEADLINE_MISSED, APP_RESYNCED_JITTER, UNKNOWN).
	App int64 `json:"app"`
	// SurfaceFlinger: SurfaceFlinger missed its CPU or GPU deadline or scheduled late
	// (SF_STUFFING counts only with one of those).
	SurfaceFlinger int64 `json:"surfaceflinger"`
	// Display: the display HAL presented late.
	Display int64 `json:"display"`
	// Prediction: the vsync prediction was wrong.
	Prediction int64 `json:"prediction"`
	// BufferStuffing: late only because earlier frames filled the buffer queue.
	BufferStuffing int64 `json:"buffer_stuffing"`
	// Dropped: SurfaceFlinger dropped the frame (jank type DROPPED).
	Dropped int64 `json:"dropped"`
}

// PresentTypes counts frames by how SurfaceFlinger presented them.
type PresentTypes struct {
	OnTime  int64 `json:"on_time"`
	Late    int64 `json:"late"`
	Early   int64 `json:"early"`
	Dropped int64 `json:"dropped"`
	Unknown int64 `json:"unknown"`
}

// timelineTally is one scope's (the run's, a window's) FrameTimeline counts.
type timelineTally struct {
	frames  int64
	blame   [len(blameParties)]int64 // frames per party, in blameParties' order
	present PresentTypes
}

// blameParties are the parties FrameTimeline's jank bits blame, in the report's key order.
var blameParties = [...]struct {
	name string
	bits int64
}{
	{"app", source.JankAppDeadline | source.JankAppResynced | source.JankUnknown},
	{"surfaceflinger", source.JankSFCPU | source.JankSFGPU | source.JankSFScheduling},
	{"display", source.JankDisplayHAL},
	{"prediction", source.JankPrediction},
	{"buffer_stuffing", source.JankBufferStuffing},
	{"dropped", source.JankDropped},
}

// BlameOf names the parties a frame's jank bits blame, in the report's key order.
func BlameOf(jank int64) []string {
	var out []string
	for _, b := range blameParties {
		if jank&b.bits != 0 {
			out = append(out, b.name)
		}
	}
	return out
}

func (t *timelineTally) add(tl *source.FrameTimeline, blame bool) {
	t.frames++
	switch tl.PresentType {
	case 1:
		t.present.OnTime++
	case 2:
		t.present.Late++
	case 3:
		t.present.Early++
	case 4:
		t.present.Dropped++
	default:
		t.present.Unknown++
	}
	for i, b := range blameParties {
		if blame && tl.JankType&b.bits != 0 {
			t.blame[i]++
		}
	}
}

// report gives the tally's blame and present types, nil when no frame had a FrameTimeline.
func (t *timelineTally) report() (*Blame, *PresentTypes) {
	if t == nil || t.frames == 0 {
		return nil, nil
	}
	c := t.blame
	b := Blame{App: c[0], SurfaceFlinger: c[1], Display: c[2], Prediction: c[3], BufferStuffing: c[4], Dropped: c[5]}
	p := t.present
	return &b, &p
}

// addTimeline counts a trace frame's FrameTimeline verdict, run-wide (one per process and
// token) and for its window (every frame).
func (p *Pipeline) addTimeline(f *source.Frame, w *windowState) {
	tl := f.Timeline
	if p.timeline == nil {
		p.timeline = &timelineTally{}
	}
	if w.timeline == nil {
		w.timeline = &timelineTally{}
	}
	p.timeline.add(tl, !tl.SameToken)
	w.timeline.add(tl, true)
}

// FrameSectionReport is one atrace section that ran in a frame.
type FrameSectionReport struct {
	Name   string `json:"name"`
	Thread string `json:"thread,omitempty"`
	Depth  int    `json:"depth"`
	Ms     R2     `json:"ms"`
}

func frameSections(f *source.Frame) []FrameSectionReport {
	if f.Sections == nil || len(*f.Sections) == 0 {
		return nil
	}
	out := make([]FrameSectionReport, 0, len(*f.Sections))
	for _, s := range *f.Sections {
		out = append(out, FrameSectionReport{Name: s.Name, Thread: s.Thread, Depth: s.Depth, Ms: R2(float64(s.DurNs) / 1e6)})
	}
	return out
}

// SlowSectionReport is one atrace section name (digits folded: "Choreographer#doFrame N")
// with its occurrences, as slow messages are listed.
type SlowSectionReport struct {
	Name    string       `json:"name"`
	Thread  string       `json:"thread"`
	Count   int64        `json:"count"`
	MaxMs   R2           `json:"max_ms"`
	TotalMs R2           `json:"total_ms"`
	Worst   []Occurrence `json:"worst"`
}

// sectionTable groups sections by (folded name, thread). Bounded: past maxSectionNames the
// group with the smallest max is let go.
type sectionTable struct {
	groups map[sectionKey]*sectionGroup
}

type sectionKey struct{ name, thread string }

type sectionGroup struct {
	key          sectionKey
	count        int64
	maxMs, total float64
	worst        []Occurrence
}

const (
	maxSectionNames = 1000
	sectionWorst    = 5
)

// SectionName is the name a section groups under: the Runnable's identity hash and lambda
// index dropped as for Looper messages, and each number that stands as a word (a token, an
// id: "DrawFrames 1234", "fence 17 has signaled") replaced by N, so a section groups with its
// kind. Digits inside a word (an anonymous class "$3", "h264") are kept.
func SectionName(s string) string {
	s = NormalizeCallback(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i // s[i:j] is a word (a Java identifier's bytes), or the one byte between words
		for j < len(s) && wordByte(s[j]) {
			j++
		}
		switch {
		case j == i:
			j++
			b.WriteString(s[i:j])
		case strings.Trim(s[i:j], "0123456789") == "":
			b.WriteByte('N')
		default:
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '$' || c == '_'
}

func (p *Pipeline) addSection(s *source.Section) {
	if s.EndNs < s.StartNs {
		p.warn.add("sections with impossible times ignored")
		return
	}
	t := p.sections
	if t == nil {
		t = &sectionTable{groups: map[sectionKey]*sectionGroup{}}
		p.sections = t
	}
	k := sectionKey{SectionName(s.Name), s.Thread}
	g := t.groups[k]
	ms := float64(s.EndNs-s.StartNs) / 1e6
	if g == nil {
		if len(t.groups) >= maxSectionNames {
			t.evictLeast()
		}
		g = &sectionGroup{key: k}
		t.groups[k] = g
	}
	g.count++
	g.total += ms
	g.maxMs = max(g.maxMs, ms)
	start := float64(s.StartNs-p.originNs) / 1e6
	if !p.hasOrigin {
		start = 0
	}
	if len(g.worst) < sectionWorst || ms > float64(g.worst[len(g.worst)-1].Ms) {
		g.worst = append(g.worst, Occurrence{StartMs: R2(start), Ms: R2(ms)})
		slices.SortStableFunc(g.worst, func(a, b Occurrence) int { return cmp.Compare(b.Ms, a.Ms) })
		g.worst = g.worst[:min(len(g.worst), sectionWorst)]
	}
}

func (t *sectionTable) evictLeast() {
	var least *sectionGroup
	for _, g := range t.groups {
		if least == nil || lessSection(g, least) {
			least = g
		}
	}
	if least != nil {
		delete(t.groups, least.key)
	}
}

// lessSection orders groups for eviction: the smallest slowest first, then the fewest
// occurrences, then by name and thread, so which one goes never depends on map order and the
// report is the same on every run.
func lessSection(a, b *sectionGroup) bool {
	return cmp.Or(cmp.Compare(a.maxMs, b.maxMs), cmp.Compare(a.count, b.count),
		cmp.Compare(a.key.name, b.key.name), cmp.Compare(a.key.thread, b.key.thread)) < 0
}

// slowSections lists the section groups whose slowest reached slowMs, slowest first.
func (p *Pipeline) slowSections(slowMs float64, limit int) []SlowSectionReport {
	out := []SlowSectionReport{}
	if p.sections == nil {
		return out
	}
	for _, g := range p.sections.groups {
		if g.maxMs >= slowMs {
			out = append(out, SlowSectionReport{Name: g.key.name, Thread: g.key.thread, Count: g.count,
				MaxMs: R2(g.maxMs), TotalMs: R2(g.total), Worst: append([]Occurrence{}, g.worst...)})
		}
	}
	slices.SortFunc(out, func(a, b SlowSectionReport) int {
		return cmp.Or(cmp.Compare(b.MaxMs, a.MaxMs), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Thread, b.Thread))
	})
	return out[:min(len(out), limit)]
}
