package logcat

import "github.com/fpstop/fpstop/source"

// nameCache turns the handler and callback text of a Looper message into strings without a
// heap allocation per message. Real logs print an identity hash for each object
// ("Handler (android.view.Choreographer$FrameHandler) {8e2b5c1}", "…$1@3f6a0e") that differs
// from message to message, so a cache keyed by the whole target text missed on every pair:
// handlers are interned by their class (the hash is not part of Message.Handler), callbacks
// without a hash are interned, and a callback that ends in "@<hash>" (kept in Message.Callback,
// as printed) is copied. The maps are bounded (cleared when full), so
// millions of distinct names cost a map insert each, not memory.
type nameCache struct {
	handlers  map[string]string
	callbacks map[string]string
	texts     []byte // append-only too, in smaller blocks: targets in threads' trial slots
	// recent holds interned names in a place chosen by length and last byte: a name found
	// there is returned without hashing it for the map (a thread's messages alternate between
	// a few handlers)
	recent [32]string
	msgs   []source.Message
}

const (
	maxInterned = 8192
	textsBlock  = 4 << 10 // a trial slot holds its block: 4096 threads, 16 MB at most
	msgSlab     = 64
)

func newNameCache() nameCache {
	return nameCache{handlers: make(map[string]string), callbacks: make(map[string]string)}
}

// handler returns b (a handler class, or a whole handler text) as an interned string.
func (c *nameCache) handler(b []byte) string { return c.intern(c.handlers, b) }

// callback returns b (a callback as printed) as a string.
func (c *nameCache) callback(b []byte) string {
	if endsInHash(b) {
		return string(b)
	}
	return c.intern(c.callbacks, b)
}

// endsInHash reports whether b ends in "@<hex>": whether the text after its last '@' is hex
// digits. It reads b backwards over the hex digits only (the hash is short, the class name
// before it long: a search for the last '@' read the whole name byte by byte).
func endsInHash(b []byte) bool {
	i := len(b)
	for i > 0 && isHex(b[i-1]) {
		i--
	}
	return i > 0 && i < len(b) && b[i-1] == '@'
}

func (c *nameCache) intern(m map[string]string, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	slot := &c.recent[(len(b)*7+int(b[len(b)-1]))&31]
	if *slot == string(b) {
		return *slot
	}
	if s, ok := m[string(b)]; ok {
		*slot = s
		return s
	}
	if len(m) >= maxInterned {
		clear(m)
	}
	s := string(b)
	m[s] = s
	*slot = s
	return s
}

// text returns an immutable copy of b (a Dispatching's target) carved from the texts arena.
func (c *nameCache) text(b []byte) []byte {
	if len(b) > textsBlock/4 {
		return append([]byte(nil), b...)
	}
	if cap(c.texts)-len(c.texts) < len(b) {
		c.texts = make([]byte, 0, textsBlock)
	}
	s := len(c.texts)
	c.texts = append(c.texts, b...)
	return c.texts[s:len(c.texts):len(c.texts)] // no room to append into
}

// message returns a zeroed Message from a slab (one allocation per msgSlab messages).
func (c *nameCache) message() *source.Message {
	if len(c.msgs) == 0 {
		c.msgs = make([]source.Message, msgSlab)
	}
	m := &c.msgs[0]
	c.msgs = c.msgs[1:]
	return m
}

func isHex(c byte) bool { return hexDigits[c] }

// hexDigits marks the hex digits (a table: three range tests per byte cost more).
var hexDigits = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = true
	}
	return t
}()
