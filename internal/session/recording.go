package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// RecordOptions are how recordings are written.
type RecordOptions struct {
	// Dir is where StartRecording("") names its file (record.DefaultName).
	Dir string
	// Force overwrites an existing file.
	Force bool
	// Raw keeps the device's raw text in the recording.
	Raw bool
	// Version is fpstop's version, for the header.
	Version string
}

// Recording is a recorder attached to the event stream as the pipeline's tap. The file is
// created when the first batch arrives (so its header carries the source's Session), or at
// once when the session is already known (started from the dashboard).
type Recording struct {
	path    string
	opts    RecordOptions
	session *source.Session // known already (recording started from the dashboard)

	mu      sync.Mutex
	w       *record.Writer
	err     error
	started time.Time
}

// ErrExists says the recording's file exists and RecordOptions.Force is off.
var ErrExists = errors.New("already exists (add --force to overwrite)")

// NewRecording prepares a recording to path; a name clash is reported at once, before
// anything runs.
func NewRecording(path string, opts RecordOptions) (*Recording, error) {
	if !opts.Force {
		if _, err := os.Stat(path); err == nil {
			return nil, fmt.Errorf("%s %w", path, ErrExists)
		}
	}
	return &Recording{path: path, opts: opts, started: time.Now()}, nil
}

// tap writes a batch; after an error the recording stops and the error is kept (monitoring
// goes on).
func (r *Recording) tap(batch []source.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	if r.w == nil {
		sess := r.session
		for _, ev := range batch {
			if s, ok := ev.(*source.Session); ok {
				sess = s
				break
			}
		}
		if r.create(sess) != nil {
			return
		}
	}
	if err := r.w.Write(batch); err != nil {
		r.err = fmt.Errorf("recording to %s stopped: %w", r.path, err)
	}
}

// create makes the file with a header from sess; the error is kept. Call with r.mu held.
func (r *Recording) create(sess *source.Session) error {
	w, err := record.Create(r.path, record.HeaderFromSession(sess, r.opts.Version, r.started),
		record.Options{Force: r.opts.Force, Raw: r.opts.Raw})
	if err != nil {
		r.err = err
		return err
	}
	r.w = w
	return nil
}

// open creates the file now from sess, so that a clash or an unwritable directory is
// reported at once.
func (r *Recording) open(sess source.Session) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.session = &sess
	if r.w != nil || r.err != nil {
		return r.err
	}
	return r.create(r.session)
}

// Status is a recording's state for the screen.
type Status struct {
	Active bool
	Path   string
	Since  time.Time
	Err    error // the last write error (the recording has stopped)
}

// close ends the file (writes the end line); safe to call more than once.
func (r *Recording) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		if r.err == nil {
			r.err = fmt.Errorf("nothing was recorded to %s: no events arrived", r.path)
		}
		return r.err
	}
	err := r.w.Close()
	if r.err != nil {
		return r.err
	}
	return err
}

// StartRecording starts recording what the pipeline sees to path ("" = a new name in
// RecordOptions.Dir) and returns the path. The file is created at once. With a recording
// already running it returns that one's path.
func (s *Session) StartRecording(path string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errClosed
	}
	if s.rec != nil {
		return s.rec.path, nil
	}
	snap := s.runner.Latest()
	if path == "" {
		path = filepath.Join(s.cfg.Recording.Dir, record.DefaultName(snap.Session.Package, time.Now()))
	}
	r, err := NewRecording(path, s.cfg.Recording)
	if err != nil {
		return "", err
	}
	if err := r.open(snap.Session); err != nil {
		return "", err
	}
	if !s.do(func(*metrics.Pipeline) { s.runner.SetTap(r.tap) }) {
		return "", errors.New("the pipeline has stopped")
	}
	s.rec = r
	return path, nil
}

// StopRecording ends the recording and returns its path ("" when none was running).
func (s *Session) StopRecording() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return "", nil
	}
	s.do(func(*metrics.Pipeline) { s.runner.SetTap(nil) }) // or the pipeline has stopped: no tap runs

	path, err := s.rec.path, s.rec.close()
	s.rec = nil
	return path, err
}

// RecordingStatus reports the recording's state.
func (s *Session) RecordingStatus() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return Status{}
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return Status{Active: true, Path: s.rec.path, Since: s.rec.started, Err: s.rec.err}
}
