package logcat

import (
	"bytes"
	"slices"

	"github.com/fpstop/fpstop/source"
)

// Stats counts what a Decoder saw. Every printer line ends up either in a pair or in Unpaired:
// Dispatching + Finished == 2·Pairs + Unpaired once the input has been finished.
type Stats struct {
	Lines         int64 // lines read
	LogLines      int64 // lines in a log format (with a timestamp or a priority letter), not stray text
	Dispatching   int64 // ">>>>> Dispatching to" lines (including malformed ones)
	Finished      int64 // "<<<<< Finished to" lines
	Pairs         int64 // Dispatching/Finished pairs turned into Messages
	Unpaired      int64 // printer lines that could not be paired (UnpairedLine events)
	Untimed       int64 // printer lines without a timestamp (durations unknown)
	Skipped       int64 // Choreographer "Skipped N frames!" lines
	SkippedFrames int64 // the sum of their N
	SlowDispatch  int64 // "Slow dispatch took" (and Android 8's "Dispatch took") lines
	SlowDelivery  int64 // "Slow delivery took" lines
	Drained       int64 // "Drained" lines
	SlowVendor    int64 // vendor "Slow Looper <thread>:" entries (a "because of" line: one a message it lists)
	Davey         int64 // hwui "Davey!" lines read as frames
	DaveyIgnored  int64 // Davey lines ignored: an overflowed duration, or times no frame has
	SlowOther     int64 // other "Slow <what> took" lines
	SlowTruncated int64 // slow lines cut off before their duration or inside their details
	DebugLooper   int64 // vendor "DebugLooper:" set-up lines (ignored)
}

// Unpaired reasons, as UnpairedLine.Reason.
const (
	ReasonNoFinished     = "dispatching without finished: another dispatching followed on the same thread"
	ReasonNoDispatching  = "finished without an open dispatching"
	ReasonMismatch       = "finished does not match the open dispatching"
	ReasonClosedByOther  = "dispatching closed by a finished for another message"
	ReasonEndOfInput     = "dispatching without finished at the end of the input"
	ReasonMalformed      = "malformed dispatching line"
	ReasonProcessChanged = "dispatching without finished: the process was restarted"
	// ReasonGap closes a message open when the stream ended: a Finished line after the
	// reconnect is another message's end (or one seen across a gap of unknown length), never
	// paired with it into an invented seconds-long message.
	ReasonGap = "dispatching without finished: the stream lost the device (a gap)"
)

// NoPrinterHelp tells the user how to make an app print Looper lines.
const NoPrinterHelp = "no Looper printer lines in logcat: message durations and Looper-derived frames need the app " +
	"to log them — add Looper.getMainLooper().setMessageLogging(new LogPrinter(Log.DEBUG, \"Looper\")) " +
	"(debug builds); \"Slow dispatch/delivery\" lines need `adb shell setprop log.looper.<uid>.main.slow <ms>` " +
	"and an app restart"

// UntimedNotice is the text of the Notice a Decoder emits (once) when printer lines carry no
// timestamp: messages are paired and counted, but their durations are unknown (EndNs 0).
const UntimedNotice = "logcat text without timestamps: Looper messages are counted, their durations are unknown " +
	"(capture with `adb logcat -v threadtime` or `-v monotonic -v usec`)"

// Decoder parses logcat lines and pairs Looper printer lines per thread. It is the whole
// text-to-events path of the logcat source, usable on its own (tests, benchmarks, other
// sources). Not safe for concurrent use.
type Decoder struct {
	p       Parser
	pid     int
	pkg     string // SetPackage
	pkgSeen bool   // a line carried pkg in its package column
	threads map[uint64]*thread
	lastKey uint64
	last    *thread
	names   names
	events  []source.Event
	stats   Stats
	untimed bool // the untimed notice was emitted
	nowNs   int64
}

// NewDecoder returns a Decoder that keeps every process's lines.
func NewDecoder() *Decoder {
	return &Decoder{threads: make(map[uint64]*thread), names: make(names)}
}

