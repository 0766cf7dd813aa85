package gfxinfo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Dumper runs `dumpsys gfxinfo <pkg> framestats` on a device and returns its output. The
// device layer implements it; pkg has been validated by the caller.
type Dumper interface {
	Gfxinfo(ctx context.Context, pkg string) ([]byte, error)
}

// ResetDumper is a Dumper that can also run `dumpsys gfxinfo <pkg> framestats reset` (dump,
// then clear the app's counters and rows). The poller uses it only when PollerConfig.Reset is
// set: a reset wipes the app's statistics for everyone else reading them.
type ResetDumper interface {
	Dumper
	GfxinfoReset(ctx context.Context, pkg string) ([]byte, error)
}

// DumperFunc adapts a function to Dumper.
type DumperFunc func(ctx context.Context, pkg string) ([]byte, error)

// Gfxinfo implements Dumper.
func (f DumperFunc) Gfxinfo(ctx context.Context, pkg string) ([]byte, error) { return f(ctx, pkg) }

// Args is the dumpsys command line a Dumper runs for pkg: `dumpsys gfxinfo <pkg> framestats`,
// plus `reset` only when reset is true.
func Args(pkg string, reset bool) []string {
	a := []string{"dumpsys", "gfxinfo", pkg, "framestats"}
	if reset {
		a = append(a, "reset")
	}
	return a
}

