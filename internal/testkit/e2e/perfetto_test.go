package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// tracingEnv is a fake phone (Android of sdk) whose tracing service the simulated app feeds:
// it answers gfxinfo as every phone here does and serves perfetto as Android 12–16 do.
func tracingEnv(t *testing.T, ph *phone, sdk int, release string) (*adbtest.Env, *fakeadb.Tracing) {
	t.Helper()
	env, tr, _ := tracingEnvClock(t, ph, sdk, release)
	return env, tr
}

// tracingEnvClock is tracingEnv whose tracing service's clock the test can move on (skip).
func tracingEnvClock(t *testing.T, ph *phone, sdk int, release string) (*adbtest.Env, *fakeadb.Tracing, *atomic.Int64) {
	t.Helper()
	skip := &atomic.Int64{}
	tr := newTracing(t, ph, sdk, skip, nil)
	env := adbtest.Start(t, fakeadb.Config{Handler: tr.Wrap(ph.handler), Model: "Pixel 7", Android: release, SDK: sdk})
	return env, tr, skip
}

// newTracing is the tracing service of ph's phone, fed by its app until the test ends; fed, when
// not nil, notes when each frame reached it.
func newTracing(t testing.TB, ph *phone, sdk int, skip *atomic.Int64, fed *feedLog) *fakeadb.Tracing {
	tr := fakeadb.NewTracing(fakeadb.TracingConfig{SDK: sdk, Package: pkg, Pid: func() int { return int(ph.pid.Load()) },
		Trace: simtext.TraceOptions{Stuffing: true, SlowWork: true, SFJankEvery: 20},
		Now:   func() time.Time { return time.Now().Add(time.Duration(skip.Load())) }})
	ch := ph.fan.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case b := <-ch:
				tr.Feed(b)
				fed.note(time.Now(), b)
			case <-ph.doneCh():
				return
			}
		}
	}()
	t.Cleanup(func() { ph.fan.Unsubscribe(ch); ph.stop(); <-done })
	return tr
}

// feedLog is when each frame (by token) reached the fake phone's tracing service, by the host's
// clock: the simulated app runs in this test process, and a starved test process draws its
// frames late, in a burst — a lateness of the fake phone's, which no real phone has.
type feedLog struct {
	mu  sync.Mutex
	fed map[int64]time.Time
}

func (l *feedLog) note(at time.Time, b []source.Event) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fed == nil {
		l.fed = map[int64]time.Time{}
	}
	for _, ev := range b {
		if f, ok := ev.(*source.Frame); ok && !f.History {
			if _, seen := l.fed[f.VsyncID]; !seen {
				l.fed[f.VsyncID] = at
			}
		}
	}
}

// phoneClock maps the fake phone's clock onto the host's: the least (fed − end) over the frames
// of truth, the frame the phone traced soonest after its end (the simulator runs in real time,
// so one offset holds for the run). ok is false before any frame was fed.
func (l *feedLog) phoneClock(truth []simtext.TraceFrame) (offset time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, tf := range truth {
		if at, fed := l.fed[tf.Token]; fed {
			if d := time.Duration(at.UnixNano() - tf.EndNs); !ok || d < offset {
				offset, ok = d, true
			}
		}
	}
	return offset, ok
}

// fedAt is when the frame of token reached the tracing service.
func (l *feedLog) fedAt(token int64) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.fed[token]
	return at, ok
}

// TestPerfettoLive (issue 33): a headless --source perfetto run of a 60 Hz and a 120 Hz app
// over a real adb server: fps and janky within 1 % of the fake's truth over the frames it
// covers, every frame's blame the jank the fake injected (app deadline, SurfaceFlinger, buffer
// stuffing), each janky frame's slowest section the fake's slow work; at exit no perfetto of
// fpstop's runs and none of its files is left. Parallel: it waits on real time and its bounds
// are on counts, not on reaction times.
func TestPerfettoLive(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb and the fake phone")
	}
	t.Parallel()
	for _, hz := range []float64{60, 120} {
		t.Run(fmt.Sprintf("%gHz", hz), func(t *testing.T) {
			t.Parallel()
			ph := startPhone(t, hz, "janky", 33, 0)
			env, tr := tracingEnv(t, ph, 34, "14")
			rec := filepath.Join(t.TempDir(), "run.jsonl")
			r, errs, code := fpstop(t, env, "-p", pkg, "--source", "perfetto", "--headless", "--json", "--duration", "15s", "--record", rec, "--record-raw")
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if r.Source != "perfetto" || r.Blame == nil {
				t.Fatalf("source %q blame %v", r.Source, r.Blame)
			}
			if run := tr.Running(); len(run) != 0 {
				t.Errorf("perfetto still running after exit: %v", run)
			}
			for f := range tr.Files() {
				if strings.Contains(f, "/fpstop-") {
					t.Errorf("%s left on the phone", f)
				}
			}
			checkPerfettoTruth(t, ph, tr, rec, r.Frames, r.JankyFrames, float64(*r.FPS))
			t.Logf("report blame: app %d, SurfaceFlinger %d, buffer stuffing %d, display %d, prediction %d, dropped %d",
				r.Blame.App, r.Blame.SurfaceFlinger, r.Blame.BufferStuffing, r.Blame.Display, r.Blame.Prediction, r.Blame.Dropped)
			checkPerfettoReplay(t, rec, r)
			checkPerfettoCompare(t, rec, r)
			checkRawTraces(t, rec)
		})
	}
}

