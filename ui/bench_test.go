package ui

import (
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

// BenchmarkViewUnchanged is View at 200×60 with no new data: it only joins cached panel lines.
func BenchmarkViewUnchanged(b *testing.B) {
	m := dashboard(b, testOpts(), 200, 60, fixture.Live(1))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkViewRedraw is a new snapshot (Seq moved) at 200×60: every panel redraws, then View.
func BenchmarkViewRedraw(b *testing.B) {
	m := dashboard(b, testOpts(), 200, 60, fixture.Live(1))
	base := [2]*metrics.Snapshot{fixture.Live(2), fixture.Live(3)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := *base[i%2] // shallow copy: the UI never modifies what it is given
		s.Seq = uint64(i + 10)
		m = update(b, m, SnapshotMsg{&s})
		_ = m.View()
	}
}