// PollerConfig configures NewPoller.
type PollerConfig struct {
	// Package is the app to poll (already validated).
	Package string
	// Interval between polls; 0 = adaptive: under half the 120-frame ring's time at the
	// current refresh rate (120 Hz → 500 ms, 60 Hz → 1 s), never below MinInterval.
	Interval time.Duration
	// Reset appends `reset` to every dump (needs a ResetDumper). Off by default: it wipes the
	// app's counters for everyone.
	Reset bool
	// KeepRaw emits each dump's text as a source.Raw event (--record-raw).
	KeepRaw bool
	// Device is reported in the Session event.
	Device source.Device
	// Now and Sleep replace the wall clock in tests (nil = time.Now and a timer).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Poll timing limits.
const (
	MinInterval     = 100 * time.Millisecond
	DefaultInterval = 500 * time.Millisecond
	MaxInterval     = time.Second
	backoffStart    = 250 * time.Millisecond
	backoffMax      = 5 * time.Second
	ringFrames      = 120
)

// Poller is a source.Source that polls a device's gfxinfo framestats.
type Poller struct {
	d   Dumper
	cfg PollerConfig
}

// NewPoller returns a source polling d for cfg.Package.
func NewPoller(d Dumper, cfg PollerConfig) *Poller {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	return &Poller{d: d, cfg: cfg}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Run polls until ctx is cancelled. Dumper errors are retried with backoff (250 ms doubling to
// 5 s) and reported as Notices (disconnected, then live again); an app that is not running is
// waited for; a restarted app (new pid) is reported and its windows' dedupe state reset.
func (p *Poller) Run(ctx context.Context, out chan<- []source.Event) error {
	if p.cfg.Package == "" {
		return errors.New("gfxinfo: no package to poll")
	}
	var rd ResetDumper
	if p.cfg.Reset {
		var ok bool
		if rd, ok = p.d.(ResetDumper); !ok {
			return errors.New("gfxinfo: reset requested but the device layer cannot reset")
		}
	}
	st := newTracker(p.cfg.Package, "")
	st.device = p.cfg.Device
	st.live = true
	backoff := backoffStart
	disconnected := false
	var gapFrom int64 // device time last seen before a disconnection
	for {
		start := p.cfg.Now()
		var data []byte
		var err error
		if rd != nil {
			data, err = rd.GfxinfoReset(ctx, p.cfg.Package)
		} else {
			data, err = p.d.Gfxinfo(ctx, p.cfg.Package)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var evs []source.Event
		if err != nil {
			if !disconnected {
				disconnected = true
				evs = append(evs, &source.Notice{AtNs: st.lastNs, Level: source.LevelErr,
					State: source.StateDisconnected, Text: "gfxinfo: " + err.Error() + " (retrying)"})
				if e := send(ctx, out, evs); e != nil {
					return e
				}
			}
			if e := p.cfg.Sleep(ctx, backoff); e != nil {
				return e
			}
			backoff *= 2
			if backoff > backoffMax {
				backoff = backoffMax
			}
			continue
		}
		backoff = backoffStart
		if disconnected {
			disconnected = false
			gapFrom = st.lastNs
			st.state = "" // the next dump re-announces its state
		}
		if p.cfg.KeepRaw {
			evs = append(evs, &source.Raw{AtNs: st.lastNs, Stream: "gfxinfo", Text: data})
		}
		evs = st.apply(evs, data)
		if gapFrom > 0 {
			if st.lastNs > gapFrom {
				evs = append(evs, &source.Gap{FromNs: gapFrom, ToNs: st.lastNs, Reason: "device disconnected"})
			}
			gapFrom = 0
		}
		if len(evs) > 0 {
			if e := send(ctx, out, evs); e != nil {
				return e
			}
		}
		wait := p.cfg.Interval
		if wait <= 0 {
			wait = AdaptiveInterval(st.periodNs)
			wait -= p.cfg.Now().Sub(start)
			if wait < MinInterval {
				wait = MinInterval
			}
		}
		if e := p.cfg.Sleep(ctx, wait); e != nil {
			return e
		}
	}
}

// AdaptiveInterval is the poll period for frames of periodNs (0 = unknown): half the time
// the 120-frame ring holds, clamped to [MinInterval, MaxInterval]; DefaultInterval when unknown.
func AdaptiveInterval(periodNs int64) time.Duration {
	if periodNs <= 0 {
		return DefaultInterval
	}
	d := time.Duration(periodNs * ringFrames / 2)
	if d > MaxInterval {
		d = MaxInterval
	}
	if d < MinInterval {
		d = MinInterval
	}
	return d
}

func send(ctx context.Context, out chan<- []source.Event, evs []source.Event) error {
	select {
	case out <- evs:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tracker turns successive dumps of one app into events: it dedupes rows per window across
// dumps and notices pid changes, rate changes and state changes. Shared by the poller and the
// file source.
type tracker struct {
	pkg      string
	input    string
	device   source.Device
	started  bool
	pid      int
	state    source.State
	lastNs   int64
	periodNs int64
	hz       int64
	windows  map[string]*winState
	failure  string
	fresh    []int // scratch: indexes of a window's new rows
	// live: a device session, whose first dump's backlog is history (DESIGN §4: frames drawn
	// before the session started count in frames and jank, never in a rate). startNs is the
	// device uptime of that first dump.
	live    bool
	startNs int64
}

type winState struct {
	seen      map[[2]int64]int64 // dedupe key → IntendedVsync
	lastVsync int64              // newest IntendedVsync emitted
}

func newTracker(pkg, input string) *tracker {
	return &tracker{pkg: pkg, input: input, windows: map[string]*winState{}}
}

func frameKey(f *source.Frame) [2]int64 {
	if f.VsyncID > 0 {
		return [2]int64{f.VsyncID, 0}
	}
	return [2]int64{0, f.VsyncNs}
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

// selectProcesses returns the dump's processes of the tracked package (the package itself and
// its ":sub" processes); all of them when no package is set (a captured full dump).
func (t *tracker) selectProcesses(d *Dump) []*Process {
	var out []*Process
	for i := range d.Processes {
		pr := &d.Processes[i]
		if t.pkg == "" || pr.Name == t.pkg || strings.HasPrefix(pr.Name, t.pkg+":") ||
			(pr.Name == "" && len(d.Processes) == 1) {
			out = append(out, pr)
		}
	}
	return out
}

// apply parses one dump's text and appends its events to evs.
func (t *tracker) apply(evs []source.Event, data []byte) []source.Event {
	d, err := Parse(data)
	if err != nil {
		return t.notice(evs, t.lastNs, source.LevelWarn, "", "gfxinfo: output not understood: "+err.Error())
	}
	return t.applyDump(evs, d)
}

func (t *tracker) applyDump(evs []source.Event, d *Dump) []source.Event {
	at := d.UptimeNs
	if at == 0 {
		at = t.lastNs
	}
	procs := t.selectProcesses(d)
	pid := 0
	if !d.NotRunning && d.Failure == "" && len(procs) > 0 {
		pid = procs[0].Pid
		for _, pr := range procs {
			if pr.Name == t.pkg {
				pid = pr.Pid
			}
		}
	}
	session := func() {
		pkg := t.pkg
		if pkg == "" && len(procs) > 0 {
			pkg = procs[0].Name
		}
		evs = append(evs, &source.Session{Source: source.KindGfxinfo, Device: t.device, Package: pkg,
			Pid: pid, CostBasis: source.CostFrame, StartMonoNs: d.UptimeNs, Input: t.input})
	}
	switch {
	case !t.started:
		t.started, t.pid = true, pid
		session()
	case pid != 0 && t.pid == 0:
		t.pid = pid // the app started after the session began
		session()
	case pid != 0 && pid != t.pid && t.pkg != "":
		evs = append(evs, &source.Notice{AtNs: at, Level: source.LevelWarn,
			Text: fmt.Sprintf("app restarted (pid %d → %d)", t.pid, pid)})
		t.pid = pid
		t.windows = map[string]*winState{} // a new process: its rows and counters start over
		session()
	}
	t.markStart(d, procs)
	for _, w := range d.Warnings {
		evs = append(evs, &source.Notice{AtNs: at, Level: source.LevelWarn, Text: "gfxinfo: " + w})
	}
	if d.NotRunning {
		evs = t.notice(evs, at, source.LevelInfo, source.StateWaiting,
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
		evs = t.notice(evs, at, source.LevelInfo, source.StateWaiting,
			fmt.Sprintf("waiting for %s: the dump has no such process", t.pkg))
		return t.tick(evs, at)
	}
	evs = t.notice(evs, at, source.LevelInfo, source.StateLive, "live")
	var newest, spacing int64
	var newFrames []*source.Frame // every window's new frames, emitted in IntendedVsync order
	var tail []source.Event       // polls and summaries, after the frames
	for _, pr := range procs {
		dup := map[string]int{}
		procNew, procRows := 0, 0
		for wi := range pr.Windows {
			w := &pr.Windows[wi]
			if w.Rows == 0 && w.Summary == nil {
				continue // a view root without framestats (plain dump or nothing drawn)
			}
			title := w.Title
			if n := dup[title]; n > 0 {
				title = fmt.Sprintf("%s#%d", title, n+1)
			}
			dup[w.Title]++
			key := pr.Name + "\x00" + title
			ws := t.windows[key]
			if ws == nil {
				ws = &winState{seen: map[[2]int64]int64{}}
				t.windows[key] = ws
			}
			var first int64
			if len(w.Frames) > 0 {
				first = w.Frames[0].VsyncNs
				for i := range w.Frames {
					if v := w.Frames[i].VsyncNs; v < first {
						first = v
					}
				}
			}
			// New rows: keys not seen in an earlier dump. Their events get one allocation per
			// window (frames and phases), since the parser may reuse the dump's storage.
			t.fresh = t.fresh[:0]
			for i := range w.Frames {
				k := frameKey(&w.Frames[i])
				if _, ok := ws.seen[k]; !ok {
					ws.seen[k] = w.Frames[i].VsyncNs
					t.fresh = append(t.fresh, i)
				}
			}
			newRows := len(t.fresh)
			if newRows > 0 {
				frs := make([]source.Frame, newRows)
				phs := make([]source.Phases, newRows)
				for j, i := range t.fresh {
					f := &w.Frames[i]
					frs[j] = *f
					fr := &frs[j]
					fr.Window = title
					fr.History = t.live && f.VsyncNs < t.startNs
					if f.Phases != nil {
						phs[j] = *f.Phases
						fr.Phases = &phs[j]
					}
					newFrames = append(newFrames, fr)
					if f.VsyncNs > ws.lastVsync {
						ws.lastVsync = f.VsyncNs
					}
					if f.DoneNs > newest {
						newest = f.DoneNs
					}
				}
			}
			// Rows without a period (before Android 12): the smallest spacing of consecutive
			// intended vsyncs bounds the period, for the poll interval only.
			for i := 1; i < len(w.Frames); i++ {
				if dv := w.Frames[i].VsyncNs - w.Frames[i-1].VsyncNs; dv >= minPeriodNs && (spacing == 0 || dv < spacing) {
					spacing = dv
				}
			}
			// Forget keys older than the ring's oldest row: they cannot come back.
			if len(ws.seen) > 2*ringFrames {
				for k, v := range ws.seen {
					if v < first {
						delete(ws.seen, k)
					}
				}
			}
			procNew += newRows
			procRows += w.Rows
			tail = append(tail, &source.Poll{AtNs: at, Window: title, Pid: pr.Pid, TotalFrames: w.TotalFrames,
				Rows: w.Rows, NewRows: newRows, FirstRowVsyncNs: first, Hidden: w.Visibility > 0})
			if w.Summary != nil {
				s := cloneSummary(w.Summary)
				s.AtNs, s.Window = at, title
				tail = append(tail, s)
			}
		}
		if pr.Summary != nil {
			s := cloneSummary(pr.Summary)
			s.AtNs = at
			tail = append(tail, s)
			// The process-wide counter keeps counting the frames of windows that went away
			// between two polls (a popup that closed): its delta catches frames no window's
			// counter can. It follows its windows' polls.
			if pr.Summary.TotalFrames != nil {
				tail = append(tail, &source.Poll{AtNs: at, Pid: pr.Pid, Process: true, TotalFrames: *pr.Summary.TotalFrames,
					Rows: procRows, NewRows: procNew})
			}
		}
	}
	sort.SliceStable(newFrames, func(i, j int) bool { return newFrames[i].VsyncNs < newFrames[j].VsyncNs })
	havePeriod := false
	for _, f := range newFrames {
		if f.IntervalNs > 0 {
			havePeriod = true
			t.rate(&evs, f.IntervalNs, f.VsyncNs) // a Refresh precedes the first frame at a new rate
		}
		evs = append(evs, f)
	}
	evs = append(evs, tail...)
	if !havePeriod && spacing > 0 && spacing <= maxPeriodNs {
		t.periodNs = spacing
	}
	if at == 0 {
		at = newest
	}
	return t.tick(evs, at)
}

// markStart fixes the live session's start at its first dump: the dump's uptime, or (a dump
// without an Uptime line) the newest frame completion it holds, so every row of that first
// ring is history. Frames of a process that starts later are drawn after it: not history.
func (t *tracker) markStart(d *Dump, procs []*Process) {
	if !t.live || t.startNs != 0 {
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
}

// cloneSummary copies a summary for an event: the parser may reuse the histogram's storage.
func cloneSummary(s *source.AndroidSummary) *source.AndroidSummary {
	c := *s
	c.Histogram = append([]source.Bucket(nil), s.Histogram...)
	return &c
}

// rate emits a Refresh when a row's period implies a new whole-Hz rate.
func (t *tracker) rate(evs *[]source.Event, periodNs, at int64) {
	t.periodNs = periodNs
	hz := int64(math.Round(1e9 / float64(periodNs)))
	if hz != t.hz {
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

// readAll reads r whole, sizing the buffer once when r knows its length (a file, a
// bytes.Reader) instead of growing it by doubling.
func readAll(r io.Reader) ([]byte, error) {
	size := int64(0)
	switch v := r.(type) {
	case interface{ Len() int }:
		size = int64(v.Len())
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	if size <= 0 || size > 1<<34 {
		return io.ReadAll(r)
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf[:n], nil
	case err != nil:
		return nil, err
	}
	more, err := io.ReadAll(r) // the file grew meanwhile
	return append(buf, more...), err
}

// fileSource replays captured dumps.
type fileSource struct {
	path string
	r    io.Reader
	name string
}

// FromFile is a source for a captured `dumpsys gfxinfo [<pkg>] framestats` output (one dump or
// several concatenated). Every process in it is reported, each with its windows.
func FromFile(path string) source.Source { return &fileSource{path: path, name: path} }

// FromReader is FromFile for text from r (the caller handles "-" as stdin); name is reported
// as the Session's Input.
func FromReader(r io.Reader, name string) source.Source { return &fileSource{r: r, name: name} }

// Run emits a Session, then per dump the frames (deduplicated across dumps), polls, summaries
// and a tick, and a final "ended" notice. It fails when the input holds no gfxinfo output.
func (s *fileSource) Run(ctx context.Context, out chan<- []source.Event) error {
	r := s.r
	if r == nil {
		f, err := os.Open(s.path)
		if err != nil {
			return fmt.Errorf("gfxinfo: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := readAll(r)
	if err != nil {
		return fmt.Errorf("gfxinfo: reading %s: %w", s.name, err)
	}
	// Dumps are parsed and emitted one at a time, reusing the parser's memory: a long capture
	// never holds more than one dump's frames beyond the events already sent.
	var ps Parser
	t := newTracker("", s.name)
	found, skipped := false, 0
	for _, c := range Split(Decode(data)) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d := ps.ParseChunk(c)
		if !d.recognised() {
			skipped++
			continue
		}
		var evs []source.Event
		if !found {
			found = true
			// A capture of one app follows its pid like a live poll; a full dump lists many.
			if len(d.Processes) == 1 && d.Processes[0].Name != "" {
				t.pkg = d.Processes[0].Name
			}
		}
		evs = t.applyDump(evs, d)
		if err := send(ctx, out, evs); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("gfxinfo: %s: no dumpsys gfxinfo output found", s.name)
	}
	var end []source.Event
	if skipped > 0 {
		end = append(end, &source.Notice{AtNs: t.lastNs, Level: source.LevelWarn,
			Text: fmt.Sprintf("gfxinfo: %d pieces of %s were not gfxinfo output", skipped, s.name)})
	}
	end = append(end, &source.Notice{AtNs: t.lastNs, Level: source.LevelInfo,
		State: source.StateEnded, Text: "end of " + s.name})
	return send(ctx, out, end)
}
