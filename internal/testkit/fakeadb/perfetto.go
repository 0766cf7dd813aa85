package fakeadb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TraceDir is where the shell user's perfetto may write (the only directory the fake's
// perfetto, tail, ls and rm serve).
const TraceDir = "/data/misc/perfetto-traces/"

// TracingConfig describes a fake phone's tracing service. Zero fields take the defaults shown.
type TracingConfig struct {
	// SDK is the phone's Android SDK level (default 34): before 28 there is no perfetto, 28
	// knows no --txt, before 31 there is no FrameTimeline data source (a session runs and
	// records no frames, as Android 11 does).
	SDK int
	// Package and Pid are the app's (Pid is asked on every trace write: a test may restart it).
	Package string
	Pid     func() int
	// Trace says how the app's events are written (Stuffing, SlowWork, SFJankEvery,
	// BootOffsetNs); its Pid and Package are set from the fields above.
	Trace simtext.TraceOptions
	// MaxSessions is how many sessions the service runs at once (default 5, perfetto's limit
	// per uid); one more is refused as busy.
	MaxSessions int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Tracing is a fake phone's tracing service and its `perfetto` command line, as Android 12–16
// serve them to the shell user: `echo 'CONFIG' | perfetto --background --txt -c - -o PATH`
// prints the pid of a background session and returns; with write_into_file the session
// appends to PATH every file_write_period_ms what the app did since (FrameTimeline, atrace
// sections of the app, process names, rendered by simtext.TraceStream from the events Feed
// gives it); it ends at duration_ms or `kill -TERM PID`, writing the rest. `pidof perfetto`,
// `ps -A`, `stat -c %s`, `tail -c +N`, `cat`, `ls` and `rm` of the trace directory see the sessions and files.
// Refusals are served as a phone does them: a unique_session_name in use or too many sessions
// make the background process end at once (its pid was printed; the file stays empty), which
// SetBusy forces; Android 11 records no frames; Android 9 has no --txt.
//
// Truth returns every frame the service saw, with its jank bits and slowest section, so a test
// can hold fpstop's blame and sections against it. Safe for concurrent use.
type Tracing struct {
	cfg TracingConfig

	mu       sync.Mutex
	nextPid  int
	sessions []*tsession
	files    map[string]*tfile
	busy     bool
	truth    []simtext.TraceFrame
	seen     map[truthKey]bool
	log      []logLine
}

// logLine is one line perfetto logged (tag perfetto), by the process that logged it.
type logLine struct {
	at  time.Time
	pid int
	msg string
}

type truthKey struct {
	window string
	token  int64
}

type tfile struct{ data []byte }

// tsession is one tracing session: its perfetto process and what it has yet to write.
type tsession struct {
	pid     int
	name    string // unique_session_name
	path    string
	file    *tfile // still written after an rm, as an unlinked file is
	start   time.Time
	end     time.Time // zero: no duration_ms
	period  time.Duration
	inFile  bool // write_into_file: periodic writes
	stream  *simtext.TraceStream
	pending bytes.Buffer
	chunks  []chunk
	done    bool
	other   bool // another tool's session (HoldSession): writes nothing
}

// chunk is what a session rendered from one Feed, written at the first period boundary after it.
type chunk struct {
	at time.Time
	b  []byte
}

// NewTracing returns a tracing service with no session.
func NewTracing(cfg TracingConfig) *Tracing {
	if cfg.SDK == 0 {
		cfg.SDK = 34
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = 5
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Pid == nil {
		cfg.Pid = func() int { return sim.DefaultPid }
	}
	return &Tracing{cfg: cfg, nextPid: 31000, files: map[string]*tfile{}, seen: map[truthKey]bool{}}
}

func (t *Tracing) sdk() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cfg.SDK
}

// SetBusy makes the service refuse every new session (true) or accept them again, as a phone
// whose tracing service is held by another tool or turned off.
func (t *Tracing) SetBusy(busy bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.busy = busy
}

// HoldSession starts another tool's session named name (Android Studio's, a CI script's): a
// live perfetto process that fpstop must neither stop nor mistake for its own. It returns its pid.
func (t *Tracing) HoldSession(name string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextPid += 7
	t.sessions = append(t.sessions, &tsession{pid: t.nextPid, name: name, other: true, start: t.cfg.Now()})
	return t.nextPid
}

// Feed gives the service the app's events as they happen: every live session renders them,
// to be written at its next period boundary, and the frames join the truth.
func (t *Tracing) Feed(evs []source.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.cfg.Now()
	t.advance(now)
	o := t.traceOptions()
	for _, ev := range evs {
		if f, ok := ev.(*source.Frame); ok && !f.History {
			k := truthKey{f.Window, f.VsyncID}
			if !t.seen[k] {
				t.seen[k] = true
				t.truth = append(t.truth, simtext.FrameFacts(f, o))
			}
		}
	}
	for _, s := range t.sessions {
		if s.done || s.other {
			continue
		}
		s.render(now, evs)
	}
}

func (t *Tracing) traceOptions() simtext.TraceOptions {
	o := t.cfg.Trace
	o.Pid, o.Package = t.cfg.Pid(), t.cfg.Package
	return o
}

// render adds what the session's stream writes of evs as a chunk fed at now.
func (s *tsession) render(now time.Time, evs []source.Event) {
	s.pending.Reset()
	_ = s.stream.Write(evs)
	if s.pending.Len() > 0 {
		s.chunks = append(s.chunks, chunk{now, append([]byte(nil), s.pending.Bytes()...)})
	}
}

// Truth returns every frame the service saw (whether or not a session was recording), in the
// order they completed.
func (t *Tracing) Truth() []simtext.TraceFrame {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]simtext.TraceFrame(nil), t.truth...)
}

