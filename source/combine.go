package source

import (
	"context"
	"errors"
	"sync"
)

// Prefixed returns a source that sends pre as one batch, then runs inner (e.g. the refresh rate
// read from the device before the first dump). With nothing to send first it is inner itself.
func Prefixed(pre []Event, inner Source) Source {
	if len(pre) == 0 {
		return inner
	}
	return &prefixedSource{pre: pre, inner: inner}
}

type prefixedSource struct {
	pre   []Event
	inner Source
}

func (p *prefixedSource) Run(ctx context.Context, out chan<- []Event) error {
	select {
	case out <- p.pre:
	case <-ctx.Done():
		return ctx.Err()
	}
	return p.inner.Run(ctx, out)
}

// Merged runs several sources at once into one stream (gfxinfo+logcat). Their Session events
// are rewritten to kind with the frame cost basis (the frames come from one of them, the
// messages that explain them from another). It ends when every source has ended; the first
// source to fail stops the others and its error is returned.
func Merged(kind Kind, srcs ...Source) Source {
	return &mergedSource{kind: kind, srcs: srcs}
}

type mergedSource struct {
	kind Kind
	srcs []Source
}

func (m *mergedSource) Run(ctx context.Context, out chan<- []Event) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, s := range m.srcs {
		ch := make(chan []Event, 16)
		wg.Add(2)
		go func() {
			defer wg.Done()
			err := s.Run(ctx, ch)
			close(ch)
			if err != nil && !errors.Is(err, context.Canceled) {
				once.Do(func() { first = err; cancel() })
			}
		}()
		go func() {
			defer wg.Done()
			for batch := range ch {
				relabel(m.kind, batch)
				select {
				case out <- batch:
				case <-ctx.Done():
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	// ctx is still the caller's here (cancel runs on return): its error, or nil.
	return ctx.Err()
}

// relabel rewrites the batch's Session events to kind (copies: the source may keep its own).
func relabel(kind Kind, batch []Event) {
	for j, ev := range batch {
		if s, ok := ev.(*Session); ok {
			batch[j] = relabeled(kind, s)
		}
	}
}

// relabeled is a copy of s as a merged source's session: kind, with the frame cost basis (the
// frames come from one source, the messages that explain them from another).
func relabeled(kind Kind, s *Session) *Session {
	cp := *s
	cp.Source = kind
	cp.CostBasis = CostFrame
	return &cp
}
