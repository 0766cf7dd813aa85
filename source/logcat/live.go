package logcat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Streamer runs `logcat <args>` on a device and returns its output as it is produced. The
// device layer implements it; the stream ends (io.EOF) when logcat exits or the device drops.
// Closing the ReadCloser stops the command.
type Streamer interface {
	Stream(ctx context.Context, args []string) (io.ReadCloser, error)
}

// LiveOptions configure NewLive.
type LiveOptions struct {
	// Package is the app being watched (reported in the Session).
	Package string
	// Device describes the phone (reported in the Session).
	Device source.Device
	// Pid returns the app's current process id; an error (or pid ≤ 0) means it is not running
	// yet. Required. While a stream runs it is called from a watcher goroutine every PidEvery.
	Pid func(ctx context.Context) (int, error)
	// Raw also emits the text read, as *source.Raw events.
	Raw bool
	// PidEvery is how often the pid is re-checked to follow app restarts (default 2 s).
	PidEvery time.Duration
	// NoPrinterAfter is how long a stream may run without any Looper printer line before a
	// Notice explains how to enable them (default 5 s).
	NoPrinterAfter time.Duration
	// MaxBackoff caps the wait between reconnection attempts (default 5 s; the first wait is
	// 100 ms, doubling).
	MaxBackoff time.Duration
	// FlushEvery is the longest a decoded event waits while text flows (default 100 ms).
	FlushEvery time.Duration
}

// NewLive returns a Source that follows an app's logcat on a device: it runs
// `logcat -v monotonic -v usec --pid=<pid> -T 1` (device CLOCK_MONOTONIC times, only the app's
// lines, no backlog), falls back to `-v threadtime` when the device rejects the format
// modifiers and to an unfiltered stream with a client-side pid filter when it rejects --pid;
// follows the pid across app restarts (a new Session and a Notice); reconnects with backoff
// when the stream ends (Notice "disconnected", then "live" when text flows again); and, when no
// printer line has arrived after NoPrinterAfter, explains how to enable them. While the app logs
// nothing (idle), Ticks keep advancing from the last line's time by the host clock, one second
// behind, so idle time shows as idle.
func NewLive(s Streamer, opts LiveOptions) source.Source {
	if opts.PidEvery <= 0 {
		opts.PidEvery = 2 * time.Second
	}
	if opts.NoPrinterAfter <= 0 {
		opts.NoPrinterAfter = 5 * time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 5 * time.Second
	}
	return &liveSource{s: s, opts: opts}
}

type liveSource struct {
	s       Streamer
	opts    LiveOptions
	tickLag time.Duration // tests shorten the extrapolated Ticks' lag
}

// logcatArgs is the command line the live source asks for, degraded step by step when the
// device rejects parts of it.
type logcatArgs struct {
	threadtime bool // -v threadtime instead of -v monotonic -v usec
	clientPid  bool // no --pid: filter on the client
	noTail     bool // no -T 1
}

func (a logcatArgs) args(pid int) []string {
	var out []string
	if a.threadtime {
		out = append(out, "-v", "threadtime")
	} else {
		out = append(out, "-v", "monotonic", "-v", "usec")
	}
	if !a.clientPid {
		out = append(out, "--pid="+strconv.Itoa(pid))
	}
	if !a.noTail {
		out = append(out, "-T", "1")
	}
	return out
}

// degrade drops the part of the command line the device's error text points at (the format
// modifiers first when it does not say), and reports false when nothing is left to drop.
func (a *logcatArgs) degrade(errText string) bool {
	t := strings.ToLower(errText)
	switch {
	case strings.Contains(t, "pid") && !a.clientPid:
		a.clientPid = true
	case (strings.Contains(t, "monotonic") || strings.Contains(t, "usec") || strings.Contains(t, "format")) && !a.threadtime:
		a.threadtime = true
	case strings.Contains(t, "-t") && !a.noTail:
		a.noTail = true
	case !a.threadtime:
		a.threadtime = true
	case !a.clientPid:
		a.clientPid = true
	case !a.noTail:
		a.noTail = true
	default:
		return false
	}
	return true
}

