package gfxinfo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// script is a fake device: each poll returns the next step's output or error; after the last
// step it cancels the run.
type script struct {
	steps  []step
	i      int
	cancel context.CancelFunc
	pkgs   []string
	resets int
}

type step struct {
	out []byte
	err error
}

func (s *script) Gfxinfo(ctx context.Context, pkg string) ([]byte, error) {
	s.pkgs = append(s.pkgs, pkg)
	if s.i >= len(s.steps) {
		s.cancel()
		return nil, ctx.Err()
	}
	st := s.steps[s.i]
	s.i++
	return st.out, st.err
}

type resetScript struct{ *script }

func (r resetScript) GfxinfoReset(ctx context.Context, pkg string) ([]byte, error) {
	r.resets++
	return r.Gfxinfo(ctx, pkg)
}

// run drives a poller over the script in virtual time and returns its events and the sleeps
// it asked for.
func run(t *testing.T, d Dumper, s *script, cfg PollerConfig) ([]source.Event, []time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cancel = cancel
	var sleeps []time.Duration
	now := time.Unix(0, 0)
	cfg.Package = pkg
	cfg.Now = func() time.Time { return now }
	cfg.Sleep = func(ctx context.Context, d time.Duration) error {
		sleeps = append(sleeps, d)
		now = now.Add(d)
		return ctx.Err()
	}
	out := make(chan []source.Event, 1000)
	err := NewPoller(d, cfg).Run(ctx, out)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	close(out)
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	return evs, sleeps
}

func frames(evs []source.Event) []*source.Frame {
	var fs []*source.Frame
	for _, e := range evs {
		if f, ok := e.(*source.Frame); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

func notices(evs []source.Event) []string {
	var s []string
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok {
			s = append(s, fmt.Sprintf("%s/%s/%s", n.Level, n.State, n.Text))
		}
	}
	return s
}

// polls returns the window polls (procPolls returns the process-wide ones).
func polls(evs []source.Event) []*source.Poll {
	var ps []*source.Poll
	for _, e := range evs {
		if p, ok := e.(*source.Poll); ok && !p.Process {
			ps = append(ps, p)
		}
	}
	return ps
}

// procPolls returns the process-wide polls.
func procPolls(evs []source.Event) []*source.Poll {
	var ps []*source.Poll
	for _, e := range evs {
		if p, ok := e.(*source.Poll); ok && p.Process {
			ps = append(ps, p)
		}
	}
	return ps
}

func dumpAt(uptimeMs int64, pid int, w synthWin) []byte {
	return synthDump(nil, 23, uptimeMs, pid, pkg, []synthWin{w})
}

// TestPollerDedupe: overlapping rows across polls are emitted once, in order; polls report
// counters; a rate change is reported; ticks carry the device uptime.
func TestPollerDedupe(t *testing.T) {
	const p120 = 8_333_333
	w := synthWin{title: pkg + "/.Main", rows: 120, start: 10e9, period: p120, firstID: 1000, total: 200}
	d1 := dumpAt(11_000, 77, w)
	w2 := w
	w2.start += 50 * p120 // 50 new rows, 70 overlapping
	w2.firstID += 50
	w2.total = 250
	d2 := dumpAt(11_500, 77, w2)
	w3 := w2
	w3.start += 120*p120 + 10e6
	w3.firstID += 500 // 120 new rows at 60 Hz, ring overflowed: total grew by 400
	w3.period = 16_666_667
	w3.rows = 120
	w3.total = 650
	d3 := dumpAt(14_000, 77, w3)
	s := &script{steps: []step{{out: d1}, {out: d2}, {out: d3}}}
	evs, sleeps := run(t, s, s, PollerConfig{})

	fs := frames(evs)
	if len(fs) != 120+50+120 {
		t.Fatalf("%d frames, want 290", len(fs))
	}
	seen := map[int64]bool{}
	for i, f := range fs {
		if seen[f.VsyncID] {
			t.Fatalf("frame %d emitted twice", f.VsyncID)
		}
		seen[f.VsyncID] = true
		if i > 0 && f.VsyncNs <= fs[i-1].VsyncNs {
			t.Fatalf("frames out of order at %d", i)
		}
		if f.Window != w.title {
			t.Fatalf("window %q", f.Window)
		}
	}
	// The first poll's ring is history (drawn before the session started at its uptime, 11 s):
	// every one of its 120 rows; later rows drawn after 11 s are not.
	for i, f := range fs {
		if want := f.VsyncNs < 11_000e6; f.History != want || (i < 120 && !f.History) {
			t.Fatalf("frame %d (vsync %d): history %v", i, f.VsyncNs, f.History)
		}
	}
	if fs[len(fs)-1].History {
		t.Fatal("the last poll's frames are not history")
	}
	ps := polls(evs)
	// NewRows is what a poll accounts for against the counter's growth: the first poll's
	// backlog was drawn before any counter was read (0), then the new rows.
	if len(ps) != 3 || ps[0].NewRows != 0 || ps[1].NewRows != 50 || ps[2].NewRows != 120 ||
		ps[1].TotalFrames != 250 || ps[2].TotalFrames != 650 || ps[2].Rows != 120 || ps[1].Pid != 77 ||
		ps[1].FirstRowVsyncNs != w2.start || ps[2].AtNs != 14_000e6 || ps[0].Hidden {
		for _, p := range ps {
			t.Logf("%+v", *p)
		}
		t.Fatal("polls wrong")
	}
	// The process-wide poll follows its windows: the process counter and every window's rows.
	if pp := procPolls(evs); len(pp) != 3 || pp[1].TotalFrames != 250 || pp[1].NewRows != 50 || pp[1].Pid != 77 {
		t.Errorf("process polls %+v", pp)
	}
	var hz []float64
	var ticks []int64
	var sess, sums int
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Refresh:
			hz = append(hz, e.Hz)
		case *source.Tick:
			ticks = append(ticks, e.NowNs)
		case *source.Session:
			sess++
			if e.Pid != 77 || e.Package != pkg || e.CostBasis != source.CostFrame || e.Source != source.KindGfxinfo {
				t.Errorf("session %+v", e)
			}
		case *source.AndroidSummary:
			sums++
		}
	}
	if fmt.Sprint(hz) != "[120 60]" || fmt.Sprint(ticks) != "[11000000000 11500000000 14000000000]" || sess != 1 || sums != 6 {
		t.Errorf("refresh %v ticks %v sessions %d summaries %d", hz, ticks, sess, sums)
	}
	// Paced by need: the first dump at the 120 Hz refresh rate's pace (500 ms), then the ring's
	// time less a quarter at the refresh rate or the rate drawn, whichever is faster: 50 frames
	// in 0.5 s (100 fps, 120 Hz) → 750 ms; the counter's 400 frames in 2.5 s (160 fps, the ring
	// overflowed) → 562.5 ms.
	if fmt.Sprint(rounded(sleeps)) != "[500ms 750ms 563ms]" {
		t.Errorf("sleeps %v", sleeps)
	}
	if s.pkgs[0] != pkg {
		t.Errorf("dumper got %q", s.pkgs[0])
	}
}

