package logcat

import "time"

// lineClock estimates the device's time now from the host's, for a live stream: a line arrives
// some delay after its timestamp, and the smallest delay seen lately is the stream's own
// latency — a line that came later than that (a long message's Dispatching line that the
// device printed late, a burst held in a buffer) was late. Extrapolating from the newest line's
// arrival alone would count that lateness against an open dispatch's age, and FROZEN would
// show late by as much. The minimum is kept over two windows of lineClockWindow, so a device
// clock that steps back (a reboot, a new stream) is forgotten within two windows of lines.
type lineClock struct {
	epoch time.Time // host time 0
	mins  [2]int64  // the smallest (host − line) ns in the current and the previous window
	set   [2]bool
	winAt time.Duration // when (since epoch) the current window began
}

const (
	lineClockWindow = 10 * time.Second
	// lineClockMaxGain is the most the estimate may move an open dispatch's age past what the
	// newest line's arrival says: enough for a late line, not for a clock that stepped back.
	lineClockMaxGain = int64(250 * time.Millisecond)
)

// note records that a line stamped lineNs (device clock) was read at host time at.
func (c *lineClock) note(at time.Time, lineNs int64) {
	if lineNs <= 0 {
		return
	}
	if c.epoch.IsZero() {
		c.epoch = at
	}
	h := at.Sub(c.epoch)
	if since := h - c.winAt; since >= lineClockWindow {
		c.mins[1], c.set[1] = c.mins[0], c.set[0] && since < 2*lineClockWindow
		c.set[0], c.winAt = false, h
	}
	d := int64(h) - lineNs
	if !c.set[0] || d < c.mins[0] {
		c.mins[0], c.set[0] = d, true
	}
}

// now is the device time at host time at (false before any line).
func (c *lineClock) now(at time.Time) (int64, bool) {
	if c.epoch.IsZero() {
		return 0, false
	}
	h := at.Sub(c.epoch)
	d, ok := c.mins[0], c.set[0]
	if c.set[1] && (!ok || c.mins[1] < d) {
		d, ok = c.mins[1], true
	}
	return int64(h) - d, ok
}
