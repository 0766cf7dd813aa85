package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/fpstop/fpstop/source"
)

// Snapshot returns an immutable copy of the state for the screen.
func (p *Pipeline) Snapshot() *Snapshot {
	s := &Snapshot{
		Seq: p.seq, Session: p.session, State: p.state, StateText: source.Visible(p.stateText),
		OriginNs: p.originNs, NowNs: p.endNs, RefreshHz: p.shownHz(),
		TargetFPS: p.cfg.TargetFPS, SlowMs: p.SlowMs(), SliceNs: p.cfg.SliceNs,
		DropThresholds: Thresholds(p.cfg.DropLevels, RateHz(p.currentInterval())),
		Paired:         p.msgs.paired, Unpaired: p.msgs.unpaired, Skipped: p.msgs.skipped,
		SlowLooper: p.msgs.slowList(), FramesLost: p.framesLost, LostKnown: p.lostKnown,
		Warnings: p.warn.list(),
	}
	s.State, s.Busy, s.StateForNs = p.State()
	if s.TargetFPS <= 0 {
		s.TargetFPS = AutoTarget(float64(RateHz(p.currentInterval())))
	}
	if l := p.layers[p.session.Layer]; l != nil && l.cadence > 0 && l.periodNs > 0 {
		// the measured layer's frames are judged at its own pace (DESIGN §4a): so are the
		// thresholds the screen labels its levels with, and the target its rate is coloured
		// against (a 60 fps game on a 120 Hz screen against 55, not 110)
		if p.session.Layer != "" {
			s.DropPaceFPS = l.paceFPS()
			s.DropThresholds = Thresholds(p.cfg.DropLevels, RateHz(l.periodNs*l.cadence))
		}
		if p.cfg.TargetFPS <= 0 {
			s.TargetFPS = AutoTarget(l.paceFPS())
		}
	}
	openIdx := int64(-1) // slices since an open main-thread dispatch began are frozen, not idle
	if p.main.open != nil && p.endNs-p.main.openAt >= frozenAfterNs {
		openIdx = max(0, (p.main.openAt-p.originNs)/p.cfg.SliceNs)
	}
	s.Series, s.Totals = p.seriesTotals(p.total, openIdx)
	s.Histogram = p.total.histogram()

	for _, w := range p.sortedWindows() {
		ws := WindowSnapshot{Name: w.name, Process: w.process, Visible: w.visible, LastNs: w.agg.lastFrameNs,
			Histogram: w.agg.histogram()}
		ws.Series, ws.Totals = p.seriesTotals(w.agg, openIdx)
		ws.Blame, _ = w.timeline.report()
		s.Windows = append(s.Windows, ws)
	}

	s.Recent = make([]FramePoint, 0, p.rlen)
	for i := 0; i < p.rlen; i++ {
		r := &p.recent[(p.rhead-p.rlen+i+len(p.recent))%len(p.recent)]
		s.Recent = append(s.Recent, FramePoint{
			Window: r.window, VsyncNs: r.vsync, CostMs: float64(r.cost) / 1e6,
			IntervalMs: float64(r.interval) / 1e6, Dropped: r.dropped, Level: r.level,
			Phases: splitPhases(r.vsync, r.doneNs, r.phases),
		})
	}

	for _, sg := range p.msgs.listed(s.SlowMs, 200) {
		s.Messages = append(s.Messages, MessageSnapshot{
			Handler: sg.key.handler, Callback: sg.key.callback, What: sg.key.what,
			WhatName: WhatName(sg.key.handler, sg.key.what), Count: sg.count,
			MaxMs: sg.maxMs, TotalMs: sg.totalMs, P95Ms: sg.p95(), LastNs: sg.lastNs,
			Worst: append([]Occurrence(nil), sg.worst...),
		})
	}
	s.Worst = p.worstFrames()
	s.Sections = p.slowSections(s.SlowMs, 200)
	s.Blame, _ = p.timeline.report()
	s.History, s.HistoryDropped = p.hist.view(), p.hist.dropped
	s.Layers = p.layerReports(true)
	s.LayerChoices = p.layerChoicesSnapshot()
	s.LooperHint = p.hasLogcat() && p.msgs.paired+p.msgs.unpaired == 0 && p.endNs-p.originNs > 5e9
	return s
}