// TestPollerIncompleteRowLater: a row still incomplete in one poll is emitted once it is
// complete in the next.
func TestPollerIncompleteRowLater(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 3, start: 10e9, period: 16_666_667, firstID: 1, total: 3}
	d1 := dumpAt(11_000, 5, w)
	// Make the last row incomplete (FrameCompleted 0) in the first dump.
	last := bytes.LastIndex(d1[:bytes.LastIndex(d1, []byte("---PROFILEDATA---"))-1], []byte("\n"))
	row := d1[last+1 : bytes.LastIndex(d1, []byte("---PROFILEDATA---"))]
	f := strings.Split(string(row), ",")
	f[16] = "0"
	d1 = bytes.Replace(d1, row, []byte(strings.Join(f, ",")), 1)
	d2 := dumpAt(11_100, 5, w)
	s := &script{steps: []step{{out: d1}, {out: d2}}}
	evs, _ := run(t, s, s, PollerConfig{Interval: 200 * time.Millisecond})
	fs := frames(evs)
	if len(fs) != 3 || fs[2].VsyncID != 3 {
		t.Fatalf("%d frames", len(fs))
	}
	// The late row was completed before the first poll (its counter, 3, already counted it):
	// neither poll accounts it against the counter's growth.
	if ps := polls(evs); ps[0].NewRows != 0 || ps[1].NewRows != 0 || ps[1].TotalFrames != 3 {
		t.Errorf("new rows %d %d", ps[0].NewRows, ps[1].NewRows)
	}
}

