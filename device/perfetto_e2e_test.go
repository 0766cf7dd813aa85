package device_test

// End-to-end tests of the perfetto calls: device over Debian's real adb server against the
// fake phone's tracing service (fakeadb.Tracing), fed live by the simulator.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/sim"
)

// device.Target is what the live Perfetto source drives.
var _ perfetto.Tracer = device.Target{}

const perfettoPkg = "com.example.feed"

func perfettoConfig(name string, durationMs int) string {
	return fmt.Sprintf(`buffers { size_kb: 8192 }
data_sources { config { name: "android.surfaceflinger.frametimeline" } }
data_sources { config { name: "linux.ftrace" ftrace_config { atrace_categories: "gfx" atrace_categories: "view" atrace_apps: "%s" } } }
data_sources { config { name: "linux.process_stats" } }
duration_ms: %d
write_into_file: true
file_write_period_ms: 100
unique_session_name: "%s"
`, perfettoPkg, durationMs, name)
}

// tracingPhone starts a fake phone of the given SDK whose tracing service the simulator feeds
// in real time until the test ends.
func tracingPhone(t *testing.T, sdk int, release string) (*adbtest.Env, *fakeadb.Tracing, device.Target) {
	t.Helper()
	tr := fakeadb.NewTracing(fakeadb.TracingConfig{SDK: sdk, Package: perfettoPkg,
		Trace: simtext.TraceOptions{Stuffing: true, SlowWork: true, SFJankEvery: 20}})
	env := adbtest.Start(t, fakeadb.Config{SDK: sdk, Android: release, Handler: tr.Wrap(nil)})
	s, err := sim.New(sim.Config{Scenario: "janky", Hz: 60, Seed: 5, Speed: 1, Duration: 10 * time.Minute, Package: perfettoPkg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan []source.Event, 64)
	done := make(chan struct{})
	go func() { _ = s.Run(ctx, ch); close(ch) }()
	go func() {
		defer close(done)
		for b := range ch {
			tr.Feed(b)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return env, tr, device.Target{Client: env.Client, Serial: env.Serial}
}

// TestE2EPerfettoSession: a session started through adb grows while the app runs, is read
// from where the last read ended, and stopping it ends its perfetto process and removes its
// file; what was read is a trace whose frames carry the fake's blame.
func TestE2EPerfettoSession(t *testing.T) {
	t.Parallel()
	env, tr, target := tracingPhone(t, 34, "14")
	ctx := testContext(t)
	path := device.PerfettoTraceDir + "fpstop-e2e-1.pftrace"
	pid, err := target.PerfettoStart(ctx, perfettoConfig("fpstop-e2e-1", 20000), path)
	if err != nil {
		t.Fatal(err)
	}
	if running, err := target.PerfettoRunning(ctx, pid); err != nil || !running {
		t.Fatalf("perfetto %d running: %v, %v", pid, running, err)
	}
	var trace []byte
	grew := 0
	deadline := time.Now().Add(guard)
	for grew < 4 && time.Now().Before(deadline) {
		b, err := target.PerfettoRead(ctx, path, int64(len(trace)))
		if err != nil {
			t.Fatalf("read at %d: %v", len(trace), err)
		}
		if len(b) > 0 {
			grew++
		}
		trace = append(trace, b...)
		time.Sleep(150 * time.Millisecond)
	}
	if grew < 4 {
		t.Fatalf("the trace grew %d times in %s", grew, guard)
	}
	if err := target.PerfettoStop(ctx, pid, path); err != nil {
		t.Fatal(err)
	}
	if got := tr.Running(); len(got) != 0 {
		t.Errorf("perfetto still running after stop: %v", got)
	}
	if _, ok := tr.Files()[path]; ok {
		t.Errorf("%s still on the phone", path)
	}
	if _, err := target.PerfettoRead(ctx, path, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read after stop: %v; want fs.ErrNotExist", err)
	}
	cmds := env.Fake.Commands()
	for _, want := range []string{"kill -TERM " + strconv.Itoa(pid), "rm -f " + path + "; echo exit $?"} {
		if !slices.Contains(cmds, want) {
			t.Errorf("the phone never got %q: %q", want, cmds)
		}
	}
	checkTrace(t, trace, tr.Truth())
}

// checkTrace reads trace with fpstop's reader: it has frames, and each carries the jank bits
// the fake gave it.
func checkTrace(t *testing.T, trace []byte, truth []simtext.TraceFrame) {
	t.Helper()
	byToken := map[string]int64{}
	for _, tf := range truth {
		byToken[tf.Window+"\x00"+strconv.FormatInt(tf.Token, 10)] = tf.Jank
	}
	src := perfetto.FromReader(bytes.NewReader(trace), perfetto.Options{Name: "e2e", Package: perfettoPkg})
	ch := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), ch); close(ch) }()
	frames := 0
	for b := range ch {
		for _, e := range b {
			f, ok := e.(*source.Frame)
			if !ok || f.Timeline == nil {
				continue
			}
			frames++
			if jank, ok := byToken[f.Window+"\x00"+strconv.FormatInt(f.Timeline.Token, 10)]; !ok || jank != f.Timeline.JankType {
				t.Errorf("frame %d: jank %d, the fake's %d (known %v)", f.Timeline.Token, f.Timeline.JankType, jank, ok)
			}
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if frames == 0 {
		t.Errorf("no frame in %d bytes of trace", len(trace))
	}
}

// TestE2EPerfettoAbandoned: a session nobody stops (fpstop killed, cable pulled) ends by
// itself at duration_ms; its file stays readable until removed.
func TestE2EPerfettoAbandoned(t *testing.T) {
	t.Parallel()
	_, tr, target := tracingPhone(t, 33, "13")
	ctx := testContext(t)
	path := device.PerfettoTraceDir + "fpstop-e2e-2.pftrace"
	pid, err := target.PerfettoStart(ctx, perfettoConfig("fpstop-e2e-2", 1500), path)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(guard)
	for {
		running, err := target.PerfettoRunning(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("perfetto %d still running %s after a 1.5 s session began", pid, guard)
		}
		time.Sleep(200 * time.Millisecond)
	}
	trace, err := target.PerfettoRead(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkTrace(t, trace, tr.Truth())
	if more, err := target.PerfettoRead(ctx, path, int64(len(trace))); err != nil || len(more) != 0 {
		t.Errorf("an ended session's file grew by %d bytes (%v)", len(more), err)
	}
	if err := target.PerfettoStop(ctx, pid, path); err != nil {
		t.Fatal(err)
	}
	if len(tr.Files()) != 0 {
		t.Errorf("files left: %v", tr.Files())
	}
}

// TestE2EPerfettoRefused: a phone before Android 12 is refused before anything starts; a busy
// tracing service (another session holds the name) is "tracing busy", and the refused
// session's file is removed; another tool's session is never stopped.
func TestE2EPerfettoRefused(t *testing.T) {
	t.Parallel()
	t.Run("android 11", func(t *testing.T) {
		t.Parallel()
		env, tr, target := tracingPhone(t, 30, "11")
		_, err := target.PerfettoStart(testContext(t), perfettoConfig("fpstop-e2e-3", 5000), device.PerfettoTraceDir+"fpstop-e2e-3.pftrace")
		if !errors.Is(err, device.ErrPerfettoUnsupported) || !strings.Contains(err.Error(), "Android 12") || !strings.Contains(err.Error(), "Android 11 (SDK 30)") {
			t.Errorf("err = %v; want ErrPerfettoUnsupported naming Android 12 and the phone's release", err)
		}
		for _, c := range env.Fake.Commands() {
			if strings.Contains(c, "perfetto") {
				t.Errorf("a refused phone got %q", c)
			}
		}
		if len(tr.Files()) != 0 {
			t.Errorf("files: %v", tr.Files())
		}
	})
	t.Run("busy", func(t *testing.T) {
		t.Parallel()
		_, tr, target := tracingPhone(t, 34, "14")
		other := tr.HoldSession("fpstop-e2e-4")
		ctx := testContext(t)
		path := device.PerfettoTraceDir + "fpstop-e2e-4.pftrace"
		_, err := target.PerfettoStart(ctx, perfettoConfig("fpstop-e2e-4", 5000), path)
		if !errors.Is(err, device.ErrTracingBusy) || !strings.Contains(err.Error(), "unique session name (fpstop-e2e-4) already exists") {
			t.Errorf("err = %v; want ErrTracingBusy saying why", err)
		}
		if len(tr.Files()) != 0 {
			t.Errorf("the refused session's file stayed: %v", tr.Files())
		}
		if got := tr.Running(); len(got) != 1 || got[0] != other {
			t.Errorf("running %v; the other tool's %d must go on", got, other)
		}
		// fpstop never removes a file that is not its own
		if err := target.PerfettoStop(ctx, other, device.PerfettoTraceDir+"studio.pftrace"); !errors.Is(err, device.ErrInvalid) {
			t.Errorf("stop with another tool's file: %v", err)
		}
	})
}
