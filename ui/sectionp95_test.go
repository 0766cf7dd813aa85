package ui

import (
	"testing"

	"github.com/fpstop/fpstop/metrics"
)

// A trace's section groups keep no p95: the table and the detail say "—", never 0.0 ms beside a
// 105 ms max.
func TestSectionRowHasNoP95(t *testing.T) {
	rows := sectionRows([]metrics.SlowSectionReport{{Name: "traversal", Thread: "main", Count: 237, MaxMs: 104, TotalMs: 3303}})
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	if got := msCell(rows[0].P95Ms); got != "—" {
		t.Errorf("p95 cell %q, want —", got)
	}
	if got := msu(rows[0].P95Ms); got != "—" {
		t.Errorf("p95 detail %q, want —", got)
	}
	if got := msCell(rows[0].MaxMs); got != "104" {
		t.Errorf("max cell %q, want 104", got)
	}
}
