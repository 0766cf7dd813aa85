package logcat

import (
	"bytes"
)

// thread is the pairing state of one Looper thread.
type thread struct {
	open    bool
	cur     *target // the open Dispatching's target: in recent, trial or long
	what    int
	startNs int64
	timed   bool
	// announced: the open Dispatching was already reported as a source.Dispatch, last at
	// seenNs (log time)
	announced bool
	seenNs    int64
	// recent holds the thread's last few targets that were seen twice, with their names: a
	// thread's messages mostly repeat a few (Choreographer's frame, RecyclerView's prefetch,
	// ActivityThread's H), and one found here is neither copied nor split nor named again — a
	// Dispatching costs a compare, its Finished another. A new target waits in trial; seen
	// again, it replaces the least recently used of recent. Messages whose target is printed
	// with a fresh object hash each time (a click's Runnable, a lambda) churn trial only: with
	// recent alone, refilled in turn, they pushed the repeating targets out (42 % of the
	// benchmark's Dispatchings were hits; 58 % with trial, every target seen before).
	recent [recentTargets]target
	trial  target
	tick   uint64 // counts the thread's Dispatchings: recent's use stamps
	long   target // a target longer than maxRecentTarget (not kept once closed)
}

const (
	recentTargets   = 4
	maxRecentTarget = 256 // longer targets are not cached: 4096 threads' own copies stay under 5 MB
)

// target is the text of a Dispatching line, "<handler> <callback>" as printed, and the names
// of its message once one was paired.
type target struct {
	text              []byte // buf, or (in trial) an immutable copy in the name cache's arena
	buf               []byte
	shared            bool // text is in the arena: the names are made from it without a copy
	hs, he, cs        int  // the handler (text[hs:he]) and the callback (text[cs:])
	named             bool
	arrow             bool   // text holds a '>' (see Decoder.closes)
	used              uint64 // in recent: the thread's tick when it last opened
	handler, callback string
}

// set makes g a copy of target b in its own buffer, its names not yet known.
func (g *target) set(b []byte) {
	g.buf = append(g.buf[:0], b...)
	g.text, g.shared = g.buf, false
	g.split()
}

// share makes g the target b, copied into c's arena: its names will be the arena's bytes.
func (g *target) share(b []byte, c *nameCache) {
	g.text, g.shared = c.text(b), true
	g.split()
}

func (g *target) split() {
	g.hs, g.he, g.cs = splitTarget(g.text)
	g.arrow = bytes.IndexByte(g.text, '>') >= 0
	g.named = false
}

// names returns the handler and callback names of g (made once per target). A target in the
// arena (one seen once so far, most often because it prints a fresh object hash) names its
// message with its own bytes; one in a buffer of its own is named from the cache.
func (g *target) names(c *nameCache) (handler, callback string) {
	if !g.named { // apart, so that a named target's check is inlined
		g.name(c)
	}
	return g.handler, g.callback
}

func (g *target) name(c *nameCache) {
	if g.shared {
		g.handler, g.callback = string(g.text[g.hs:g.he]), string(g.text[g.cs:])
	} else {
		g.handler, g.callback = c.handler(g.text[g.hs:g.he]), c.callback(g.text[g.cs:])
	}
	g.named = true
}

// target finds the thread's copy of target b (a new Dispatching's), making one if needed. The
// target the thread had open must not be needed any more: it may be overwritten or moved.
func (t *thread) target(b []byte, c *nameCache) *target {
	if len(b) > maxRecentTarget {
		t.long.set(b)
		return &t.long
	}
	t.tick++
	for i := range t.recent {
		if g := &t.recent[i]; bytes.Equal(g.text, b) {
			g.used = t.tick
			return g
		}
	}
	if !bytes.Equal(t.trial.text, b) {
		t.trial.share(b, c)
		return &t.trial
	}
	v := &t.recent[0]
	for i := 1; i < len(t.recent); i++ {
		if t.recent[i].used < v.used {
			v = &t.recent[i]
		}
	}
	// A kept target gets its own copy: one in the arena would hold a block of it for as long
	// as it stays.
	v.set(b)
	v.used = t.tick
	t.trial.text = nil
	return v
}
