package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"github.com/fpstop/fpstop/source"
)

// TestPerfettoDisconnect (issue 33): a pulled cable. While the phone is away fpstop cannot
// reach its tracing service (the session runs on, bounded by duration_ms); as soon as the
// phone is back, the sessions running when it went away are stopped and their files removed
// (before, they ran on until duration_ms and their files stayed), tracing goes on, and the
// report names the outage as a gap.
func TestPerfettoDisconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb, the fake phone and the binary")
	}
	t.Parallel()
	ph := startPhone(t, 60, "demo", 5, 0)
	env, tr := tracingEnv(t, ph, 34, "14")
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	cmd, outb, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "perfetto", "--headless", "--json", "--record", rec)
	waitTracing(t, tr)
	// The session's file grows before fpstop's start has checked it runs (a moment later):
	// unplugged in between, the start itself fails and fpstop exits.
	time.Sleep(time.Second)
	before, files := tr.Running(), fpstopFiles(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := env.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	replug := time.Now()
	if err := env.Replug(ctx); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	t.Logf("the adb server took %.1f s to reconnect the phone", back.Sub(replug).Seconds())
	for {
		old := 0
		for _, p := range tr.Running() {
			if slices.Contains(before, p) {
				old++
			}
		}
		left := 0
		now := fpstopFiles(tr)
		for _, f := range files {
			if slices.Contains(now, f) {
				left++
			}
		}
		if old == 0 && left == 0 {
			break
		}
		if time.Since(back) > 5*time.Second {
			t.Fatalf("5 s after the phone came back, %d of fpstop's sessions from before run on (%v → %v) and %d of its files are left (%v → %v)\n%s",
				old, before, tr.Running(), left, files, now, errb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the old sessions were stopped %.1f s after the phone came back", time.Since(back).Seconds())
	waitTracing(t, tr)
	time.Sleep(3 * time.Second) // the new session's frames through fpstop's 1 s sort window
	_ = cmd.Process.Signal(syscall.SIGINT)
	r := waitReport(t, cmd, outb, errb)
	if run, f := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(f) != 0 {
		t.Errorf("after SIGINT: perfetto running %v, files %v", run, f)
	}
	gap := ""
	for _, w := range r.Warnings {
		if strings.Contains(w, "device disconnected") {
			gap = w
		}
	}
	if gap == "" || r.Source != "perfetto" || r.Frames == 0 {
		t.Errorf("report: source %q, %d frames, warnings %q: want perfetto frames and the outage as a gap", r.Source, r.Frames, r.Warnings)
	}
	_, _, _, frames := seen(t, rec)
	after := 0
	for _, f := range frames {
		if f.DoneNs > lastBefore(t, rec) {
			after++
		}
	}
	if after == 0 {
		t.Errorf("no frame recorded after the phone came back")
	}
	t.Logf("report: %d frames (%d after the phone came back), %s", r.Frames, after, gap)
}

// lastBefore is where the recording's gap starts (the phone's time when it went away).
func lastBefore(t *testing.T, rec string) int64 {
	t.Helper()
	_, evs, err := recordtest.ReadAll(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if g, ok := e.(*source.Gap); ok {
			return g.ToNs
		}
	}
	t.Fatal("no gap recorded")
	return 0
}