func checkPerfettoTruth(t *testing.T, ph *phone, tr *fakeadb.Tracing, rec string, frames, janky int64, fps float64) {
	t.Helper()
	first, last, _, seenFrames := seen(t, rec)
	var lastDone int64
	for _, f := range seenFrames {
		lastDone = max(lastDone, f.DoneNs)
	}
	ph.stop()
	truth := truthBetween(t, ph.truth.Bytes(), first, lastDone)
	ref, err := reference.FromTruth(bytes.NewReader(truth), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fpstop %d frames, %d janky, fps %.2f (vsync %d..%d); truth %d frames, %d janky, fps %.2f", frames, janky, fps, first, last, ref.Frames, ref.Janky, ref.FPS)
	if ref.Frames < 200 {
		t.Fatalf("the truth window holds only %d frames", ref.Frames)
	}
	within := func(what string, got, want float64) {
		if math.Abs(got-want) > 0.01*want+0.5 {
			t.Errorf("%s %.2f, truth %.2f (more than 1 %% apart)", what, got, want)
		}
	}
	within("frames", float64(frames), float64(ref.Frames))
	within("fps", fps, ref.FPS)
	within("janky", float64(janky), float64(ref.Janky))
	byToken := map[string]simtext.TraceFrame{}
	for _, tf := range tr.Truth() {
		byToken[fmt.Sprint(tf.Window, tf.Token)] = tf
	}
	var kinds [3]int
	badBlame, badSection := 0, 0
	slowest := map[string]int{} // the app-late frames' slowest section, where the fake injected one
	for _, f := range seenFrames {
		tf, ok := byToken[fmt.Sprint(f.Window, f.VsyncID)]
		if !ok || f.Timeline == nil {
			t.Fatalf("frame %s %d: not in the fake's truth or without FrameTimeline", f.Window, f.VsyncID)
		}
		if f.Timeline.JankType != tf.Jank {
			badBlame++
		}
		for i, bit := range []int64{source.JankAppDeadline, source.JankSFCPU, source.JankBufferStuffing} {
			if tf.Jank&bit != 0 {
				kinds[i]++
			}
		}
		if tf.Jank&source.JankAppDeadline != 0 && tf.Slowest != "" {
			slowest[slowestOwn(f)]++
		}
		if tf.Jank&source.JankAppDeadline != 0 && tf.Slowest != "" && slowestOwn(f) != tf.Slowest {
			badSection++
			if badSection < 4 {
				t.Logf("frame %d: slowest %q, fake's %q (%v)", f.VsyncID, slowestOwn(f), tf.Slowest, f.Sections)
			}
		}
	}
	t.Logf("blame injected: app %d, SurfaceFlinger %d, buffer stuffing %d; the app-late frames' slowest sections %v (%d not the fake's)",
		kinds[0], kinds[1], kinds[2], slowest, badSection)
	if badBlame > 0 || badSection > 0 || kinds[0] == 0 || kinds[1] == 0 || kinds[2] == 0 {
		t.Errorf("%d frames with another jank type than the fake's, %d janky frames with another slowest section", badBlame, badSection)
	}
}

// slowestOwn is the longest section of a frame's own work (inside its Choreographer#doFrame
// or DrawFrames of its token, on that thread) other than those wrappers and traversal: the
// frame's sections list also holds what overlapped it (other frames' work, messages).
func slowestOwn(f *source.Frame) string {
	if f.Sections == nil {
		return ""
	}
	tok := fmt.Sprint(f.VsyncID)
	var owns []source.FrameSection
	for _, s := range *f.Sections {
		if s.Name == "Choreographer#doFrame "+tok || s.Name == "DrawFrames "+tok {
			owns = append(owns, s)
		}
	}
	for _, s := range *f.Sections { // the slowest first
		if strings.HasPrefix(s.Name, "Choreographer#doFrame") || strings.HasPrefix(s.Name, "DrawFrames") || s.Name == "traversal" {
			continue
		}
		for _, o := range owns {
			if s.Thread == o.Thread && s.StartNs >= o.StartNs && s.StartNs+s.DurNs <= o.StartNs+o.DurNs {
				return s.Name
			}
		}
	}
	return ""
}

// TestPerfettoRefused (issue 33): a phone whose perfetto cannot record FrameTimeline
// (Android 11) or whose tracing service is busy: an explicit --source perfetto exits 3 with
// one line; auto keeps gfxinfo.
func TestPerfettoRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb and the fake phone")
	}
	t.Parallel()
	ph := startPhone(t, 60, "demo", 3, 0)
	env, tr := tracingEnv(t, ph, 30, "11")
	_, errs, code := fpstop(t, env, "-p", pkg, "--source", "perfetto", "--headless", "--json", "--duration", "3s")
	if code != cli.ExitRuntime || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "Android 12") || saysPerfetto(errs) != 1 {
		t.Errorf("exit %d, stderr %q; want 3 and one line saying Android 12 is needed, naming perfetto once", code, errs)
	}
	t.Logf("Android 11: %s", strings.TrimSpace(errs))
	r, errs, code := fpstop(t, env, "-p", pkg, "--headless", "--json", "--duration", "3s")
	if code != cli.ExitOK || r.Source != "gfxinfo" || r.Frames == 0 {
		t.Errorf("auto: exit %d source %q frames %d: %s", code, r.Source, r.Frames, errs)
	}
	if run := tr.Running(); len(run) != 0 {
		t.Errorf("perfetto running: %v", run)
	}
	// Android 14 whose tracing service is busy (another tool holds it): the same exit and one
	// line saying so; nothing of fpstop's is left; auto reads gfxinfo.
	ph14 := startPhone(t, 60, "demo", 6, 0)
	env14, tr14 := tracingEnv(t, ph14, 34, "14")
	tr14.SetBusy(true)
	_, errs, code = fpstop(t, env14, "-p", pkg, "--source", "perfetto", "--headless", "--json", "--duration", "3s")
	if code != cli.ExitRuntime || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "busy") || saysPerfetto(errs) != 1 {
		t.Errorf("busy: exit %d, stderr %q; want 3 and one line saying tracing is busy, naming perfetto once", code, errs)
	}
	t.Logf("busy: %s", strings.TrimSpace(errs))
	if run, files := tr14.Running(), fpstopFiles(tr14); len(run) != 0 || len(files) != 0 {
		t.Errorf("busy: perfetto running %v, files %v", run, files)
	}
	r, errs, code = fpstop(t, env14, "-p", pkg, "--headless", "--json", "--duration", "3s")
	if code != cli.ExitOK || r.Source != "gfxinfo" || r.Frames == 0 {
		t.Errorf("busy, auto: exit %d source %q frames %d: %s", code, r.Source, r.Frames, errs)
	}
}

