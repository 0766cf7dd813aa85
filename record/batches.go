package record

import (
	"fmt"
	"io"

	"github.com/fpstop/fpstop/source"
)

// feedBatch is how many events go to the consumer at once when reading a whole recording.
const feedBatch = 1024

// ReadBatches reads path on its own goroutine (decompression and decoding use the second core
// while the caller runs the pipeline) and calls fn with batches of events in file order. The
// first batch starts with the header's Session unless the recording starts with its own, so a
// pipeline fed this way sees exactly what the live pipeline saw.
// The Reader returned is closed; its Header and HasHeader are what the file said.
func ReadBatches(path string, fn func([]source.Event)) (*Reader, error) {
	return ReadBatchesWhile(path, func(evs []source.Event) bool { fn(evs); return true })
}

// ReadBatchesWhile is ReadBatches that stops reading as soon as fn returns false (an export of
// the first hour of a day-long recording need not decompress the rest).
func ReadBatchesWhile(path string, fn func([]source.Event) bool) (*Reader, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	type msg struct {
		evs []source.Event
		err error
	}
	ch := make(chan msg, 4)
	stop := make(chan struct{})
	go func() {
		defer close(ch)
		first := true
		for {
			b := make([]source.Event, 0, feedBatch)
			var err error
			for len(b) < feedBatch {
				var ev source.Event
				if ev, err = r.Next(); err != nil {
					break
				}
				if first {
					first = false
					if _, ok := ev.(*source.Session); !ok && r.HasHeader {
						b = append(b, r.Header.Session())
					}
				}
				b = append(b, ev)
			}
			end := err != nil
			if err == io.EOF {
				err = nil
			}
			select {
			case ch <- msg{evs: b, err: err}:
			case <-stop:
				return
			}
			if end {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range ch { // the reader finishes its batch and exits before r is closed
		}
	}()
	for m := range ch {
		more := len(m.evs) == 0 || fn(m.evs)
		if m.err != nil {
			return r, fmt.Errorf("reading recording %s: %w", path, m.err)
		}
		if !more {
			return r, nil
		}
	}
	return r, nil
}
