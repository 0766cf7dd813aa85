package gfxinfo

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// A window's identity lookups answer what a scan of the frames it remembers answers, whether
// they are asked often (tables kept up to date) or seldom (tables dropped and built again):
// ascending runs broken by repeats, frames out of order, shared IntendedVsyncs and vsync ids
// that identify nothing.
func TestFrameIdentitiesMatchScan(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, seed*7))
		disorder := []int{0, 2, 50, 400}[seed%4] // per mille of frames out of order
		ws := newWinState("w", "")
		var live []frameID // oldest first
		next := int64(1000)
		holds := func(k int, v int64) bool {
			for _, id := range live {
				if id[k] == v && identifies(k, v) {
					return true
				}
			}
			return false
		}
		for step := 0; step < 3000; step++ {
			next += int64(1 + r.IntN(3))
			id := frameID{next, next * 10, next*10 + 5}
			if r.IntN(1000) < disorder {
				id[r.IntN(3)] -= int64(r.IntN(600))
			}
			if r.IntN(100) == 0 {
				id[keyID] = int64(-r.IntN(2)) // -1 or 0: no vsync id
			}
			if r.IntN(50) == 0 && len(live) > 0 {
				id[keyVsync] = live[len(live)-1][keyVsync] // an IntendedVsync two frames share
			}
			ws.remember(id)
			if live = append(live, id); len(live) > keep {
				live = live[1:]
			}
			asks := 4
			if seed%3 == 0 && r.IntN(300) > 0 {
				asks = 0 // asked seldom: tables dropped and built again
			}
			for q := 0; q < asks; q++ {
				k := r.IntN(3)
				var v int64
				switch r.IntN(3) {
				case 0: // a remembered frame's
					v = live[r.IntN(len(live))][k]
				case 1: // the one after the last asked for, or new
					v = live[len(live)-1][k] + int64(r.IntN(3))
				default:
					v = live[0][k] - int64(r.IntN(40)) + 20
				}
				if k == keyID && v <= 0 {
					continue // never asked (has asks vsync ids > 0 only)
				}
				if got, want := lookupKey(ws, k, v), holds(k, v); got != want {
					t.Fatalf("seed %d step %d: holds(%d, %d) = %v, the frames remembered say %v", seed, step, k, v, got, want)
				}
			}
		}
	}
}

func lookupKey(ws *winState, k int, v int64) bool {
	switch k {
	case keyID:
		return ws.lookup(&ws.ids, keyID, v)
	case keyVsync:
		return ws.lookup(&ws.vsyncs, keyVsync, v)
	}
	_, ok := ws.doneSlot(v)
	return ok
}

// windowRows tells a repeated row known when the ring slot after the last known row's holds
// its FrameCompleted, without asking has: whatever the ring holds (frames out of order, shared
// FrameCompleted times, the memory full and turning), a live slot's FrameCompleted is one has
// finds, and the slot known returns is after one holding the row's FrameCompleted.
func TestRingSlotMeansKnown(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, seed*3))
		ws := newWinState("w", "")
		next := int64(1000)
		for step := 0; step < 2000; step++ {
			next += int64(1 + r.IntN(3))
			f := source.Frame{VsyncID: next, VsyncNs: next * 10, DoneNs: next*10 + 5}
			if r.IntN(8) == 0 {
				f.DoneNs -= int64(r.IntN(200)) // out of order, or a FrameCompleted two frames share
			}
			ws.add(&f)
			s := r.IntN(ws.n)
			g := source.Frame{DoneNs: ws.ring[s][keyDone], VsyncNs: -1}
			if !ws.has(&g) {
				t.Fatalf("seed %d step %d: slot %d's FrameCompleted %d not known", seed, step, s, g.DoneNs)
			}
			if at, ok := ws.known(&g); !ok || at < 0 || ws.ring[(at+keep-1)%keep][keyDone] != g.DoneNs {
				t.Fatalf("seed %d step %d: known(%d) = %d, %v", seed, step, g.DoneNs, at, ok)
			}
		}
	}
}

// sortByVsync orders a dump's new frames as a stable sort by IntendedVsync does, whatever their
// runs: one, a few (merged), many (sorted), equal IntendedVsyncs within and across runs.
func TestSortByVsyncIsStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	var buf []*source.Frame
	for n := 0; n < 3000; n++ {
		var frames []*source.Frame
		runs := 1 + r.IntN(12)
		for k := 0; k < runs; k++ {
			v := int64(r.IntN(50))
			for m := r.IntN(9); m >= 0; m-- {
				frames = append(frames, &source.Frame{VsyncNs: v, DoneNs: int64(len(frames))})
				v += int64(r.IntN(3)) // (0: an IntendedVsync two frames share)
			}
		}
		want := slices.Clone(frames)
		slices.SortStableFunc(want, func(x, y *source.Frame) int { return cmp.Compare(x.VsyncNs, y.VsyncNs) })
		buf = sortByVsync(frames, buf)
		for i := range want {
			if frames[i] != want[i] {
				t.Fatalf("case %d: frame %d is (%d, %d), a stable sort says (%d, %d)", n, i,
					frames[i].VsyncNs, frames[i].DoneNs, want[i].VsyncNs, want[i].DoneNs)
			}
		}
		if len(buf) != 0 || slices.ContainsFunc(buf[:cap(buf)], func(f *source.Frame) bool { return f != nil }) {
			t.Fatalf("case %d: scratch not emptied", n)
		}
	}
}

