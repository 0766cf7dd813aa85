package record

import (
	"fmt"
	"io"
	"math"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// feedBatch is how many events go to the consumer at once when reading a whole recording.
const feedBatch = 1024

// readBatches reads path on its own goroutine (decompression and decoding use the second core
// while the caller runs the pipeline) and calls fn with batches of events in file order. The
// first batch starts with the header's Session unless the recording starts with its own, so a
// pipeline fed this way sees exactly what the live pipeline saw. fn must not keep the slice.
func readBatches(path string, fn func([]source.Event)) (*Reader, error) {
	return readBatchesWhile(path, func(evs []source.Event) bool { fn(evs); return true })
}

// readBatchesWhile is readBatches that stops reading as soon as fn returns false (an export of
// the first hour of a day-long recording need not decompress the rest).
func readBatchesWhile(path string, fn func([]source.Event) bool) (*Reader, error) {
	r, err := open(path, false, true)
	if err != nil {
		return nil, err
	}
	type msg struct {
		evs []source.Event
		err error
	}
	ch := make(chan msg, 4)
	free := make(chan []source.Event, 6)
	stop := make(chan struct{})
	go func() {
		defer close(ch)
		first := true
		for {
			var b []source.Event
			select {
			case b = <-free:
				b = b[:0]
			default:
				b = make([]source.Event, 0, feedBatch)
			}
			var err error
			for len(b) < feedBatch {
				var ev source.Event
				ev, err = r.Next()
				if err != nil {
					break
				}
				if first {
					first = false
					if _, ok := ev.(*source.Session); !ok && r.HasHeader {
						b = append(b, r.Header.Session())
					}
				}
				b = append(b, ev)
			}
			if err == io.EOF {
				err = nil
				if len(b) > 0 {
					select {
					case ch <- msg{evs: b}:
					case <-stop:
					}
				}
				return
			}
			select {
			case ch <- msg{evs: b, err: err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			for range ch { // the reader finishes its batch and exits before r is closed
			}
		}
	}
	defer halt()
	for m := range ch {
		more := true
		if len(m.evs) > 0 {
			more = fn(m.evs)
		}
		if m.err != nil {
			halt()
			r.Close()
			return r, fmt.Errorf("reading recording %s: %w", path, m.err)
		}
		if !more {
			halt()
			r.Close()
			return r, nil
		}
		select {
		case free <- m.evs:
		default:
		}
	}
	r.Close()
	return r, nil
}

// Offline is cfg for a pipeline that reads a recording for a report, an export or a comparison:
// it keeps no frame history (only the screen's timeline reads it, and at 120 Hz it holds up to
// 2^19 frames), so the memory of a report does not follow the recording's length.
func Offline(cfg metrics.Config) metrics.Config {
	cfg.HistoryLen = -1
	return cfg
}

// Report reads a recording into a metrics.Pipeline and returns its report. Fed the same events
// (the recording's session first), the pipeline gives the live run's report; meta.WallNs is 0
// for a recording (duration_s is then the span of the events) unless the caller knows better.
func Report(path string, cfg metrics.Config, meta metrics.ReportMeta) (*metrics.Report, error) {
	p := metrics.NewPipeline(Offline(cfg))
	if _, err := readBatches(path, p.AddBatch); err != nil {
		return nil, err
	}
	return p.Report(meta), nil
}

// ReportSeries is Report plus the whole run's FPS series (one point per slice, oldest first),
// for WriteMarkdownSeries' sparkline. The series is gathered from pipeline Snapshots taken as
// the events are fed, so it covers the whole recording whatever cfg.SeriesLen is.
func ReportSeries(path string, cfg metrics.Config, meta metrics.ReportMeta) (*metrics.Report, []metrics.SlicePoint, error) {
	p := metrics.NewPipeline(Offline(cfg))
	sc := newSeriesCollector(p, cfg)
	if _, err := readBatches(path, sc.feed); err != nil {
		return nil, nil, err
	}
	return p.Report(meta), sc.finish(), nil
}

// seriesCollector feeds a pipeline and gathers its FPS series over a run longer than the
// series ring: it takes a Snapshot whenever the device time has advanced by half the ring.
type seriesCollector struct {
	p       *metrics.Pipeline
	everyNs int64
	nextNs  int64
	out     []metrics.SlicePoint
}

func newSeriesCollector(p *metrics.Pipeline, cfg metrics.Config) *seriesCollector {
	slice, n := cfg.SliceNs, cfg.SeriesLen
	if slice <= 0 {
		slice = 1e9
	}
	if n <= 0 {
		n = 600
	}
	every := slice * int64(n/2)
	if every < slice {
		every = slice
	}
	return &seriesCollector{p: p, everyNs: every}
}

// feed applies evs to the pipeline, taking a Snapshot just before the first event whose time
// is half a ring past the previous Snapshot, so no slice leaves the ring unseen.
func (c *seriesCollector) feed(evs []source.Event) {
	start := 0
	for i, ev := range evs {
		at := ev.At()
		if at <= 0 {
			continue
		}
		if c.nextNs == 0 {
			c.nextNs = at + c.everyNs
			continue
		}
		if at >= c.nextNs {
			c.p.AddBatch(evs[start:i])
			start = i
			c.merge(c.p.Snapshot().Series)
			c.nextNs = at + c.everyNs
		}
	}
	c.p.AddBatch(evs[start:])
}

// merge appends the points newer than those already kept; a kept partial slice is replaced by
// its newer state.
func (c *seriesCollector) merge(pts []metrics.SlicePoint) {
	for _, pt := range pts {
		n := len(c.out)
		switch {
		case n == 0 || pt.StartNs > c.out[n-1].StartNs:
			c.out = append(c.out, pt)
		case pt.StartNs == c.out[n-1].StartNs && c.out[n-1].Partial:
			c.out[n-1] = pt
		}
	}
}

func (c *seriesCollector) finish() []metrics.SlicePoint {
	c.merge(c.p.Snapshot().Series)
	return c.out
}

// GateOff disables a gate in Gate (the default of both gate flags).
const GateOff = -1

// Gate checks a report against the CI gates and returns one sentence per failed gate (none:
// the run passes). failUnderFPS fails a run whose fps is under it; maxJankPct fails one whose
// jank_pct is over it. A gate is off when its value is negative or NaN (GateOff); note that
// maxJankPct 0 is a real gate ("no janky frame at all"), while failUnderFPS 0 is off. A run
// without frames fails every gate that is set: CI must not pass when nothing was measured.
func Gate(rep *metrics.Report, failUnderFPS, maxJankPct float64) (failures []string) {
	fpsOn := failUnderFPS > 0 && !math.IsNaN(failUnderFPS)
	jankOn := maxJankPct >= 0 && !math.IsNaN(maxJankPct)
	if !fpsOn && !jankOn {
		return nil
	}
	if rep == nil || rep.Frames == 0 {
		if fpsOn {
			failures = append(failures, fmt.Sprintf("no frames were recorded, so fps cannot be checked against --fail-under-fps %s", num(failUnderFPS)))
		}
		if jankOn {
			failures = append(failures, fmt.Sprintf("no frames were recorded, so jank cannot be checked against --max-jank-pct %s", num(maxJankPct)))
		}
		return failures
	}
	if fpsOn {
		switch {
		case rep.FPS == nil:
			failures = append(failures, fmt.Sprintf("fps is unknown, so it cannot be checked against --fail-under-fps %s", num(failUnderFPS)))
		case float64(*rep.FPS) < failUnderFPS:
			failures = append(failures, fmt.Sprintf("fps %s is under --fail-under-fps %s", num(float64(*rep.FPS)), num(failUnderFPS)))
		}
	}
	if jankOn {
		switch {
		case rep.JankPct == nil:
			failures = append(failures, fmt.Sprintf("jank_pct is unknown, so it cannot be checked against --max-jank-pct %s", num(maxJankPct)))
		case float64(*rep.JankPct) > maxJankPct:
			failures = append(failures, fmt.Sprintf("jank_pct %s%% (%d of %d frames) is over --max-jank-pct %s%%",
				num(float64(*rep.JankPct)), rep.JankyFrames, rep.Frames, num(maxJankPct)))
		}
	}
	return failures
}

// num prints a float with at most two decimals and no trailing zeros.
func num(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return trimDot(s)
}

func trimDot(s string) string {
	if len(s) > 0 && s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}
