package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fpstop/fpstop/internal/gate"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/source"
)

// writeReport prints the report: JSON, or the plain-text summary (report.WriteText).
func writeReport(w io.Writer, r *metrics.Report, asJSON bool) error {
	if !asJSON {
		return report.WriteText(w, r)
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
	// A recording that cannot be created is refused before the source starts.
	var rec *session.Recording
	if a.opts.Record != "" {
		var err error
		if rec, err = session.NewRecording(a.opts.Record, a.sessionConfig(false).Recording); err != nil {
			return recordingErr(err)
		}
	}
	op, err := a.openSource(ctx, true)
	if err != nil {
		return err
	}
	if op.note != "" && op.live {
		fmt.Fprintf(a.env.Stderr, "fpstop: %s\n", op.note) // e.g. why auto reads gfxinfo+logcat
	}
	if !op.live && !op.virtual {
		defer replayGC()() // a capture or recording read as fast as it goes (replaygc.go)
	}
	runCtx := ctx
	if a.opts.Duration > 0 && !op.virtual {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, a.opts.Duration)
		defer cancel()
	}
	if rec != nil {
		// A recording that cannot be written stops the run at once (exit 3 below).
		var cancel context.CancelFunc
		runCtx, cancel = context.WithCancel(runCtx)
		defer cancel()
		go func() {
			select {
			case <-rec.Failed():
				cancel()
			case <-runCtx.Done():
			}
		}()
	}
	clock := wallClock{start: time.Now()}
	sess := session.Start(runCtx, a.sessionConfig(false), op.src, rec)
	if a.env.Live != nil {
		a.env.Live(func() *metrics.Report {
			meta := metrics.ReportMeta{Version: a.env.Build.Version, SourceArg: op.kind}
			if op.live {
				meta.WallNs = clock.ns()
			}
			return sess.Report(meta)
		})
	}
	exp, err := a.opts.Exports.start(ctx, latestFeed(sess.Latest), a.env, a.log)
	if err != nil {
		_ = sess.Close()
		return err
	}
	runErr := sess.Wait()
	meta := metrics.ReportMeta{Version: a.env.Build.Version, SourceArg: op.kind}
	if op.live {
		meta.WallNs = clock.ns()
	}
	rec.SetWall(meta.WallNs)            // nil-safe: the recording's end line keeps it
	recErr := sess.Close()              // the final snapshot is published; a failed recording is the error
	exportErr(a.env.Stderr, exp.Stop()) // writes the final numbers
	if runErr != nil && (recErr == nil || !errors.Is(runErr, context.Canceled)) {
		return runtimeErr(runErr)
	}
	rep := sess.Report(meta)
	if recErr != nil {
		rep.Warnings = append(rep.Warnings, "recording: "+oneSentence(recErr))
	}
	rep.Warnings = append(rep.Warnings, exp.Warnings()...) // failed pushes and writes, counted
	if err := writeReport(a.env.Stdout, rep, a.opts.JSON); err != nil {
		return runtimeErr(err)
	}
	if recErr != nil {
		return runtimeErr(fmt.Errorf("the recording could not be written: %w", recErr))
	}
	if err := exp.Failed(); err != nil {
		return runtimeErr(err)
	}
	if lost := lostDevice(a.env.Stderr, a.opts.gates(), a.opts.Serial, sess.Latest(), op.live, rep, clock.start); lost != nil {
		return lost
	}
	neverSeen := false
	for _, w := range rep.Warnings {
		// -p was ignored or matched nothing, or the app was never seen: said on stderr too
		if strings.HasPrefix(w, "-p ") || strings.HasPrefix(w, "waiting for ") {
			fmt.Fprintf(a.env.Stderr, "fpstop: %s\n", w)
		}
		neverSeen = neverSeen || strings.HasPrefix(w, "waiting for ")
	}
	if neverSeen && op.live && rep.Frames == 0 && rep.Messages.Paired == 0 {
		// A run that never saw the app fails every gate given (exit 1), else it is an error:
		// an empty report must not pass for a clean one.
		if err := a.opts.gates().Finish(rep, "headless", clock.start); err != nil {
			return err
		}
		return runtimeErr(errors.New("the app was never seen running: no frames were measured (is -p right?)"))
	}
	return a.opts.gates().Finish(rep, "headless", clock.start)
}

// exportErr says an export failure after a headless run without changing its exit status (the
// report is what the run is for).
func exportErr(stderr io.Writer, err error) {
	if err != nil {
		fmt.Fprintf(stderr, "fpstop: %s\n", oneSentence(err))
	}
}

// lostDevice ends a run whose device was lost (deviceLost): the gates are written (JUnit) and
// said, but a run cut short is an error whatever they say, as its numbers cover part of it.
func lostDevice(stderr io.Writer, g gate.Gates, serial string, snap *metrics.Snapshot, live bool, rep *metrics.Report, start time.Time) error {
	lost := deviceLost(snap, live, serial)
	if lost == nil {
		return nil
	}
	if gerr := g.Finish(rep, "headless", start); gerr != nil {
		fmt.Fprintf(stderr, "fpstop: %v\n", gerr)
	}
	return lost
}

// deviceLost says, for a live run whose device was disconnected when it ended (and never came
// back), that the run was cut short: exit 3 (DESIGN §7: adb failure), whatever the gates say.
func deviceLost(snap *metrics.Snapshot, live bool, serial string) error {
	if !live || snap == nil || snap.State != source.StateDisconnected {
		return nil
	}
	dev := "the device"
	if serial != "" {
		dev += " " + serial
	}
	return runtimeErr(fmt.Errorf("%s was lost during the run and did not come back before it ended (%s): the report covers only the time before, so the run is not a pass", dev, snap.StateText))
}
