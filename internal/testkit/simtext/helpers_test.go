package simtext

import (
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
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
	return sourcetest.Batches(t, s)
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
