package perfetto

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fpstop/fpstop/source"
)

// LiveOptions says what a live Perfetto source traces and how.
type LiveOptions struct {
	// Package is the app (atrace_apps and the frames kept); required.
	Package string
	// Device describes the phone, for the session event.
	Device source.Device
	// KeepRaw emits the bytes read of every session as source.Raw events (--record-raw); the
	// stream is "perfetto/" and the session's file name, so each session's trace can be put
	// back together byte for byte.
	KeepRaw bool
	// SessionMs is each session's duration_ms (0 = 30 s, the most DESIGN §5 allows);
	// OverlapMs how long before a session's end the next one starts (0 = 5 s).
	SessionMs, OverlapMs int
	// FallbackMs is the length of the consecutive short sessions read at their end, used when
	// the phone does not write the file as the session runs (0 = 5 s).
	FallbackMs int
	// WritePeriodMs is file_write_period_ms (0 = 100 ms, the least Perfetto allows: each write
	// is a small append, and a frame waits for it).
	WritePeriodMs int
	// Poll is how often the files are read (0 = 200 ms: one shell command a read, half as
	// often as the phone writes, so a frame waits at most a period and a poll).
	Poll time.Duration
	// ID makes the session names and files unique to this run (lower-case letters and digits;
	// "" = from the clock).
	ID string
	// Now is the clock (nil = time.Now).
	Now func() time.Time
}

// ErrRefused is wrapped by the error Run returns when the phone refuses the first session
// (Android 11 or older, tracing busy, perfetto refused): nothing was traced.
var ErrRefused = errors.New("perfetto refused the session")

type refusedError struct{ err error }

// Error is the phone's reason alone: the caller names the source ("--source perfetto: …"),
// so the line says perfetto once.
func (e *refusedError) Error() string   { return e.err.Error() }
func (e *refusedError) Unwrap() []error { return []error{ErrRefused, e.err} }

// TraceDir is where the shell user may write traces (perfetto's -o must be under it).
const TraceDir = "/data/misc/perfetto-traces"

// Live timing: the sort window of a live trace (how late an event may arrive and still be in
// order), how long past its end a session's file may still grow, when the mode is decided.
const (
	liveWindowNs = 1_000_000_000
	// minLiveWindowNs and priorLiveWindowNs bound the fitted window (Parser.FitWindow)
	minLiveWindowNs   = 150_000_000
	flushPeriodMs     = 500
	priorLiveWindowNs = 400_000_000
	endGrace          = 3 * time.Second
	quietEnd          = time.Second
	decideAfter       = 4 * time.Second
	maxSessionMs      = 30_000
	stopTimeout       = 5 * time.Second
	maxStreamLag      = 5 * time.Second
	fallbackOverl     = 1000
)

// validPkg and validID are compiled on first use: only a live Perfetto session needs them.
var (
	validPkg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$`) })
	validID  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]{1,32}$`) })
)

// The live source's defaults (LiveOptions' zero values), which fpstop info states.
const (
	DefaultSessionMs     = maxSessionMs
	DefaultOverlapMs     = 5000
	DefaultWritePeriodMs = 100
	DefaultPoll          = 200 * time.Millisecond
)