// SetPid keeps only lines of process pid (lines whose format has no pid are kept); 0 keeps all.
func (d *Decoder) SetPid(pid int) { d.pid = pid }

// SetPackage keeps only the lines of app pkg, where the text says which process that is: lines
// with a package column (Android Studio copies) are kept when it is pkg and dropped when it is
// another, and the pid of the first pkg line then filters lines without the column too (unless
// SetPid chose one). Plain logcat formats name processes by pid only: with no line naming pkg,
// nothing is filtered — PackageSeen reports false so that the caller can say -p was ignored.
func (d *Decoder) SetPackage(pkg string) { d.pkg = pkg }

// PackageSeen reports whether a line named the SetPackage package in its package column.
func (d *Decoder) PackageSeen() bool { return d.pkgSeen }

// Stats returns the counts so far.
func (d *Decoder) Stats() Stats { return d.stats }

// NowNs is the newest timestamp seen on a line that mattered (or noted with NoteTime); 0 if none.
func (d *Decoder) NowNs() int64 { return d.nowNs }

// Events returns the events produced since the last call and forgets them; the caller owns the
// returned slice.
func (d *Decoder) Events() []source.Event {
	ev := d.events
	d.events = nil
	if len(ev) >= 64 {
		d.events = make([]source.Event, 0, cap(ev)) // a full batch: no doubling copies for the next
	}
	return ev
}

// Pending reports how many events are waiting to be taken.
func (d *Decoder) Pending() int { return len(d.events) }

// NoteTime parses line only for its timestamp and advances NowNs (used once per batch on the
// last line read, so Ticks follow the log even when nothing matters in it).
func (d *Decoder) NoteTime(line []byte) {
	var l Line
	var p Parser // a fresh parser: d.p's state must not change twice
	if !p.Parse(line, &l) && p.longMode {
		l = p.longHdr
	}
	if l.HasTime() {
		if t := d.p.TimeNs(&l); t > d.nowNs {
			d.nowNs = t
		}
	}
}

// Line decodes one line (without '\n'). Lines that are not Looper, Choreographer or slow-Looper
// lines allocate nothing.
func (d *Decoder) Line(b []byte) {
	d.stats.Lines++
	b = trimLine(b)
	var h ttHeader
	if scanThreadtime(b, &h) {
		// Parse's commonest layout, with the message classified before the rest of the line is
		// read: most lines matter not, and cost no conversion.
		d.p.longMode = false
		d.stats.LogLines++
		if kind, rest := classify(b[h.msg(len(b)):]); kind != kindNone {
			pid, tid := h.ids(b)
			d.handle(kind, rest, pid, tid, nil, tsMonthDay, b[:h.tsEnd])
		}
		return
	}
	var l Line
	if !d.p.parseOther(b, &l) {
		return
	}
	if l.tsKind != tsNone || l.Level != 0 {
		d.stats.LogLines++
	}
	kind, rest := classify(l.Msg)
	d.handle(kind, rest, l.Pid, l.Tid, l.Pkg, l.tsKind, l.ts)
}

// handle acts on a line of the given kind of thread pid/tid: pkg is its package column, ts its
// timestamp written as tk.
func (d *Decoder) handle(kind msgKind, rest []byte, pid, tid int, pkg []byte, tk tsKind, ts []byte) {
	if kind == kindNone || !d.keeps(pid, pkg) {
		return
	}
	var at int64
	timed := tk != tsNone
	if timed {
		at = d.p.stampNs(tk, ts)
	}
	d.act(kind, rest, pid, tid, at, timed)
}

// keeps applies SetPid and SetPackage to a line of process pid (pkg: its package column).
func (d *Decoder) keeps(pid int, pkg []byte) bool {
	if d.pkg != "" && len(pkg) > 0 {
		if string(pkg) != d.pkg {
			return false
		}
		d.pkgSeen = true
		if d.pid == 0 {
			d.pid = pid
		}
	}
	return d.pid == 0 || pid == 0 || pid == d.pid
}