// seriesTotals is a's FPS series, the slices from openIdx on frozen (−1: none), and its totals.
func (p *Pipeline) seriesTotals(a *agg, openIdx int64) ([]SlicePoint, Totals) {
	lastIdx, lastLen := p.lastSlice()
	series := a.series(lastIdx, p.cfg.SliceNs, p.originNs, p.cfg.SeriesLen, openIdx)
	return series, a.totals(lastIdx, lastLen, p.cfg.SliceNs, series)
}

// shownHz is the refresh rate the screen and the report show: the device's, else the rate of the
// learned vsync spacing, else 0 (unknown).
func (p *Pipeline) shownHz() float64 {
	if p.refreshHz == 0 && p.learnedT > 0 {
		return float64(RateHz(p.learnedT))
	}
	return p.refreshHz
}

// State is the state a Snapshot taken now would show (live refined to frozen, idle or no
// frames), the busy message and how long the state has lasted — cheap enough to ask after
// every batch, so a freeze can be published the moment it begins.
func (p *Pipeline) State() (state source.State, busy string, forNs int64) {
	state = p.state
	if state == "" && p.hasOrigin {
		state = source.StateLive
	}
	if state == source.StateLive {
		return p.liveState(p.endNs)
	}
	return state, "", 0
}

func (p *Pipeline) worstFrames() []WorstFrame {
	p.attributeAll()
	out := make([]WorstFrame, 0, len(p.worst))
	for _, it := range p.worst {
		msgs := it.msgs
		if msgs == nil {
			msgs = []FrameMessage{}
		}
		out = append(out, WorstFrame{
			Window: it.window, StartMs: R2(float64(it.vsync-p.originNs) / 1e6),
			CostMs: R2(float64(it.cost) / 1e6), Dropped: it.dropped, Messages: msgs,
			Sections: it.sections, Blame: it.blame,
		})
	}
	return out
}

// Report returns the headless report (DESIGN §7). It first releases Looper-derived frames still
// held back while the vsync grid was being learned (the input has ended), and counts the frames
// that started late again against their windows' final budgets (settleLate).
func (p *Pipeline) Report(meta ReportMeta) *Report {
	p.flushLooper()
	p.settleLate()
	lastIdx, lastLen := p.lastSlice()
	a := p.total
	elapsed := p.endNs - p.originNs
	if !p.hasOrigin {
		elapsed = 0
	}
	r := &Report{
		FpstopVersion: meta.Version,
		Source:        string(p.session.Source),
		CostBasis:     p.session.CostBasis,
		Frames:        a.frames,
		JankyFrames:   a.janky,
		JankPct:       P2(a.jankPct()),
		FPS:           P2(a.fps()),
		FPSWall:       P2(a.fpsWall(lastIdx, lastLen, p.cfg.SliceNs)),
		FPSLow1Pct:    P2(a.low1pct()),
		DropLevels:    a.dropLevels(),
		PercentilesMs: a.percentiles(),
		HistogramMs:   a.histogram(),
		FlaggedFrames: a.flagged,
		Messages: MessagesReport{
			Paired: p.msgs.paired, Unpaired: p.msgs.unpaired,
			DurationsKnown: p.msgs.timed > 0,
		},
		SkippedFrames:   p.msgs.skipped,
		SlowLooper:      p.msgs.slowList(),
		SlowLooperTotal: p.msgs.slowTotal,
		WorstFrames:     p.worstFrames(),
		Warnings:        append(p.warn.list(), p.unsettledWarnings()...),
		Windows:         []WindowReport{},
		Layers:          p.layerReports(false),
		Measured:        p.measuredReport(),
		SlowMessages:    []SlowMessageReport{},
	}
	if meta.SourceArg != "" && !(source.Kind(meta.SourceArg).Traced() && p.session.Source.Traced()) {
		// (--source perfetto that took on logcat is named by its session: perfetto+logcat)
		r.Source = meta.SourceArg
	} else if s := measuredSource(r.Measured); s != "" {
		r.Source = s // auto measured the windows and a layer in turn: both sources
	}
	if r.Source == "" {
		r.Source = "unknown"
	}
	if r.CostBasis == "" {
		r.CostBasis = source.CostFrame
	}
	if d := p.session.Device; d.Serial != "" || d.Model != "" || d.Android != "" {
		r.Device = &DeviceReport{Serial: d.Serial, Model: d.Model, Android: d.Android}
	}
	if p.session.Package != "" {
		pkg := p.session.Package
		r.Package = &pkg
	}
	if hz := p.shownHz(); hz > 0 {
		r.RefreshHz = P2(hz)
	}
	if meta.WallNs > 0 {
		r.DurationS = R2(float64(meta.WallNs) / 1e9)
	} else {
		r.DurationS = R2(float64(elapsed) / 1e9)
	}
	r.JankyDeadline, r.JankyLegacy = a.androidJank()
	nonIdle := a.nonIdleNs(lastIdx, lastLen, p.cfg.SliceNs)
	r.PerfDog = PerfDog{Jank: a.jank, BigJank: a.bigJank}
	if elapsed > 0 {
		r.IdleS = R2(float64(elapsed-nonIdle) / 1e9)
		// With several windows drawing at once their frame time adds up: capped at 100 %.
		r.ActivePct = P2(math.Min(100, float64(a.displayNs)*100/float64(elapsed)))
		r.PerfDog.StutterPct = P2(float64(a.stutterN) * 100 / float64(elapsed))
	}
	if p.lostKnown {
		n := p.framesLost
		r.FramesLost = &n
	}
	r.Windows = append(r.Windows, p.windowReports(lastIdx, lastLen)...)
	r.AndroidProcesses = p.processReports()
	r.SlowMessages = append(r.SlowMessages, p.slowMessageReports()...)
	r.Blame, r.PresentTypes = p.timeline.report()
	r.SlowSections = p.slowSections(p.SlowMs(), 50)
	return r
}

