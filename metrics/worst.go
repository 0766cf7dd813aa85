package metrics

import (
	"sort"

	"github.com/fpstop/fpstop/source"
)

// The worst frames and the messages that ran during them.

func (p *Pipeline) considerWorst(window string, f *source.Frame, cost, dropped int64) {
	if len(p.worst) == worstKeep && cost <= p.worst[len(p.worst)-1].cost {
		return
	}
	it := worstItem{window: window, vsync: f.VsyncNs, mainEnd: mainEnd(f), cost: cost, dropped: dropped}
	p.attribute(&it)
	i := sort.Search(len(p.worst), func(i int) bool { return p.worst[i].cost < cost })
	p.worst = append(p.worst, worstItem{})
	copy(p.worst[i+1:], p.worst[i:])
	p.worst[i] = it
	if len(p.worst) > worstKeep {
		p.worst = p.worst[:worstKeep]
	}
}

// attribute finds the messages overlapping a frame's main-thread part [vsync, mainEnd].
func (p *Pipeline) attribute(it *worstItem) {
	if p.msgs.rlen == 0 {
		return
	}
	shift, ok := p.msgShift()
	if !ok {
		return
	}
	if it.tried && it.triedTimed == p.msgs.timed && it.triedShift == shift {
		return // nothing it could overlap has changed
	}
	it.tried, it.triedTimed, it.triedShift = true, p.msgs.timed, shift
	msgs := p.msgs.overlapping(it.vsync, it.mainEnd, shift)
	if len(msgs) > 0 {
		it.msgs = msgs
		it.attributed = true
	}
}
