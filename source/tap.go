package source

import "context"

// Tapped returns inner with look called on every batch it sends, before the batch goes on. It
// lets one source's news steer another without either knowing the other (the logcat stream's
// vsync messages wake the gfxinfo poller; gfxinfo's pid spares logcat a pidof). look must be
// quick and must neither keep nor change the batch.
func Tapped(inner Source, look func([]Event)) Source {
	return &tappedSource{inner: inner, look: look}
}

type tappedSource struct {
	inner Source
	look  func([]Event)
}

func (t *tappedSource) Run(ctx context.Context, out chan<- []Event) error {
	ch := make(chan []Event, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range ch {
			t.look(b)
			select {
			case out <- b:
			case <-ctx.Done():
				for range ch { // drain: inner ends with ctx
				}
				return
			}
		}
	}()
	err := t.inner.Run(ctx, ch)
	close(ch)
	<-done
	return err
}

// VsyncFrames counts the Choreographer vsync messages in a batch: frames the app's main thread
// drew, as a logcat stream with Looper printer lines tells them.
func VsyncFrames(b []Event) int {
	n := 0
	for _, e := range b {
		if m, ok := e.(*Message); ok && m.IsVsync() {
			n++
		}
	}
	return n
}
