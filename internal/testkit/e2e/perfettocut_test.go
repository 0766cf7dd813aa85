package e2e

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// startCut makes a fake phone go away right after perfetto printed the pid of fpstop's second
// tracing session (its file ends in -1.pftrace, started 5 s before the first one's 30 s end):
// the next command, the start's check that the session runs, is never answered, and the cable
// is pulled. The session runs on the phone; only its pid can end it before its duration_ms.
type startCut struct {
	tr    *fakeadb.Tracing
	file  string // the tail of the cut session's file: "-1.pftrace", "-0.pftrace" for the first
	env   atomic.Pointer[adbtest.Env]
	armed atomic.Bool // the next pidof is cut
	fired atomic.Bool // the cut session has started
	once  sync.Once
	away  chan struct{} // closed once the adb server sees the phone offline

	mu   sync.Mutex
	pid  int    // the cut session's perfetto
	path string // and its file
}

func newStartCut(tr *fakeadb.Tracing, file string) *startCut {
	return &startCut{tr: tr, file: file, away: make(chan struct{})}
}

func (c *startCut) wrap(h fakeadb.Handler) fakeadb.Handler {
	return func(ctx context.Context, cmd string, w io.Writer) error {
		if c.armed.Load() && strings.HasPrefix(cmd, "pidof perfetto") {
			c.once.Do(func() {
				c.armed.Store(false)
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					_ = c.env.Load().Unplug(ctx)
					close(c.away)
				}()
			})
			<-ctx.Done() // the cable is pulled with this command unanswered
			return ctx.Err()
		}
		start := strings.Contains(cmd, "perfetto --background") && strings.Contains(cmd, c.file) && !c.fired.Load()
		var before []int
		if start {
			before = c.tr.Running()
		}
		err := h(ctx, cmd, w)
		if start && err == nil {
			c.mu.Lock()
			for _, p := range c.tr.Running() {
				if !slices.Contains(before, p) {
					c.pid = p
				}
			}
			c.path = cmd[strings.LastIndex(cmd, " ")+1:]
			c.mu.Unlock()
			c.armed.Store(c.pid > 0)
			c.fired.Store(c.pid > 0) // once: the session started under that file after the phone is back is left alone
		}
		return err
	}
}

func (c *startCut) session() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pid, c.path
}

// cutRun is a headless --source perfetto run against a 60 Hz phone on Android 14 whose session
// file ending in file is cut from the phone as perfetto prints its pid.
type cutRun struct {
	env        *adbtest.Env
	tr         *fakeadb.Tracing
	cmd        *exec.Cmd
	outb, errb *strings.Builder
	pid        int    // the cut session's perfetto, running when startCutRun returns
	path       string // and its file
}

// startCutRun starts the run and returns once the phone went away with the cut session running
// (within wait, else the test fails).
func startCutRun(t *testing.T, file string, skip *atomic.Int64, wait time.Duration) cutRun {
	t.Helper()
	ph := startPhone(t, 60, "demo", 8, 0)
	tr := newTracing(t, ph, 34, skip, nil)
	cut := newStartCut(tr, file)
	env := adbtest.Start(t, fakeadb.Config{Handler: cut.wrap(tr.Wrap(ph.handler)), Model: "Pixel 7", Android: "14", SDK: 34})
	cut.env.Store(env)
	cmd, outb, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "perfetto", "--headless", "--json")
	select {
	case <-cut.away:
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		t.Fatalf("the session %s never started (running %v, files %v): %s", file, tr.Running(), tr.Files(), errb.String())
	}
	pid, path := cut.session()
	if !slices.Contains(tr.Running(), pid) {
		t.Fatalf("the cut session (pid %d) is not running: the test proves nothing (running %v)", pid, tr.Running())
	}
	return cutRun{env: env, tr: tr, cmd: cmd, outb: outb, errb: errb, pid: pid, path: path}
}

