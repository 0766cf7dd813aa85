package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fpstop/fpstop/internal/outfile"
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
	w       writer
	err     error
	started time.Time
	failed  chan struct{} // closed when err is first set
	// pending are copies of the events that came before the source's Session (a device
	// source's refresh rate comes first), held so the header can say where the recording
	// came from; hz is the last refresh rate among them.
	pending []source.Event
	hz      float64
	wallNs  int64 // the live run's wall-clock duration, for the end line (SetWall)
}

// SetWall gives the live run's wall-clock duration, which the recording's end line keeps so
// that its report states the live report's duration_s; call it before the session closes.
// A nil Recording (none asked for) ignores it.
func (r *Recording) SetWall(ns int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wallNs = ns
}

// maxPending bounds the events held back for the Session: a source that sends frames, or this
// many events, before its Session gets a header without it rather than an unbounded wait.
const maxPending = 1000

// ErrExists says the recording's file exists and RecordOptions.Force is off.
var ErrExists = errors.New("already exists (add --force to overwrite)")

// ErrCannotCreate says the recording's file cannot be created where it was asked for.
var ErrCannotCreate = errors.New("cannot record")

// NewRecording prepares a recording to path; a name clash or a path that cannot be created
// (a missing directory: fpstop never creates one; an unwritable one; a dangling symbolic link)
// is reported at once, before anything runs.
func NewRecording(path string, opts RecordOptions) (*Recording, error) {
	if err := outfile.Check(path); err != nil { // a device, FIFO, directory or link: never written
		return nil, fmt.Errorf("%w: %w", ErrCannotCreate, err)
	}
	if !opts.Force {
		if _, err := os.Stat(path); err == nil {
			return nil, fmt.Errorf("%s %w", path, ErrExists)
		}
	}
	if err := probe(path); err != nil {
		return nil, fmt.Errorf("%w to %s: %v", ErrCannotCreate, path, err)
	}
	return &Recording{path: path, opts: opts, started: time.Now(), failed: make(chan struct{})}, nil
}

// probe checks that path can be created, without creating it.
func probe(path string) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if _, err := os.Stat(path); err != nil {
			return errors.New("it is a symbolic link to a file that cannot be reached")
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("it is a directory")
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the directory %s does not exist (fpstop does not create directories)", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".fpstop-probe-*")
	if err != nil {
		return fmt.Errorf("the directory %s is not writable", dir)
	}
	f.Close()
	return os.Remove(f.Name())
}

// Failed is closed when the recording fails (it has stopped; Err says why).
func (r *Recording) Failed() <-chan struct{} { return r.failed }

// Err returns why the recording stopped (nil while it runs).
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// fail keeps the first error and signals it. Call with r.mu held.
func (r *Recording) fail(err error) {
	if r.err == nil {
		r.err = err
		close(r.failed)
	}
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
		var found bool
		for _, ev := range batch {
			if s, ok := ev.(*source.Session); ok {
				sess, found = s, true
				break
			}
		}
		if !found && sess == nil && len(r.pending)+len(batch) <= maxPending && !hasFrames(batch) {
			r.hold(batch)
			return
		}
		if r.create(sess) != nil {
			return
		}
	}
	if err := r.w.Write(batch); err != nil {
		r.fail(fmt.Errorf("recording to %s stopped: %w", r.path, err))
	}
}

// writer is what a Recording needs of a record.Writer (tests substitute one whose disk is full).
type writer interface {
	Write([]source.Event) error
	Written() (events, frames int64, span time.Duration)
	Close() error
}

// createWriter is record.Create.
var createWriter = func(path string, h record.Header, o record.Options) (writer, error) {
	w, err := record.Create(path, h, o)
	if err != nil {
		return nil, err // not a nil *record.Writer in a non-nil writer
	}
	return w, nil
}

