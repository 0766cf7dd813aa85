package cli

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// recording is a recorder attached to the event stream as the pipeline's tap. The file is
// created when the first batch arrives, so its header carries the source's Session; the name
// is checked at once so a clash is reported before anything runs.
type recording struct {
	path    string
	opts    record.Options
	version string
	session *source.Session // known already (recording started from the dashboard)

	mu      sync.Mutex
	w       *record.Writer
	err     error
	started time.Time
}

// startRecording prepares a recording to path ("" = none).
func (a *app) startRecording(path string) (*recording, error) {
	if path == "" {
		return nil, nil
	}
	if !a.opts.Force {
		if _, err := os.Stat(path); err == nil {
			return nil, usageErr("%s already exists (add --force to overwrite)", path)
		}
	}
	return &recording{path: path, version: a.env.Build.Version, started: time.Now(),
		opts: record.Options{Force: a.opts.Force, Raw: a.opts.RecordRaw}}, nil
}

// tap writes a batch; after an error the recording stops and the error is kept (monitoring
// goes on).
func (r *recording) tap(batch []source.Event) {
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
func (r *recording) create(sess *source.Session) error {
	w, err := record.Create(r.path, record.HeaderFromSession(sess, r.version, r.started), r.opts)
	if err != nil {
		r.err = err
		return err
	}
	r.w = w
	return nil
}

// open creates the file now, from the session already known (a recording started from the
// dashboard), so that a clash or an unwritable directory is reported at once.
func (r *recording) open() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil || r.err != nil {
		return r.err
	}
	return r.create(r.session)
}

// status reports the recording's state for the screen.
func (r *recording) status() (path string, since time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.path, r.started, r.err
}

// close ends the file (writes the end line); safe to call more than once.
func (r *recording) close() error {
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
