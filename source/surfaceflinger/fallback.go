package surfaceflinger

import (
	"context"
	"strings"
	"time"

	"github.com/fpstop/fpstop/source"
)

// tsState is the Android 16 fallback: `--latency` prints only the period, so the layer's
// counters come from `--timestats -dump`, compared between dumps.
type tsState struct {
	enabledByUs bool
	checked     bool   // whether timestats was on has been settled
	statsEnd    string // statsEnd of the first dump (it stands still while timestats is off)
	statsAt     time.Time
	prev        *TimestatsLayer
	prevAt      int64
}

// timestatsNote is said on screen and in the report: the numbers are not per-frame.
const timestatsNote = "surfaceflinger: --latency prints no frames on this device (Android 16): measuring with --timestats, per-interval counts and a present-interval histogram, not per-frame data"

// startTimestats switches to the fallback.
func (r *run) startTimestats(ctx context.Context) error {
	r.ts = &tsState{}
	r.evs = append(r.evs, &source.Notice{AtNs: r.now(), Level: source.LevelWarn, State: source.StateLive, Text: timestatsNote})
	return r.stepTimestats(ctx)
}

// stepTimestats reads one dump; timestats is enabled only when it was off, and remembered so
// that restoreTimestats turns it off again on exit.
func (r *run) stepTimestats(ctx context.Context) error {
	data, err := r.p.d.SFTimestats(ctx, "-dump")
	if err != nil {
		return err
	}
	if r.p.cfg.KeepRaw {
		r.evs = append(r.evs, &source.Raw{AtNs: r.tsNow(), Stream: "surfaceflinger", Text: data})
	}
	t := ParseTimestats(data)
	st := r.ts
	switch {
	case !st.checked && t.Empty:
		// never enabled since boot: it prints nothing at all
		return r.enableTimestats(ctx)
	case !st.checked && st.statsEnd == "":
		st.statsEnd, st.statsAt = t.StatsEnd, r.p.cfg.Now()
		if t.StatsEnd == "" {
			st.checked = true // an older format without statsEnd: assume it counts
		}
	case !st.checked && r.p.cfg.Now().Sub(st.statsAt) < 1500*time.Millisecond:
		// statsEnd is in whole seconds: compare dumps at least 1.5 s apart
	case !st.checked:
		st.checked = true
		if t.StatsEnd == st.statsEnd {
			// statsEnd moves on every dump while timestats is on: it was off
			return r.enableTimestats(ctx)
		}
	}
	r.sample(t)
	return nil
}

func (r *run) enableTimestats(ctx context.Context) error {
	if _, err := r.p.d.SFTimestats(ctx, "-enable"); err != nil {
		return err
	}
	r.ts.enabledByUs, r.ts.checked = true, true
	r.evs = append(r.evs, source.Notef(r.tsNow(), source.LevelInfo, "surfaceflinger: timestats enabled (it is turned off again when fpstop ends)"))
	return nil
}

// tsNow is the device time in fallback mode: no present times arrive, so the host clock
// continues from the last device time known.
func (r *run) tsNow() int64 {
	if r.hasOffset {
		return r.now()
	}
	return int64(r.p.cfg.Now().Sub(r.start)) + int64(time.Second)
}

// sample turns the growth of the measured layer's counters since the previous dump into a
// LayerSample.
func (r *run) sample(t *Timestats) {
	st := r.ts
	at := r.tsNow()
	l := t.Layer(r.layer.Name)
	if l == nil {
		l = r.packageLayer(t)
	}
	defer func() { st.prevAt = at }()
	if l == nil {
		st.prev = nil
		r.evs = append(r.evs, &source.Tick{NowNs: at})
		return
	}
	prev := st.prev
	cp := *l
	st.prev = &cp
	if prev == nil || prev.Name != l.Name || l.TotalFrames < prev.TotalFrames {
		return // first reading of this layer, or counters cleared: re-based
	}
	hist, ok := DiffBuckets(l.Present2Present, prev.Present2Present)
	if !ok {
		hist = nil
	}
	r.evs = append(r.evs, &source.LayerSample{Layer: r.layer.Name, FromNs: st.prevAt, ToNs: at,
		Frames: l.TotalFrames - prev.TotalFrames, Dropped: max(0, l.DroppedFrames-prev.DroppedFrames),
		Present2Present: hist, PeriodNs: r.periodNs}, &source.Tick{NowNs: at})
}

// packageLayer is the package's SurfaceView layer with the most frames in a dump (the measured
// layer's name may differ in timestats).
func (r *run) packageLayer(t *Timestats) *TimestatsLayer {
	var best *TimestatsLayer
	for i := range t.Layers {
		l := &t.Layers[i]
		if l.Package != r.p.cfg.Package && !strings.Contains(l.Name, r.p.cfg.Package+"/") {
			continue
		}
		if best == nil || l.TotalFrames > best.TotalFrames {
			best = l
		}
	}
	return best
}

// restoreTimestats turns timestats off on exit when fpstop turned it on.
func (r *run) restoreTimestats() {
	if r.ts == nil || !r.ts.enabledByUs {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, _ = r.p.d.SFTimestats(ctx, "-disable")
}