func TestPollerWaitingRestartAndDisconnect(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 10, start: 10e9, period: 16_666_667, firstID: 1, total: 10}
	notRunning := []byte("Applications Graphics Acceleration Info:\nUptime: 9000 Realtime: 9000\n\nNo process found for: " + pkg + "\n")
	restarted := w
	restarted.start, restarted.firstID = 11_600_000_000, 500
	boom := errors.New("device offline")
	s := &script{steps: []step{
		{out: notRunning}, {out: notRunning},
		{out: dumpAt(10_500, 100, w)},
		{err: boom}, {err: boom}, {err: boom}, {err: boom}, {err: boom}, {err: boom}, {err: boom},
		{out: dumpAt(12_000, 200, restarted)}, // restarted: a new process, new frames
	}}
	evs, sleeps := run(t, s, s, PollerConfig{Interval: 300 * time.Millisecond})
	got := strings.Join(notices(evs), "\n")
	want := strings.Join([]string{
		"warn/waiting/waiting for " + pkg + " to start (no process found)",
		"info/live/live",
		"error/disconnected/gfxinfo: device offline (fpstop retries every 5 s)",
		"warn//app restarted (pid 100 → 200)",
		"info/live/live",
	}, "\n")
	if got != want {
		t.Errorf("notices:\n%s\nwant:\n%s", got, want)
	}
	if n := len(frames(evs)); n != 20 {
		t.Errorf("%d frames, want 10 before and 10 after the restart", n)
	}
	wantSleeps := "[300ms 300ms 300ms 250ms 500ms 1s 2s 4s 5s 5s 300ms]"
	if fmt.Sprint(sleeps) != wantSleeps {
		t.Errorf("sleeps %v, want %s", sleeps, wantSleeps)
	}
	var sess []int
	var gaps []string
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Session:
			sess = append(sess, e.Pid)
		case *source.Gap:
			gaps = append(gaps, fmt.Sprintf("%d-%d %s", e.FromNs, e.ToNs, e.Reason))
		}
	}
	if fmt.Sprint(sess) != "[0 100 200]" { // waiting (no pid yet), started, restarted
		t.Errorf("sessions %v", sess)
	}
	if fmt.Sprint(gaps) != "[10500000000-12000000000 device disconnected]" {
		t.Errorf("gaps %v", gaps)
	}
}

func TestPollerReset(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 2, start: 10e9, period: 16_666_667, firstID: 1, total: 2}
	s := &script{steps: []step{{out: dumpAt(10_100, 1, w)}}}
	ctx := context.Background()
	if err := NewPoller(s, PollerConfig{Package: pkg, Reset: true}).Run(ctx, make(chan []source.Event, 1)); err == nil {
		t.Error("reset without a ResetDumper: no error")
	}
	rs := resetScript{s}
	evs, _ := run(t, rs, s, PollerConfig{Reset: true, KeepRaw: true})
	if s.resets != 2 || len(frames(evs)) != 2 {
		t.Errorf("resets %d frames %d", s.resets, len(frames(evs)))
	}
	raw := 0
	for _, e := range evs {
		if r, ok := e.(*source.Raw); ok && r.Stream == "gfxinfo" && len(r.Text) > 0 {
			raw++
		}
	}
	if raw != 1 {
		t.Errorf("raw events %d", raw)
	}
	if fmt.Sprint(Args(pkg, false)) != "[dumpsys gfxinfo "+pkg+" framestats]" ||
		fmt.Sprint(Args(pkg, true)) != "[dumpsys gfxinfo "+pkg+" framestats reset]" {
		t.Error("Args")
	}
}

// TestPollerPeriodFromSpacing: rows without a period column (Android 8–11) still steer the
// adaptive interval, through their vsync spacing (144 Hz here: 120 rows = 833 ms → 416 ms).
func TestPollerPeriodFromSpacing(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 20, start: 10e9, period: 6_944_444, total: 20}
	s := &script{steps: []step{{out: synthDump(nil, 17, 10_200, 3, pkg, []synthWin{w})}}}
	evs, sleeps := run(t, s, s, PollerConfig{})
	for _, e := range evs {
		if _, ok := e.(*source.Refresh); ok {
			t.Error("Refresh without a period column")
		}
	}
	if fmt.Sprint(sleeps) != "[416.66664ms]" {
		t.Errorf("sleeps %v", sleeps)
	}
}

func TestAdaptiveInterval(t *testing.T) {
	for _, c := range []struct {
		period int64
		want   time.Duration
	}{{0, 500 * time.Millisecond}, {8_333_333, 499_999_980}, {16_666_667, time.Second},
		{11_111_111, 666_666_660}, {6_944_444, 416_666_640}, {1_000_000, 100 * time.Millisecond}} {
		if got := AdaptiveInterval(c.period); got != c.want {
			t.Errorf("AdaptiveInterval(%d) = %v, want %v", c.period, got, c.want)
		}
	}
}

// TestFromReader: concatenated dumps of one app replay as one session with deduplicated frames.
func TestFromReader(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 120, start: 10e9, period: 16_666_667, firstID: 1, total: 120}
	b := dumpAt(12_000, 9, w)
	w.start += 60 * w.period
	w.firstID += 60
	w.total = 180
	b = append(b, dumpAt(13_000, 9, w)...)
	out := make(chan []source.Event, 100)
	if err := FromReader(bytes.NewReader(b), "capture.txt").Run(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	close(out)
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	s, ok := evs[0].(*source.Session)
	if !ok || s.Input != "capture.txt" || s.Package != pkg || s.Pid != 9 || s.CostBasis != source.CostFrame {
		t.Fatalf("first event %+v", evs[0])
	}
	if n := len(frames(evs)); n != 180 {
		t.Errorf("%d frames, want 180", n)
	}
	if n := notices(evs); n[len(n)-1] != "info/ended/end of capture.txt" {
		t.Errorf("notices %q", n)
	}
	if err := FromReader(strings.NewReader("not a dump\n"), "x").Run(context.Background(), make(chan []source.Event, 10)); err == nil {
		t.Error("garbage input: no error")
	}
	if err := FromFile("/nonexistent/fpstop").Run(context.Background(), make(chan []source.Event, 10)); err == nil {
		t.Error("missing file: no error")
	}
}

