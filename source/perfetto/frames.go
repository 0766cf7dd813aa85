package perfetto

import (
	"strings"

	"github.com/fpstop/fpstop/source"
)

// joiner turns FrameTimeline slices and atrace sections into fpstop frames: each app frame is
// its actual surface frame (start → max(GPU done, post)) measured against its expected one
// (intended vsync → deadline), with SurfaceFlinger's verdict and the sections that ran in it.
// Frames are held back briefly (releaseDelayNs of trace time past their end, a few refresh
// periods at any rate a display runs) so that their expected frame, their display frame's
// present and the sections of other threads that overlapped them have arrived.
type joiner struct {
	p    *Parser
	emit func(source.Event)
	pkg  string

	expected map[pidToken]expectedFrame
	// presents maps a display frame's token to its present (the end of SurfaceFlinger's actual
	// display frame), for the surface frames shown in it
	presents map[int64]int64
	ready    []*TimelineSlice // actual surface frames waiting for release, in end order
	sections map[int32]*sectionRing
	apps     map[int32]bool // processes with app frames (their sections are reported)
	tokens   map[pidToken]bool
	now      int64
	lastAge  int64
	period   periodLearner
	sentHz   float64
	// session is re-sent once, named after the first app with frames, when -p did not name one
	session *source.Session
	named   bool

	// counts for the end-of-input notices
	frames, unfinished, noExpected, otherProcs, displayFrames int
	// orphans: the app's expected frames no actual frame came for (the first at orphanFirst)
	orphans     int
	orphanFirst int64
	fb          fallback
}

// expectedFrame is an app's expected surface frame; used says an actual frame came for it.
type expectedFrame struct {
	start, end   int64
	wanted, used bool
}

const (
	releaseDelayNs  = 100_000_000
	expectedAgeNs   = 10_000_000_000
	sectionRingSize = 4096
	maxSectionProcs = 512
	maxFrameSects   = 8
	// maxPresents bounds the display frames remembered (a few seconds' worth is needed; the
	// aging above keeps ten)
	maxPresents = 1 << 14
)

func newJoiner(p *Parser, pkg string, emit func(source.Event)) *joiner {
	return &joiner{p: p, pkg: pkg, emit: emit, expected: map[pidToken]expectedFrame{}, presents: map[int64]int64{},
		sections: map[int32]*sectionRing{}, apps: map[int32]bool{}, tokens: map[pidToken]bool{}}
}

// wanted reports whether a process's frames are reported (-p, when given, names the app).
func (j *joiner) wanted(pid int32, layer string) bool {
	if j.pkg == "" {
		return true
	}
	name := j.p.ProcessName(pid)
	return name == j.pkg || strings.HasPrefix(name, j.pkg+":") || strings.HasPrefix(layerWindow(layer), j.pkg+"/")
}

func (j *joiner) timeline(s *TimelineSlice) {
	switch s.Kind {
	case ExpectedSurface:
		if s.Dur >= 0 {
			j.expected[pidToken{s.Pid, s.Token}] = expectedFrame{start: s.Ts, end: s.Ts + s.Dur, wanted: j.wanted(s.Pid, s.Layer)}
		}
	case ActualSurface:
		if !j.wanted(s.Pid, s.Layer) {
			j.otherProcs++
			return
		}
		if s.Dur < 0 {
			j.unfinished++
			return
		}
		j.apps[s.Pid] = true
		j.ready = append(j.ready, s)
	case ActualDisplay:
		j.displayFrames++
		if _, seen := j.presents[s.Token]; !seen && s.Dur >= 0 && s.PresentType != PresentDropped && len(j.presents) < maxPresents {
			j.presents[s.Token] = s.Ts + s.Dur
		}
	case ExpectedDisplay:
		j.period.add(s.Ts)
	}
}

// advance releases the frames whose time has come and forgets old expected frames.
func (j *joiner) advance(ts int64) {
	if ts > j.now {
		j.now = ts
	}
	n := 0
	for n < len(j.ready) && j.ready[n].Ts+j.ready[n].Dur+releaseDelayNs <= j.now {
		j.release(j.ready[n])
		j.ready[n] = nil
		n++
	}
	if n > 0 {
		j.ready = j.ready[n:]
	}
	if j.now-j.lastAge > expectedAgeNs {
		j.lastAge = j.now
		for k, e := range j.expected {
			if e.end < j.now-expectedAgeNs {
				j.forget(e)
				delete(j.expected, k)
			}
		}
		for k, at := range j.presents {
			if at < j.now-expectedAgeNs {
				delete(j.presents, k)
			}
		}
		for k := range j.tokens {
			delete(j.tokens, k)
		}
	}
}

