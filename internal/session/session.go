// Package session is the live monitoring session: one source at a time feeding a metrics
// pipeline (on its own goroutine, through metrics.Runner), and at most one recording of what
// the pipeline sees. The dashboard and headless runs both drive it; every method is safe to
// call from any goroutine (the dashboard calls them from Bubble Tea commands).
//
// A session outlives its sources: Switch stops the running source, clears the statistics and
// starts the next one (a device or app picked on the dashboard). Close stops the source, lets
// the pipeline apply every batch that source sent, ends the recording and stops the pipeline.
package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// Config is how a session runs.
type Config struct {
	// Metrics configures the pipeline.
	Metrics metrics.Config
	// Refresh is how often a changed snapshot is published (default 250 ms).
	Refresh time.Duration
	// AnnounceEnd adds a Notice to the stream when a source ends by itself ("input ended") or
	// fails (its error), so a screen can say so; headless runs return the error instead.
	AnnounceEnd bool
	// Log receives one line per source failure (nil: none).
	Log func(msg string, args ...any)
	// ErrorText words a source's failure for the screen (nil: err.Error()).
	ErrorText func(error) string
	// Recording is how recordings started by StartRecording are written.
	Recording RecordOptions
}

// queuedBatches is how many batches may wait for the pipeline at each of the two hand-offs
// (source to its feed, feed to the runner). A few absorb a busy moment of the pipeline (a
// snapshot); more only hold memory: a capture read faster than the pipeline applies it fills
// every place, holding memory (BENCHMARKS.md has the memory figures). Two, since a captured
// gfxinfo file goes out in batches of ~1,000 events (gfxinfo.fileBatch) rather than a dump's
// ~80: at one core every place is full, and more places only give the GC more to mark. A live
// source sends a batch per poll or read, which the pipeline applies in well under a millisecond:
// it never fills two.
const queuedBatches = 2

// Session is a running session. Start makes one; Close ends it.
type Session struct {
	cfg    Config
	p      *metrics.Pipeline
	runner *metrics.Runner
	in     chan []source.Event
	runEnd chan struct{} // closed when the runner has stopped

	mu     sync.Mutex // guards the current source and the recording
	closed bool
	cur    *feed
	rec    *Recording
	saved  []Saved // recordings finished so far
}

// feed is one source running into the session.
type feed struct {
	cancel context.CancelFunc
	stop   chan struct{} // closed by stopFeed: drop what is still in flight
	done   chan struct{} // closed once every batch it sent is in the pipeline's input
	err    error         // what Run returned (read after done)
}

// Start runs src in a new session; src stops when ctx ends (the pipeline keeps what it has
// until Close). rec, when not nil, records from the first batch on (a recording asked for
// on the command line).
func Start(ctx context.Context, cfg Config, src source.Source, rec *Recording) *Session {
	p := metrics.NewPipeline(cfg.Metrics)
	s := &Session{cfg: cfg, p: p, runner: metrics.NewRunner(p, cfg.Refresh),
		in: make(chan []source.Event, queuedBatches), runEnd: make(chan struct{}), rec: rec}
	if rec != nil {
		s.runner.SetTap(rec.tap)
	}
	// The runner stops only when Close closes its input, after the last batch: a run cut
	// short by ctx (--duration) still counts every frame its source delivered.
	go func() { _ = s.runner.Run(context.Background(), s.in); close(s.runEnd) }()
	s.cur = s.startFeed(ctx, src)
	return s
}

// startFeed runs src until ctx ends or it ends by itself. Each source writes into a channel of
// its own that is forwarded, so a stopped source's last batches are dropped instead of mixing
// with the next source's.
//
// A source whose ctx ends (--duration) still has every batch it sent applied; one stopped by
// Switch or Close has the batches still in flight dropped.
func (s *Session) startFeed(ctx context.Context, src source.Source) *feed {
	ctx, cancel := context.WithCancel(ctx)
	f := &feed{cancel: cancel, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		ch := make(chan []source.Event, queuedBatches)
		fwd := make(chan struct{})
		go func() {
			defer close(fwd)
			for b := range ch {
				select {
				case s.in <- b:
				case <-f.stop: // drain without forwarding
				}
			}
		}()
		f.err = src.Run(ctx, ch)
		close(ch)
		<-fwd
		s.announce(ctx, f)
	}()
	return f
}