// TestPerfettoStartCut (issue 33): the phone goes away in the moment between perfetto printing
// the next session's pid and fpstop's check that it runs. Back: as soon as the phone answers
// again, that session gets kill -TERM and its file is removed (it ran on until its duration_ms
// before), and tracing goes on. Killed meanwhile (SIGKILL, no chance to clean up): no session of
// fpstop's runs or grows 60 s later (the fake phone's clock is moved on): its duration_ms bounds
// it. Each waits for the second session, 25 s into the run.
func TestPerfettoStartCut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb, the fake phone and the binary")
	}
	t.Parallel()
	for _, back := range []bool{true, false} {
		name := map[bool]string{true: "back", false: "killed"}[back]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			skip := &atomic.Int64{}
			r := startCutRun(t, "-1.pftrace", skip, 75*time.Second)
			env, tr, cmd, outb, errb, pid, path := r.env, r.tr, r.cmd, r.outb, r.errb, r.pid, r.path
			t.Logf("the phone went away after perfetto printed pid %d (%s)", pid, path)
			if back {
				checkCutBack(t, env, tr, pid, path)
				_ = cmd.Process.Signal(syscall.SIGINT)
				r := waitReport(t, cmd, outb, errb)
				if r.Source != "perfetto" || r.Frames == 0 {
					t.Errorf("report: source %q, %d frames", r.Source, r.Frames)
				}
				if run, files := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(files) != 0 {
					t.Errorf("after SIGINT: perfetto running %v, files %v", run, files)
				}
				return
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			skip.Store(int64(60 * time.Second))
			if run := tr.Running(); len(run) != 0 {
				t.Errorf("60 s after SIGKILL perfetto still runs: %v (the cut session %d)", run, pid)
			}
			before := tr.Files()
			skip.Store(int64(65 * time.Second))
			for f, n := range tr.Files() {
				if before[f] != n {
					t.Errorf("%s still grows 60 s after SIGKILL (%d → %d bytes)", f, before[f], n)
				}
			}
		})
	}
}

// checkCutBack brings the phone back and waits (5 s at most) until fpstop has stopped the cut
// session by its pid and removed its file, then until a new session of fpstop's traces.
func checkCutBack(t *testing.T, env *adbtest.Env, tr *fakeadb.Tracing, pid int, path string) {
	t.Helper()
	time.Sleep(2 * time.Second)
	n := len(env.Fake.Commands()) // the session was never stopped before: its pid was never checked
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := env.Replug(ctx); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	kill, rm := "kill -TERM "+strconv.Itoa(pid), "rm -f "+path+"; echo exit $?"
	for {
		cmds := env.Fake.Commands()
		i := slices.Index(cmds[n:], kill)
		if !slices.Contains(tr.Running(), pid) && i >= 0 && slices.Contains(cmds[n+i:], rm) {
			break
		}
		if time.Since(back) > 5*time.Second {
			t.Fatalf("5 s after the phone came back the cut session (pid %d) runs %v, sent %q after it",
				pid, slices.Contains(tr.Running(), pid), cmds[n:])
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the cut session was stopped and its file removed %.1f s after the phone came back", time.Since(back).Seconds())
	waitTracing(t, tr)
}

// TestPerfettoFirstStartCut (issue 33): the phone goes away right after perfetto printed the
// pid of fpstop's first session. --source perfetto exits 3 (nothing was traced), but first
// stops that session and removes its file if the phone answers within the bound (back), and
// otherwise says in its one line that the session ends by itself (away).
func TestPerfettoFirstStartCut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb, the fake phone and the binary")
	}
	t.Parallel()
	for _, back := range []bool{true, false} {
		name := map[bool]string{true: "back", false: "away"}[back]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := startCutRun(t, "-0.pftrace", &atomic.Int64{}, 30*time.Second)
			env, tr, cmd, errb, pid, path := r.env, r.tr, r.cmd, r.errb, r.pid, r.path
			if back {
				time.Sleep(time.Second)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := env.Replug(ctx); err != nil {
					t.Fatal(err)
				}
			}
			err := cmd.Wait()
			msg := strings.TrimSpace(errb.String())
			if code := cmd.ProcessState.ExitCode(); code != 3 || strings.Count(msg, "\n") != 0 {
				t.Fatalf("exit %d (%v), want 3 with one line: %q", code, err, msg)
			}
			left := strings.Contains(msg, "ends by itself within its duration_ms") && strings.Contains(msg, path)
			running := slices.Contains(tr.Running(), pid)
			if back {
				cmds := env.Fake.Commands()
				if running || left || !slices.Contains(cmds, "kill -TERM "+strconv.Itoa(pid)) || !slices.Contains(cmds, "rm -f "+path+"; echo exit $?") {
					t.Errorf("phone back: session %d runs %v; line %q", pid, running, msg)
				}
				return
			}
			if !running || !left {
				t.Errorf("phone away: session %d runs %v; line %q, want it to name %s and say it ends by itself", pid, running, msg, path)
			}
		})
	}
}
