package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
	"github.com/fpstop/fpstop/themes"
)

// The header names the measured layer's kind and its current FPS: "SurfaceView (BLAST) · 60 fps".
func TestHeaderNamesLayer(t *testing.T) {
	s, err := sim.New(sim.Config{Scenario: "game", Hz: 120, Seed: 1, Duration: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []source.Event, 64)
	go func() { _ = s.Run(context.Background(), out); close(out) }()
	p := metrics.NewPipeline(metrics.Config{})
	for b := range out {
		p.AddBatch(b)
	}
	th, err := themes.Resolve("dark")
	if err != nil {
		t.Fatal(err)
	}
	st := themes.NewStyles(th, true)
	h := newHeader(&st).SetSize(160, 1)
	h, _ = h.Update(dataMsg{snap: p.Snapshot()})
	line := ansi.Strip(h.View())
	if !strings.Contains(line, "SurfaceView (BLAST) · 60 fps") {
		t.Errorf("header %q", line)
	}
}

// The whole dashboard draws a game session (layer frames, no windows) at both layouts.
func TestDashboardDrawsGame(t *testing.T) {
	s, err := sim.New(sim.Config{Scenario: "game", Hz: 120, Seed: 1, Duration: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []source.Event, 64)
	go func() { _ = s.Run(context.Background(), out); close(out) }()
	p := metrics.NewPipeline(metrics.Config{})
	for b := range out {
		p.AddBatch(b)
	}
	snap := p.Snapshot()
	for _, size := range [][2]int{{100, 30}, {160, 50}} {
		m := dashboard(t, testOpts(), size[0], size[1], snap)
		v := m.View()
		checkFrame(t, v, size[0], size[1])
		if !strings.Contains(ansi.Strip(v), "SurfaceView (BLAST)") {
			t.Errorf("%v: no layer in the header:\n%s", size, v)
		}
	}
}
