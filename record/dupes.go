package record

import (
	"hash/maphash"

	"github.com/fpstop/fpstop/source"
)

// dupWindow is how many recent frame and message lines a repeat is looked for among: a line
// written twice (a copy appended to itself, a tool that doubled its lines) repeats one within
// it.
const dupWindow = 4096

// dupFilter counts a repeated frame or message line once: the same type and window with the
// same vsync (frames), or the same thread, handler, what and start (messages). Keys are 64-bit
// hashes, kept for the last dupWindow events, so the filter is bounded.
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

// repeated reports whether ev repeats a recent event (counted once), and remembers it if not.
func (d *dupFilter) repeated(ev source.Event) bool {
	var k uint64
	switch e := ev.(type) {
	case *source.Frame:
		k = maphash.String(d.seed, e.Window) ^ uint64(e.VsyncNs)*0x9E3779B97F4A7C15 ^ uint64(e.StartVsyncNs)*0xC2B2AE3D27D4EB4F
	case *source.Message:
		k = maphash.String(d.seed, e.Handler+"\x00"+e.Callback+"\x00"+e.Thread) ^ uint64(e.StartNs)*0x9E3779B97F4A7C15 ^
			uint64(e.What)*0xC2B2AE3D27D4EB4F ^ 1
	default:
		return false
	}
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
