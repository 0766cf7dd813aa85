// A row's phase columns as a frame's Phases, and the checks on a row's times.

package gfxinfo

// setUptime records the dump's Uptime and emitRow's bound from it: impossibleDone(done, up) is
// uint64(done) >= lim, negative values being the largest unsigned ones.
func (p *parser) setUptime(up, rt int64) {
	p.d.UptimeNs, p.d.RealtimeNs = up, rt
	lim := uint64(1) << 63 // no Uptime: only a negative done
	if up > 0 {
		if cut := up + 10_000_000_000; cut < 0 {
			lim = 0 // (wrapped: every done)
		} else {
			lim = uint64(cut) + 1
		}
	}
	p.doneCut = lim ^ (1 << 63)
}
