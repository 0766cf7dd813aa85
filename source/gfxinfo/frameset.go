package gfxinfo

// The frames a window remembers, looked up by their identities. FrameCompleted is asked for
// every row that does not follow a known one in ring order, so it has a doneTable kept up to
// date with the ring. The vsync id and
// IntendedVsync are asked for only when FrameCompleted does not tell and the row is not newer
// than every frame remembered (a damaged FrameCompleted, a row of another window): never in a
// clean capture. Their tables are built from the ring when first asked for, kept up to date
// while they are asked, and dropped once a ring's worth of frames was added without a
// question (a table is then built again at most once per ring turn). Keeping them up to date
// for every frame added was two thirds of the cost of add (framestats23, 1 M rows: add was
// 4.4 % of the process's CPU).

// The identities of a frame, in a frameID.
const (
	keyID    = iota // FrameTimelineVsyncId: only an id > 0 identifies a frame
	keyVsync        // IntendedVsync
	keyDone         // FrameCompleted
)

// frameID is what identifies a row across dumps.
type frameID [3]int64

// keyIndex looks up one identity (the vsync id or IntendedVsync) of a window's ring.
type keyIndex struct {
	tab   slotTable
	built bool // tab holds the identity of every remembered frame
	idle  int  // frames added since it was last asked
}

func identifies(k int, v int64) bool { return k != keyID || v > 0 }

// lookup reports whether a remembered frame has identity k (x's) equal to v.
func (ws *winState) lookup(x *keyIndex, k int, v int64) bool {
	if !x.built {
		x.tab = slotTable{}
		s := ws.oldest()
		for i := 0; i < ws.n; i, s = i+1, newer(s) {
			if v := ws.ring[s][k]; identifies(k, v) {
				x.tab.set(v, int32(s)) // (oldest first: a shared key maps to the newer slot)
			}
		}
		x.built = true
	}
	x.idle = 0
	return x.tab.has(v)
}

func newer(i int) int {
	if i == keep-1 {
		return 0
	}
	return i + 1
}

// oldest returns the slot of the oldest remembered frame.
func (ws *winState) oldest() int {
	if ws.n < keep {
		return 0 // (head is n)
	}
	return ws.head
}

// remember writes id into the ring's next slot, forgetting the oldest frame when full.
func (ws *winState) remember(id frameID) {
	slot, full := ws.head, ws.n == keep
	if !full {
		ws.n++
	}
	if ws.ids.built {
		ws.ids.update(keyID, ws.ring[slot][keyID], id[keyID], slot, full)
	}
	if ws.vsyncs.built {
		ws.vsyncs.update(keyVsync, ws.ring[slot][keyVsync], id[keyVsync], slot, full)
	}
	ws.ring[slot] = id
	ws.head = newer(slot)
	if ws.dones.used >= doneTableMax {
		ws.rebuildDones() // (id with the others: the forgotten frames' entries go)
	} else {
		ws.dones.set(id[keyDone], int32(slot))
	}
}

// update keeps a built table up to date as a frame with identity v is written into slot
// (over one with old when full), or drops it when it was not asked for a ring turn.
func (x *keyIndex) update(k int, old, v int64, slot int, full bool) {
	if x.idle++; x.idle > keep {
		x.built = false
		return
	}
	if full && identifies(k, old) {
		x.tab.delSlot(old, int32(slot))
	}
	if identifies(k, v) {
		x.tab.set(v, int32(slot))
	}
}

// doneTable maps a FrameCompleted to the ring slot of the newest remembered frame completed
// then: a slotTable that never deletes. A forgotten frame's entry stays until the table is
// rebuilt from the ring (when doneTableMax entries are used), and doneSlot takes an entry only
// if its slot still holds that FrameCompleted (the entry of a time always names the newest slot
// written with it: once that slot holds another frame, no remembered frame has the time).
// Deleting the forgotten frame's entry on every add (a probe, then a backward shift of its run)
// was 6.6 M of the tracker's ~60 M instructions on fs17-200k (delSlot, delAt).
type doneTable struct {
	slotTable
	used int // entries, live or stale
}

// doneTableMax is how many entries a doneTable fills before it is rebuilt: at most 5/8 of the
// table, so probes stay short (a rebuild every ~400 frames added once the ring is full).
const doneTableMax = tableSize * 5 / 8

func init() {
	if doneTableMax < keep+1 {
		panic("gfxinfo: doneTable too small for the ring")
	}
}

// set maps k to slot.
func (t *doneTable) set(k int64, slot int32) {
	if t.slotTable.set(k, slot) {
		t.used++
	}
}

// rebuildDones empties the table and maps every remembered frame's FrameCompleted, oldest
// first (so a time two frames share maps to the newer's slot).
func (ws *winState) rebuildDones() {
	t := &ws.dones
	clear(t.vals[:])
	t.used = 0
	s := ws.oldest()
	for i := 0; i < ws.n; i, s = i+1, newer(s) {
		t.set(ws.ring[s][keyDone], int32(s))
	}
}

// doneSlot returns the slot of the newest remembered frame completed at done.
func (ws *winState) doneSlot(done int64) (int, bool) {
	s, ok := ws.dones.get(done)
	return int(s), ok && ws.ring[s][keyDone] == done
}
