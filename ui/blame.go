package ui

import (
	"fmt"
	"strings"

	"github.com/fpstop/fpstop/metrics"
)

// FrameTimeline's blame, as the panels name it: who missed the deadline, in the report's key
// order (helpers shared by the worst frames, windows and timeline views).

var blameWords = map[string]string{"app": "app", "surfaceflinger": "SurfaceFlinger", "display": "display",
	"prediction": "prediction", "buffer_stuffing": "buffer stuffing", "dropped": "dropped"}

// blameNames names a frame's blamed parties: "app + SurfaceFlinger".
func blameNames(b []string) string {
	out := make([]string, 0, len(b))
	for _, k := range b {
		if w, ok := blameWords[k]; ok {
			out = append(out, w)
		} else {
			out = append(out, k)
		}
	}
	return strings.Join(out, " + ")
}

// blameParts lists the non-zero counts of b, largest first (ties in key order).
func blameParts(b *metrics.Blame) []string {
	if b == nil {
		return nil
	}
	type part struct {
		name string
		n    int64
	}
	ps := []part{{"app", b.App}, {"SF", b.SurfaceFlinger}, {"display", b.Display}, {"prediction", b.Prediction},
		{"stuffing", b.BufferStuffing}, {"dropped", b.Dropped}}
	var out []string
	for len(ps) > 0 {
		best := 0
		for i, p := range ps {
			if p.n > ps[best].n {
				best = i
			}
		}
		if ps[best].n == 0 {
			break
		}
		out = append(out, fmt.Sprintf("%s %d", ps[best].name, ps[best].n))
		ps = append(ps[:best], ps[best+1:]...)
	}
	return out
}

// blameSummary is a run's or window's blame on one line: "app 12 · SF 3"; "none" when
// FrameTimeline blamed no one, "" without FrameTimeline.
func blameSummary(b *metrics.Blame) string {
	if b == nil {
		return ""
	}
	p := blameParts(b)
	if len(p) == 0 {
		return "none"
	}
	return strings.Join(p, " · ")
}

// blameTop is the column's cell: the party blamed most, "—" without FrameTimeline.
func blameTop(b *metrics.Blame) string {
	if b == nil {
		return "—"
	}
	if p := blameParts(b); len(p) > 0 {
		return p[0]
	}
	return "none"
}

// telling drops the wrappers every frame has (Choreographer#doFrame, DrawFrames, traversal)
// from a frame's sections when anything else is left: the frame's cost already says how long
// they took; what ran inside them is what tells why.
func telling(secs []metrics.FrameSectionReport) []metrics.FrameSectionReport {
	var out []metrics.FrameSectionReport
	for _, s := range secs {
		if strings.HasPrefix(s.Name, "Choreographer#doFrame") || strings.HasPrefix(s.Name, "DrawFrames") || s.Name == "traversal" {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return secs
	}
	return out
}
