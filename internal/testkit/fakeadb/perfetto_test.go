package fakeadb

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/sim"
)

const tracePkg = "com.example.feed"

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func traceConfigText(name string, durationMs, periodMs int, apps string) string {
	return fmt.Sprintf(`buffers { size_kb: 8192 fill_policy: RING_BUFFER }
data_sources { config { name: "android.surfaceflinger.frametimeline" } }
data_sources {
  config {
    name: "linux.ftrace"
    ftrace_config {
      atrace_categories: "gfx"
      atrace_categories: "view"
      atrace_apps: "%s"
    }
  }
}
data_sources { config { name: "linux.process_stats" } }
# bounded: the phone stops by itself
duration_ms: %d
write_into_file: true
file_write_period_ms: %d
flush_period_ms: %d
unique_session_name: "%s"
`, apps, durationMs, periodMs, periodMs, name)
}

// run serves one command the way the fake device would and returns its output.
func run(t *testing.T, tr *Tracing, cmd string) string {
	t.Helper()
	var b bytes.Buffer
	ok, err := tr.Serve(context.Background(), cmd, &b)
	if !ok || err != nil {
		t.Fatalf("%.60q: served %v, %v", cmd, ok, err)
	}
	return b.String()
}

func startCmd(t *testing.T, config, path string) string {
	t.Helper()
	cmd, err := device.PerfettoStartCommand(config, path)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

func readCmd(t *testing.T, path string, off int) string {
	t.Helper()
	cmd, err := device.PerfettoReadCommand(path, int64(off))
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// readAt serves fpstop's read command (one shell call: the size, then the bytes from off) and
// returns the bytes, checking that the size covers them.
func readAt(t *testing.T, tr *Tracing, path string, off int) []byte {
	t.Helper()
	size, data, exists, err := device.ParsePerfettoRead([]byte(run(t, tr, readCmd(t, path, off))))
	if err != nil || !exists || size != int64(off+len(data)) {
		t.Fatalf("read of %s from %d: size %d, %d bytes, exists %v, %v", path, off, size, len(data), exists, err)
	}
	return data
}

// simRun returns a simulated run's events (frames and messages).
func simRun(t *testing.T, scenario string, hz float64, d time.Duration) []source.Event {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: hz, Seed: 33, Speed: 0, Duration: d, Package: tracePkg})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	var out []source.Event
	for b := range ch {
		out = append(out, b...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return out
}

// readTrace reads a trace with fpstop's own reader.
func readTrace(t *testing.T, b []byte) []*source.Frame {
	t.Helper()
	src := perfetto.FromReader(bytes.NewReader(b), perfetto.Options{Name: "fake", Package: tracePkg})
	ch := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), ch); close(ch) }()
	var frames []*source.Frame
	for batch := range ch {
		for _, e := range batch {
			if f, ok := e.(*source.Frame); ok {
				frames = append(frames, f)
			}
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return frames
}

// TestTracingSessionAgreesWithTruth: a session started with fpstop's own command line writes
// its file only at period boundaries, grows while the app runs, and ends with kill -TERM,
// writing the rest; read back by fpstop's reader, every frame carries the blame the fake
// injected (app deadline missed, SurfaceFlinger, buffer stuffing), and each frame with slow
// work names it as its slowest section besides the frame's wrappers; rm removes the file.
func TestTracingSessionAgreesWithTruth(t *testing.T) {
	for _, c := range []struct {
		scenario string
		hz       float64
	}{{"janky", 60}, {"demo", 120}} {
		t.Run(fmt.Sprintf("%s-%g", c.scenario, c.hz), func(t *testing.T) {
			evs := simRun(t, c.scenario, c.hz, 12*time.Second)
			clk := &testClock{now: time.Unix(1_700_000_000, 0)}
			tr := NewTracing(TracingConfig{Package: tracePkg, Pid: func() int { return 4242 }, Now: clk.Now,
				Trace: simtext.TraceOptions{Stuffing: true, SlowWork: true, SFJankEvery: 37, BootOffsetNs: 5e9}})
			path := TraceDir + "fpstop-t-1.pftrace"
			pid, err := device.ParsePerfettoStart([]byte(run(t, tr, startCmd(t, traceConfigText("fpstop-t-1", 30000, 250, tracePkg), path))))
			if err != nil {
				t.Fatal(err)
			}
			if got := run(t, tr, "pidof perfetto"); got != strconv.Itoa(pid)+"\n" {
				t.Fatalf("pidof perfetto = %q, want %d", got, pid)
			}
			if got := run(t, tr, "pidof perfetto; echo exit $?"); got != strconv.Itoa(pid)+"\nexit 0\n" {
				t.Fatalf("pidof perfetto; echo exit $? = %q, want %d and status 0", got, pid)
			}
			if got := run(t, tr, "ls "+path); got != path+"\n" {
				t.Fatalf("ls = %q", got)
			}
			var file []byte
			grew, stayed := 0, 0
			for i := 0; i < len(evs); {
				// one batch per 50 ms of the run, fed 50 ms apart
				j := i
				for j < len(evs) && evs[j].At() < evs[i].At()+50e6 {
					j++
				}
				j = max(j, i+1)
				tr.Feed(evs[i:j])
				i = j
				clk.add(50 * time.Millisecond)
				got := readAt(t, tr, path, len(file))
				if len(got) > 0 {
					grew++
				} else {
					stayed++
				}
				file = append(file, got...)
			}
			if grew < 10 || stayed < grew {
				t.Errorf("file grew at %d reads and stayed at %d: want growth at 250 ms periods only", grew, stayed)
			}
			if out := run(t, tr, "kill -TERM "+strconv.Itoa(pid)); out != "" {
				t.Errorf("kill printed %q", out)
			}
			if got := run(t, tr, "pidof perfetto"); got != "" {
				t.Errorf("pidof perfetto after kill = %q", got)
			}
			if got := run(t, tr, "pidof perfetto; echo exit $?"); got != "exit 1\n" {
				t.Errorf("pidof perfetto; echo exit $? after kill = %q, want status 1 alone", got)
			}
			file = append(file, readAt(t, tr, path, len(file))...)
			frames := readTrace(t, file)
			checkAgainstTruth(t, frames, tr.Truth())
			checkAgainstRows(t, frames, evs)
			if out := run(t, tr, "rm -f "+path+"; echo exit $?"); out != "exit 0\n" {
				t.Errorf("rm printed %q, want status 0 alone", out)
			}
			if got := run(t, tr, "ls "+path); !strings.Contains(got, "No such file") {
				t.Errorf("ls after rm = %q", got)
			}
			if got := run(t, tr, readCmd(t, path, 0)); got != "" {
				t.Errorf("read after rm = %q (want nothing: no file)", got)
			}
			if got := run(t, tr, "stat -c %s "+path); !strings.Contains(got, "No such file") {
				t.Errorf("stat after rm = %q", got)
			}
		})
	}
}

func checkAgainstTruth(t *testing.T, frames []*source.Frame, truth []simtext.TraceFrame) {
	t.Helper()
	byKey := map[truthKey]simtext.TraceFrame{}
	for _, tf := range truth {
		byKey[truthKey{tf.Window, tf.Token}] = tf
	}
	if len(frames) != len(truth) {
		t.Errorf("%d frames in the trace, %d in the truth", len(frames), len(truth))
	}
	counts := map[string]int{}
	for _, f := range frames {
		if f.Timeline == nil {
			t.Fatalf("frame %+v has no timeline", f)
		}
		tf, ok := byKey[truthKey{f.Window, f.Timeline.Token}]
		if !ok {
			t.Errorf("frame %s %d not in the truth", f.Window, f.Timeline.Token)
			continue
		}
		if f.Timeline.JankType != tf.Jank {
			t.Errorf("frame %d: jank %d, truth %d", tf.Token, f.Timeline.JankType, tf.Jank)
		}
		for name, bit := range map[string]int64{"app": source.JankAppDeadline, "sf": source.JankSFCPU, "stuffing": source.JankBufferStuffing} {
			if tf.Jank&bit != 0 {
				counts[name]++
			}
		}
		if tf.SlowWork == "" {
			continue
		}
		counts["slow"]++
		if tf.Slowest != tf.SlowWork {
			t.Errorf("frame %d: slow work %q is not its slowest section (%q)", tf.Token, tf.SlowWork, tf.Slowest)
		}
		if got := slowestOwnSection(f); got != tf.SlowWork {
			t.Errorf("frame %d: slowest section read %q, truth %q (%+v)", tf.Token, got, tf.SlowWork, f.Sections)
		}
	}
	t.Logf("%d frames, %v", len(frames), counts)
	for _, k := range []string{"app", "sf", "stuffing", "slow"} {
		if counts[k] == 0 {
			t.Errorf("no frame with %s in the run", k)
		}
	}
}

// checkAgainstRows holds the trace's frames against the simulator's frames, which the fake's
// gfxinfo prints as its rows: the same vsync, deadline and completion, on the monotonic clock.
func checkAgainstRows(t *testing.T, frames []*source.Frame, evs []source.Event) {
	t.Helper()
	rows := map[truthKey]*source.Frame{}
	for _, e := range evs {
		if f, ok := e.(*source.Frame); ok {
			rows[truthKey{f.Window, f.VsyncID}] = f
		}
	}
	bad := 0
	for _, f := range frames {
		r := rows[truthKey{f.Window, f.Timeline.Token}]
		if r == nil || f.VsyncNs != r.VsyncNs || f.DoneNs != r.DoneNs || f.DeadlineNs != r.DeadlineNs {
			if bad++; bad <= 5 {
				t.Errorf("trace frame %s %d (vsync %d done %d deadline %d) against its row %+v", f.Window, f.Timeline.Token,
					f.VsyncNs, f.DoneNs, f.DeadlineNs, r)
			}
		}
	}
}

// slowestOwnSection is the longest section read from the trace inside the frame's own
// Choreographer#doFrame (the reader also lists other frames' sections that overlapped it,
// clipped), besides the wrappers.
func slowestOwnSection(f *source.Frame) string {
	if f.Sections == nil || f.Timeline == nil {
		return ""
	}
	var from, to int64
	for _, s := range *f.Sections {
		if s.Name == "Choreographer#doFrame "+strconv.FormatInt(f.Timeline.Token, 10) {
			from, to = s.StartNs, s.StartNs+s.DurNs
		}
	}
	for _, s := range *f.Sections { // slowest first
		if s.StartNs < from || s.StartNs >= to || s.Thread != "main" || s.Name == "traversal" || strings.HasPrefix(s.Name, "Choreographer#doFrame ") {
			continue
		}
		return s.Name
	}
	return ""
}

// TestTracingEndsByDuration: a session nobody stops ends at duration_ms with what the app did
// until then in its file; nothing fed later reaches it.
func TestTracingEndsByDuration(t *testing.T) {
	evs := simRun(t, "smooth", 60, 4*time.Second)
	clk := &testClock{now: time.Unix(1_700_000_000, 0)}
	tr := NewTracing(TracingConfig{Package: tracePkg, Now: clk.Now})
	path := TraceDir + "fpstop-d.pftrace"
	pid, err := device.ParsePerfettoStart([]byte(run(t, tr, startCmd(t, traceConfigText("fpstop-d", 1000, 100, tracePkg), path))))
	if err != nil {
		t.Fatal(err)
	}
	half := len(evs) / 2
	tr.Feed(evs[:half])
	clk.add(1500 * time.Millisecond)
	tr.Feed(evs[half:]) // after the end
	if got := tr.Running(); len(got) != 0 {
		t.Fatalf("perfetto %d still running after duration_ms: %v", pid, got)
	}
	frames := readTrace(t, []byte(run(t, tr, "cat "+path)))
	if whole := readAt(t, tr, path, 0); !bytes.Equal(whole, []byte(run(t, tr, "cat "+path))) {
		t.Errorf("the read command from 0 gave %d bytes, cat %d", len(whole), len(run(t, tr, "cat "+path)))
	}
	want := 0
	for _, e := range evs[:half] {
		if _, ok := e.(*source.Frame); ok {
			want++
		}
	}
	if len(frames) != want || want == 0 {
		t.Errorf("%d frames in the finished file, %d fed while it ran", len(frames), want)
	}
}

// TestTracingRefusals: what a phone answers when it cannot trace.
func TestTracingRefusals(t *testing.T) {
	cfg := traceConfigText("fpstop-r", 10000, 250, tracePkg)
	path := TraceDir + "fpstop-r.pftrace"
	for _, c := range []struct {
		name  string
		setup func(tr *Tracing)
		sdk   int
		cmd   string
		want  string // in the output; "" = a pid that is not running
	}{
		{name: "same unique name", setup: func(tr *Tracing) { tr.HoldSession("fpstop-r") }},
		{name: "service busy", setup: func(tr *Tracing) { tr.SetBusy(true) }},
		{name: "too many sessions", setup: func(tr *Tracing) {
			for i := range 5 {
				tr.HoldSession("other-" + strconv.Itoa(i))
			}
		}},
		{name: "android 9", sdk: 28, want: "unrecognized option '--txt'"},
		{name: "android 8", sdk: 27, want: "perfetto: inaccessible or not found"},
		{name: "outside the trace dir", cmd: "echo 'duration_ms: 1' | perfetto --background --txt -c - -o /sdcard/x.pftrace", want: "Permission denied"},
		{name: "malformed", cmd: "echo 'data_sources { config { name: \"x\" }' | perfetto --background --txt -c - -o " + path, want: "malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := NewTracing(TracingConfig{Package: tracePkg, SDK: c.sdk})
			if c.setup != nil {
				c.setup(tr)
			}
			before := tr.Running()
			cmd := c.cmd
			if cmd == "" {
				cmd = startCmd(t, cfg, path)
			}
			out := run(t, tr, cmd)
			pid, err := device.ParsePerfettoStart([]byte(out))
			if c.want != "" {
				if err == nil || !strings.Contains(out, c.want) {
					t.Errorf("output %q (pid %d, %v); want a refusal saying %q", out, pid, err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("perfetto printed %q: a phone prints the background pid first", out)
			}
			if got := tr.Running(); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("running %v, before %v: the refused session's process must end at once", got, before)
			}
			if why := device.ParsePerfettoLog([]byte(run(t, tr, "logcat -d -t 200 -s perfetto")), pid); why == "" {
				t.Errorf("no log line of perfetto %d says why (log %q)", pid, tr.Log())
			}
			if got := tr.Files()[path]; got != 0 {
				t.Errorf("refused session's file holds %d bytes", got)
			}
		})
	}
}

// TestTracingAndroid11: Android 11 runs the session but has no FrameTimeline: the file holds
// the app's sections and no frame.
func TestTracingAndroid11(t *testing.T) {
	evs := simRun(t, "smooth", 60, 2*time.Second)
	clk := &testClock{now: time.Unix(1_700_000_000, 0)}
	tr := NewTracing(TracingConfig{Package: tracePkg, SDK: 30, Now: clk.Now})
	path := TraceDir + "fpstop-e.pftrace"
	pid, err := device.ParsePerfettoStart([]byte(run(t, tr, startCmd(t, traceConfigText("fpstop-e", 10000, 100, tracePkg), path))))
	if err != nil {
		t.Fatal(err)
	}
	tr.Feed(evs)
	run(t, tr, "kill -TERM "+strconv.Itoa(pid))
	file := run(t, tr, "cat "+path)
	for _, f := range readTrace(t, []byte(file)) {
		if f.Timeline != nil {
			t.Fatalf("Android 11 trace has a FrameTimeline frame: %+v", f.Timeline)
		}
	}
	if !strings.Contains(file, "Choreographer#doFrame") {
		t.Errorf("Android 11 trace has no app sections (%d bytes)", len(file))
	}
}

// TestTracingOtherTools: another tool's session is listed by pidof and ps, survives fpstop's
// sessions, and a config without the app in atrace_apps records none of its sections.
func TestTracingOtherTools(t *testing.T) {
	evs := simRun(t, "smooth", 60, 2*time.Second)
	tr := NewTracing(TracingConfig{Package: tracePkg})
	other := tr.HoldSession("studio")
	path := TraceDir + "fpstop-o.pftrace"
	pid, err := device.ParsePerfettoStart([]byte(run(t, tr, startCmd(t, traceConfigText("fpstop-o", 10000, 100, "com.example.other"), path))))
	if err != nil {
		t.Fatal(err)
	}
	ps := run(t, tr, "ps -A")
	if p, ok := device.ParsePs([]byte(ps), tracePkg); !ok || p != sim.DefaultPid {
		t.Errorf("ps -A does not list the app:\n%s", ps)
	}
	if strings.Count(ps, " perfetto\n") != 2 {
		t.Errorf("ps -A lists not 2 perfetto processes:\n%s", ps)
	}
	tr.Feed(evs)
	run(t, tr, "kill -TERM "+strconv.Itoa(pid))
	if got := tr.Running(); len(got) != 1 || got[0] != other {
		t.Errorf("running %v, want only the other tool's %d", got, other)
	}
	if file := run(t, tr, "cat "+path); strings.Contains(file, "Choreographer#doFrame") || len(readTrace(t, []byte(file))) == 0 {
		t.Errorf("a session without the app in atrace_apps: sections written or frames missing")
	}
	if out := run(t, tr, "kill -TERM 1"); !strings.Contains(out, "not permitted") {
		t.Errorf("kill 1 printed %q", out)
	}
	if out := run(t, tr, "kill -TERM 99999"); !strings.Contains(out, "No such process") {
		t.Errorf("kill of nothing printed %q", out)
	}
	// without the echo, stdin stays open over shell v1 and perfetto waits for its config
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b bytes.Buffer
	if ok, _ := tr.Serve(ctx, "perfetto --background --txt -c - -o "+path, &b); !ok || b.Len() != 0 {
		t.Errorf("perfetto with stdin open: served %v, printed %q", ok, b.String())
	}
	if ok, _ := tr.Serve(ctx, "dumpsys gfxinfo "+tracePkg, &b); ok {
		t.Errorf("Serve took a command that is not its own")
	}
}

func TestParseTraceConfig(t *testing.T) {
	cfg, err := parseTraceConfig(traceConfigText("fpstop-x", 20000, 250, tracePkg), true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.durationMs != 20000 || cfg.writePeriodMs != 250 || !cfg.writeIntoFile || cfg.uniqueName != "fpstop-x" ||
		!cfg.sources["android.surfaceflinger.frametimeline"] || !cfg.sources["linux.ftrace"] || !cfg.apps[tracePkg] ||
		!cfg.categories["view"] {
		t.Errorf("parsed %+v", cfg)
	}
	for _, bad := range []string{"a {", "a }", "}", "duration_ms: x", "name: \"x", "a: {", "@"} {
		if _, err := parseTraceConfig(bad, true); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