// saysPerfetto counts the times a line names perfetto (a refusal's line says it once: the
// source it refused).
func saysPerfetto(line string) int { return strings.Count(strings.ToLower(line), "perfetto") }

// doneCh is closed once the simulated app has stopped.
func (p *phone) doneCh() <-chan struct{} { return p.done }

// checkPerfettoReplay: `fpstop report` of the live run's recording, and the recording replayed
// headless (--input), give the live run's report again, key by key: its numbers, blame, worst
// frames (their sections and blame), slow sections, windows and warnings. The report states
// the live run's duration_s too (its recording's end line keeps the wall time); the replay
// takes it from the span of the events (metrics.ReportMeta): from the first frame to the last,
// shorter than the run by its start-up and stop (1.7 s at load 15), longer by at most the
// trace's last second.
func checkPerfettoReplay(t *testing.T, rec string, live metrics.Report) {
	t.Helper()
	for _, args := range [][]string{{"report", rec}, {"--input", rec, "--headless", "--json", "--speed", "0"}} {
		var rb, eb bytes.Buffer
		if code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &rb, Stderr: &eb,
			Getenv: func(string) string { return "" }, Build: buildinfo.Info{Version: "e2e"}}); code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", args[0], code, eb.String())
		}
		// both through metrics.Report, as the live run's was read
		var rr metrics.Report
		if err := json.Unmarshal(rb.Bytes(), &rr); err != nil {
			t.Fatal(err)
		}
		if args[0] == "report" && rr.DurationS != live.DurationS || rr.DurationS <= 0 || rr.DurationS > live.DurationS+1 {
			t.Errorf("%s of the recording: duration_s %v, the live run's %v", args[0], rr.DurationS, live.DurationS)
		}
		got, want := keys(t, rr), keys(t, live)
		delete(got, "duration_s")
		delete(want, "duration_s")
		for k, w := range want {
			if g := got[k]; !bytes.Equal(compact(g), compact(w)) {
				t.Errorf("%s of the recording: %s differs from the live run's:\n%.600s\n%.600s", args[0], k, g, w)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s of the recording has %s, the live run's report not", args[0], k)
			}
		}
	}
}

