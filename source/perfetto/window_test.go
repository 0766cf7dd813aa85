package perfetto

import "testing"

// TestWindowFit: a live trace's sort window follows the disorder the stream shows — the prior
// until the stream shows its own, a quarter more than the worst lateness of the last span or
// two plus the slack, never under lo nor over hi — and an event later than the window is
// still used, and counted.
func TestWindowFit(t *testing.T) {
	const ms = 1_000_000
	p := NewParser()
	p.FitWindow(250*ms, 1000*ms, 400*ms)
	if w := p.Window(); w != 550*ms {
		t.Fatalf("before any event: window %d ms, want the prior's 550", w/ms)
	}
	push := func(ts int64) { p.sort.push(event{ts: ts, kind: evPrint}) }
	ts := int64(1_000 * ms)
	for i := 0; i < 300; i++ { // 3 s in order
		ts += 10 * ms
		push(ts)
	}
	if w := p.Window(); w != 550*ms {
		t.Errorf("within the prior's span: window %d ms, want 550", w/ms)
	}
	for i := 0; i < 1100; i++ { // 11 s more in order: the prior is two spans behind
		ts += 10 * ms
		push(ts)
	}
	if w := p.Window(); w != 250*ms {
		t.Errorf("an ordered stream: window %d ms, want the least, 250", w/ms)
	}
	push(ts - 600*ms)
	if w := p.Window(); w != 800*ms {
		t.Errorf("after an event 600 ms late: window %d ms, want 800", w/ms)
	}
	push(ts - 2000*ms)
	if w := p.Window(); w != 1000*ms {
		t.Errorf("after an event 2 s late: window %d ms, want the cap, 1000", w/ms)
	}
	if p.sort.Late == 0 {
		t.Error("the event 2 s late was handed on out of order and not counted")
	}
	for i := 0; i < 1100; i++ {
		ts += 10 * ms
		push(ts)
	}
	if w := p.Window(); w != 250*ms {
		t.Errorf("11 s in order after the late events: window %d ms, want 250 again", w/ms)
	}
	p.SetWindow(5000 * ms)
	push(ts - 3000*ms)
	if w := p.Window(); w != 5000*ms {
		t.Errorf("a fixed window moved to %d ms", w/ms)
	}
}