// Running returns the pids of the live perfetto processes, fpstop's and other tools', sorted.
func (t *Tracing) Running() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(t.cfg.Now())
	return t.runningLocked()
}

func (t *Tracing) runningLocked() []int {
	var pids []int
	for _, s := range t.sessions {
		if !s.done {
			pids = append(pids, s.pid)
		}
	}
	sort.Ints(pids)
	return pids
}

// Files returns the paths of the trace directory's files with their sizes.
func (t *Tracing) Files() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(t.cfg.Now())
	out := map[string]int{}
	for p, f := range t.files {
		out[p] = len(f.data)
	}
	return out
}

// Log returns what perfetto logged (its refusals), as `logcat -s perfetto` shows them.
func (t *Tracing) Log() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, len(t.log))
	for i, l := range t.log {
		out[i] = l.msg
	}
	return out
}

// advance writes what each session rendered before its last period boundary up to now, and
// ends the sessions whose duration_ms has passed (writing the rest, as perfetto does).
func (t *Tracing) advance(now time.Time) {
	for _, s := range t.sessions {
		if s.done || s.other {
			continue
		}
		cut, finish := now, false
		if !s.end.IsZero() && !now.Before(s.end) {
			cut, finish = s.end, true
		}
		switch {
		case finish:
			s.flush(cut, true)
			s.done = true
		case s.inFile:
			boundary := s.start.Add(cut.Sub(s.start) / s.period * s.period)
			s.flush(boundary, false)
		}
	}
}

// flush appends the chunks fed before cut (at or before it when final) to the file.
func (s *tsession) flush(cut time.Time, final bool) {
	n := 0
	for _, c := range s.chunks {
		if c.at.Before(cut) || (final && !c.at.After(cut)) {
			s.file.data = append(s.file.data, c.b...)
			n++
			continue
		}
		break
	}
	s.chunks = s.chunks[n:]
}

// Wrap serves the tracing commands and passes every other command to next.
func (t *Tracing) Wrap(next Handler) Handler {
	return func(ctx context.Context, cmd string, w io.Writer) error {
		if ok, err := t.Serve(ctx, cmd, w); ok {
			return err
		}
		if next == nil {
			return Mux{}.Serve(ctx, cmd, w)
		}
		return next(ctx, cmd, w)
	}
}

// stamp is how perfetto prefixes its log lines: seconds since boot and the source line.
func (t *Tracing) stamp(where string) string {
	return fmt.Sprintf("[%.3f] %s", float64(t.cfg.Now().UnixNano()%1e12)/1e9, where)
}

// logf records a line the perfetto process pid logged (logcat's perfetto tag).
func (t *Tracing) logf(pid int, format string, args ...any) {
	t.log = append(t.log, logLine{t.cfg.Now(), pid, fmt.Sprintf(format, args...)})
}

// logcat prints perfetto's log lines as `logcat -d -s perfetto` does (threadtime format).
func (t *Tracing) logcat(w io.Writer) error {
	t.mu.Lock()
	var b strings.Builder
	for _, l := range t.log {
		fmt.Fprintf(&b, "%s %5d %5d E perfetto: %s\n", l.at.UTC().Format("01-02 15:04:05.000"), l.pid, l.pid, l.msg)
	}
	t.mu.Unlock()
	_, err := io.WriteString(w, b.String())
	return err
}

// inTraceDir reports whether p names a file directly in TraceDir.
func inTraceDir(p string) bool {
	name, ok := strings.CutPrefix(p, TraceDir)
	return ok && name != "" && !strings.Contains(name, "/") && name != "." && name != ".."
}