// act acts on a kept line of the given kind (not kindNone) of thread pid/tid, logged at at.
func (d *Decoder) act(kind msgKind, rest []byte, pid, tid int, at int64, timed bool) {
	if timed && at > d.nowNs {
		d.nowNs = at
	}
	switch kind {
	case kindDispatch:
		d.stats.Dispatching++
		d.noteUntimed(timed)
		d.dispatch(pid, tid, rest, at, timed)
	case kindFinish:
		d.stats.Finished++
		d.noteUntimed(timed)
		d.finish(pid, tid, rest, at, timed)
	case kindSkipped:
		// every "Skipped N frames!" of the line: two messages run together count twice
		for ok := true; ok; rest, ok = findSkipped(rest[len(skippedMark):]) {
			n, _ := parseSkipped(rest)
			d.stats.Skipped++
			d.stats.SkippedFrames += int64(n)
			d.events = append(d.events, &source.Skipped{AtNs: at, Pid: pid, Frames: n})
		}
	case kindDavey:
		d.davey(rest, at)
	case kindSlow:
		s := parseSlow(rest)
		s.AtNs = at
		if msgs := lateMsgs(s, trimRight(rest)); len(msgs) > 0 {
			// one entry per message the line lists (lateMsgs)
			d.stats.SlowVendor += int64(len(msgs))
			for _, m := range msgs {
				if m.Truncated {
					d.stats.SlowTruncated++
				}
				m.AtNs = at
				d.events = append(d.events, m)
			}
			return
		}
		if s.Truncated {
			d.stats.SlowTruncated++
		}
		switch {
		case s.Kind == "drained":
			d.stats.Drained++
		case bytes.HasPrefix(rest, slowLooper):
			d.stats.SlowVendor++
		case s.Kind == "dispatch":
			d.stats.SlowDispatch++
		case s.Kind == "delivery":
			d.stats.SlowDelivery++
		default:
			d.stats.SlowOther++
		}
		d.events = append(d.events, s)
	case kindDebugLooper:
		d.stats.DebugLooper++
	}
}

// davey turns a "Davey! duration=…" line into a frame of the app (the line names no window),
// or a counted warning when Android's arithmetic overflowed or the times are no frame's.
func (d *Decoder) davey(m []byte, at int64) {
	f, ph := &source.Frame{Window: d.pkg, Process: d.pkg}, &source.Phases{}
	if f.Window == "" {
		f.Window = DaveyWindow
	}
	switch parseDavey(trimRight(m), f, ph) {
	case daveyFrame:
		d.stats.Davey++
		if at > 0 {
			// Its times are the device's monotonic clock; the log's are another: the line was
			// logged as the frame finished, so it is moved onto the log's clock there.
			shiftFrame(f, at-max(f.DoneNs, ph.GpuCompleted))
		}
		d.events = append(d.events, f)
	case daveyOverflow:
		d.stats.DaveyIgnored++
		d.events = append(d.events, &source.Notice{AtNs: at, Level: source.LevelWarn, Text: DaveyOverflowNotice})
	default:
		d.stats.DaveyIgnored++
		d.events = append(d.events, &source.Notice{AtNs: at, Level: source.LevelWarn, Text: DaveyBadNotice})
	}
}

// DaveyWindow names the frames of Davey lines when the package is not known (the line names
// no window).
const DaveyWindow = "app (Davey)"

// The warnings of ignored Davey lines (one a line: the pipeline counts repeats).
const (
	DaveyOverflowNotice = "logcat: Davey! line with an overflowed duration (Android's INT64 arithmetic) ignored"
	DaveyBadNotice      = "logcat: Davey! line without a frame's times ignored"
)

func (d *Decoder) noteUntimed(timed bool) {
	if timed {
		return
	}
	d.stats.Untimed++
	if !d.untimed {
		d.untimed = true
		d.events = append(d.events, &source.Notice{Level: source.LevelWarn, Text: UntimedNotice})
	}
}

