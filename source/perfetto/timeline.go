package perfetto

// TimelineSlice is one FrameTimeline slice as trace_processor's expected_frame_timeline_slice
// and actual_frame_timeline_slice tables hold it: a start paired with its end by cookie, in
// the trace's own clock. Dur is -1 for a slice that never ended.
type TimelineSlice struct {
	Ts, Dur int64
	ftStart
	// order is the start's position in time order (ties in Ts keep it).
	order uint64
}

// Surface reports whether the slice is an app's (surface) frame, not SurfaceFlinger's.
func (s *TimelineSlice) Surface() bool { return s.Kind == ExpectedSurface || s.Kind == ActualSurface }

// Expected reports whether the slice is on the expected timeline.
func (s *TimelineSlice) Expected() bool {
	return s.Kind == ExpectedSurface || s.Kind == ExpectedDisplay
}

// pairer pairs FrameTimeline starts and ends by cookie, the rules trace_processor applies
// (frame_timeline_event_parser.cc): one cookie map for every timeline; a start that reuses an
// open cookie takes it over and leaves the earlier slice unfinished; an expected surface
// frame whose (pid, token) was seen before is dropped, actual ones never are. Memory is bounded:
// open slices and remembered tokens past their caps are let go oldest first.
type pairer struct {
	open      map[int64]*TimelineSlice
	expSeen   map[pidToken]int64 // → ts of the first expected frame, for pruning
	order     uint64
	emit      func(*TimelineSlice)
	Unpaired  int // ends with no open start
	Evicted   int // open slices let go (unfinished) to bound memory
	lastPrune int64
}

type pidToken struct {
	pid   int32
	token int64
}

const (
	maxOpenSlices = 1 << 14
	maxSeenTokens = 1 << 16
	tokenMemoryNs = 30_000_000_000
)

func newPairer(emit func(*TimelineSlice)) *pairer {
	return &pairer{open: map[int64]*TimelineSlice{}, expSeen: map[pidToken]int64{}, emit: emit}
}

func (p *pairer) start(ts int64, s *ftStart) {
	if s.Kind == ExpectedSurface {
		k := pidToken{s.Pid, s.Token}
		if _, dup := p.expSeen[k]; dup {
			// the cookie is claimed even so (its end then closes nothing)
			p.claim(s.Cookie, nil)
			return
		}
		p.expSeen[k] = ts
		p.prune(ts)
	}
	sl := &TimelineSlice{Ts: ts, Dur: -1, ftStart: *s, order: p.order}
	p.order++
	p.claim(s.Cookie, sl)
}

// claim gives the cookie to sl; a slice still open under it stays unfinished.
func (p *pairer) claim(cookie int64, sl *TimelineSlice) {
	if old, ok := p.open[cookie]; ok && old != nil {
		p.emit(old)
	}
	if len(p.open) >= maxOpenSlices {
		p.evictOldest()
	}
	p.open[cookie] = sl
}

func (p *pairer) end(ts int64, cookie int64) {
	sl, ok := p.open[cookie]
	if !ok {
		p.Unpaired++
		return
	}
	delete(p.open, cookie)
	if sl == nil {
		return
	}
	sl.Dur = ts - sl.Ts
	p.emit(sl)
}

func (p *pairer) evictOldest() {
	var oldK int64
	var old *TimelineSlice
	found := false
	for k, s := range p.open {
		if !found || (s != nil && (old == nil || s.order < old.order)) {
			oldK, old, found = k, s, true
		}
	}
	delete(p.open, oldK)
	if old != nil {
		p.Evicted++
		p.emit(old)
	}
}

// prune forgets expected tokens older than tokenMemoryNs (a token is a vsync id: it is not
// reused within a trace, and duplicates arrive within a frame or two).
func (p *pairer) prune(now int64) {
	if len(p.expSeen) < maxSeenTokens && now-p.lastPrune < tokenMemoryNs {
		return
	}
	p.lastPrune = now
	for k, t := range p.expSeen {
		if now-t > tokenMemoryNs || len(p.expSeen) >= maxSeenTokens {
			delete(p.expSeen, k)
		}
	}
}

// finish emits every slice still open (the trace ended before their ends).
func (p *pairer) finish() {
	for len(p.open) > 0 {
		before := len(p.open)
		p.evictOldest()
		if len(p.open) == before {
			break
		}
	}
	p.Evicted = 0
}

// Jank type bits (FrameTimelineEvent.JankType in the trace proto — not JankInfo.h).
const (
	JankNone           = 1
	JankSFScheduling   = 2
	JankPrediction     = 4
	JankDisplayHAL     = 8
	JankSFCPU          = 16
	JankSFGPU          = 32
	JankAppDeadline    = 64
	JankBufferStuffing = 128
	JankUnknown        = 256
	JankSFStuffing     = 512
	JankDropped        = 1024
	JankNonAnimating   = 2048
	JankAppResynced    = 4096
	JankDisplayNotOn   = 8192
	JankModeChange     = 16384
	JankPowerMode      = 32768

	// JankUnseen is the jank a user never saw: nothing animated, the display was off or
	// changing mode ("Non-perceivable Jank").
	JankUnseen = JankNonAnimating | JankDisplayNotOn | JankModeChange | JankPowerMode
	// JankSelf is a surface frame's own jank (the app's), JankDisplay a display frame's.
	JankSelf    = JankAppDeadline | JankAppResynced | JankUnknown
	JankDisplay = JankSFScheduling | JankPrediction | JankDisplayHAL | JankSFCPU | JankSFGPU
)

// Present types.
const (
	PresentOnTime  = 1
	PresentLate    = 2
	PresentEarly   = 3
	PresentDropped = 4
	PresentUnknown = 5
)

// SeverityString names the jank severity (a trace without the field: "None" for no jank,
// else "Unknown").
func (s *ftStart) SeverityString() string {
	switch s.Severity {
	case -1:
		if s.JankType == JankNone {
			return "None"
		}
		return "Unknown"
	case 1:
		return "None"
	case 2:
		return "Partial"
	case 3:
		return "Full"
	}
	return "Unknown"
}

// JankTag is trace_processor's jank tag of an actual frame: whose jank it was.
func (s *ftStart) JankTag() string {
	j := s.JankType
	switch {
	case j == 0:
		return "Unspecified"
	case j&JankUnseen != 0:
		return "Non-perceivable Jank"
	}
	if s.Kind == ActualSurface {
		switch {
		case j&JankSelf != 0:
			return "Self Jank"
		case j&JankDisplay != 0:
			return "Other Jank"
		case j == JankBufferStuffing:
			return "Buffer Stuffing"
		case s.PresentType == PresentDropped:
			return "Dropped Frame"
		}
		return "No Jank"
	}
	switch {
	case j&JankDisplay != 0:
		return "Self Jank"
	case j == JankSFStuffing:
		return "SurfaceFlinger Stuffing"
	case j == JankDropped:
		return "Dropped Frame"
	}
	return "No Jank"
}
