package metrics

// Lateness places a frame on the screen's one colour scale: how late the user saw it, from the
// refreshes it dropped against its real deadline (DESIGN §4 `dropped`) and its drop level. The
// frame-time graph, the worst frames and the legends all use it, so a 48 ms frame has the same
// colour wherever it is drawn.
type Lateness int

// The scale, from best to worst.
const (
	// OnTime: no refresh dropped (an 11 ms frame in a pipelined 120 Hz scroll can be on time).
	OnTime Lateness = iota
	// Late: at least one refresh dropped, below the MIDDLE drop level.
	Late
	// VeryLate: MIDDLE or HIGH drop level.
	VeryLate
	// Frozen: the FROZEN drop level (700 ms at any refresh rate with Matrix's thresholds).
	Frozen
)

// Latenesses lists the scale in order.
var Latenesses = [...]Lateness{OnTime, Late, VeryLate, Frozen}

// String names the place on the scale.
func (l Lateness) String() string {
	if l < OnTime || l > Frozen {
		return "on time"
	}
	return [...]string{"on time", "late", "very late", "frozen"}[l]
}

// LatenessOf places a frame that dropped d refreshes and has drop level lvl.
func LatenessOf(d int64, lvl Level) Lateness {
	switch {
	case d <= 0:
		return OnTime
	case lvl >= LevelFrozen:
		return Frozen
	case lvl >= LevelMiddle:
		return VeryLate
	}
	return Late
}

// Lateness is the frame's place on the scale.
func (f FramePoint) Lateness() Lateness { return LatenessOf(f.Dropped, f.Level) }