// windowReports are the per-window sections of the report, as sortedWindows orders them.
func (p *Pipeline) windowReports(lastIdx, lastLen int64) []WindowReport {
	var out []WindowReport
	for _, w := range p.sortedWindows() {
		wa := w.agg
		wr := WindowReport{
			Name: w.name, Process: w.process, Visible: w.visible, Frames: wa.frames, JankyFrames: wa.janky,
			FPS: P2(wa.fps()), FPSWall: P2(wa.fpsWall(lastIdx, lastLen, p.cfg.SliceNs)),
			JankPct: P2(wa.jankPct()), DropLevels: wa.dropLevels(), PercentilesMs: wa.percentiles(),
			HistogramMs: wa.histogram(),
		}
		wr.JankyDeadline, wr.JankyLegacy = wa.androidJank()
		wr.Blame, wr.PresentTypes = w.timeline.report()
		if s := w.android; s != nil {
			wr.Android = printed(s)
		}
		out = append(out, wr)
	}
	return out
}

// processReports are Android's process-wide summaries as printed, most frames first.
func (p *Pipeline) processReports() []ProcessAndroid {
	out := []ProcessAndroid{}
	for k, s := range p.procAndroid {
		out = append(out, ProcessAndroid{Process: k.name, Pid: k.pid, AndroidPrinted: *printed(s)})
	}
	slices.SortFunc(out, func(a, b ProcessAndroid) int {
		return cmp.Or(cmp.Compare(deref(b.TotalFrames), deref(a.TotalFrames)), cmp.Compare(a.Process, b.Process), cmp.Compare(a.Pid, b.Pid))
	})
	return out
}

// slowMessageReports are the slowest message signatures (at most 50).
func (p *Pipeline) slowMessageReports() []SlowMessageReport {
	var out []SlowMessageReport
	for _, sg := range p.msgs.listed(p.SlowMs(), 50) {
		out = append(out, SlowMessageReport{
			Handler: sg.key.handler, Callback: sg.key.callback, What: sg.key.what,
			WhatName: WhatName(sg.key.handler, sg.key.what), Count: sg.count,
			MaxMs: R2(sg.maxMs), TotalMs: R2(sg.totalMs), P95Ms: R2(sg.p95()),
			Worst: append([]Occurrence{}, sg.worst...),
		})
	}
	return out
}

func f2(v *float64) *R2 {
	if v == nil {
		return nil
	}
	return P2(*v)
}

// printed copies what dumpsys printed into the report's shape.
func printed(s *source.AndroidSummary) *AndroidPrinted {
	return &AndroidPrinted{
		TotalFrames: s.TotalFrames, JankyFrames: s.JankyFrames, JankyLegacy: s.JankyLegacy,
		P50Ms: f2(s.P50Ms), P90Ms: f2(s.P90Ms), P95Ms: f2(s.P95Ms), P99Ms: f2(s.P99Ms),
	}
}

func deref(v *int64) int64 {
	if v == nil {
		return -1
	}
	return *v
}
