package fakeadb

import (
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// MenuGame is a fake phone's game with a menu (issue 26, DESIGN §4a "auto measures what is
// drawing"): the menu activity's window draws a frame for each tick of the game loop (the
// simulator's `game` scenario) until GameFromNs, then the game's SurfaceView layer presents the
// loop's frames — its steady phase, stutter and loading freeze — while the window draws
// nothing, until GameUntilNs, and then the menu again. Use Frame in the simulator's layer
// sink: it presents the game's frames on the SurfaceFlinger and draws the menu's into
// the gfxinfo dump, so `auto` has a switch to make each way.
type MenuGame struct {
	// Menu is the menu window's title as gfxinfo prints it (PKG/PKG.MenuActivity).
	Menu string
	// GameFromNs and GameUntilNs bound the game's turn, in ns after sim.StartNs.
	GameFromNs, GameUntilNs int64
	// PeriodNs is the display's refresh period (a menu frame's interval).
	PeriodNs int64
}

// NewMenuGame is the scenario as issue 26 plays it: menu for 7 s, the game until 21 s, the
// menu after, for pkg on a display of periodNs.
func NewMenuGame(pkg string, periodNs int64) *MenuGame {
	return &MenuGame{Menu: pkg + "/" + pkg + ".MenuActivity", GameFromNs: 7_000_000_000, GameUntilNs: 21_000_000_000,
		PeriodNs: periodNs}
}

// InGame reports whether the game loop's frame f falls in the game's turn (the layer presents
// it).
func (m *MenuGame) InGame(f *source.LayerFrame) bool {
	el := f.PresentNs - sim.StartNs
	return el >= m.GameFromNs && el < m.GameUntilNs
}

// Frame decides the game loop's frame f (at its present time): true when the layer presents it
// (the caller presents it on the SurfaceFlinger); false when it is the menu's turn, after
// drawing the menu window's frame for that tick into the app's gfxinfo dump (6 ms of work,
// every phase printed, on time).
func (m *MenuGame) Frame(f *source.LayerFrame, dump *simtext.GfxinfoDump) bool {
	if m.InGame(f) {
		return true
	}
	p := m.PeriodNs
	v := f.PresentNs - 2*p
	dump.AddFrame(&source.Frame{Window: m.Menu, VsyncNs: v, DoneNs: v + 6_000_000, IntervalNs: p,
		DeadlineNs: v + 2*p, Phases: &source.Phases{Vsync: v, HandleInputStart: v + 500_000, AnimationStart: v + 1_000_000,
			PerformTraversalsStart: v + 2_000_000, DrawStart: v + 3_000_000, SyncQueued: v + 4_000_000, SyncStart: v + 4_200_000,
			IssueDrawCommandsStart: v + 4_500_000, SwapBuffers: v + 5_500_000, FrameCompleted: v + 6_000_000,
			GpuCompleted: v + 6_000_000, SwapBuffersCompleted: v + 6_000_000, FrameStartTime: v}})
	return false
}
