package gfxinfo

// slotTable maps a frame identity (a vsync id, an IntendedVsync, a FrameCompleted) to its slot
// in a winState's ring. It replaces a Go map on the hottest path of a capture's dedupe (every
// row is looked up, every new frame added and an old one forgotten): the ring holds at most
// keep frames, so a fixed open-addressing table twice that size, probed linearly and emptied
// by backward shifts (no tombstones), never fills and never allocates after it is made.
type slotTable struct {
	keys [tableSize]int64
	vals [tableSize]int32 // slot+1; 0 marks an empty entry
}

// tableSize is a power of two (1 << tableBits) over twice keep, so probes stay short; four
// times, so that a doneTable, which keeps stale entries until it has doneTableMax, does too.
const (
	tableBits = 10
	tableSize = 1 << tableBits
)

func init() {
	if tableSize < 4*keep {
		panic("gfxinfo: slotTable too small for the ring")
	}
}

func home(k int64) int { return int(uint64(k) * 0x9E3779B97F4A7C15 >> (64 - tableBits)) }

// find returns k's entry index, or -1.
func (t *slotTable) find(k int64) int {
	for i := home(k); ; i = (i + 1) & (tableSize - 1) {
		if t.vals[i] == 0 {
			return -1
		}
		if t.keys[i] == k {
			return i
		}
	}
}

// get returns k's slot (0 when absent, as a Go map's zero value) and whether k is present.
func (t *slotTable) get(k int64) (int32, bool) {
	if i := t.find(k); i >= 0 {
		return t.vals[i] - 1, true
	}
	return 0, false
}

func (t *slotTable) has(k int64) bool { return t.find(k) >= 0 }

// set maps k to slot and reports whether k was not in the table before.
func (t *slotTable) set(k int64, slot int32) (added bool) {
	i := home(k)
	for t.vals[i] != 0 && t.keys[i] != k {
		i = (i + 1) & (tableSize - 1)
	}
	added = t.vals[i] == 0
	t.keys[i], t.vals[i] = k, slot+1
	return added
}

// del removes k, moving later entries of its probe run back so every key stays reachable.
func (t *slotTable) del(k int64) {
	if i := t.find(k); i >= 0 {
		t.delAt(i)
	}
}

// delSlot removes k when it maps to slot (one probe where get and del take two).
func (t *slotTable) delSlot(k int64, slot int32) {
	if i := t.find(k); i >= 0 && t.vals[i] == slot+1 {
		t.delAt(i)
	}
}

// delAt empties entry i, moving later entries of its probe run back so every key stays
// reachable (no tombstones).
func (t *slotTable) delAt(i int) {
	for {
		t.vals[i] = 0
		j := i
		for {
			j = (j + 1) & (tableSize - 1)
			if t.vals[j] == 0 {
				return
			}
			h := home(t.keys[j])
			// The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
			if (i < j && i < h && h <= j) || (i > j && (h > i || h <= j)) {
				continue
			}
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
			break
		}
	}
}

// len counts the entries (for tests of the memory bound).
func (t *slotTable) len() int {
	n := 0
	for _, v := range t.vals {
		if v != 0 {
			n++
		}
	}
	return n
}