func keys(t *testing.T, r metrics.Report) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	b, err := json.Marshal(r)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// checkPerfettoCompare: `fpstop compare` of the recording with itself compares each party's
// share of the frames FrameTimeline blames, the live report's.
func checkPerfettoCompare(t *testing.T, rec string, live metrics.Report) {
	t.Helper()
	var out, eb bytes.Buffer
	if code := cli.Main(context.Background(), []string{"compare", rec, rec, "--format", "json"}, cli.Env{Stdin: strings.NewReader(""),
		Stdout: &out, Stderr: &eb, Getenv: func(string) string { return "" }}); code != cli.ExitOK {
		t.Fatalf("compare: exit %d: %s", code, eb.String())
	}
	var res compare.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	b := live.Blame
	want := map[string]int64{"blame_app_pct": b.App, "blame_surfaceflinger_pct": b.SurfaceFlinger, "blame_buffer_stuffing_pct": b.BufferStuffing}
	for _, m := range res.Metrics {
		n, ok := want[m.Name]
		if !ok {
			continue
		}
		delete(want, m.Name)
		share := math.Round(float64(n)*100/float64(live.Frames)*100) / 100
		if m.Base == nil || math.Abs(*m.Base-share) > 0.006 || m.New == nil || *m.New != *m.Base {
			t.Errorf("compare: %s %v → %v, the live report's share %.2f", m.Name, m.Base, m.New, share)
		}
	}
	if len(want) > 0 {
		t.Errorf("compare of a Perfetto recording lacks %v", want)
	}
}

// fpstopFiles lists fpstop's trace files on the phone.
func fpstopFiles(tr *fakeadb.Tracing) []string {
	var out []string
	for f := range tr.Files() {
		if strings.Contains(f, "/fpstop-") {
			out = append(out, f)
		}
	}
	return out
}

// waitTracing waits until fpstop's session runs and its file has grown.
func waitTracing(t *testing.T, tr *fakeadb.Tracing) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for f, n := range tr.Files() {
			if strings.Contains(f, "/fpstop-") && n > 0 && len(tr.Running()) > 0 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no fpstop session grew in 30 s (running %v, files %v)", tr.Running(), tr.Files())
}

// TestPerfettoSignals (issue 33): SIGINT ends fpstop's sessions at once and removes its files;
// after SIGKILL (no chance to clean up) no session of fpstop's runs 60 s later (the fake
// phone's clock is moved on rather than waited for): every session is bounded by duration_ms.
func TestPerfettoSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb, the fake phone and the binary")
	}
	t.Parallel()
	ph := startPhone(t, 60, "demo", 4, 0)
	env, tr, skip := tracingEnvClock(t, ph, 34, "14")
	cmd, _, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "perfetto", "--headless", "--json")
	waitTracing(t, tr)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if run, files := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(files) != 0 {
		t.Errorf("after SIGINT: perfetto running %v, files %v (stderr %s)", run, files, errb.String())
	}
	cmd, _, _ = startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "perfetto", "--headless", "--json")
	waitTracing(t, tr)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(tr.Running()) == 0 {
		t.Fatal("no session running right after SIGKILL: the test proves nothing")
	}
	skip.Store(int64(60 * time.Second))
	if run := tr.Running(); len(run) != 0 {
		t.Errorf("60 s after SIGKILL perfetto still runs: %v", run)
	}
	before := tr.Files()
	skip.Store(int64(65 * time.Second))
	for f, n := range tr.Files() {
		if before[f] != n {
			t.Errorf("%s still grows 60 s after SIGKILL (%d → %d bytes)", f, before[f], n)
		}
	}
}