// TestFromReaderEventsOwnTheirData: the file source reuses the parser's memory between dumps;
// events already sent must not change when the next dump is parsed.
func TestFromReaderEventsOwnTheirData(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 5, start: 10e9, period: 16_666_667, firstID: 1, total: 5}
	b := dumpAt(12_000, 9, w)
	w2 := w
	w2.start, w2.firstID, w2.total = 20e9, 100, 10
	b = append(b, dumpAt(22_000, 9, w2)...)
	out := make(chan []source.Event, 100)
	if err := FromReader(bytes.NewReader(b), "x").Run(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	close(out)
	var fs []*source.Frame
	var sums []*source.AndroidSummary
	for evs := range out {
		for _, e := range evs {
			switch e := e.(type) {
			case *source.Frame:
				fs = append(fs, e)
			case *source.AndroidSummary:
				if e.Window != "" {
					sums = append(sums, e)
				}
			}
		}
	}
	if len(fs) != 10 || fs[0].VsyncNs != 10e9 || fs[0].Phases.Vsync != 10e9 || fs[5].Phases.Vsync != 20e9 {
		t.Fatalf("frames changed under us: %d, %+v", len(fs), fs[0].Phases)
	}
	if len(sums) != 2 || sums[0].Histogram[0].Count != 5 || sums[1].Histogram[0].Count != 10 {
		t.Fatalf("summaries changed under us: %+v", sums)
	}
}

// TestPollerFramesInTimeOrder: new frames of all windows come in IntendedVsync order, after
// the Refresh their period implies and before the polls and summaries.
func TestPollerFramesInTimeOrder(t *testing.T) {
	wins := []synthWin{
		{title: "PopupWindow:1", rows: 8, start: 10e9 + 3e6, period: 8_333_333, firstID: 500, total: 8},
		{title: pkg + "/.Main", rows: 30, start: 10e9, period: 8_333_333, firstID: 1, total: 30},
	}
	s := &script{steps: []step{{out: synthDump(nil, 23, 11_000, 4, pkg, wins)}}}
	evs, _ := run(t, s, s, PollerConfig{})
	var last int64
	seenFrame, seenPoll, refreshFirst := false, false, false
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Refresh:
			refreshFirst = !seenFrame
		case *source.Frame:
			if seenPoll || e.VsyncNs < last {
				t.Fatalf("frame %d out of order", e.VsyncNs)
			}
			last, seenFrame = e.VsyncNs, true
		case *source.Poll:
			seenPoll = true
		}
	}
	if !refreshFirst || len(frames(evs)) != 38 {
		t.Errorf("refresh first %v, %d frames", refreshFirst, len(frames(evs)))
	}
}

// Args is the dumpsys command line a Dumper runs for pkg: `dumpsys gfxinfo <pkg> framestats`,
// plus `reset` only when reset is true.
func Args(pkg string, reset bool) []string {
	a := []string{"dumpsys", "gfxinfo", pkg, "framestats"}
	if reset {
		a = append(a, "reset")
	}
	return a
}

// serverDown is the adb server gone, as device's error says it.
type serverDown struct{}

func (serverDown) Error() string    { return "no adb server at localhost:5037" }
func (serverDown) ServerDown() bool { return true }

// TestPollerGapNamesAdbServer (issue 27): an outage of the adb server, not of the phone, is
// named so in the gap it leaves, as in its notice.
func TestPollerGapNamesAdbServer(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 10, start: 10e9, period: 16_666_667, firstID: 1, total: 10}
	later := w
	later.start, later.firstID = 11_600_000_000, 11
	down := fmt.Errorf("gfxinfo: %w", serverDown{})
	s := &script{steps: []step{
		{out: dumpAt(10_500, 100, w)},
		{err: down}, {err: down},
		{out: dumpAt(12_000, 100, later)},
	}}
	evs, _ := run(t, s, s, PollerConfig{Interval: 300 * time.Millisecond})
	var gaps []string
	for _, e := range evs {
		if g, ok := e.(*source.Gap); ok {
			gaps = append(gaps, fmt.Sprintf("%d-%d %s", g.FromNs, g.ToNs, g.Reason))
		}
	}
	if fmt.Sprint(gaps) != "[10500000000-12000000000 adb server down]" {
		t.Errorf("gaps %v; notices %q", gaps, notices(evs))
	}
}