// create makes the file with a header from sess (its refresh rate, when it has none, from a
// Refresh held before it) and writes the events held for it; the error is kept. Call with r.mu
// held.
func (r *Recording) create(sess *source.Session) error {
	h := record.HeaderFromSession(sess, r.opts.Version, r.started)
	if h.RefreshHz == 0 {
		h.RefreshHz = r.hz
	}
	w, err := createWriter(r.path, h, record.Options{Force: r.opts.Force, Raw: r.opts.Raw})
	if err != nil {
		r.fail(err)
		return err
	}
	r.w = w
	if len(r.pending) > 0 {
		err := w.Write(r.pending)
		r.pending = nil
		if err != nil {
			r.fail(fmt.Errorf("recording to %s stopped: %w", r.path, err))
			return err
		}
	}
	return nil
}

// hold keeps copies of a batch's events until the Session arrives: copies, so what is written
// later is what the source sent then, whatever the source does with its events afterwards.
func (r *Recording) hold(batch []source.Event) {
	var line []byte
	for _, ev := range batch {
		switch e := ev.(type) {
		case *source.Raw:
			c := *e
			c.Text = append([]byte(nil), e.Text...)
			r.pending = append(r.pending, &c)
			continue
		case *source.Refresh:
			r.hz = e.Hz
		}
		var err error
		if line, err = source.AppendLine(line[:0], ev); err != nil {
			continue // no line form: the writer would skip it too
		}
		if _, c, err := source.ParseLine(line); err == nil {
			r.pending = append(r.pending, c)
		}
	}
}

func hasFrames(batch []source.Event) bool {
	for _, ev := range batch {
		if _, ok := ev.(*source.Frame); ok {
			return true
		}
	}
	return false
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
	if r.w == nil && len(r.pending) > 0 && r.err == nil {
		_ = r.create(r.session) // the source ended before its Session: keep what it sent
	}
	if r.w == nil {
		if r.err == nil {
			r.err = fmt.Errorf("nothing was recorded to %s: no events arrived", r.path)
		}
		return r.err
	}
	if w, ok := r.w.(interface{ SetWall(int64) }); ok && r.wallNs > 0 {
		w.SetWall(r.wallNs)
	}
	err := r.w.Close()
	if r.err != nil {
		return r.err
	}
	if err != nil {
		r.fail(fmt.Errorf("recording to %s stopped: %w", r.path, err))
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
	if s.rec != nil && s.rec.Err() == nil {
		return s.rec.path, nil
	}
	if s.rec != nil { // it failed: a new one replaces it
		s.do(func(*metrics.Pipeline) { s.runner.SetTap(nil) })
		_ = s.rec.close()
		s.rec = nil
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
	if err == nil {
		s.saved = append(s.saved, s.rec.saved())
	}
	s.rec = nil
	return path, err
}

// Saved describes a finished recording: where it is (an absolute path) and what it holds.
type Saved struct {
	Path           string
	Events, Frames int64
	Span           time.Duration // device time from the first event to the last
	Bytes          int64         // the file's size (-1 when it cannot be read)
}

// String is the one-line summary: "/abs/fpstop-….jsonl.gz: 42 s, 5012 frames, 8114 events, 3.1 MB".
func (v Saved) String() string {
	size := "size unknown"
	if v.Bytes >= 0 {
		size = source.ByteSize(v.Bytes)
	}
	return fmt.Sprintf("%s: %.0f s, %d frames, %d events, %s", v.Path, v.Span.Seconds(), v.Frames, v.Events, size)
}

// saved summarises the closed recording.
func (r *Recording) saved() Saved {
	v := Saved{Path: r.path, Bytes: -1}
	if abs, err := filepath.Abs(r.path); err == nil {
		v.Path = abs
	}
	r.mu.Lock()
	if r.w != nil {
		v.Events, v.Frames, v.Span = r.w.Written()
	}
	r.mu.Unlock()
	if st, err := os.Stat(r.path); err == nil {
		v.Bytes = st.Size()
	}
	return v
}

// SavedRecordings lists the recordings this session finished, oldest first (a recording that
// failed is not among them: its error was reported).
func (s *Session) SavedRecordings() []Saved {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Saved(nil), s.saved...)
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
	// A recording that failed has stopped: no longer active (the screen drops its badge).
	return Status{Active: s.rec.err == nil, Path: s.rec.path, Since: s.rec.started, Err: s.rec.err}
}
