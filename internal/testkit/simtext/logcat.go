package simtext

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// LogFormat is a logcat output format RenderLogcat writes.
type LogFormat int

// Log formats.
const (
	// FormatThreadtime is `logcat -v threadtime`:
	// "MM-DD HH:MM:SS.mmm  PID  TID L Tag     : msg" (pid and tid right-aligned in 5, the tag
	// left-aligned in 8), with the wall clock WallBase + monotonic time.
	FormatThreadtime LogFormat = iota
	// FormatMonotonic is `logcat -v monotonic -v usec`: "SSSSSS.uuuuuu  PID  TID L Tag     : msg",
	// seconds since boot (right-aligned in 6) and microseconds.
	FormatMonotonic
)

// String names the format as logcat's -v option does.
func (f LogFormat) String() string {
	if f == FormatMonotonic {
		return "monotonic"
	}
	return "threadtime"
}

// DefaultWallBase is the wall-clock time (UTC) of monotonic time 0 in threadtime output.
var DefaultWallBase = time.Date(2026, time.March, 10, 6, 0, 0, 0, time.UTC)

// LogcatOptions tune RenderLogcat.
type LogcatOptions struct {
	// ClockOffsetNs is added to every logcat timestamp (logcat's clock is not the frames'
	// clock on a real device; tests inject an offset to check that fpstop finds it).
	ClockOffsetNs int64
	// WallBase is the wall-clock time of monotonic 0 for FormatThreadtime (zero: DefaultWallBase).
	// Times are printed in UTC.
	WallBase time.Time
	// Pid is used for events without one (0: sim.DefaultPid).
	Pid int
	// NoisePerSecond adds about that many lines per second of covered time from other
	// processes, other threads of the app and other tags (0: none). Deterministic for NoiseSeed.
	NoisePerSecond float64
	// NoiseSeed seeds the noise lines.
	NoiseSeed int64
	// Announced carries, from one call to the next, the start times of messages whose
	// Dispatching line a Dispatch event already wrote (live logcat prints it when the message
	// starts, the Finished line when it ends): their Message writes only the Finished line.
	// nil: every Message writes both lines.
	Announced map[int64]bool
}

type logLine struct {
	ns   int64
	text string
}

