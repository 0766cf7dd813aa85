package record

import (
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

func testHeader() Header {
	return Header{Format: 1, FpstopVersion: "test", Source: source.KindSim, Package: "com.example.app", RefreshHz: 120,
		CostBasis: source.CostFrame, StartUTC: time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC),
		StartMonoNs: 5_000_000_000_000, Scenario: "demo", Seed: 7}
}

// writeRecording writes batches to path and closes it.
func writeRecording(t testing.TB, path string, batches [][]source.Event) {
	t.Helper()
	w, err := Create(path, testHeader(), Options{Force: true})
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