func (d *Decoder) thread(pid, tid int) *thread {
	key := uint64(uint32(pid))<<32 | uint64(uint32(tid))
	if d.last != nil && d.lastKey == key {
		return d.last
	}
	t := d.threads[key]
	if t == nil {
		if len(d.threads) >= 4096 {
			for k, o := range d.threads {
				if !o.open {
					delete(d.threads, k)
				}
			}
		}
		t = &thread{}
		d.threads[key] = t
	}
	d.last, d.lastKey = t, key
	return t
}

func (d *Decoder) unpaired(at int64, tid int, reason string) {
	d.stats.Unpaired++
	d.events = append(d.events, &source.UnpairedLine{AtNs: at, Tid: tid, Reason: reason})
}

func (d *Decoder) dispatch(pid, tid int, rest []byte, at int64, timed bool) {
	dp, ok := parseDispatch(rest)
	if !ok {
		d.unpaired(at, tid, ReasonMalformed)
		return
	}
	t := d.thread(pid, tid)
	if t.open {
		d.unpaired(t.startNs, tid, ReasonNoFinished)
	}
	t.open, t.announced = true, false
	t.target = append(t.target[:0], dp.target...)
	t.what, t.startNs, t.timed = dp.what, at, timed
}

func (d *Decoder) finish(pid, tid int, rest []byte, at int64, timed bool) {
	rest = trimRight(rest)
	t := d.thread(pid, tid)
	if !t.open {
		d.unpaired(at, tid, ReasonNoDispatching)
		return
	}
	t.open = false
	if !bytes.Equal(rest, t.target) {
		d.unpaired(t.startNs, tid, ReasonClosedByOther)
		d.unpaired(at, tid, ReasonMismatch)
		return
	}
	d.pair(t, pid, tid, at, timed)
}

// pair emits the Message of thread t's Dispatching, closed by a Finished line at at.
func (d *Decoder) pair(t *thread, pid, tid int, at int64, timed bool) {
	h, cb := d.names.of(t.target)
	m := &source.Message{Pid: pid, Tid: tid, Handler: h, Callback: cb, What: t.what}
	if pid != 0 && tid == pid {
		m.Thread = "main"
	}
	if t.timed && timed {
		m.StartNs = t.startNs
		if at >= t.startNs {
			m.EndNs = at // a clock that stepped back leaves the duration unknown
		}
	}
	d.stats.Pairs++
	d.events = append(d.events, m)
}

// OpenDispatches appends to evs a source.Dispatch for each main-thread Looper message that has
// been open (Dispatching read, Finished not yet) for at least minAgeNs at log time nowNs: while
// it runs the app draws nothing, and a screen can say FROZEN and name it before the Finished
// line arrives. It is sent again, with SeenNs nowNs, on every call where nowNs moved on, so
// the screen can tell how long the message has run while nothing else arrives. Only timed
// lines (a known start) are reported.
func (d *Decoder) OpenDispatches(evs []source.Event, nowNs, minAgeNs int64) []source.Event {
	for key, t := range d.threads {
		pid, tid := int(uint32(key>>32)), int(uint32(key))
		if !t.open || !t.timed || pid == 0 || tid != pid || nowNs-t.startNs < minAgeNs || t.announced && nowNs <= t.seenNs {
			continue
		}
		t.announced, t.seenNs = true, nowNs
		h, cb := d.names.of(t.target)
		evs = append(evs, &source.Dispatch{Pid: pid, Tid: tid, Thread: "main", Handler: h, Callback: cb, What: t.what,
			StartNs: t.startNs, SeenNs: nowNs})
	}
	return evs
}

// Finish ends the input: every Dispatching still open becomes an UnpairedLine.
func (d *Decoder) Finish() { d.closeOpen(ReasonEndOfInput, 0) }

// closeOpen turns open Dispatchings into UnpairedLines (all processes when pid is 0).
func (d *Decoder) closeOpen(reason string, pid int) {
	keys := make([]uint64, 0, len(d.threads))
	for k, t := range d.threads {
		if t.open && (pid == 0 || int(uint32(k>>32)) == pid) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		t := d.threads[k]
		t.open = false
		d.unpaired(t.startNs, int(uint32(k)), reason)
	}
}
