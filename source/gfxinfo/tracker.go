package gfxinfo

import (
	"fmt"
	"math"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// tracker turns successive dumps of one app into events. Shared by the poller and the file
// source, it works in three steps, each in its own file: process tracking (procs.go: which
// process blocks are the app's, a restart or a damaged pid line), per-window dedupe
// (dedupe.go: which rows are new, by frame identity whatever the title says, and what the
// "Total frames rendered" counters may be charged) and event assembly (events.go).
//
// Damaged text (a flaky cable, a full buffer) must never count a frame twice, invent a window
// or charge frames as lost that the next dump shows: everything it remembers is keyed by the
// app's pid and the frames' own identities, and is bounded whatever the session's length.
type tracker struct {
	pkg     string
	input   string
	device  source.Device
	reset   bool // every dump resets the app's counters (PollerConfig.Reset)
	started bool
	pid     int
	// live: a device session, whose first dump's backlog is history (DESIGN §4: frames drawn
	// before the session started count in frames and jank, never in a rate). startNs is the
	// device uptime of that first dump (0 unknown); sawAbsent is set when a dump said the app
	// was not running.
	live      bool
	startNs   int64
	sawAbsent bool
	state     source.State
	lastNs    int64
	periodNs  int64 // the frame period, for a poller's interval (worked out when live only)
	// ratePeriodNs: the period rate last worked hz out from
	ratePeriodNs int64
	hz           int64
	failure      string
	procs        procTable
	clock        uptimeCheck
	wallNs       int64  // wall clock when the dump was asked for (poller), 0 unknown (file)
	wallEndNs    int64  // wall clock when it had arrived (poller), 0 unknown
	matchRound   int64  // counts dedupeProcess calls (winState.used)
	parser       Parser // reused: it remembers the last good PROFILEDATA header
	// final: the dump being applied is the capture's last (the file source): no next dump
	// will print again the rows it could not place
	final bool
}

func newTracker(pkg, input string) *tracker {
	return &tracker{pkg: pkg, input: input, procs: procTable{byPid: map[int]*procState{}}}
}

// warning is a warning Notice at device time at.
func warning(at int64, text string) *source.Notice {
	return &source.Notice{AtNs: at, Level: source.LevelWarn, Text: text}
}

func (t *tracker) notice(evs []source.Event, at int64, level source.Level, state source.State, text string) []source.Event {
	if state != "" {
		if t.state == state {
			return evs
		}
		t.state = state
	}
	return append(evs, &source.Notice{AtNs: at, Level: level, State: state, Text: text})
}

// apply parses one dump's text and appends its events to evs.
func (t *tracker) apply(evs []source.Event, data []byte) []source.Event {
	d, err := t.parser.Parse(data)
	if err != nil {
		return t.notice(evs, t.lastNs, source.LevelWarn, "", "gfxinfo: output not understood: "+err.Error())
	}
	return t.applyDump(evs, d)
}

// applyDump appends the events of one parsed dump.
func (t *tracker) applyDump(evs []source.Event, d *Dump) []source.Event {
	if !t.clock.accept(d.UptimeNs, d.RealtimeNs, t.wallNs, t.wallEndNs) {
		return append(evs, warning(t.lastNs, "gfxinfo: dump with a damaged Uptime line skipped (its rows are read from the next dump)"))
	}
	at := d.UptimeNs
	if at == 0 {
		at = t.lastNs
	}
	var procs []*Process
	evs, procs = t.trackProcesses(evs, d, at)
	t.markStart(d, procs)
	for _, w := range d.Warnings {
		evs = append(evs, warning(at, "gfxinfo: "+stripCount(w)))
	}
	if d.NotRunning {
		t.sawAbsent = true
		// A warning, not news: a wrong -p would otherwise end in an empty report.
		evs = t.notice(evs, at, source.LevelWarn, source.StateWaiting,
			fmt.Sprintf("waiting for %s to start (no process found)", t.pkg))
		return t.tick(evs, at)
	}
	if d.Failure != "" {
		if d.Failure != t.failure {
			t.failure = d.Failure
			evs = append(evs, &source.Notice{AtNs: at, Level: source.LevelErr,
				Text: "gfxinfo: dumpsys failed: " + d.Failure})
		}
		return t.tick(evs, at)
	}
	t.failure = ""
	if len(procs) == 0 {
		evs = t.notice(evs, at, source.LevelWarn, source.StateWaiting,
			fmt.Sprintf("waiting for %s: the dump has no such process", t.pkg))
		return t.tick(evs, at)
	}
	evs = t.notice(evs, at, source.LevelInfo, source.StateLive, "live")
	asm := assembly{at: at, final: t.final}
	for i, pr := range procs {
		if pr.Summary != nil || hasData(pr) {
			t.dedupeProcess(&asm, t.procs.get(pr.Pid), pr, printedAgain(procs[i+1:], pr.Pid))
		}
	}
	evs = asm.events(t, evs)
	if at == 0 {
		at = asm.newest
	}
	return t.tick(evs, at)
}

// printedAgain reports whether a block of process pid follows in the dump: two blocks of one
// process in a dump are two dumps run together (the line between them was damaged), and only
// the last one's counters are the dump's time.
func printedAgain(later []*Process, pid int) bool {
	for _, q := range later {
		if q.Pid == pid {
			return true
		}
	}
	return false
}

// markStart fixes the session's start at its first dump: the dump's uptime, or (a dump
// without an Uptime line) the newest frame completion it holds, so every row of that first
// ring is history. Frames of a process that starts later are drawn after it: not history.
func (t *tracker) markStart(d *Dump, procs []*Process) {
	if t.startNs != 0 {
		return
	}
	t.startNs = d.UptimeNs
	if t.startNs > 0 {
		return
	}
	for _, pr := range procs {
		for wi := range pr.Windows {
			for i := range pr.Windows[wi].Frames {
				if v := pr.Windows[wi].Frames[i].DoneNs + 1; v > t.startNs {
					t.startNs = v
				}
			}
		}
	}
	for _, pr := range procs {
		if t.startNs == 0 && pr.Summary != nil && pr.Summary.TotalFrames != nil && *pr.Summary.TotalFrames == 0 {
			// No time and no rows, but the app had drawn nothing yet: none of its frames is
			// history (fixing the start at the next dump's Uptime would make them all so, and
			// charge them as lost against this counter).
			t.startNs = 1
		}
	}
}

// hasData reports whether a process block has a window with rows or a summary.
func hasData(pr *Process) bool {
	for wi := range pr.Windows {
		if w := &pr.Windows[wi]; w.Rows > 0 || w.Summary != nil || len(w.torn) > 0 {
			return true
		}
	}
	return false
}

// stripCount removes the parser's "N× " prefix: the report counts a kind of damage once per
// dump it was seen in, under one text.
func stripCount(w string) string {
	if i := strings.Index(w, "× "); i > 0 && i < 8 && strings.Trim(w[:i], "0123456789") == "" {
		return w[i+len("× "):]
	}
	return w
}

// rate emits a Refresh when a row's period implies a new whole-Hz rate.
func (t *tracker) rate(evs *[]source.Event, periodNs, at int64) {
	t.periodNs = periodNs
	if periodNs == t.ratePeriodNs {
		return
	}
	t.ratePeriodNs = periodNs
	if hz := int64(math.Round(1e9 / float64(periodNs))); hz != t.hz {
		t.hz = hz
		*evs = append(*evs, &source.Refresh{AtNs: at, Hz: float64(hz)})
	}
}

func (t *tracker) tick(evs []source.Event, at int64) []source.Event {
	if at > t.lastNs {
		t.lastNs = at
	}
	if at > 0 {
		evs = append(evs, &source.Tick{NowNs: at})
	}
	return evs
}

// uptimeCheck rejects a dump whose "Uptime:" cannot be right: device time never runs
// backwards, never advances more than the "Realtime:" printed beside it (which also counts deep
// sleep), and in a live poll never runs ahead of the wall clock (plus 10 s of slack): no more
// than from the last accepted dump's request to this one's arrival, so a phone that hung for a
// while between the two is not taken for a damaged line. A damaged Uptime would otherwise make every row of the dump look unfinished or move the
// session clock (in a capture, one flipped digit moved it 60 s ahead, and every later dump
// without a readable Uptime with it). Three rejections in a row re-base it (the earlier value
// was wrong).
type uptimeCheck struct {
	last, lastRt, lastWall int64
	rejected               int
}

// realtimeSlackNs covers the two clocks being read a moment apart and printed in whole ms.
const realtimeSlackNs = 10_000_000

func (c *uptimeCheck) accept(up, rt, wall, wallEnd int64) bool {
	if up == 0 {
		return true // not printed: the dump's rows are checked without it
	}
	if wallEnd < wall {
		wallEnd = wall
	}
	ok := c.last == 0 || (up >= c.last && (wall == 0 || c.lastWall == 0 || up-c.last <= wallEnd-c.lastWall+10e9))
	if ok && c.last != 0 && rt > 0 && c.lastRt > 0 && rt >= c.lastRt {
		ok = up-c.last <= rt-c.lastRt+realtimeSlackNs
	}
	if !ok && c.rejected < 2 {
		c.rejected++
		return false
	}
	c.last, c.lastRt, c.lastWall, c.rejected = up, rt, wall, 0
	return true
}
