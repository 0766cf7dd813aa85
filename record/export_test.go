package record

import (
	"io"
	"time"

	"github.com/fpstop/fpstop/source"
)

// newWriter makes a Writer over arbitrary streams (tests inject failing writers). raw may be
// nil. No flusher goroutine runs.
func newWriter(out io.Writer, gz bool, raw io.Writer, hdr Header) (*Writer, error) {
	w := &Writer{path: "recording", out: newSink(out, nil, gz), now: time.Now}
	if raw != nil {
		w.raw = newSink(raw, nil, true)
	}
	return w, w.start(hdr)
}

// ReadAll reads a whole recording: its header, every event (warning Notices included) and its
// end line (nil when it was not closed).
func ReadAll(path string) (Header, []source.Event, *End, error) {
	r, err := Open(path)
	if err != nil {
		return Header{}, nil, nil, err
	}
	defer r.Close()
	var evs []source.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return r.Header, evs, r.End(), nil
		}
		if err != nil {
			return r.Header, evs, r.End(), err
		}
		evs = append(evs, ev)
	}
}
