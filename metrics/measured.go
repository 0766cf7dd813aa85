package metrics

import (
	"math"
	"slices"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// What the run measures (DESIGN §4a): `auto` measures the app's SurfaceView layer while it is
// what draws and the app's windows otherwise, saying so with a Session naming the layer (or
// none). The run-level numbers are what was measured at the time: a window's frames drawn while
// a layer is measured count in windows[] only, never in the run's totals, as a layer's frames
// count in the run only while it is the measured one.

// MeasuredChange is one change of what the run measures, in the report's `measured`.
type MeasuredChange struct {
	// FromMs is when it took effect, from the session start.
	FromMs float64 `json:"from_ms"`
	// What is "layer", "windows" or "none" (--source surfaceflinger waiting for a layer).
	What  string `json:"what"`
	Layer string `json:"layer,omitempty"`
	Kind  string `json:"kind,omitempty"`
	// Source is what measured it: `surfaceflinger` for a layer `auto` measured, else the
	// session's source (gfxinfo, gfxinfo+logcat…).
	Source string `json:"source"`
}

// measuredRec is a change as kept (device time).
type measuredRec struct {
	at          int64
	layer, kind string
	src         source.Kind
}

// maxMeasuredChanges bounds the list (a layer flickering on and off for hours).
const maxMeasuredChanges = 200

// noteMeasured records a session that changes what is measured (the first one too).
func (p *Pipeline) noteMeasured(e *source.Session) {
	n := len(p.measured)
	if n > 0 && p.measured[n-1].layer == e.Layer {
		return
	}
	if n >= maxMeasuredChanges {
		p.warn.add("what is measured changed more than 200 times: the report lists the first 200")
		return
	}
	p.measured = append(p.measured, measuredRec{at: p.endNs, layer: e.Layer, kind: e.LayerKind, src: e.Source})
}

// measuredReport is the changes for the report: listed only when what was measured changed.
func (p *Pipeline) measuredReport() []MeasuredChange {
	if len(p.measured) < 2 {
		return nil
	}
	out := make([]MeasuredChange, len(p.measured))
	for i, m := range p.measured {
		c := MeasuredChange{What: "windows", Layer: source.Visible(m.layer), Kind: m.kind, Source: string(m.src)}
		switch {
		case m.layer != "":
			c.What = "layer"
			if m.src != source.KindSim && m.src != source.KindReplay {
				// auto's sessions are its window source's: the layer's frames came from SurfaceFlinger
				c.Source = string(source.KindSurfaceFlinger)
			}
		case m.src == source.KindSurfaceFlinger:
			c.What = "none" // the SurfaceFlinger source before it found a layer
		}
		if m.at > p.originNs {
			c.FromMs = math.Round(float64(m.at-p.originNs)/1e4) / 100
		}
		out[i] = c
	}
	return out
}

// measuredSource is the run's `source` when what was measured changed: the segments' sources
// joined by "+" in order of first use (`gfxinfo+logcat+surfaceflinger`: auto measured the
// windows and the layer in turn); "" when every segment had one source.
func measuredSource(ms []MeasuredChange) string {
	var parts []string
	for _, m := range ms {
		if m.Source != "" && !slices.Contains(parts, m.Source) {
			parts = append(parts, m.Source)
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return strings.Join(parts, "+")
}
