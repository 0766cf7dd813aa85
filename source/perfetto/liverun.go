package perfetto

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/fpstop/fpstop/source"
)

// liveRun is one Run of the live source: its sessions (at most two at once, overlapping), the
// events waiting to be sent, and what was already sent (frames and sections both sessions saw
// go out once).
type liveRun struct {
	l        *Live
	id       string
	sessions []*liveSession
	n        int // sessions started
	evs      []source.Event

	first    *liveSession
	fallback bool // consecutive short sessions read at their end
	decided  bool
	hz       float64
	frames   map[frameKey]int64
	sections map[sectionKey]int64
	newest   int64
	noticed  map[string]bool
	// offset maps trace time to host time: the least (host arrival − newest trace time) seen
	offset, lagSum, lagN int64
	haveOffset           bool
	startFails           int
	// failingSince is when every session's read began to fail (zero: the last poll read);
	// away, once that lasted awayAfter, is why the phone is gone, and lost its sessions, to
	// be stopped and their files removed as soon as it answers again.
	failingSince time.Time
	away         error
	lost         []*liveSession
	// gapFrom is the phone's time (monotonic) when it went away, until the next session's
	// first packet ends the gap (0: none open)
	gapFrom int64
}

type frameKey struct {
	layer string
	token int64
}

type sectionKey struct {
	tid        int
	start, end int64
	name       string
}

// liveSession is one perfetto session on the phone and the pipeline reading its file.
type liveSession struct {
	name, path string
	pid        int
	started    time.Time
	dur        time.Duration
	off        int64
	p          *Parser
	j          *joiner
	st         *Stream
	growths    int
	lastGrow   time.Time
	broken     bool
	failed     error // the last read's error (nil: read, or the file is not there yet)
}

// dedupMemory: keys older than this (trace time) behind the newest are forgotten; sessions
// overlap by seconds, so a duplicate is never older.
// startTimeout bounds one PerfettoStart (a few shell commands).
const startTimeout = 15 * time.Second

// awayAfter is how long every read must fail before the phone counts as gone (a pulled cable,
// adb offline): one failed read is not enough to give up a session.
const awayAfter = time.Second

const (
	dedupMemoryNs = 60_000_000_000
	dedupPruneAt  = 1 << 13
)

func newLiveRun(l *Live, id string) *liveRun {
	return &liveRun{l: l, id: id, frames: map[frameKey]int64{}, sections: map[sectionKey]int64{},
		noticed: map[string]bool{}}
}

func (r *liveRun) now() time.Time { return r.l.opts.Now() }

// sessionLen is the duration_ms and overlap of the sessions started now.
func (r *liveRun) sessionLen() (dur, overlap int) {
	if r.fallback {
		return r.l.opts.FallbackMs, min(fallbackOverl, r.l.opts.FallbackMs/3)
	}
	return r.l.opts.SessionMs, r.l.opts.OverlapMs
}

// start starts the next session under the other of the two names.
func (r *liveRun) start(ctx context.Context) (*liveSession, error) {
	dur, _ := r.sessionLen()
	name := fmt.Sprintf("fpstop_%s_%c", r.id, "ab"[r.n%2])
	p := sessionPath(r.id, r.n)
	cfg, err := Config(r.l.opts.Package, name, dur, r.l.opts.WritePeriodMs)
	if err != nil {
		return nil, err
	}
	// The start is not cut short by ctx: once perfetto printed its pid the session runs, and
	// only that pid lets it be stopped. A start that ctx ended meanwhile is stopped at once.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	pid, err := r.l.t.PerfettoStart(sctx, cfg, p)
	cancel()
	if err != nil {
		// The phone may have stopped answering after perfetto printed its pid (the session
		// runs) or before (its file may be there): both are stopped as soon as it answers,
		// and the name and file are not used again until then.
		r.lost = append(r.lost, &liveSession{name: name, path: p, pid: max(pid, 0)})
		return nil, err
	}
	r.n++
	s := &liveSession{name: name, path: p, pid: pid, started: r.now(), dur: time.Duration(dur) * time.Millisecond}
	if ctx.Err() != nil {
		r.stop(s)
		return nil, ctx.Err()
	}
	s.lastGrow = s.started
	s.p, s.j = pipeline(r.l.opts.Package, r.emitFrom(s))
	s.p.FitWindow(minLiveWindowNs, liveWindowNs, priorLiveWindowNs)
	s.st = NewStream(s.p)
	r.sessions = append(r.sessions, s)
	if r.first == nil {
		r.first = s
	}
	return s, nil
}

