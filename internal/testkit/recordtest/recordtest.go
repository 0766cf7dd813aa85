// Package recordtest reads recordings back whole for the tests of the packages that write them
// (internal/session, the end-to-end suite). It is a test harness: no product package imports it.
package recordtest

import (
	"io"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// ReadAll reads a whole recording: its header and every event, the reader's warning Notices
// included (one says so when the recording has no end line).
func ReadAll(path string) (record.Header, []source.Event, error) {
	r, err := record.Open(path)
	if err != nil {
		return record.Header{}, nil, err
	}
	defer r.Close()
	var evs []source.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return r.Header, evs, nil
		}
		if err != nil {
			return r.Header, evs, err
		}
		evs = append(evs, ev)
	}
}