// release makes the frame event of one actual surface frame.
func (j *joiner) release(a *TimelineSlice) {
	key := pidToken{a.Pid, a.Token}
	exp, ok := j.expected[key]
	if ok && !exp.used {
		exp.used = true
		j.expected[key] = exp
	}
	end := a.Ts + a.Dur
	tl := &source.FrameTimeline{Token: a.Token, DisplayToken: a.DisplayToken, Layer: a.Layer,
		PresentType: a.PresentType, JankType: a.JankType, OnTimeFinish: a.OnTimeFinish,
		Prediction: a.PredictionType, NoExpected: !ok, SameToken: j.tokens[key]}
	j.tokens[key] = true
	j.nameSession(a.Pid)
	f := &source.Frame{Window: layerWindow(a.Layer), Process: j.p.ProcessName(a.Pid),
		DoneNs: j.p.ToMono(end), VsyncID: a.Token, Timeline: tl}
	if f.Window == "" {
		f.Window = f.Process
	}
	from := a.Ts
	if ok {
		f.VsyncNs, f.DeadlineNs = j.p.ToMono(exp.start), j.p.ToMono(exp.end)
		if a.Ts != exp.start {
			f.StartVsyncNs = j.p.ToMono(a.Ts)
		}
		from = min(from, exp.start)
	} else {
		j.noExpected++
		f.VsyncNs = j.p.ToMono(a.Ts)
	}
	f.Phases = &source.Phases{GpuCompleted: f.DoneNs}
	if at, ok := j.presents[a.DisplayToken]; ok && a.PresentType != PresentDropped {
		// shown, not counted: drops are app-side (DESIGN §4b); what the display did on top is
		// blame and present_types
		f.PresentNs = j.p.ToMono(at)
		f.Phases.DisplayPresentTime = f.PresentNs
	}
	j.interval(f)
	f.Sections = j.frameSections(a.Pid, a.Token, from, end)
	j.frames++
	j.emit(f)
}

// nameSession names the session's app after the first process with frames (a trace records
// every app; -p, when given, has named it already).
func (j *joiner) nameSession(pid int32) {
	if j.named || j.session == nil || j.pkg != "" {
		return
	}
	j.named = true
	if name := j.p.ProcessName(pid); !strings.HasPrefix(name, "pid ") {
		s := *j.session
		s.Package = name
		j.emit(&s)
	}
}

// interval gives a frame the display period learned so far, and says when the rate changes.
func (j *joiner) interval(f *source.Frame) {
	t := j.period.period()
	if t <= 0 {
		return
	}
	f.IntervalNs = t
	if hz := float64(int64(1e9/float64(t) + 0.5)); hz != j.sentHz {
		j.sentHz = hz
		j.emit(&source.Refresh{AtNs: f.VsyncNs, Hz: hz})
	}
}

