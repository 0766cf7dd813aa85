package testkit

import (
	"sync"

	"github.com/fpstop/fpstop/source"
)

// Fanout hands a fake app's event batches to every open logcat stream, as logd does: a stream
// that does not keep up loses batches (logd drops lines) rather than stalling the app.
type Fanout struct {
	mu   sync.Mutex
	subs map[chan []source.Event]struct{}
}

// Subscribe opens a stream; Unsubscribe closes it.
func (f *Fanout) Subscribe() chan []source.Event {
	ch := make(chan []source.Event, 256)
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[chan []source.Event]struct{}{}
	}
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	return ch
}

// Unsubscribe closes a stream opened by Subscribe.
func (f *Fanout) Unsubscribe(ch chan []source.Event) {
	f.mu.Lock()
	delete(f.subs, ch)
	f.mu.Unlock()
}

// Send gives b to every open stream that has room for it.
func (f *Fanout) Send(b []source.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for sub := range f.subs {
		select {
		case sub <- b:
		default: // a stalled reader loses lines, as logd drops them
		}
	}
}
