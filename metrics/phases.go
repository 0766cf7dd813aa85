package metrics

import "github.com/fpstop/fpstop/source"

// FramePhases splits a frame into Profile-HWUI-style stages in ms (what the dashboard's phase
// bars and the HTML report draw), or nil when its phases are not known: gfxinfo rows without
// input/sync timestamps and Looper-derived frames have none.
func FramePhases(f *source.Frame) *PhaseMs {
	return splitPhases(f.VsyncNs, f.DoneNs, f.Phases)
}

func splitPhases(vsync, done int64, ph *source.Phases) *PhaseMs {
	if ph == nil || ph.HandleInputStart == 0 || ph.SyncStart == 0 || done == 0 {
		return nil
	}
	ms := func(a, b int64) float64 {
		if a == 0 || b < a {
			return 0
		}
		return float64(b-a) / 1e6
	}
	return &PhaseMs{
		Delay:     ms(vsync, ph.HandleInputStart),
		Input:     ms(ph.HandleInputStart, ph.AnimationStart),
		Animation: ms(ph.AnimationStart, ph.PerformTraversalsStart),
		Layout:    ms(ph.PerformTraversalsStart, ph.DrawStart),
		Draw:      ms(ph.DrawStart, ph.SyncQueued),
		Sync:      ms(ph.SyncStart, ph.IssueDrawCommandsStart),
		GPU:       ms(ph.IssueDrawCommandsStart, done),
	}
}
