package simtext

import (
	"context"
	"testing"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

const ms = int64(1_000_000)

// collect runs cfg (speed 0) to the end and returns the events, batch by batch.
func collect(t testing.TB, cfg sim.Config) [][]source.Event {
	t.Helper()
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return collectSim(t, s)
}

// collectSim runs s to the end; see collect.
func collectSim(t testing.TB, s *sim.Sim) [][]source.Event {
	t.Helper()
	out := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), out); close(out) }()
	var batches [][]source.Event
	for b := range out {
		batches = append(batches, b)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	return batches
}

func flatten(batches [][]source.Event) []source.Event {
	var all []source.Event
	for _, b := range batches {
		all = append(all, b...)
	}
	return all
}

func frames(evs []source.Event) []*source.Frame {
	var fs []*source.Frame
	for _, ev := range evs {
		if f, ok := ev.(*source.Frame); ok {
			fs = append(fs, f)
		}
	}
	return fs
}
