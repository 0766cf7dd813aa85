package record

import (
	"hash/maphash"

	"github.com/fpstop/fpstop/source"
)

// dupWindow is how many recent frame and message lines a repeat is looked for among: a line
// written twice (a copy appended to itself, a tool that doubled its lines) repeats one within
// it.
const dupWindow = 4096

// dupFilter counts a repeated frame or message line once: the very same line (type, window,
// vsync and every other field; two frames of one window can share a vsync and differ in the
// rest, and both count). A message that took no time (start = end, as logcat's millisecond
// stamps print a short one) is never taken for a repeat: one thread runs several of those in
// the same millisecond, and their lines are rightly the same. Keys are 64-bit hashes of the lines, kept for the last dupWindow
// events, so the filter is bounded.
type dupFilter struct {
	seed    maphash.Seed
	seen    map[uint64]struct{}
	ring    []uint64
	pos     int
	dropped int64
}

func newDupFilter() *dupFilter {
	return &dupFilter{seed: maphash.MakeSeed(), seen: make(map[uint64]struct{}, dupWindow), ring: make([]uint64, 0, dupWindow)}
}

// repeated reports whether ev, decoded from line, repeats a recent event line (counted once),
// and remembers it if not.
func (d *dupFilter) repeated(ev source.Event, line []byte) bool {
	switch e := ev.(type) {
	case *source.Frame:
	case *source.Message:
		if e.EndNs <= e.StartNs {
			return false
		}
	default:
		return false
	}
	k := maphash.Bytes(d.seed, line)
	if _, ok := d.seen[k]; ok {
		d.dropped++
		return true
	}
	if len(d.ring) < dupWindow {
		d.ring = append(d.ring, k)
	} else {
		delete(d.seen, d.ring[d.pos])
		d.ring[d.pos] = k
		d.pos = (d.pos + 1) % dupWindow
	}
	d.seen[k] = struct{}{}
	return false
}