// layerWindow names the window a layer shows: "TX - pkg/Activity#0" → "pkg/Activity" (the
// title gfxinfo prints for the same window).
func layerWindow(layer string) string {
	w := strings.TrimPrefix(layer, "TX - ")
	if i := strings.LastIndexByte(w, '#'); i > 0 && isDigits(w[i+1:]) {
		w = w[:i]
	}
	return w
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sectionRing keeps a process's recently closed sections (trace clock).
type sectionRing struct {
	s       []*Slice
	next    int // where the next section goes once the ring is full (its oldest)
	scratch []*Slice
}

func (r *sectionRing) add(s *Slice) {
	if len(r.s) < sectionRingSize {
		r.s = append(r.s, s)
		return
	}
	r.s[r.next] = s
	r.next = (r.next + 1) % sectionRingSize
}

// sinceMarginNs: sections reach the ring in the order they end, but for events the sort
// window let through late; a scan for those ending after t looks this much further back.
const sinceMarginNs = 100_000_000

// since lists the ring's sections that ended at or after t (and those just before, see
// sinceMarginNs), newest first: a frame looks only at the sections that can overlap it.
func (r *sectionRing) since(t int64) []*Slice {
	r.scratch = r.scratch[:0]
	n := len(r.s)
	for i := 0; i < n; i++ {
		s := r.s[(r.next-1-i+2*n)%n]
		if s.EndNs < t {
			break
		}
		r.scratch = append(r.scratch, s)
	}
	return r.scratch
}

// slice takes a closed atrace section: kept for joining to frames, and reported (as a
// Section event) when it belongs to an app whose frames are reported.
func (j *joiner) slice(s *Slice) {
	if s.EndNs < 0 || s.Async {
		return
	}
	if !j.p.SawFrameTimeline {
		j.fallbackSection(s)
	}
	r := j.sections[s.Pid]
	if r == nil {
		if len(j.sections) >= maxSectionProcs {
			return
		}
		r = &sectionRing{}
		j.sections[s.Pid] = r
	}
	r.add(s)
	if j.apps[s.Pid] || (j.pkg != "" && j.wanted(s.Pid, "")) {
		j.emit(&source.Section{Pid: int(s.Pid), Tid: int(s.Tid), Thread: j.p.ThreadName(s.Pid, s.Tid),
			Name: s.Name, Depth: s.Depth, StartNs: j.p.ToMono(s.StartNs), EndNs: j.p.ToMono(s.EndNs)})
	}
}

// frameSections lists the slowest sections that ran in a frame: the main thread's
// Choreographer#doFrame <token> and RenderThread's DrawFrames <token> subtrees whole (they are
// the frame's own work, found by token wherever they nest), and every other section of the
// process that overlapped the frame [from, to], clipped to it. The work per frame is bounded
// by the ring whatever the sections hold: a frame has at most maxOwnSects sections of its own
// (a trace repeating one token thousands of times made this cubic), and only the slowest
// maxFrameSects are kept as they are found, never the whole list sorted.
func (j *joiner) frameSections(pid int32, token, from, to int64) *source.FrameSections {
	r := j.sections[pid]
	if r == nil {
		return nil
	}
	type own struct {
		tid        int32
		start, end int64
	}
	var owns [maxOwnSects]own
	n := 0
	recent := r.since(from - sinceMarginNs)
	for _, s := range recent {
		if n == maxOwnSects {
			break
		}
		if t, ok := FrameToken(s.Name, "Choreographer#doFrame "); ok && t == token {
			owns[n] = own{s.Tid, s.StartNs, s.EndNs}
			n++
		} else if t, ok := FrameToken(s.Name, "DrawFrames "); ok && t == token {
			owns[n] = own{s.Tid, s.StartNs, s.EndNs}
			n++
		}
	}
	// the frame's own work (inside its doFrame and DrawFrames) is kept whatever else overlapped
	// it: other frames' clipped sections and messages fill the places left
	var top, others topSections
	for _, s := range recent {
		start, end := s.StartNs, s.EndNs
		whole := false
		for _, o := range owns[:n] {
			if s.Tid == o.tid && start >= o.start && end <= o.end {
				whole = true
				break
			}
		}
		if !whole {
			start, end = max(start, from), min(end, to)
		}
		into := &others
		if whole {
			into = &top
		}
		if end <= start || !into.wants(end-start, s.Depth) {
			continue
		}
		into.add(source.FrameSection{Name: s.Name, Thread: j.p.ThreadName(s.Pid, s.Tid),
			Depth: s.Depth, StartNs: j.p.ToMono(start), DurNs: end - start})
	}
	for _, s := range others {
		if len(top) == maxFrameSects {
			break
		}
		top.add(s)
	}
	if len(top) == 0 {
		return nil
	}
	out := source.FrameSections(top)
	return &out
}

// maxOwnSects bounds the sections a frame takes as its own by token (one doFrame and one
// DrawFrames, with room for a doubled section).
const maxOwnSects = 4

// topSections keeps the maxFrameSects slowest sections, slowest first (equal times: the
// shallower first, then the one found first).
type topSections []source.FrameSection

// before reports whether a section of (dur, depth) sorts after x (it goes behind it).
func sortsAfter(x source.FrameSection, dur int64, depth int) bool {
	return x.DurNs > dur || (x.DurNs == dur && x.Depth <= depth)
}

// wants reports whether a section of (dur, depth) would be kept.
func (t topSections) wants(dur int64, depth int) bool {
	return len(t) < maxFrameSects || !sortsAfter(t[len(t)-1], dur, depth)
}

func (t *topSections) add(s source.FrameSection) {
	i := len(*t)
	for i > 0 && !sortsAfter((*t)[i-1], s.DurNs, s.Depth) {
		i--
	}
	if len(*t) < maxFrameSects {
		*t = append(*t, source.FrameSection{})
	}
	copy((*t)[i+1:], (*t)[i:])
	(*t)[i] = s
}

// finish releases every frame still held, then looks at the expected frames left.
func (j *joiner) finish() {
	for _, a := range j.ready {
		j.release(a)
	}
	j.ready = nil
	for k, e := range j.expected {
		j.forget(e)
		delete(j.expected, k)
	}
}

// forget lets an expected frame go; one of the app's that no actual frame came for is a frame
// SurfaceFlinger expected and the app never produced (DESIGN §4a: the app was stuck), counted
// for the end-of-input notice with the first and the longest stretch of them.
func (j *joiner) forget(e expectedFrame) {
	if !e.wanted || e.used {
		return
	}
	j.orphans++
	if j.orphanFirst == 0 || e.start < j.orphanFirst {
		j.orphanFirst = e.start
	}
}