// announce tells the screen that a source ended by itself or failed.
func (s *Session) announce(ctx context.Context, f *feed) {
	err := f.err
	var n *source.Notice
	switch {
	case err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded):
		if s.cfg.Log != nil {
			s.cfg.Log("source stopped", "err", err)
		}
		text := err.Error()
		if s.cfg.ErrorText != nil {
			text = s.cfg.ErrorText(err)
		}
		n = &source.Notice{Level: source.LevelErr, State: source.StateEnded, Text: text}
	case ctx.Err() == nil:
		n = &source.Notice{Level: source.LevelInfo, State: source.StateEnded, Text: "input ended"}
	}
	if n == nil || !s.cfg.AnnounceEnd {
		return
	}
	select {
	case s.in <- []source.Event{n}:
	case <-f.stop:
	}
}

// Switch stops the running source, clears the statistics and runs src under ctx.
func (s *Session) Switch(ctx context.Context, src source.Source) error {
	return s.switchTo(ctx, src, nil, "")
}

// SwitchDevice is Switch to a source reading the device and app in dev: until the source
// says what it reads (its own Session, seconds later when it first chooses between gfxinfo
// and SurfaceFlinger), the snapshots name dev's phone in the waiting state with text
// ("connecting to …"), so the screen never shows no device after a switch.
func (s *Session) SwitchDevice(ctx context.Context, src source.Source, dev source.Session, text string) error {
	return s.switchTo(ctx, src, &dev, text)
}

// Connecting names dev's phone and app (waiting, with text) until the running source says
// what it reads: the dashboard's start, where auto takes seconds to choose its source. It does
// nothing once the source has sent its Session.
func (s *Session) Connecting(dev source.Session, text string) {
	s.do(func(p *metrics.Pipeline) { p.Connecting(dev, text) })
}

func (s *Session) switchTo(ctx context.Context, src source.Source, dev *source.Session, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.stopFeed()
	s.do(func(p *metrics.Pipeline) {
		p.ResetSource()
		if dev != nil {
			p.Connecting(*dev, text)
		}
	})
	s.cur = s.startFeed(ctx, src)
	return nil
}

var errClosed = errors.New("the session has ended")

// stopFeed stops the current source and waits for it. Call with s.mu held.
func (s *Session) stopFeed() {
	if s.cur != nil {
		close(s.cur.stop)
		s.cur.cancel()
		<-s.cur.done
		s.cur = nil
	}
}

// Wait blocks until the current source has ended and everything it sent is queued for the
// pipeline, and returns its error (nil when it was stopped by its context).
func (s *Session) Wait() error {
	s.mu.Lock()
	f := s.cur
	s.mu.Unlock()
	if f == nil {
		return nil
	}
	<-f.done
	if errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded) {
		return nil
	}
	return f.err
}

// Clear resets the statistics (the recording goes on).
func (s *Session) Clear() {
	s.do(func(p *metrics.Pipeline) { p.Reset() })
}

// do runs fn on the pipeline's goroutine; false when the pipeline has stopped.
func (s *Session) do(fn func(*metrics.Pipeline)) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.runEnd:
			cancel()
		case <-ctx.Done():
		}
	}()
	return s.runner.Do(ctx, fn)
}

// Latest returns the newest published snapshot (never nil).
func (s *Session) Latest() *metrics.Snapshot { return s.runner.Latest() }

// Changes receives a value when a snapshot with a new state (frozen, idle…) was published, so a
// screen can show it at once rather than at its next poll (see metrics.Runner.Changes).
func (s *Session) Changes() <-chan struct{} { return s.runner.Changes() }

// Report is the run's report. After Close it covers every batch the sources delivered.
func (s *Session) Report(meta metrics.ReportMeta) *metrics.Report {
	var r *metrics.Report
	if !s.do(func(p *metrics.Pipeline) { r = p.Report(meta) }) {
		<-s.runEnd // stopped: the pipeline is ours now
		r = s.p.Report(meta)
	}
	return r
}

// Close stops the source, lets the pipeline apply what it sent, ends the recording and stops
// the pipeline. The error is the recording's (nil without one). Safe to call more than once.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.stopFeed()
	close(s.in)
	s.mu.Unlock()
	<-s.runEnd
	_, err := s.StopRecording()
	return err
}