// spacing is the smallest spacing of consecutive IntendedVsyncs of at least minPeriodNs, as a
// scan of every pair of neighbours tells (0 none): rows in and out of order, close and far.
func TestSpacingMatchesPairScan(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 11))
	for n := 0; n < 2000; n++ {
		var a assembly
		for w := r.IntN(4); w > 0; w-- {
			rows := make([]source.Frame, r.IntN(6))
			v := int64(1 + r.IntN(1e9))
			for i := range rows {
				rows[i].VsyncNs = v
				v += int64(r.IntN(4*minPeriodNs)) - minPeriodNs/2
				if v <= 0 {
					v = 1
				}
			}
			a.rows = append(a.rows, rows)
		}
		var want int64
		for _, rows := range a.rows {
			for i := 1; i < len(rows); i++ {
				if dv := rows[i].VsyncNs - rows[i-1].VsyncNs; dv >= minPeriodNs && (want == 0 || dv < want) {
					want = dv
				}
			}
		}
		if got := a.spacing(); got != want {
			t.Fatalf("case %d: spacing %d, the pairs say %d", n, got, want)
		}
	}
}

// A repeated row known by its vsync id alone (its FrameCompleted damaged) starts no run of
// rows known by their ring slots (it names none): the rows after it are asked for as usual,
// and the dump gives the frames the undamaged one gives.
func TestRowKnownByIDStartsNoRun(t *testing.T) {
	dumps := pollCapture(2, 24, 0)
	count := func(damage bool) int {
		tr := newTracker(pkg, "")
		tr.apply(nil, dumps[0])
		d := mustParse(t, dumps[1])
		if damage {
			for wi := range d.Processes[0].Windows {
				if fr := d.Processes[0].Windows[wi].Frames; len(fr) > 0 {
					fr[0].DoneNs++ // (the row is one dump 0 printed: pollCapture's dumps overlap)
				}
			}
		}
		n := 0
		for _, e := range tr.applyDump(nil, d) {
			if _, ok := e.(*source.Frame); ok {
				n++
			}
		}
		return n
	}
	if got, want := count(true), count(false); got != want || want == 0 {
		t.Fatalf("%d new frames with the first rows' FrameCompleted damaged, %d without", got, want)
	}
}

// windowRows asks elsewhere only for a row completed by othersDone: a frame another window
// remembers (FrameCompleted and vsync id) never completed after it.
func TestElsewhereNeverAfterOthersDone(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 13))
	for n := 0; n < 200; n++ {
		ps := &procState{}
		for w := 1 + r.IntN(3); w > 0; w-- {
			ws := newWinState("w", "")
			for i := r.IntN(300); i > 0; i-- {
				v := int64(1 + r.IntN(5000))
				ws.add(&source.Frame{VsyncID: int64(r.IntN(3)) * v, VsyncNs: v, DoneNs: v + int64(r.IntN(50))})
			}
			ps.wins = append(ps.wins, ws)
		}
		for _, ws := range ps.wins {
			limit := ps.othersDone(ws)
			for _, o := range ps.wins {
				for s := 0; s < o.n; s++ {
					id := o.ring[s]
					f := source.Frame{VsyncID: id[keyID], VsyncNs: id[keyVsync], DoneNs: id[keyDone]}
					if ps.elsewhere(ws, &f) && f.DoneNs > limit {
						t.Fatalf("case %d: frame done at %d is elsewhere, after othersDone %d", n, f.DoneNs, limit)
					}
				}
			}
		}
	}
}

// doneSlot finds the newest remembered frame completed at a FrameCompleted, as a scan of the
// ring does, whatever the table holds: entries of forgotten frames (stale until a rebuild),
// times out of order and times two frames share, before and after the ring is full.
func TestDoneSlotMatchesScan(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, seed*5))
		disorder := []int{0, 1, 10, 300}[seed%4] // per mille of frames out of order or shared
		ws := newWinState("w", "")
		var hist []int64 // every FrameCompleted remembered, forgotten ones too
		next := int64(1000)
		for step := 0; step < 4000; step++ {
			next += int64(1 + r.IntN(3))
			id := frameID{next, next * 10, next*10 + 5}
			if r.IntN(1000) < disorder {
				id[keyDone] -= int64(r.IntN(3) * r.IntN(400)) // earlier, or one another frame has
			}
			ws.remember(id)
			hist = append(hist, id[keyDone])
			scan := func(done int64) (int, bool) {
				found, ok := 0, false
				for i, s := 0, ws.oldest(); i < ws.n; i, s = i+1, newer(s) {
					if ws.ring[s][keyDone] == done {
						found, ok = s, true
					}
				}
				return found, ok
			}
			for q := 0; q < 4; q++ {
				done := ws.ring[r.IntN(ws.n)][keyDone] + int64(r.IntN(3)-1)
				if q == 3 {
					done = hist[max(0, len(hist)-1-r.IntN(2*keep))] // remembered or just forgotten
				}
				gs, gok := ws.doneSlot(done)
				ws2, wok := scan(done)
				if gok != wok || (gok && gs != ws2) {
					t.Fatalf("seed %d step %d: doneSlot(%d) = %d, %v; the ring says %d, %v", seed, step, done, gs, gok, ws2, wok)
				}
			}
		}
	}
}
