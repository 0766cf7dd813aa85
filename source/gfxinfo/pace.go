package gfxinfo

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/source"
)

// CounterDumper is a Dumper that can also run `dumpsys gfxinfo <pkg>` without framestats: the
// counters and summaries without the frame rows. The poller uses it as its idle probe.
type CounterDumper interface {
	GfxinfoCounters(ctx context.Context, pkg string) ([]byte, error)
}

// Pacing (DESIGN §7 "Observer effect": ask the phone only for what the truth needs).
const (
	// IdleProbeEvery is the idle app's probe interval, once it has drawn nothing for
	// deepIdleAfter: one counters-only dump.
	IdleProbeEvery = 4 * time.Second
	// idleAfter is how long full dumps must find nothing new before only the counters are
	// probed (at the drawing pace until deepIdleAfter: a pause in a scroll loses nothing).
	idleAfter     = time.Second
	deepIdleAfter = 4 * time.Second
	// slowestRate (fps) is the lowest drawing rate a drawing app is paced for: its dumps come
	// at most every 3 s, so an app that speeds up to 120 fps loses at most two seconds of it
	// (counted in frames_lost), and a logcat stream's vsync lines wake the poller sooner.
	slowestRate = 30
	// fillWake is how many frames the logcat stream may see drawn since the last dump before
	// the next dump comes at once: the ring less a quarter.
	fillWake = ringFrames * 3 / 4
)

// maxPacedWindows bounds the windows whose counters the pacer remembers.
const maxPacedWindows = 64

// busyInterval is the full-dump interval for an app drawing rate frames a second: the time
// the ring takes to fill at that rate (its span), less a safety margin for a late poll — a
// quarter of the span, or half as much again as the recent polls came late (a loaded host,
// a slow adb), whichever is more — for rates from slowestRate up; within [MinInterval, 3 s].
func busyInterval(rate float64, late time.Duration) time.Duration {
	span := ringSpan(rate)
	return max(MinInterval, span-max(span/4, late*3/2))
}

// ringSpan is the time the ring holds at rate frames a second (slowestRate at least).
func ringSpan(rate float64) time.Duration {
	return time.Duration(float64(ringFrames) / max(rate, slowestRate) * float64(time.Second))
}

// lateness is how much later than planned a full dump came (gap and planned in device and
// host time alike), when it is jitter the margin should cover: a poll later than the ring's
// span is a stall (the host stopped, the machine slept) whose frames are lost whatever the
// margin, and is not held against the next polls.
func lateness(gap, planned, span time.Duration) time.Duration {
	if planned <= 0 || gap <= planned || gap-planned >= span {
		return 0
	}
	return gap - planned
}

// pacer decides when the poller dumps framestats, when it only probes the counters, and wakes
// it early when another source (the logcat stream) sees the app draw.
type pacer struct {
	prevNs  int64   // device time of the last full dump (0: none yet)
	quietNs int64   // device time since which no frame was drawn (0: drawing)
	rate    float64 // frames a second drawn between the last two full dumps that saw any
	total   int64   // the process's "Total frames rendered" at the last full dump (-1 unknown)
	// winTotals: each window's "Total frames rendered" last reported (at most maxPacedWindows)
	winTotals map[string]int64
	pid       int
	// planned is the interval the last full dump planned (0: none to measure against); late is
	// the recent polls' worst lateness, decaying by an eighth a dump
	planned, late time.Duration
	probe         bool // the next poll is a counters-only probe
	probing       bool // the poll in flight is a probe
	damaged       int  // polls left at the damaged-output interval

	idle  atomic.Bool  // probing: the first frame drawn elsewhere wakes a full dump
	drawn atomic.Int64 // frames the logcat stream saw drawn since the last full dump began
	// followed: the logcat stream has told of frames (the app prints Looper lines), so it
	// will wake the poller when the app draws faster
	followed atomic.Bool
	// watch: another source needs the windows' return seen promptly (PollerConfig.Watch)
	watch *atomic.Bool

	mu    sync.Mutex
	fired bool               // woken: the next poll is a full dump, taken without waiting
	armed context.CancelFunc // the sleep in progress
}

func newPacer(watch *atomic.Bool) *pacer { return &pacer{total: -1, watch: watch} }

// fullNext reports whether the coming poll is a full dump, and resets what a full dump covers.
func (pc *pacer) fullNext(canProbe bool) bool {
	pc.mu.Lock()
	fired := pc.fired
	pc.fired = false
	pc.mu.Unlock()
	pc.probing = pc.probe && canProbe && !fired
	if !pc.probing {
		pc.drawn.Store(0)
	}
	return !pc.probing
}

