package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
)

// writeReport prints the report: JSON, or the plain-text summary (record.WriteText).
func writeReport(w io.Writer, r *metrics.Report, asJSON bool) error {
	if !asJSON {
		return record.WriteText(w, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
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
	var rec *session.Recording
	if a.opts.Record != "" {
		o := a.sessionConfig(false).Recording
		if rec, err = session.NewRecording(a.opts.Record, o); err != nil {
			return recordingErr(err)
		}
	}
	clock := wallClock{start: time.Now()}
	sess := session.Start(runCtx, a.sessionConfig(false), op.src, rec)
	stopExports, err := a.startExports(ctx, latestFeed(sess.Latest))
	if err != nil {
		_ = sess.Close()
		return err
	}
	runErr := sess.Wait()
	wall := clock.ns()
	if err := sess.Close(); err != nil { // the final snapshot is published
		fmt.Fprintf(a.env.Stderr, "fpstop: recording: %s\n", oneSentence(err))
	}
	a.exportErr(stopExports()) // writes the final numbers
	if runErr != nil {
		return runtimeErr(runErr)
	}
	meta := metrics.ReportMeta{Version: a.env.Build.Version, SourceArg: op.kind}
	if op.live {
		meta.WallNs = wall
	}
	rep := sess.Report(meta)
	if err := writeReport(a.env.Stdout, rep, a.opts.JSON); err != nil {
		return runtimeErr(err)
	}
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, "-p ") { // -p was ignored or matched nothing: said on stderr too
			fmt.Fprintf(a.env.Stderr, "fpstop: %s\n", w)
		}
	}
	return a.finishGates(rep, "headless", clock.start)
}
