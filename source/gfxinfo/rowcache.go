package gfxinfo

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// rowCache remembers the values of the PROFILEDATA rows a Parser read lately, by their text.
// Successive dumps print the same ring rows again (a poll every second at 60 Hz repeats half of
// a 120-row ring; a capture of such polls is half repeats), and a repeated row is the same
// bytes: its values are taken from here instead of being read again, field by field. A row is
// only found under the column layout it was read with, and only when its text is equal byte for
// byte, so what the parser makes of it cannot differ.
type rowCache struct {
	seed    maphash.Seed
	mix     uint64 // from seed
	entries [cacheRows]cachedRow
	next    int // the entry to overwrite next (oldest first)
	expect  int // the entry to try first (index+1; 0 none)
	keys    [cacheTable]uint64
	vals    [cacheTable]int32 // entry index+1; 0 marks an empty slot
}

type cachedRow struct {
	hash uint64
	cols []int // the layout it was read with
	text []byte
	row  [numCols]int64
}

const (
	// cacheRows holds more rows than one full dump of a busy app prints (a few windows of 120
	// rows), so the rows of the dump before are all still here.
	cacheRows  = 1024
	cacheTable = 2 * cacheRows // a power of two: probes stay short
)

func sameCols(a, b []int) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }

func (c *rowCache) slot(h uint64) int { return int(h>>32^h) & (cacheTable - 1) }

// find returns the entry whose hash is h, or nil.
func (c *rowCache) find(h uint64) (*cachedRow, int) {
	for i := c.slot(h); ; i = (i + 1) & (cacheTable - 1) {
		v := c.vals[i]
		if v == 0 {
			return nil, -1
		}
		if c.keys[i] == h {
			return &c.entries[v-1], i
		}
	}
}

// hash returns row text l's hash: its first 32 bytes (flags, vsync id and intended vsync, what
// tells rows apart) and length mixed by multiplication, which costs a fraction of hashing the
// whole prefix with maphash (every row of a capture is looked up); collisions only cost a
// compare. A seed per cache keeps crafted input from piling rows into one probe run.
func (c *rowCache) hash(l []byte) uint64 {
	if c.seed == (maphash.Seed{}) {
		c.seed = maphash.MakeSeed()
		c.mix = maphash.Comparable(c.seed, 0) | 1
	}
	if len(l) < 32 {
		return maphash.Bytes(c.seed, l)
	}
	h := (binary.LittleEndian.Uint64(l)^c.mix)*0x9E3779B97F4A7C15 ^
		(binary.LittleEndian.Uint64(l[8:])^c.mix)*0xC2B2AE3D27D4EB4F ^
		(binary.LittleEndian.Uint64(l[16:])^c.mix)*0x165667B19E3779F9 ^
		(binary.LittleEndian.Uint64(l[24:])^c.mix)*0xD6E8FEB86659FD93 ^ uint64(len(l))
	return h ^ h>>29
}

// lookup returns the values of row text l read with layout cols before, or nil, and l's hash.
//
// The entry after the last one found is tried first, without hashing: a dump repeats the rows
// of the dump before in the order they were read (and stored, one after the other).
func (c *rowCache) lookup(l []byte, cols []int) (*[numCols]int64, uint64) {
	if x := c.expect; x > 0 {
		if e := &c.entries[x-1]; sameCols(e.cols, cols) && bytes.Equal(e.text, l) {
			c.expect = x%cacheRows + 1
			return &e.row, e.hash
		}
	}
	h := c.hash(l)
	if e, i := c.find(h); e != nil && sameCols(e.cols, cols) && bytes.Equal(e.text, l) {
		c.expect = int(c.vals[i])%cacheRows + 1
		return &e.row, h
	}
	c.expect = 0
	return nil, h
}

// store remembers row text l (hash h), read with layout cols, as row.
func (c *rowCache) store(l []byte, h uint64, cols []int, row *[numCols]int64) {
	e := &c.entries[c.next]
	if e.text != nil {
		if old, i := c.find(e.hash); old == e {
			c.del(i)
		}
	}
	e.hash, e.cols, e.text, e.row = h, cols, append(e.text[:0], l...), *row
	i := c.slot(h)
	for c.vals[i] != 0 && c.keys[i] != h {
		i = (i + 1) & (cacheTable - 1)
	}
	c.keys[i], c.vals[i] = h, int32(c.next+1)
	c.next = (c.next + 1) % cacheRows
}

// del empties table slot i, moving later entries of its probe run back (no tombstones).
func (c *rowCache) del(i int) {
	for {
		c.vals[i] = 0
		j := i
		for {
			j = (j + 1) & (cacheTable - 1)
			if c.vals[j] == 0 {
				return
			}
			h := c.slot(c.keys[j])
			if (i < j && i < h && h <= j) || (i > j && (h > i || h <= j)) {
				continue
			}
			c.keys[i], c.vals[i] = c.keys[j], c.vals[j]
			i = j
			break
		}
	}
}