// follow counts the frames another source saw the app draw (logcat's vsync messages) and
// wakes the poller when they matter: any while it is probing, else when the ring is filling.
func (pc *pacer) follow(ctx context.Context, drawn <-chan int) {
	for {
		select {
		case <-ctx.Done():
			return
		case n, ok := <-drawn:
			if !ok {
				return
			}
			pc.followed.Store(true)
			if c := pc.drawn.Add(int64(n)); pc.idle.Load() || c >= fillWake {
				pc.wake()
			}
		}
	}
}

func (pc *pacer) wake() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.fired = true
	if pc.armed != nil {
		pc.armed()
		pc.armed = nil
	}
}

// sleep waits d with sleepFn unless the pacer is woken first.
func (pc *pacer) sleep(ctx context.Context, d time.Duration, sleepFn func(context.Context, time.Duration) error) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pc.mu.Lock()
	if pc.fired {
		pc.mu.Unlock()
		return ctx.Err()
	}
	pc.armed = cancel
	pc.mu.Unlock()
	err := sleepFn(sctx, d)
	pc.mu.Lock()
	pc.armed = nil
	pc.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	_ = err // woken early: not an error
	return nil
}

// dumped paces after a full dump whose events are evs (the tracker st has applied it): the
// ring's time at the rate the app draws now; once nothing was drawn for idleAfter, probes of
// the counters (every IdleProbeEvery after deepIdleAfter); a quarter of the interval after
// damaged text.
func (pc *pacer) dumped(st *tracker, evs []source.Event, canProbe bool) time.Duration {
	total, pid := int64(-1), -1
	// The ring is per window: the pace is the busiest window's (a process's counter sums all
	// its windows). A window's counter also counts what its ring lost.
	drawnBy := map[string]int{}
	totals := make(map[string]int64, len(pc.winTotals))
	for _, e := range evs {
		switch x := e.(type) {
		case *source.Frame:
			if !x.History {
				drawnBy[x.Window]++
			}
		case *source.Session:
			if x.Pid != pc.pid {
				pc.pid, pc.total = x.Pid, -1 // the app's main process (re)started
			}
		case *source.Poll:
			switch {
			case x.Process && x.TotalFrames >= 0 && x.Pid == pc.pid:
				total, pid = x.TotalFrames, x.Pid
			case !x.Process && x.TotalFrames >= 0:
				totals[x.Window] = x.TotalFrames
				if was, ok := pc.winTotals[x.Window]; ok && x.TotalFrames >= was {
					drawnBy[x.Window] = max(drawnBy[x.Window], int(x.TotalFrames-was))
				}
			}
		case *source.Notice:
			if x.Level == source.LevelWarn && damagedText(x.Text) {
				pc.damaged = damagedPolls
			}
		}
	}
	drew := 0
	for _, n := range drawnBy {
		drew = max(drew, n)
	}
	if total >= 0 && pc.total >= 0 && pid == pc.pid && total > pc.total {
		drew = max(drew, 1) // drawn by a window that closed since
	}
	for w, v := range pc.winTotals {
		if _, ok := totals[w]; !ok && len(totals) < maxPacedWindows {
			totals[w] = v // a window whose counter this dump did not report (deferred)
		}
	}
	pc.winTotals = totals
	prev, now := pc.prevNs, st.lastNs
	if total >= 0 {
		pc.total = total
	} else {
		pc.total = -1 // unknown: the next probe could not be compared with it
	}
	pc.prevNs = now
	pc.damaged = max(pc.damaged-1, 0)
	pc.probe = false
	pc.idle.Store(false)
	switch {
	case prev == 0 || now <= prev:
		// the first dump (its rows are history) or one without a clock: the refresh rate's pace
		pc.planned = 0
		return AdaptiveInterval(st.periodNs)
	}
	pc.late = max(lateness(time.Duration(now-prev), pc.planned, ringSpan(pc.rate)), pc.late*7/8)
	switch {
	case drew > 0:
		pc.quietNs = 0
		pc.rate = float64(drew) / (float64(now-prev) / 1e9)
		return pc.damage(pc.drawPace(st))
	case pc.quietNs == 0:
		pc.quietNs = prev
	}
	if time.Duration(now-pc.quietNs) < idleAfter || pc.damaged > 0 {
		return pc.damage(pc.watchPace(st))
	}
	pc.probe = canProbe && pc.total >= 0
	pc.idle.Store(true)
	pc.planned = 0
	return pc.idleWait(st, now)
}

