// Package recordtest reads recordings back whole for the tests of the packages that write them
// (internal/session, the end-to-end suite). It is a test harness: no product package imports it.
package recordtest

import (
	"io"
	"testing"
	"time"

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

// Header is the header the tests' recordings share: a 120 Hz simulator run of com.example.app.
func Header() record.Header {
	return record.Header{Format: 1, FpstopVersion: "test", Source: source.KindSim, Package: "com.example.app", RefreshHz: 120,
		CostBasis: source.CostFrame, StartUTC: time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC),
		StartMonoNs: 5_000_000_000_000, Scenario: "demo", Seed: 7}
}

// Write writes batches to a recording at path under Header and closes it.
func Write(t testing.TB, path string, batches [][]source.Event) {
	t.Helper()
	w, err := record.Create(path, Header(), record.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