// NewLive is a source tracing the phone with Perfetto (Android 12+, shell user, no root):
// FrameTimeline and the app's atrace sections, in write_into_file sessions read as the file
// grows, packet by packet, through the same joiner as a trace file. A session cannot be
// extended, so every session is bounded (duration_ms ≤ 30 s) and the next one starts before
// the current ends, under the other of two alternating names; the frames both saw are kept
// once (by layer and token). Tracing thus stops within 30 s of fpstop's death, and Run stops
// its sessions and removes their files when its context ends.
func NewLive(t Tracer, opts LiveOptions) *Live {
	if opts.SessionMs <= 0 || opts.SessionMs > maxSessionMs {
		opts.SessionMs = DefaultSessionMs
	}
	if opts.OverlapMs <= 0 || opts.OverlapMs >= opts.SessionMs {
		opts.OverlapMs = min(DefaultOverlapMs, opts.SessionMs/3)
	}
	if opts.FallbackMs <= 0 || opts.FallbackMs > maxSessionMs {
		opts.FallbackMs = 5000
	}
	if opts.WritePeriodMs < DefaultWritePeriodMs {
		opts.WritePeriodMs = DefaultWritePeriodMs
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Live{t: t, opts: opts}
}

// Live is the live Perfetto source (NewLive).
type Live struct {
	t    Tracer
	opts LiveOptions
	run  *liveRun // set by Start
}

// Config is the text config of one session (perfetto --txt -c -).
func Config(pkg, name string, durationMs, writePeriodMs int) (string, error) {
	if !validPkg().MatchString(pkg) || len(pkg) > 255 {
		return "", fmt.Errorf("perfetto: %q is not a package name", pkg)
	}
	if !validSessionName(name) {
		return "", fmt.Errorf("perfetto: %q is not a session name fpstop makes", name)
	}
	var b strings.Builder
	b.WriteString("buffers { size_kb: 32768 fill_policy: RING_BUFFER }\n")
	b.WriteString("data_sources { config { name: \"android.surfaceflinger.frametimeline\" } }\n")
	b.WriteString("data_sources { config { name: \"linux.ftrace\" ftrace_config {")
	for _, c := range []string{"gfx", "view", "input", "am"} {
		fmt.Fprintf(&b, " atrace_categories: %q", c)
	}
	fmt.Fprintf(&b, " atrace_apps: %q } } }\n", pkg)
	b.WriteString("data_sources { config { name: \"linux.process_stats\" process_stats_config { scan_all_processes_on_start: true } } }\n")
	// flush_period_ms bounds how late a tracing service that does not flush before each write
	// (before late 2025) puts the data sources' data in the file, and so the sort window
	fmt.Fprintf(&b, "write_into_file: true\nfile_write_period_ms: %d\nflush_period_ms: %d\n", writePeriodMs, max(writePeriodMs, flushPeriodMs))
	fmt.Fprintf(&b, "duration_ms: %d\nunique_session_name: %q\n", durationMs, name)
	return b.String(), nil
}

func validSessionName(s string) bool {
	return strings.HasPrefix(s, "fpstop_") && validID().MatchString(strings.ReplaceAll(s[len("fpstop_"):], "_", ""))
}

// Start starts the first session, so that a phone refusing it (Android 11, tracing busy) is
// known before anything is shown; the error wraps ErrRefused. Run calls it when the caller did
// not. A started source must be Run (Run stops the sessions when its context ends; unrun, the
// session ends by its duration_ms).
func (l *Live) Start(ctx context.Context) error {
	if l.run != nil {
		return nil
	}
	if !validPkg().MatchString(l.opts.Package) {
		return fmt.Errorf("perfetto: %q is not a package name", l.opts.Package)
	}
	id := l.opts.ID
	if id == "" {
		id = strconv.FormatInt(l.opts.Now().UnixNano()%1e12, 36)
	}
	if !validID().MatchString(id) {
		return fmt.Errorf("perfetto: session id %q: lower-case letters and digits only", id)
	}
	r := newLiveRun(l, id)
	r.evs = append(r.evs, &source.Session{Source: source.KindPerfetto, Package: l.opts.Package,
		Device: l.opts.Device, CostBasis: source.CostFrame})
	if _, err := r.start(ctx); err != nil {
		if left := r.stopFirst(ctx); left != "" {
			err = fmt.Errorf("%w; the phone did not answer within %d s to stop what it started (%s), which ends by itself within its duration_ms (%d s)",
				err, int(firstStopBound/time.Second), left, l.opts.SessionMs/1000)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &refusedError{err}
	}
	l.run = r
	return nil
}

// Run implements source.Source.
func (l *Live) Run(ctx context.Context, out chan<- []source.Event) error {
	if err := l.Start(ctx); err != nil {
		return err
	}
	r := l.run
	defer r.stopAll()
	tick := time.NewTicker(l.opts.Poll)
	defer tick.Stop()
	for {
		if err := r.poll(ctx); err != nil {
			_ = source.Send(ctx, out, r.flush())
			return err
		}
		if err := source.Send(ctx, out, r.flush()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// sessionPath names session n's file.
func sessionPath(id string, n int) string {
	return fmt.Sprintf("%s/fpstop-%s-%d.pftrace", TraceDir, id, n)
}

// isNotExist reports whether a read found no file yet.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