// RenderLogcat writes evs as logcat lines in format f: each Message as the Looper printer lines
// an app with Looper.getMainLooper().setMessageLogging(new LogPrinter(Log.DEBUG, "Looper"))
// prints (">>>>> Dispatching to Handler (<class>) {<hash>} <callback>: <what>" at StartNs and
// "<<<<< Finished to Handler (<class>) {<hash>} <callback>" at EndNs, level D, tag Looper, on the
// message's pid/tid), each Skipped as Choreographer's "Skipped N frames!  The application may be
// doing too much work on its main thread." (level I), plus optional noise. The handler's identity
// hash is derived from its class (FNV), so it is stable. With opts.Announced set, a Dispatch
// writes its message's Dispatching line (live logcat prints it when the message starts) and the
// Message later writes only its Finished line. Lines are in timestamp order (stable sort: equal
// times keep event order). Other events are ignored.
func RenderLogcat(w io.Writer, evs []source.Event, f LogFormat, opts LogcatOptions) error {
	if opts.WallBase.IsZero() {
		opts.WallBase = DefaultWallBase
	}
	if opts.Pid == 0 {
		opts.Pid = sim.DefaultPid
	}
	lines := make([]logLine, 0, 2*len(evs))
	hashes := map[string]string{}
	lo, hi := int64(-1), int64(-1)
	span := func(t int64) {
		if lo < 0 || t < lo {
			lo = t
		}
		if t > hi {
			hi = t
		}
	}
	ids := func(pid, tid int) (int, int) {
		if pid == 0 {
			pid = opts.Pid
		}
		if tid == 0 {
			tid = pid
		}
		return pid, tid
	}
	targetOf := func(handler, callback string) string {
		h, ok := hashes[handler]
		if !ok {
			h = fnvHex(handler)
			hashes[handler] = h
		}
		return "Handler (" + handler + ") {" + h + "} " + callback
	}
	for _, ev := range evs {
		switch ev := ev.(type) {
		case *source.Dispatch:
			if opts.Announced == nil {
				continue
			}
			pid, tid := ids(ev.Pid, ev.Tid)
			opts.Announced[ev.StartNs] = true
			lines = append(lines, logLine{ev.StartNs, format(f, opts, ev.StartNs, pid, tid, 'D', "Looper",
				">>>>> Dispatching to "+targetOf(ev.Handler, ev.Callback)+": "+strconv.Itoa(ev.What))})
			span(ev.StartNs)
		case *source.Message:
			pid, tid := ids(ev.Pid, ev.Tid)
			target := targetOf(ev.Handler, ev.Callback)
			if opts.Announced[ev.StartNs] {
				delete(opts.Announced, ev.StartNs)
			} else {
				lines = append(lines, logLine{ev.StartNs, format(f, opts, ev.StartNs, pid, tid, 'D', "Looper",
					">>>>> Dispatching to "+target+": "+strconv.Itoa(ev.What))})
				span(ev.StartNs)
			}
			if ev.EndNs > 0 {
				lines = append(lines, logLine{ev.EndNs, format(f, opts, ev.EndNs, pid, tid, 'D', "Looper",
					"<<<<< Finished to "+target)})
				span(ev.EndNs)
			}
		case *source.Skipped:
			pid := ev.Pid
			if pid == 0 {
				pid = opts.Pid
			}
			lines = append(lines, logLine{ev.AtNs, format(f, opts, ev.AtNs, pid, pid, 'I', "Choreographer",
				fmt.Sprintf("Skipped %d frames!  The application may be doing too much work on its main thread.", ev.Frames))})
			span(ev.AtNs)
		}
	}
	if opts.NoisePerSecond > 0 && hi > lo {
		lines = appendNoise(lines, f, opts, lo, hi)
	}
	slices.SortStableFunc(lines, func(a, b logLine) int {
		switch {
		case a.ns < b.ns:
			return -1
		case a.ns > b.ns:
			return 1
		}
		return 0
	})
	bw := bufio.NewWriterSize(w, 32<<10)
	for _, l := range lines {
		bw.WriteString(l.text)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

var noiseLines = []struct {
	pid, tid int // 0: the app's pid; tid 1: a non-main app thread
	lvl      byte
	tag, msg string
}{
	{1432, 1718, 'I', "ActivityManager", "Start proc 9921:com.android.vending/u0a77 for service {com.android.vending/com.google.android.finsky.ipcservers.main.MainGrpcServerAndroidService}"},
	{1432, 1460, 'W', "ActivityTaskManager", "Slow operation: 112ms so far, now at startProcess: done starting proc!"},
	{812, 812, 'D', "SurfaceFlinger", "Display 4619827259835644672 HWC layers:"},
	{2210, 2245, 'I', "chatty", "uid=10093(com.google.android.gms) Binder:2210_3 identical 4 lines"},
	{0, 1, 'D', "OpenGLRenderer", "endAllActiveAnimators on 0x7a1c2d4e00 (RippleDrawable) with handle 0x7b2f3e4a60"},
	{0, 1, 'I', "OkHttp", "<-- 200 https://feed.example.com/api/v2/items?page=3 (142ms, 18234-byte body)"},
	{0, 0, 'D', "FeedAdapter", "onBindViewHolder position=57 type=1"},
	{0, 1, 'W', "System.err", "java.net.SocketTimeoutException: timeout"},
	{1432, 2044, 'I', "InputDispatcher", "Delivering touch to (23817): action: 0x2, toolType: 1"},
	{603, 603, 'E', "BpTransactionCompletedListener", "Failed to find callback for transaction 2"},
}

func appendNoise(lines []logLine, f LogFormat, opts LogcatOptions, lo, hi int64) []logLine {
	r := rand.New(rand.NewPCG(uint64(opts.NoiseSeed), 0x6e6f697365))
	n := int(float64(hi-lo) / 1e9 * opts.NoisePerSecond)
	appTid := opts.Pid + 37
	for i := 0; i < n; i++ {
		at := lo + r.Int64N(hi-lo+1)
		nl := noiseLines[r.IntN(len(noiseLines))]
		pid, tid := nl.pid, nl.tid
		if pid == 0 {
			pid = opts.Pid
			if tid == 1 {
				tid = appTid
			} else {
				tid = pid
			}
		}
		lines = append(lines, logLine{at, format(f, opts, at, pid, tid, nl.lvl, nl.tag, nl.msg)})
	}
	return lines
}

// format renders one logcat line (without the newline).
func format(f LogFormat, opts LogcatOptions, ns int64, pid, tid int, lvl byte, tag, msg string) string {
	t := max(ns+opts.ClockOffsetNs, 0)
	var prefix string
	if f == FormatMonotonic {
		prefix = fmt.Sprintf("%6d.%06d", t/1_000_000_000, t%1_000_000_000/1_000)
	} else {
		wall := opts.WallBase.Add(time.Duration(t)).UTC()
		prefix = fmt.Sprintf("%02d-%02d %02d:%02d:%02d.%03d", int(wall.Month()), wall.Day(),
			wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond()/1_000_000)
	}
	return fmt.Sprintf("%s %5d %5d %c %-8s: %s", prefix, pid, tid, lvl, tag, msg)
}