// poll reads every session's file from where it stopped, ends the sessions that are over and
// starts the next one when the newest nears its end.
func (r *liveRun) poll(ctx context.Context) error {
	if r.away != nil {
		if !r.back(ctx) {
			return ctx.Err()
		}
		// said before the next session starts (the next poll): a run ended during that start
		// (it takes a few commands) would drop the news, and end reading as still disconnected
		return nil
	}
	if len(r.lost) > 0 {
		r.retryStops()
	}
	failed := 0
	var why error
	for _, s := range r.sessions {
		if err := r.read(ctx, s); err != nil {
			return err
		}
		if s.failed != nil {
			failed, why = failed+1, s.failed
		}
	}
	now := r.now()
	if failed > 0 && failed == len(r.sessions) {
		// the phone does not answer: nothing is decided, ended or started meanwhile
		if r.failingSince.IsZero() {
			r.failingSince = now
		}
		if now.Sub(r.failingSince) >= awayAfter {
			r.goAway(why)
		}
		return nil
	}
	r.failingSince = time.Time{}
	kept := r.sessions[:0]
	for _, s := range r.sessions {
		if s.broken || s.over(now) {
			r.end(s)
			continue
		}
		kept = append(kept, s)
	}
	r.sessions = kept
	r.decide(now)
	return r.next(ctx, now)
}

// next starts the next session when none runs or the newest nears its end.
func (r *liveRun) next(ctx context.Context, now time.Time) error {
	var newest *liveSession
	if len(r.sessions) > 0 {
		newest = r.sessions[len(r.sessions)-1]
	}
	_, overlap := r.sessionLen()
	if r.parked(sessionPath(r.id, r.n)) {
		return nil // its earlier start is not stopped yet: the service would refuse the name
	}
	if newest == nil || now.Sub(newest.started) >= newest.dur-time.Duration(overlap)*time.Millisecond {
		if _, err := r.start(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.startFails++
			r.notice(source.LevelWarn, fmt.Sprintf("perfetto: the next session could not start (%v): retrying", err))
			if newest == nil && r.startFails >= 3 {
				return fmt.Errorf("perfetto: no session running and the next was refused: %w", err)
			}
		} else {
			r.startFails = 0
		}
	}
	return nil
}

// goAway parks the sessions of a phone that stopped answering: what they read goes out, and
// they are stopped (their files removed) as soon as the phone answers again, since they run on
// there until their duration_ms.
func (r *liveRun) goAway(why error) {
	r.gapFrom = r.monoNow()
	for _, s := range r.sessions {
		r.finish(s)
	}
	r.lost = append(r.lost, r.sessions...)
	r.sessions = nil
	r.away = why
	r.evs = append(r.evs, &source.Notice{AtNs: r.gapFrom, Level: source.LevelErr, State: source.OutageState(why),
		Text: fmt.Sprintf("perfetto: the phone does not answer (%v); its tracing session is stopped as soon as it is back", why)})
}

// back tries to stop the sessions of a phone that was away; once all are stopped the phone is
// back, and tracing starts again with a new session.
func (r *liveRun) back(ctx context.Context) bool {
	if ctx.Err() != nil || !r.retryStops() {
		return false
	}
	r.away, r.failingSince, r.startFails = nil, time.Time{}, 0
	r.evs = append(r.evs, &source.Notice{AtNs: r.gapFrom, Level: source.LevelInfo, State: source.StateLive,
		Text: "perfetto: the phone is back; its sessions from before are stopped and a new one starts"})
	return true
}

// retryStops stops the sessions and removes the files whose stop failed (the phone did not
// answer) and reports whether none is left.
func (r *liveRun) retryStops() bool {
	kept := r.lost[:0]
	for _, s := range r.lost {
		if r.stopErr(s) != nil {
			kept = append(kept, s)
		}
	}
	clear(r.lost[len(kept):])
	r.lost = kept
	return len(r.lost) == 0
}

// firstStopBound is how long a failed first start waits for the phone to answer, to stop the
// session it may have started (an adb server takes seconds to see a phone again): nothing
// runs afterwards to retry (the run ends, or the previous source stays).
const firstStopBound = 20 * time.Second

// stopFirst retries, every poll until firstStopBound passes or ctx ends, the stops of what a
// failed first start left (a session whose pid perfetto printed before the phone stopped
// answering, or its file); it names what is still there ("" when nothing is).
func (r *liveRun) stopFirst(ctx context.Context) string {
	until := r.now().Add(firstStopBound)
	tick := time.NewTicker(r.l.opts.Poll)
	defer tick.Stop()
	for !r.retryStops() {
		if !r.now().Before(until) {
			return r.lostNames()
		}
		select {
		case <-ctx.Done():
			return r.lostNames()
		case <-tick.C:
		}
	}
	return ""
}

// lostNames names the sessions still waiting to be stopped, by pid and file.
func (r *liveRun) lostNames() string {
	var b strings.Builder
	for i, s := range r.lost {
		if i > 0 {
			b.WriteString(", ")
		}
		if s.pid > 0 {
			fmt.Fprintf(&b, "session pid %d, ", s.pid)
		}
		b.WriteString(s.path)
	}
	return b.String()
}

