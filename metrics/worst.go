package metrics

import (
	"slices"
	"sort"

	"github.com/fpstop/fpstop/source"
)

// The worst frames and the messages that ran during them.

func (p *Pipeline) considerWorst(window string, f *source.Frame, cost, dropped int64) {
	if len(p.worst) == worstKeep && cost <= p.worst[len(p.worst)-1].cost {
		return
	}
	it := worstItem{window: window, vsync: f.VsyncNs, mainEnd: mainEnd(f), cost: cost, dropped: dropped,
		sections: frameSections(f)}
	if f.Timeline != nil {
		it.blame = BlameOf(f.Timeline.JankType)
	}
	p.attribute(&it)
	i := sort.Search(len(p.worst), func(i int) bool { return p.worst[i].cost < cost })
	p.worst = slices.Insert(p.worst, i, it)
	p.worst = p.worst[:min(len(p.worst), worstKeep)]
}

// attribute finds the messages overlapping a frame's main-thread part [vsync, mainEnd]: a
// frame chosen before all its messages arrived gets them once they do.
func (p *Pipeline) attribute(it *worstItem) {
	if p.msgs.rlen == 0 {
		return
	}
	shift, ok := p.msgShift()
	if !ok {
		return
	}
	it.shift = shift
	msgs := p.msgs.overlapping(it.vsync, it.mainEnd, shift)
	if len(msgs) > 0 || it.attributed {
		it.msgs = msgs
		it.attributed = len(msgs) > 0
	}
}

// reattributeAfterNs: an attributed frame is looked up again once the clock shift it was
// attributed with has moved this far (the aligner settled on another offset); the aligner's
// refinements of a few µs do not make it scan the ring again.
const reattributeAfterNs = 1_000_000

// attributeAll attributes the worst frames not attributed yet, and again those attributed with
// a clock shift that has since moved.
func (p *Pipeline) attributeAll() {
	shift, ok := p.msgShift()
	for i := range p.worst {
		it := &p.worst[i]
		if !it.attributed || ok && lfAbs(shift-it.shift) >= reattributeAfterNs {
			p.attribute(it)
		}
	}
}
