package logcat

// thread is the pairing state of one Looper thread.
type thread struct {
	open bool
	// target is the open Dispatching's "<handler> <callback>" as printed (the thread's own
	// buffer, reused from message to message)
	target  []byte
	what    int
	startNs int64
	timed   bool
	// announced: the open Dispatching was already reported as a source.Dispatch, last at
	// seenNs (log time)
	announced bool
	seenNs    int64
}

// names turns the handler and callback text of Looper messages into strings. Handler classes
// and callbacks printed without an object hash repeat message after message: they are
// interned, so a message costs no allocation for them (the map is cleared when full: millions
// of distinct names cost no memory). A callback that ends in "@<hash>" differs from message to
// message and is copied.
type names map[string]string

const maxInterned = 8192

// of returns the handler and callback names of target.
func (n names) of(target []byte) (handler, callback string) {
	hs, he, cs := splitTarget(target)
	handler = n.intern(target[hs:he])
	if cb := target[cs:]; endsInHash(cb) {
		callback = string(cb)
	} else {
		callback = n.intern(cb)
	}
	return handler, callback
}

func (n names) intern(b []byte) string {
	if s, ok := n[string(b)]; ok {
		return s
	}
	if len(n) >= maxInterned {
		clear(n)
	}
	s := string(b)
	n[s] = s
	return s
}

// endsInHash reports whether b ends in "@<hex>".
func endsInHash(b []byte) bool {
	i := len(b)
	for i > 0 && isHex(b[i-1]) {
		i--
	}
	return i > 0 && i < len(b) && b[i-1] == '@'
}

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
