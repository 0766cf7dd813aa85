package metrics

import (
	"sort"

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
	blame   Blame
	present PresentTypes
	// unseen counts frames whose jank no user saw (not animating, display off or changing
	// mode): never janky by fpstop's rule.
	unseen int64
}

const sfBits = source.JankSFCPU | source.JankSFGPU | source.JankSFScheduling

// BlameOf names the parties a frame's jank bits blame, in the report's key order.
func BlameOf(jank int64) []string {
	var out []string
	if jank&(source.JankAppDeadline|source.JankAppResynced|source.JankUnknown) != 0 {
		out = append(out, "app")
	}
	if jank&sfBits != 0 {
		out = append(out, "surfaceflinger")
	}
	if jank&source.JankDisplayHAL != 0 {
		out = append(out, "display")
	}
	if jank&source.JankPrediction != 0 {
		out = append(out, "prediction")
	}
	if jank&source.JankBufferStuffing != 0 {
		out = append(out, "buffer_stuffing")
	}
	if jank&source.JankDropped != 0 {
		out = append(out, "dropped")
	}
	return out
}

func (t *timelineTally) add(tl *source.FrameTimeline, blame bool) {
	t.frames++
	if tl.Unseen() {
		t.unseen++
	}
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
	if !blame {
		return
	}
	for _, b := range BlameOf(tl.JankType) {
		switch b {
		case "app":
			t.blame.App++
		case "surfaceflinger":
			t.blame.SurfaceFlinger++
		case "display":
			t.blame.Display++
		case "prediction":
			t.blame.Prediction++
		case "buffer_stuffing":
			t.blame.BufferStuffing++
		case "dropped":
			t.blame.Dropped++
		}
	}
}

// report gives the tally's blame and present types, nil when no frame had a FrameTimeline.
func (t *timelineTally) report() (*Blame, *PresentTypes) {
	if t == nil || t.frames == 0 {
		return nil, nil
	}
	b, p := t.blame, t.present
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
// group with the smallest max is let go (counted in a warning).
type sectionTable struct {
	groups  map[sectionKey]*sectionGroup
	evicted int64
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

// sectionName is the name a section groups under: the Runnable's identity hash and lambda
// index dropped as for Looper messages, and each number that stands as a word (a token, an
// id: "DrawFrames 1234", "fence 17 has signaled") replaced by N, so a section groups with its
// kind. Digits inside a word (an anonymous class "$3", "h264") are kept.
func sectionName(s string) string {
	s = NormalizeCallback(s)
	b := []byte(nil)
	for i := 0; i < len(s); {
		if c := s[i]; c >= '0' && c <= '9' && (i == 0 || !wordByte(s[i-1])) {
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j == len(s) || !wordByte(s[j]) {
				if b == nil {
					b = append(make([]byte, 0, len(s)), s[:i]...)
				}
				b = append(b, 'N')
				i = j
				continue
			}
			if b != nil {
				b = append(b, s[i:j]...)
			}
			i = j
			continue
		}
		if b != nil {
			b = append(b, s[i])
		}
		i++
	}
	if b == nil {
		return s
	}
	return string(b)
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
	k := sectionKey{sectionName(s.Name), s.Thread}
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
		sort.SliceStable(g.worst, func(i, j int) bool { return g.worst[i].Ms > g.worst[j].Ms })
		if len(g.worst) > sectionWorst {
			g.worst = g.worst[:sectionWorst]
		}
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
		t.evicted++
	}
}

// lessSection orders groups for eviction: the smallest slowest first, then the fewest
// occurrences, then by name and thread, so which one goes never depends on map order and the
// report is the same on every run.
func lessSection(a, b *sectionGroup) bool {
	if a.maxMs != b.maxMs {
		return a.maxMs < b.maxMs
	}
	if a.count != b.count {
		return a.count < b.count
	}
	if a.key.name != b.key.name {
		return a.key.name < b.key.name
	}
	return a.key.thread < b.key.thread
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
	sort.Slice(out, func(i, j int) bool {
		if out[i].MaxMs != out[j].MaxMs {
			return out[i].MaxMs > out[j].MaxMs
		}
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Thread < out[j].Thread
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