// looksRejected reports whether a stream that produced no log line printed an error/usage text.
func looksRejected(text []byte) bool {
	t := strings.ToLower(string(text))
	for _, w := range []string{"unknown option", "invalid", "unrecognized", "usage", "not supported",
		"illegal option", "bad argument", "unknown argument"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// liveState is what the live source remembers across streams.
type liveState struct {
	p        *pump
	state    source.State
	helped   bool      // the no-printer help was given for the current pid
	since    time.Time // when the current pid's session started
	printers int64     // printer lines counted when it started
}

func (st *liveState) set(s source.State, level source.Level, text string) {
	if s == st.state {
		return
	}
	st.state = s
	st.p.add(&source.Notice{AtNs: st.p.d.NowNs(), Level: level, State: s, Text: text})
}

func (st *liveState) printerLines() int64 {
	ds := st.p.d.Stats()
	return ds.Dispatching + ds.Finished
}

// Run implements source.Source.
func (s *liveSource) Run(ctx context.Context, out chan<- []source.Event) error {
	if s.opts.Pid == nil {
		return fmt.Errorf("logcat: live source needs a pid lookup")
	}
	p := newPump(out, s.opts.Raw, s.opts.FlushEvery)
	if s.tickLag > 0 {
		p.lag = s.tickLag
	}
	st := &liveState{p: p}
	var a logcatArgs
	curPid := 0
	silentEnds := 0 // streams in a row that ended at once without any output
	backoff := time.Duration(0)
	wait := func() error {
		if backoff == 0 {
			backoff = 100 * time.Millisecond
		} else if backoff *= 2; backoff > s.opts.MaxBackoff {
			backoff = s.opts.MaxBackoff
		}
		if err := p.flush(ctx); err != nil {
			return err
		}
		t := time.NewTimer(backoff)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		pid, err := s.opts.Pid(ctx)
		if err != nil || pid <= 0 {
			s.noPid(st, err)
			if err := wait(); err != nil {
				return err
			}
			continue
		}
		if pid != curPid {
			s.switchPid(st, curPid, pid)
			curPid = pid
		}
		rc, err := s.s.Stream(ctx, a.args(pid))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st.set(source.OutageState(err), source.LevelWarn, source.RetryText("logcat", err, s.opts.MaxBackoff))
			if err := wait(); err != nil {
				return err
			}
			continue
		}
		res, err := s.follow(ctx, st, rc, pid)
		rc.Close()
		if err != nil {
			return err
		}
		if !res.pidChanged {
			p.d.closeOpen(ReasonGap, 0) // never paired with a Finished after the reconnect
		}
		switch {
		case res.pidChanged:
			backoff = 0
			continue
		case res.lines == 0 && (looksRejected(res.head) || res.silent && silentEnds >= 1):
			// A rejected command line prints an error (shell v1 mixes it into the stream); with
			// stderr kept apart the stream just ends at once, twice in a row.
			silentEnds = 0
			if degrade(p, &a, res.head, pid) {
				continue
			}
			st.set(source.StateDisconnected, source.LevelErr, "device logcat rejected every command line: "+firstLine(res.head))
		default:
			st.set(source.StateDisconnected, source.LevelWarn, "logcat stream ended; reconnecting")
		}
		if res.silent {
			silentEnds++
		} else {
			silentEnds = 0
		}
		if res.lines > 0 {
			backoff = 0
		}
		if err := wait(); err != nil {
			return err
		}
	}
}

// noPid says why there is no pid: the device or the adb server gone (in their own words, with
// the fix, never the failed command), else the app not running — a wrong -p must not end in a
// clean empty report.
func (s *liveSource) noPid(st *liveState, err error) {
	var tr source.Trouble
	if errors.As(err, &tr) {
		st.set(source.OutageState(err), source.LevelWarn, source.RetryText("logcat", err, s.opts.MaxBackoff))
		return
	}
	msg := fmt.Sprintf("waiting for %s to start", orApp(s.opts.Package))
	if err != nil {
		msg += ": " + err.Error()
	}
	st.set(source.StateWaiting, source.LevelWarn, msg)
}

// switchPid follows the app to a new process: the old process's open dispatches are closed as
// unpaired, and a new Session names the new pid.
func (s *liveSource) switchPid(st *liveState, oldPid, pid int) {
	p := st.p
	if oldPid != 0 {
		p.d.closeOpen(ReasonProcessChanged, oldPid)
		p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelInfo,
			Text: fmt.Sprintf("%s restarted: pid %d → %d", orApp(s.opts.Package), oldPid, pid)})
	}
	p.d.SetPid(pid)
	p.add(&source.Session{Source: source.KindLogcat, Device: s.opts.Device, Package: s.opts.Package,
		Pid: pid, CostBasis: source.CostMainThread})
	st.helped, st.since, st.printers = false, time.Now(), st.printerLines()
}

