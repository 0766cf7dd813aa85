package ui

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// The frame-time legend gives each duration one unit: a worst frame of 1.4 s read
// "worst 1.4s ms" (the seconds form of ms() with " ms" after it) in --scenario frozen.
func TestFrameTimeLegendUnits(t *testing.T) {
	th, _ := themes.Get(themes.Default)
	st := themes.NewStyles(th, false)
	m := newFrameTime(&st)
	for _, c := range []struct {
		worst float64
		want  string
	}{{1400, "worst 1.4 s"}, {102, "worst 102 ms"}, {16.2, "worst 16.2 ms"}} {
		got := m.legend(ftGraph{fs: []metrics.FramePoint{{}}, budget: 16.7, worst: c.worst})
		if !strings.Contains(got, c.want) || strings.Contains(got, "s ms") || !strings.Contains(got, "budget 16.7 ms") {
			t.Errorf("worst %v ms: legend %q, want %q and one unit each", c.worst, got, c.want)
		}
	}
}

// Columns headed "… ms" hold plain ms: the messages table showed "9.1s" under "total ms".
func TestMsColumnsHoldMs(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{9120.4, "9120"}, {1303, "1303"}, {412, "412"}, {71.7, "71.7"}, {0.04, "0.0"}} {
		if got := msCell(c.v); got != c.want {
			t.Errorf("msCell(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
