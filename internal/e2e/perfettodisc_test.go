package e2e

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestPerfettoDisconnect (issue 33): a pulled cable. While the phone is away fpstop cannot
// reach its tracing service (the session runs on, bounded by duration_ms); as soon as the
// phone is back, the sessions running when it went away are stopped and their files removed
// (before, they ran on until duration_ms and their files stayed), and tracing goes on.
func TestPerfettoDisconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb, the fake phone and the binary")
	}
	t.Parallel()
	ph := startPhone(t, 60, "demo", 5, 0)
	env, tr := tracingEnv(t, ph, 34, "14")
	cmd, _, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "perfetto", "--headless", "--json")
	waitTracing(t, tr)
	before, files := tr.Running(), fpstopFiles(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := env.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := env.Replug(ctx); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
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
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	if run, f := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(f) != 0 {
		t.Errorf("after SIGINT: perfetto running %v, files %v", run, f)
	}
}