// degrade falls back to an older logcat command line after the device rejected one (head is
// the rejected stream's first bytes), saying so; false when there is nothing older to try.
func degrade(p *pump, a *logcatArgs, head []byte, pid int) bool {
	before := *a
	if !a.degrade(string(head)) {
		return false
	}
	p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelWarn,
		Text: fmt.Sprintf("device logcat rejected %q (%s); retrying with %q",
			strings.Join(before.args(pid), " "), firstLine(head), strings.Join(a.args(pid), " "))})
	if a.threadtime && !before.threadtime {
		p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelWarn,
			Text: "logcat without -v monotonic: times are wall-clock, not CLOCK_MONOTONIC"})
	}
	return true
}

type followResult struct {
	lines      int64  // log lines decoded from this stream (error texts are not)
	silent     bool   // the stream ended within a second without any output
	head       []byte // the stream's first bytes (the error text of a rejected command)
	pidChanged bool
}

// follow decodes one logcat stream until it ends, the app's pid changes or ctx ends.
func (s *liveSource) follow(ctx context.Context, st *liveState, rc io.Reader, pid int) (followResult, error) {
	p := st.p
	var res followResult
	head := &headReader{r: rc}
	stop := make(chan struct{})
	wctx, cancel := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	defer func() {
		cancel()
		<-watchDone
	}()
	go func() {
		defer close(watchDone)
		t := time.NewTicker(s.opts.PidEvery)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
				if np, err := s.opts.Pid(wctx); err == nil && np > 0 && np != pid {
					close(stop)
					return
				}
			}
		}
	}()
	start := p.d.stats.LogLines
	began := time.Now()
	p.hook = func() {
		if p.d.stats.LogLines > start {
			st.set(source.StateLive, source.LevelInfo, "logcat live")
		}
		if !st.helped && st.printerLines() == st.printers && time.Since(st.since) >= s.opts.NoPrinterAfter {
			st.helped = true
			p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelInfo, Text: NoPrinterHelp})
		}
	}
	p.extrapolate = true
	ended, err := p.stream(ctx, head, stop)
	p.hook, p.extrapolate = nil, false
	res.lines = p.d.stats.LogLines - start
	if err != nil {
		return res, err
	}
	if !ended {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.pidChanged = true
		return res, nil
	}
	res.head = head.bytes()
	res.silent = len(res.head) == 0 && time.Since(began) < time.Second
	return res, nil
}

// headReader keeps the first bytes read (the error text of a rejected command).
type headReader struct {
	r    io.Reader
	mu   sync.Mutex
	head []byte
}

func (h *headReader) Read(b []byte) (int, error) {
	n, err := h.r.Read(b)
	h.mu.Lock()
	if len(h.head) < 512 && n > 0 {
		h.head = append(h.head, b[:min(n, 512-len(h.head))]...)
	}
	h.mu.Unlock()
	return n, err
}

func (h *headReader) bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]byte(nil), h.head...)
}

func orApp(pkg string) string {
	if pkg == "" {
		return "the app"
	}
	return pkg
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if s := strings.TrimSpace(string(b)); s != "" {
		return s
	}
	return "it ended at once without output"
}
