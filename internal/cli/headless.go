package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// drive runs src until it ends or ctx ends, applying every batch to p after tap (the recorder)
// has seen it. A source stopped by ctx is not an error.
func drive(ctx context.Context, src source.Source, p *metrics.Pipeline, tap func([]source.Event)) error {
	return driveWith(ctx, src, p, tap, nil)
}

// driveWith is drive with a function called after each batch is applied (publishing Snapshots
// for the metrics exports).
func driveWith(ctx context.Context, src source.Source, p *metrics.Pipeline, tap func([]source.Event), after func()) error {
	ch := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() {
		errc <- src.Run(ctx, ch)
		close(ch)
	}()
	for batch := range ch {
		if tap != nil {
			tap(batch)
		}
		p.AddBatch(batch)
		if after != nil {
			after()
		}
	}
	err := <-errc
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) && ctx.Err() != nil {
		return nil
	}
	return err
}

// writeReport prints the report: JSON, or a short human summary.
func writeReport(w io.Writer, r *metrics.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	num := func(v *metrics.R2, unit string) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f%s", float64(*v), unit)
	}
	pkg := "–"
	if r.Package != nil {
		pkg = *r.Package
	}
	fmt.Fprintf(w, "fpstop %s · source %s · package %s · refresh %s\n", r.FpstopVersion, r.Source, pkg, num(r.RefreshHz, " Hz"))
	fmt.Fprintf(w, "duration %.1f s · frames %d · idle %.1f s\n", float64(r.DurationS), r.Frames, float64(r.IdleS))
	fmt.Fprintf(w, "fps %s · fps_wall %s · 1%% low %s · janky %d (%s)\n", num(r.FPS, ""), num(r.FPSWall, ""), num(r.FPSLow1Pct, ""), r.JankyFrames, num(r.JankPct, " %"))
	d := r.DropLevels
	fmt.Fprintf(w, "drop levels: best %d · normal %d · middle %d · high %d · frozen %d\n", d.Best, d.Normal, d.Middle, d.High, d.Frozen)
	if p := r.PercentilesMs; p != nil {
		fmt.Fprintf(w, "frame time p50 %g ms · p90 %g · p95 %g · p99 %g\n", float64(p.P50), float64(p.P90), float64(p.P95), float64(p.P99))
	}
	if r.FramesLost != nil {
		fmt.Fprintf(w, "frames lost between polls: %d\n", *r.FramesLost)
	}
	for i, m := range r.SlowMessages {
		if i == 5 {
			break
		}
		name := m.WhatName
		if name == "" {
			name = fmt.Sprint(m.What)
		}
		fmt.Fprintf(w, "slow: %s %s #%s ×%d max %.1f ms\n", m.Handler, m.Callback, name, m.Count, float64(m.MaxMs))
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	return nil
}

// wallClock measures the wall time of a live run.
type wallClock struct{ start time.Time }

func (c wallClock) ns() int64 { return int64(math.Max(0, float64(time.Since(c.start)))) }

// headless runs the source without a screen and prints the report (DESIGN §7).
func (a *app) headless(ctx context.Context) error {
	op, err := a.openSource(ctx, true)
	if err != nil {
		return err
	}
	runCtx := ctx
	if a.opts.Duration > 0 && !op.virtual {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, a.opts.Duration)
		defer cancel()
	}
	p := metrics.NewPipeline(a.cfg())
	rec, err := a.startRecording(a.opts.Record)
	if err != nil {
		return err
	}
	var tap func([]source.Event)
	if rec != nil {
		tap = rec.tap
	}
	box := &snapBox{period: a.opts.Refresh}
	box.publish(p, true)
	stopExports, err := a.startExports(ctx, box.feed)
	if err != nil {
		return err
	}
	clock := wallClock{start: time.Now()}
	runErr := driveWith(runCtx, op.src, p, tap, func() { box.publish(p, false) })
	wall := clock.ns()
	box.publish(p, true)
	a.exportErr(stopExports())
	if rec != nil {
		if err := rec.close(); err != nil {
			fmt.Fprintf(a.env.Stderr, "fpstop: recording: %s\n", oneSentence(err))
		}
	}
	if runErr != nil {
		return runtimeErr(runErr)
	}
	meta := metrics.ReportMeta{Version: a.env.Build.Version, SourceArg: op.kind}
	if op.live {
		meta.WallNs = wall
	}
	rep := p.Report(meta)
	if err := writeReport(a.env.Stdout, rep, a.opts.JSON); err != nil {
		return runtimeErr(err)
	}
	return a.finishGates(rep, "headless", clock.start)
}
