package logcat

import (
	"testing"
	"time"
)

// TestLineClock: the device's time now is the host's less the smallest delay seen — a line that
// came 100 ms late (the device printed a long message's Dispatching line late) does not make
// it later — and a smaller delay is forgotten two windows after it was seen (the device's clock
// stepped back).
func TestLineClock(t *testing.T) {
	var c lineClock
	h0 := time.Unix(1000, 0)
	if _, ok := c.now(h0); ok {
		t.Fatal("an estimate before any line")
	}
	const ms = int64(time.Millisecond)
	dev := int64(5_000) * ms                        // device time at h0
	c.note(h0.Add(20*time.Millisecond), dev)        // 20 ms late
	c.note(h0.Add(150*time.Millisecond), dev+50*ms) // 100 ms late
	if now, ok := c.now(h0.Add(400 * time.Millisecond)); !ok || now != dev+380*ms {
		t.Errorf("400 ms on: device time %d ms, want %d (the promptest line's delay)", now/ms, (dev+380*ms)/ms)
	}
	// 25 s later every line is 70 ms late (a new clock): the 20 ms is forgotten.
	for i := 1; i <= 25; i++ {
		at := h0.Add(time.Duration(i) * time.Second)
		c.note(at, dev+int64(i)*1000*ms-70*ms)
	}
	at := h0.Add(25*time.Second + 500*time.Millisecond)
	if now, ok := c.now(at); !ok || now != dev+25_430*ms {
		t.Errorf("after 25 s of 70 ms delays: device time %d ms, want %d", now/ms, (dev+25_430*ms)/ms)
	}
}
