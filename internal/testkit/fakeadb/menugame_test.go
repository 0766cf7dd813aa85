package fakeadb

import (
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// The menu → game → menu scenario: the game loop's frames before 7 s and from 21 s are the
// menu window's (drawn into gfxinfo, not presented), those in between the layer's.
func TestMenuGame(t *testing.T) {
	const pkg, period = "com.example.game", int64(8_333_333)
	dump := simtext.NewGfxinfoDump(pkg, 4242, 0)
	m := NewMenuGame(pkg, period)
	var presented int
	for at := sim.StartNs + period; at < sim.StartNs+27_000_000_000; at += 2 * period {
		if m.Frame(&source.LayerFrame{PresentNs: at}, dump) {
			presented++
			if el := at - sim.StartNs; el < 7_000_000_000 || el >= 21_000_000_000 {
				t.Fatalf("presented at %d ns", el)
			}
		}
	}
	// 60 fps loop: 14 s of game, 13 s of menu
	if menu := dump.TotalFrames(m.Menu); presented != 840 || menu != 780 {
		t.Errorf("presented %d (want 840), menu drew %d (want 780)", presented, menu)
	}
}
