package perfetto

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fpstop/fpstop/source"
)

// Options says what a trace source reads.
type Options struct {
	// Name is the input's name, for the report and messages.
	Name string
	// Package, when set, keeps only that app's frames and sections (-p).
	Package string
}

// FromReader is a source reading a Perfetto trace (binary, gzip'd or not) from r, packet by
// packet: frames from FrameTimeline (or, without it, from atrace's doFrame sections), the
// sections that ran in each frame, and the app's sections for the slow-sections table.
func FromReader(r io.Reader, opts Options) source.Source {
	return &fileSource{r: r, opts: opts}
}

type fileSource struct {
	r    io.Reader
	opts Options
}

// batchSize: events are sent in batches to keep channel traffic low.
const batchSize = 512

// Run implements source.Source.
func (s *fileSource) Run(ctx context.Context, out chan<- []source.Event) error {
	var batch []source.Event
	var sendErr error
	send := func() {
		if sendErr == nil {
			sendErr = source.Send(ctx, out, batch)
			batch = nil
		}
	}
	add := func(e source.Event) {
		batch = append(batch, e)
		if len(batch) >= batchSize {
			send()
		}
	}
	sess := &source.Session{Source: source.KindPerfetto, Package: s.opts.Package, CostBasis: source.CostFrame,
		Input: s.opts.Name}
	add(sess)
	p, j := pipeline(s.opts.Package, add)
	j.session = sess
	err := p.ReadAll(ctx, s.r)
	if sendErr != nil {
		return sendErr
	}
	if err != nil && !errors.Is(err, ErrTruncated) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("reading Perfetto trace %s: %w", s.opts.Name, err)
	}
	j.finish()
	j.fallbackAdvance(true)
	at := p.ToMono(j.now)
	for _, n := range j.notices(err) {
		n.AtNs = at
		add(n)
	}
	add(&source.Notice{AtNs: at, Level: source.LevelInfo, State: source.StateEnded, Text: "end of " + s.opts.Name})
	send()
	return sendErr
}

// pipeline makes a parser whose frames and sections a joiner turns into events for emit.
func pipeline(pkg string, emit func(source.Event)) (*Parser, *joiner) {
	p := NewParser()
	j := newJoiner(p, pkg, emit)
	p.OnTimeline = j.timeline
	p.OnSlice = j.slice
	p.OnTime = func(ts int64) {
		j.advance(ts)
		j.fallbackAdvance(false)
	}
	return p, j
}

// notices says what the trace could not show and what was wrong with it.
func (j *joiner) notices(readErr error) []*source.Notice {
	var out []*source.Notice
	warn := func(format string, a ...any) {
		out = append(out, source.Notef(0, source.LevelWarn, format, a...))
	}
	info := func(format string, a ...any) {
		out = append(out, source.Notef(0, source.LevelInfo, format, a...))
	}
	if readErr != nil {
		warn("trace truncated: read up to the cut (%v)", readErr)
	}
	switch {
	case !j.p.SawFrameTimeline && j.fb.frames > 0:
		why := "Android 11 or older, or the android.surfaceflinger.frametimeline data source was off"
		if j.p.Text {
			why = "systrace text carries none: record a Perfetto trace for it"
		}
		warn("no FrameTimeline in this trace (%s): %d frames from Choreographer#doFrame sections, timed from the vsync they ran on; deadlines, presents and blame are unknown", why, j.fb.frames)
		if j.fb.mainOnly > 0 {
			warn("%d frames had no RenderThread DrawFrames section: only their main-thread part is timed", j.fb.mainOnly)
		}
	case !j.p.SawFrameTimeline:
		warn("no FrameTimeline and no Choreographer#doFrame sections in this trace: no frames (record with the android.surfaceflinger.frametimeline data source and atrace categories gfx view; see docs/perfetto.md)")
	case j.frames == 0 && j.pkg != "":
		warn("no frames of %s in this trace (%d frames of other apps)", j.pkg, j.otherProcs)
	}
	if j.p.SawFrameTimeline && !j.p.SawAtrace {
		info("no atrace sections in this trace: what ran in each frame is unknown (add the linux.ftrace data source with atrace categories gfx view)")
	}
	if j.unfinished > 0 {
		warn("%d app frames never finished in the trace (not counted)", j.unfinished)
	}
	if j.orphans > 0 && j.p.SawFrameTimeline {
		warn("%d app frames SurfaceFlinger expected never came (an expected frame with no actual one: the app was stuck, or dropped the work), the first at %.3f s; they are not counted as frames", j.orphans, float64(j.p.ToMono(j.orphanFirst))/1e9)
	}
	if j.noExpected > 0 {
		info("%d app frames had no expected frame (expired prediction): counted without drops, blame from their jank type", j.noExpected)
	}
	if !j.p.HasClock() && j.p.Packets > 0 {
		info("no clock snapshot in the trace: times are the trace's own clock")
	}
	for _, w := range j.p.Warnings() {
		warn("trace: %s", w)
	}
	return out
}
