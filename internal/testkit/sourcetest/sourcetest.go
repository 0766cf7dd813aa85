// Package sourcetest runs a source to its end for a test: what the tests of every source, and
// the harnesses that replay the simulator, do before they look at the events. It imports only
// package source, so the tests of any source (the simulator's included) may use it.
package sourcetest

import (
	"context"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// Batches runs src until its Run returns and gives back the batches it sent, in order; an
// error from Run fails the test.
func Batches(t testing.TB, src source.Source) [][]source.Event {
	t.Helper()
	out := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), out); close(out) }()
	var batches [][]source.Event
	for b := range out {
		batches = append(batches, b)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	return batches
}

// Events is Batches with the batches joined.
func Events(t testing.TB, src source.Source) []source.Event {
	t.Helper()
	var evs []source.Event
	for _, b := range Batches(t, src) {
		evs = append(evs, b...)
	}
	return evs
}