// drawPace is the interval while the app draws: the ring's time at its rate when a logcat
// stream follows its frames (its vsync lines wake the poller before the ring fills, should the
// app speed up), else at the refresh rate (a scroll can start at any moment, at full rate, and
// nothing else would tell).
func (pc *pacer) drawPace(st *tracker) time.Duration {
	if pc.followed.Load() {
		return busyInterval(pc.rate, pc.late)
	}
	return pc.watchPace(st)
}

// watchPace is the interval while the app pauses: the ring's time at the rate it drew or the
// refresh rate, whichever is faster, so it loses nothing when it draws again.
func (pc *pacer) watchPace(st *tracker) time.Duration {
	hz := refreshRate(st.periodNs)
	if hz == 0 {
		hz = 120 // unknown: as fast as common displays
	}
	return busyInterval(max(pc.rate, hz), pc.late)
}

// idleWait is the wait before the next probe of an app quiet at device time now: the watching
// pace for deepIdleAfter (for as long as the watch flag holds), then IdleProbeEvery.
func (pc *pacer) idleWait(st *tracker, now int64) time.Duration {
	if time.Duration(now-pc.quietNs) < deepIdleAfter || (pc.watch != nil && pc.watch.Load()) {
		return pc.watchPace(st)
	}
	return IdleProbeEvery
}

// damage is d, or a quarter of it while dumps with damaged text are recent; it is the interval
// planned, against which the next dump's lateness is measured.
func (pc *pacer) damage(d time.Duration) time.Duration {
	if pc.damaged > 0 {
		d = max(d/4, MinInterval)
	}
	pc.planned = d
	return d
}

// probed paces after a counters-only probe: while the process's counter has not moved the app
// is still idle (a Tick at the probe's uptime says so); anything else (it drew, restarted,
// stopped, or the text is unreadable) brings a full dump at once.
func (pc *pacer) probed(st *tracker, data []byte) (time.Duration, []source.Event) {
	c, ok := readCounters(data, pc.pid)
	if !ok || c.total != pc.total {
		pc.probe = false
		pc.idle.Store(false)
		return 0, nil
	}
	var evs []source.Event
	if c.uptimeNs > st.lastNs {
		evs = append(evs, &source.Tick{NowNs: c.uptimeNs})
	}
	return pc.idleWait(st, c.uptimeNs), evs
}

// refreshRate is the rate of frames of periodNs (0 when unknown).
func refreshRate(periodNs int64) float64 {
	if periodNs <= 0 {
		return 0
	}
	return 1e9 / float64(periodNs)
}

// damagedText reports whether a gfxinfo warning is about text that could not be read (torn
// rows, a damaged line or counter: the parser's and the tracker's damage warnings), not about
// what the app did (a window closed, so its process's counter outgrew its windows) or the
// deferral that follows damage already counted: a late poll is a late poll, not damage.
func damagedText(text string) bool {
	return strings.HasPrefix(text, "gfxinfo: ") && !strings.Contains(text, "grew beyond") &&
		!strings.Contains(text, "deferred to the next dump")
}

// counters is what the idle probe reads from `dumpsys gfxinfo <pkg>`.
type counters struct {
	pid      int
	total    int64
	uptimeNs int64
}

// readCounters reads the dump's Uptime and the "Total frames rendered" of process pid's block;
// ok is false when any of them is missing or unreadable (the app is not running or restarted,
// the text is damaged): the poller then takes a full dump, which says what happened.
func readCounters(data []byte, pid int) (counters, bool) {
	var c counters
	up, ok := field(data, "Uptime: ", ' ')
	if !ok {
		return c, false
	}
	ms, err := strconv.ParseInt(up, 10, 64)
	if err != nil || ms <= 0 {
		return c, false
	}
	c.uptimeNs = ms * 1_000_000
	if pid <= 0 {
		return c, false
	}
	i := bytes.Index(data, []byte("** Graphics info for pid "+strconv.Itoa(pid)+" ["))
	if i < 0 {
		return c, false
	}
	c.pid, data = pid, data[i:]
	t, ok := field(data, "Total frames rendered: ", '\n')
	if !ok {
		return c, false
	}
	if c.total, err = strconv.ParseInt(strings.TrimSpace(t), 10, 64); err != nil || c.total < 0 {
		return c, false
	}
	return c, true
}

// field is the text after the first key in data, up to end.
func field(data []byte, key string, end byte) (string, bool) {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return "", false
	}
	rest := data[i+len(key):]
	j := bytes.IndexByte(rest, end)
	if j < 0 {
		j = len(rest)
	}
	return string(bytes.TrimSpace(rest[:j])), true
}

// PacedInterval is the full-dump interval for an app drawing at hz frames a second on a
// punctual host (what `fpstop info` states): the ring's time less a quarter.
func PacedInterval(hz float64) time.Duration { return busyInterval(hz, 0) }
