package record

import (
	"context"
	"errors"
	"io"
	"math"
	"sync"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Replay speeds a user can choose (the TUI's +/-); 0 means as fast as possible.
const (
	MinSpeed = 0.25
	MaxSpeed = 16
)

// ReplayOptions control a replay.
type ReplayOptions struct {
	// Speed is the pace relative to the recording's device time: 1 real time, 2 twice as fast,
	// 0 as fast as possible (virtual time). Other values are clamped to MinSpeed..MaxSpeed.
	Speed float64
	// Follow keeps reading an uncompressed recording that is still being written (tail -f)
	// until its end line or until ctx ends. A .gz recording cannot be followed: it replays up
	// to its last complete flush, with a Notice saying so.
	Follow bool
	// StayAtEnd keeps Run alive at the end of the recording (after a "replay finished" Notice)
	// so that the user can still seek back; Run then returns only when ctx ends. For the TUI.
	StayAtEnd bool
}

// SeekInfo describes a seek: the new position and whether the replay restarted from the
// beginning (a backward seek). On a restart the replay sends a *source.Restart (a pipeline
// clears itself on it), then the session and every event again from the start, as fast as
// possible, up to To; on a forward seek it sends the events up to To as fast as possible.
type SeekInfo struct {
	To      time.Duration
	Restart bool
}

// SeekPrefix starts the Text of the info Notice a replay sends at every seek, before the
// events of the new position (and before the *source.Restart of a backward seek). Use IsSeek
// to recognise it.
const SeekPrefix = "replay: seek to "

const restartSuffix = " (restart)"

// seekNotice makes the marker. It has no device time (AtNs 0), so it does not move a
// pipeline's clock.
func seekNotice(s SeekInfo) *source.Notice {
	text := SeekPrefix + s.To.String()
	if s.Restart {
		text += restartSuffix
	}
	return &source.Notice{Level: source.LevelInfo, Text: text}
}

// Control drives a running Replay from another goroutine (the TUI's ui.ReplayControl). All
// methods are safe for concurrent use and never block on the replay.
type Control struct {
	mu         sync.Mutex
	speed      float64
	paused     bool
	seek       time.Duration // pending relative seek
	seekSet    bool
	speedSet   bool // speed changed since Run last looked
	pos, total time.Duration
	wake       chan struct{}
}

func newControl(speed float64) *Control {
	return &Control{speed: clampSpeed(speed), wake: make(chan struct{}, 1)}
}

func clampSpeed(s float64) float64 {
	switch {
	case s <= 0 || math.IsNaN(s):
		return 0
	case s < MinSpeed:
		return MinSpeed
	case s > MaxSpeed:
		return MaxSpeed
	}
	return s
}

func (c *Control) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Seek moves the position by d (negative: back). Seeks add up until the replay acts on them;
// the target is clamped to the recording. Seeking back restarts from the beginning.
func (c *Control) Seek(d time.Duration) {
	c.mu.Lock()
	c.seek += d
	c.seekSet = true
	c.mu.Unlock()
	c.poke()
}

// SetSpeed sets the pace: 0 as fast as possible, else clamped to MinSpeed..MaxSpeed.
func (c *Control) SetSpeed(s float64) {
	c.mu.Lock()
	c.speed = clampSpeed(s)
	c.speedSet = true
	c.mu.Unlock()
	c.poke()
}

// Speed returns the current pace (0 = as fast as possible).
func (c *Control) Speed() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.speed
}

// Position returns how far the replay is into the recording (device time since its first
// event) and the recording's length: 0 while unknown — until a scan of the file that runs
// beside the replay has finished, and for a followed file until its end line is read.
func (c *Control) Position() (cur, total time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pos, c.total
}

// TogglePause pauses or resumes and returns whether the replay is now paused.
func (c *Control) TogglePause() bool {
	c.mu.Lock()
	c.paused = !c.paused
	p := c.paused
	c.mu.Unlock()
	c.poke()
	return p
}

// Paused reports whether the replay is paused.
func (c *Control) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

func (c *Control) setPos(p time.Duration) {
	c.mu.Lock()
	c.pos = p
	c.mu.Unlock()
}

func (c *Control) setTotal(t time.Duration) {
	c.mu.Lock()
	if t > c.total {
		c.total = t
	}
	c.mu.Unlock()
}

// clock is how a replay waits; tests use a virtual one.
type clock interface {
	Now() time.Time
	// After returns a channel that receives after d, and a stop function.
	After(d time.Duration) (<-chan time.Time, func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// followPoll is how often a followed recording is checked for new lines.
const followPoll = 200 * time.Millisecond

// Replay is a recording as a source.Source: it sends the recording's Session first (the
// header's, unless the recording starts with its own), then every event in file order, paced
// by device time × speed, with pause, seek and speed under a Control.
type Replay struct {
	path  string
	opts  ReplayOptions
	hdr   Header
	ctl   *Control
	clock clock
	ran   bool
}

var _ source.Source = (*Replay)(nil)

// NewReplay opens path to check it is a readable recording and returns its replay.
func NewReplay(path string, opts ReplayOptions) (*Replay, error) {
	r, err := open(path, opts.Follow)
	if err != nil {
		return nil, err
	}
	hdr := r.Header
	r.Close()
	return &Replay{path: path, opts: opts, hdr: hdr, ctl: newControl(opts.Speed), clock: realClock{}}, nil
}

// Header is the recording's header (zero when it has none yet).
func (rp *Replay) Header() Header { return rp.hdr }

// Control returns the replay's control (the TUI's ui.ReplayControl).
func (rp *Replay) Control() *Control { return rp.ctl }

// run state of one Run.
type replayRun struct {
	rp       *Replay
	out      chan<- []source.Event
	r        *Reader
	batch    []source.Event
	originNs int64         // first event time > 0
	curNs    int64         // newest event time so far
	ff       bool          // fast-forwarding (no pacing) after a seek…
	ffTo     time.Duration // …until the position reaches this
	gen      int           // incremented when the reader restarts
	baseWall time.Time
	baseDev  int64
	speed    float64
	started  bool // the session was sent
}

const maxBatch = 512

// Run implements source.Source. It returns nil at the end of the recording (or of a followed
// recording's end line), ctx.Err() when cancelled, and an error if the file cannot be read.
func (rp *Replay) Run(ctx context.Context, out chan<- []source.Event) error {
	if rp.ran {
		return errors.New("replay: Run called twice")
	}
	rp.ran = true
	s := &replayRun{rp: rp, out: out, speed: rp.ctl.Speed()}
	if err := s.reopen(); err != nil {
		return err
	}
	defer func() { s.r.Close() }()
	if !rp.opts.Follow || s.r.gz != nil {
		scanCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		go rp.scanTotal(scanCtx)
	}
	var warnFollow *source.Notice
	if rp.opts.Follow && s.r.gz != nil {
		warnFollow = source.Notef(0, source.LevelWarn,
			"replay: %s is compressed and cannot be followed; replaying up to its last complete flush", rp.path)
	}
	s.rebase()
	for {
		if err := s.controls(ctx); err != nil {
			return err
		}
		ev, err := s.r.next()
		if err == errPending {
			if err := s.send(ctx); err != nil {
				return err
			}
			if _, err := s.sleep(ctx, followPoll); err != nil {
				return err
			}
			continue // the reader reads on from the end it met
		}
		if err == io.EOF {
			if err := s.atEnd(ctx); err != nil || !rp.opts.StayAtEnd {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !s.started {
			// The session comes first: the recording's own, else the header's.
			s.started = true
			var sess *source.Session
			if own, ok := ev.(*source.Session); ok {
				c := *own
				sess, ev = &c, nil
			} else {
				h := s.r.Header
				if !s.r.HasHeader {
					h = rp.hdr
				}
				sess = h.Session()
			}
			if sess.Input == "" {
				sess.Input = rp.path
			}
			s.batch = append(s.batch, sess)
			if warnFollow != nil {
				s.batch = append(s.batch, warnFollow)
				warnFollow = nil
			}
			if ev == nil {
				continue
			}
		}
		if err := s.emit(ctx, ev); err != nil {
			return err
		}
	}
}

// atEnd sends what is left and, with StayAtEnd, waits for a seek.
func (s *replayRun) atEnd(ctx context.Context) error {
	// No device time (AtNs 0), as a seek's marker: the latest event's time (a trace's last
	// sections start after its last frame) would stretch the run past what the live run and
	// `fpstop report` measured, and every figure per second of it with it.
	s.batch = append(s.batch, &source.Notice{Level: source.LevelInfo, State: source.StateEnded,
		Text: "replay finished"})
	if err := s.send(ctx); err != nil {
		return err
	}
	if s.originNs > 0 {
		s.rp.ctl.setTotal(time.Duration(s.curNs - s.originNs))
	}
	if !s.rp.opts.StayAtEnd {
		return nil
	}
	for {
		c := s.rp.ctl
		c.mu.Lock()
		pending := c.seekSet
		c.mu.Unlock()
		if pending {
			return s.controls(ctx)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.wake:
		}
	}
}

func (s *replayRun) reopen() error {
	if s.r != nil {
		s.r.Close()
	}
	r, err := open(s.rp.path, s.rp.opts.Follow)
	if err != nil {
		return err
	}
	s.r = r
	s.curNs, s.started = 0, false
	s.gen++
	return nil
}

func (s *replayRun) rebase() {
	s.baseWall = s.rp.clock.Now()
	s.baseDev = s.curNs
}

// controls applies pending pause, speed and seek requests.
func (s *replayRun) controls(ctx context.Context) error {
	c := s.rp.ctl
	for {
		c.mu.Lock()
		paused, speed, speedSet := c.paused, c.speed, c.speedSet
		c.speedSet = false
		seek, seekSet := c.seek, c.seekSet
		c.seek, c.seekSet = 0, false
		total := c.total
		c.mu.Unlock()
		if speedSet {
			s.speed = speed
			s.rebase()
		}
		if seekSet {
			if err := s.seek(ctx, seek, total); err != nil {
				return err
			}
			continue
		}
		if !paused || s.ff {
			// A seek made while paused still fast-forwards to its target, then holds.
			return nil
		}
		if err := s.send(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.wake:
		}
		s.rebase()
	}
}

func (s *replayRun) pos() time.Duration {
	if s.originNs == 0 || s.curNs < s.originNs {
		return 0
	}
	return time.Duration(s.curNs - s.originNs)
}

// seek moves by d from the current position (or from a fast-forward target still ahead).
func (s *replayRun) seek(ctx context.Context, d time.Duration, total time.Duration) error {
	from := s.pos()
	if s.ff && s.ffTo > from {
		from = s.ffTo
	}
	to := max(from+d, 0)
	if total > 0 && to > total {
		to = total
	}
	info := SeekInfo{To: to, Restart: to < s.pos()}
	if err := s.send(ctx); err != nil {
		return err
	}
	if info.Restart {
		if err := s.reopen(); err != nil {
			return err
		}
	}
	s.batch = append(s.batch, seekNotice(info))
	if info.Restart {
		// The pipeline clears itself on Restart; the session and the events follow again.
		s.batch = append(s.batch, &source.Restart{})
	}
	if err := s.send(ctx); err != nil {
		return err
	}
	s.ff, s.ffTo = true, to
	s.rp.ctl.setPos(to)
	return nil
}

// emit queues ev, waiting first until its time comes when paced. A control request that
// arrives while waiting is applied at once; after a restart ev (from the old reader) is dropped.
func (s *replayRun) emit(ctx context.Context, ev source.Event) error {
	if at := ev.At(); at > 0 {
		if s.originNs == 0 {
			s.originNs = at
			s.curNs = at
			s.rebase()
		}
		s.curNs = max(s.curNs, at)
	}
	for {
		if s.ff {
			if s.pos() < s.ffTo {
				break
			}
			s.ff = false
			s.rebase()
		}
		if s.speed <= 0 {
			break
		}
		due := s.baseWall.Add(time.Duration(float64(s.curNs-s.baseDev) / s.speed))
		wait := due.Sub(s.rp.clock.Now())
		if wait <= 0 {
			break
		}
		if err := s.send(ctx); err != nil {
			return err
		}
		woken, err := s.sleep(ctx, wait)
		if err != nil {
			return err
		}
		if woken {
			gen := s.gen
			if err := s.controls(ctx); err != nil {
				return err
			}
			if gen != s.gen {
				return nil
			}
		}
	}
	s.batch = append(s.batch, ev)
	if len(s.batch) >= maxBatch {
		return s.send(ctx)
	}
	return nil
}

// sleep waits d (wall time); woken reports that a control request ended it early.
func (s *replayRun) sleep(ctx context.Context, d time.Duration) (woken bool, err error) {
	ch, stop := s.rp.clock.After(d)
	defer stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-ch:
		return false, nil
	case <-s.rp.ctl.wake:
		return true, nil
	}
}

// send delivers the pending batch.
func (s *replayRun) send(ctx context.Context) error {
	s.rp.ctl.setPos(s.pos())
	if len(s.batch) == 0 {
		return nil
	}
	select {
	case s.out <- s.batch:
		s.batch = nil
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// scanTotal reads the whole file once to learn its length for the progress bar.
func (rp *Replay) scanTotal(ctx context.Context) {
	r, err := Open(rp.path)
	if err != nil {
		return
	}
	defer r.Close()
	var first, last int64
	for n := 0; ; n++ {
		if n&4095 == 0 && ctx.Err() != nil {
			return
		}
		ev, err := r.Next()
		if err != nil {
			break
		}
		if _, ok := ev.(*source.Session); ok {
			continue // Run does not count the session's start time either
		}
		if at := ev.At(); at > 0 {
			if first == 0 {
				first = at // the position's origin, as Run counts it
			}
			last = max(last, at)
		}
	}
	if last > first {
		rp.ctl.setTotal(time.Duration(last - first))
	}
}