// parked reports whether a session on path waits to be stopped.
func (r *liveRun) parked(path string) bool {
	for _, s := range r.lost {
		if s.path == path {
			return true
		}
	}
	return false
}

// read takes what a session's file gained since the last read.
func (r *liveRun) read(ctx context.Context, s *liveSession) error {
	now := r.now()
	b, err := r.l.t.PerfettoRead(ctx, s.path, s.off)
	s.failed = nil
	if err != nil && !isNotExist(err) {
		s.failed = err
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil && !isNotExist(err):
		r.notice(source.LevelWarn, fmt.Sprintf("perfetto: reading %s: %v", path.Base(s.path), err))
	case len(b) > 0:
		s.off += int64(len(b))
		s.growths++
		s.lastGrow = now
		if r.l.opts.KeepRaw {
			r.evs = append(r.evs, &source.Raw{AtNs: s.p.ToMono(s.p.Latest()), Stream: "perfetto/" + path.Base(s.path),
				Text: append([]byte(nil), b...)})
		}
		if _, err := s.st.Write(b); err != nil {
			r.notice(source.LevelErr, fmt.Sprintf("perfetto: %s is not a trace past byte %d (%v): session dropped", path.Base(s.path), s.st.Off, err))
			s.broken = true
			return nil
		}
		if latest := s.p.Latest(); latest > 0 {
			if off := now.UnixNano() - latest; !r.haveOffset || off < r.offset {
				r.offset, r.haveOffset = off, true
			}
			if to := s.p.ToMono(latest); r.gapFrom > 0 && r.away == nil && to > r.gapFrom {
				r.evs = append(r.evs, &source.Gap{FromNs: r.gapFrom, ToNs: to, Reason: "device disconnected"})
				r.gapFrom = 0
			}
		}
	}
	if latest := s.p.Latest(); latest > 0 {
		// the phone's clock ran on while the file was quiet: settle what is old enough
		s.p.Settle(latest + int64(now.Sub(s.lastGrow)) - s.p.Window())
	}
	return nil
}

// end finishes a session: the rest of its frames out, the phone's session stopped and its
// file removed.
func (r *liveRun) end(s *liveSession) {
	r.finish(s)
	r.stop(s)
}

// finish sends what a session's pipeline still holds.
func (r *liveRun) finish(s *liveSession) {
	s.p.Finish()
	s.j.finish()
	s.j.fallbackAdvance(true)
	for _, n := range s.j.notices(nil) {
		n.AtNs = s.p.ToMono(s.j.now)
		r.emitFrom(s)(n)
	}
}

// stop stops a session on the phone and removes its file; one the phone did not let stop is
// tried again on every poll until it does (its file would stay otherwise).
func (r *liveRun) stop(s *liveSession) {
	if err := r.stopErr(s); err != nil {
		r.notice(source.LevelWarn, fmt.Sprintf("perfetto: stopping session %s (pid %d): %v", s.name, s.pid, err))
		r.lost = append(r.lost, s)
	}
}

// stopErr stops a session on the phone and removes its file.
func (r *liveRun) stopErr(s *liveSession) error {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	return r.l.t.PerfettoStop(ctx, s.pid, s.path)
}

// stopAll stops every session still running, and those of a phone that went away (the
// context ended: quit, source switch).
func (r *liveRun) stopAll() {
	for _, s := range append(r.sessions, r.lost...) {
		_ = r.stopErr(s) // nothing is read after this: a phone gone ends them by duration_ms
	}
	r.sessions, r.lost = nil, nil
}

func (r *liveRun) notice(level source.Level, text string) {
	if r.noticed[text] {
		return
	}
	r.noticed[text] = true
	r.evs = append(r.evs, &source.Notice{AtNs: r.monoNow(), Level: level, Text: text})
}

// monoNow is the phone's monotonic time as far as the newest session has read (0 before any).
func (r *liveRun) monoNow() int64 {
	for i := len(r.sessions) - 1; i >= 0; i-- {
		if t := r.sessions[i].p.Latest(); t > 0 {
			return r.sessions[i].p.ToMono(t)
		}
	}
	return 0
}

func (r *liveRun) flush() []source.Event {
	evs := r.evs
	r.evs = nil
	return evs
}

// over reports whether a session has ended on the phone and its file was read to the end: past
// its duration, the file grew after the end (the final write) or the grace passed, and then
// stayed quiet.
func (s *liveSession) over(now time.Time) bool {
	grace := min(endGrace, s.dur/4)
	quiet := min(quietEnd, s.dur/8)
	end := s.started.Add(s.dur)
	if !now.After(end) || now.Sub(s.lastGrow) <= quiet {
		return false
	}
	return s.lastGrow.After(end) || now.After(end.Add(grace))
}
