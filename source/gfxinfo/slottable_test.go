package gfxinfo

import (
	"math/rand"
	"testing"
)

// TestSlotTableAgainstMap: random sets and deletes, with keys crowded into few home entries
// (long probe runs, wrap-around), answer every lookup as a Go map does.
func TestSlotTableAgainstMap(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, spread := range []int64{300, 1 << 40} {
		var tab slotTable
		ref := map[int64]int32{}
		var live []int64
		for op := 0; op < 200_000; op++ {
			k := r.Int63n(spread) - spread/3
			switch {
			case len(ref) < keep && r.Intn(3) > 0:
				v := int32(r.Intn(keep))
				tab.set(k, v)
				if _, ok := ref[k]; !ok {
					live = append(live, k)
				}
				ref[k] = v
			case len(live) > 0:
				i := r.Intn(len(live))
				k = live[i]
				live[i] = live[len(live)-1]
				live = live[:len(live)-1]
				tab.del(k)
				delete(ref, k)
			default:
				tab.del(k)
			}
			probe := []int64{k, r.Int63n(spread) - spread/3}
			if len(live) > 0 {
				probe = append(probe, live[r.Intn(len(live))])
			}
			for _, q := range probe {
				got, ok := tab.get(q)
				want, wok := ref[q]
				if got != want || ok != wok {
					t.Fatalf("spread %d op %d: get(%d) = %d, %v; map says %d, %v", spread, op, q, got, ok, want, wok)
				}
			}
		}
	}
}
