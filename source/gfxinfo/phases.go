// A row's phase columns as a frame's Phases, and the checks on a row's times.

package gfxinfo

// impossibleDone reports whether no frame of a dump printed at Uptime up (ns, 0 unknown) can
// have completed at done: it is negative, or more than 10 s after the dump. (On an Uptime so
// large that the bound wraps negative, every row is impossible, as always.)
func impossibleDone(done, up int64) bool {
	return done < 0 || (up > 0 && done > up+10_000_000_000)
}

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
