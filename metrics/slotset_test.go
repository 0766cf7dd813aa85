package metrics

import (
	"math/rand"
	"testing"
)

// refSlots is slotSet's rule written plainly: the last slotKeys keys added, scanned.
type refSlots struct {
	keys []int64
	max  int64
}

func (r *refSlots) add(key int64) bool {
	if len(r.keys) > 0 && key <= r.max {
		for _, k := range r.keys {
			if k == key {
				return false
			}
		}
	}
	if len(r.keys) == 0 || key > r.max {
		r.max = key
	}
	r.keys = append(r.keys, key)
	if len(r.keys) > slotKeys {
		r.keys = r.keys[1:]
	}
	return true
}

// TestSlotSetMatchesScan: slotSet says "new" exactly when a scan of the last
// slotKeys keys would, for windows drawing on shared vsyncs, keys coming back after they were
// forgotten, and keys sharing their low bits with recent ones (negative ones too).
func TestSlotSetMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 40; trial++ {
		s, ref := newSlotSet(), &refSlots{}
		var now int64 = rng.Int63n(1e6) - 5e5
		step := 1 + rng.Int63n(20)
		for i := 0; i < 20000; i++ {
			var key int64
			switch r := rng.Intn(10); {
			case r < 5: // the next vsync
				now += step
				key = now
			case r < 8: // another window's frame for a recent vsync
				key = now - step*rng.Int63n(200)
			case r < 9: // long gone: forgotten, new again
				key = now - step*(200+rng.Int63n(400))
			default: // a key sharing its low bits with recent ones
				key = now - int64(1+rng.Intn(3))*4096 + int64(rng.Intn(3))
			}
			if got, want := s.add(key), ref.add(key); got != want {
				t.Fatalf("trial %d, key %d (#%d): new %v, want %v", trial, key, i, got, want)
			}
		}
	}
}
