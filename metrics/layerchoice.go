package metrics

import (
	"math"

	"github.com/fpstop/fpstop/source"
)

// LayerChoice is one of the app's SurfaceFlinger layers as the layer picker lists it.
type LayerChoice struct {
	Name, Kind string
	// FPS is the layer's rate over its newest second of presents: 0 when its newest present is
	// more than a second old (it is not presenting), NaN with fewer than two presents.
	FPS      float64
	Measured bool
}

// addLayerList keeps the app's layers for the picker, with their live rates.
func (p *Pipeline) addLayerList(e *source.LayerList) {
	p.touch(e.AtNs)
	out := make([]LayerChoice, 0, len(e.Layers))
	for _, l := range e.Layers {
		out = append(out, LayerChoice{Name: l.Name, Kind: l.Kind, FPS: liveRate(l.PresentsNs, e.AtNs)})
	}
	p.layerChoices = out
}

// liveRate is (n − 1) / (newest − oldest) over present times (ascending) within a second.
func liveRate(ps []int64, now int64) float64 {
	n := len(ps)
	if n == 0 {
		return math.NaN()
	}
	if now > 0 && now-ps[n-1] > 1_000_000_000 {
		return 0
	}
	if n < 2 || ps[n-1] <= ps[0] {
		return math.NaN()
	}
	return float64(n-1) * 1e9 / float64(ps[n-1]-ps[0])
}

// layerChoicesSnapshot copies the picker's list, marking the measured layer.
func (p *Pipeline) layerChoicesSnapshot() []LayerChoice {
	out := make([]LayerChoice, len(p.layerChoices))
	copy(out, p.layerChoices)
	for i := range out {
		out[i].Measured = out[i].Name == p.session.Layer
	}
	return out
}
