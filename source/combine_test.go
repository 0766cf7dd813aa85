package source

import (
	"context"
	"errors"
	"testing"
	"time"
)

// script is a source that sends its batches, then returns err (or waits for ctx when block).
type script struct {
	batches [][]Event
	err     error
	block   bool
}

func (s script) Run(ctx context.Context, out chan<- []Event) error {
	for _, b := range s.batches {
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.err
}

func collect(t *testing.T, src Source, ctx context.Context) ([]Event, error) {
	t.Helper()
	out := make(chan []Event)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(ctx, out); close(out) }()
	var evs []Event
	for b := range out {
		evs = append(evs, b...)
	}
	return evs, <-errc
}

func TestPrefixedSendsFirst(t *testing.T) {
	inner := script{batches: [][]Event{{&Frame{VsyncNs: 1}}}}
	evs, err := collect(t, Prefixed([]Event{&Refresh{Hz: 90}}, inner), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2", len(evs))
	}
	if r, ok := evs[0].(*Refresh); !ok || r.Hz != 90 {
		t.Errorf("first event %#v, want the refresh rate", evs[0])
	}
	if _, ok := evs[1].(*Frame); !ok {
		t.Errorf("second event %#v, want the inner source's frame", evs[1])
	}
	if Prefixed(nil, inner) == nil {
		t.Fatal("nil source")
	}
	if _, ok := Prefixed(nil, inner).(script); !ok {
		t.Error("with nothing to send first, Prefixed should be the inner source")
	}
}

func TestPrefixedStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Prefixed([]Event{&Refresh{Hz: 60}}, script{}).Run(ctx, make(chan []Event))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

func TestMergedRelabelsSessions(t *testing.T) {
	gfx := &Session{Source: KindGfxinfo, CostBasis: "wall"}
	a := script{batches: [][]Event{{gfx}, {&Frame{VsyncNs: 5}}}}
	b := script{batches: [][]Event{{&Session{Source: "logcat"}}, {&Message{StartNs: 1}}}}
	evs, err := collect(t, Merged(KindGfxinfoLogcat, a, b), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sessions, frames, msgs int
	for _, ev := range evs {
		switch e := ev.(type) {
		case *Session:
			sessions++
			if e.Source != KindGfxinfoLogcat || e.CostBasis != CostFrame {
				t.Errorf("session %+v not relabelled", e)
			}
		case *Frame:
			frames++
		case *Message:
			msgs++
		}
	}
	if sessions != 2 || frames != 1 || msgs != 1 {
		t.Errorf("sessions %d frames %d messages %d, want 2 1 1", sessions, frames, msgs)
	}
	if gfx.Source != KindGfxinfo {
		t.Error("the source's own Session was modified")
	}
}

func TestMergedFirstErrorStopsTheOthers(t *testing.T) {
	boom := errors.New("boom")
	done := make(chan error, 1)
	go func() {
		_, err := collect(t, Merged(KindGfxinfoLogcat, script{block: true}, script{err: boom}), context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Fatalf("err %v, want boom", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a failed source did not stop the merged source")
	}
}

func TestMergedEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, err := collect(t, Merged(KindGfxinfoLogcat, script{block: true}, script{block: true}), ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
