package export

import (
	"fmt"
	"sync"
	"time"
)

// Health counts one exporter's pushes or writes and their failures, so that the screen, the
// report and the exit status can say when monitoring is not getting the numbers (a lab exporter
// running for days must not fail silently). Safe for concurrent use.
type Health struct {
	// Name says what exports, e.g. "OTLP push to http://collector:4318".
	Name string

	mu       sync.Mutex
	attempts int64
	failures int64
	failing  bool // the last attempt failed
	last     string
	since    time.Time // when the current run of failures began
}

// Record counts one attempt; err nil is a success (which clears the failing state).
func (h *Health) Record(err error, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.attempts++
	if err == nil {
		h.failing = false
		return
	}
	h.failures++
	if !h.failing {
		h.since = now
	}
	h.failing = true
	h.last = err.Error()
}

// HealthState is a Health's counts at one moment.
type HealthState struct {
	Name               string
	Attempts, Failures int64
	// Failing: the last attempt failed (cleared by the next success).
	Failing bool
	// Last is the last failure's error text.
	Last string
}

// State returns the counts now.
func (h *Health) State() HealthState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return HealthState{Name: h.Name, Attempts: h.attempts, Failures: h.failures, Failing: h.failing, Last: h.last}
}

// NeverDelivered: attempted, and every attempt failed.
func (s HealthState) NeverDelivered() bool { return s.Attempts > 0 && s.Failures == s.Attempts }

// Status is the status line's text while failing ("" otherwise).
func (s HealthState) Status() string {
	if !s.Failing {
		return ""
	}
	return fmt.Sprintf("%s failing (%d of %d failed): %s", s.Name, s.Failures, s.Attempts, s.Last)
}

// Warning is the report's line for an exporter that failed at all ("" when it never did).
func (s HealthState) Warning() string {
	if s.Failures == 0 {
		return ""
	}
	w := fmt.Sprintf("%s: %d of %d failed (last: %s)", s.Name, s.Failures, s.Attempts, s.Last)
	if !s.Failing {
		w += "; it recovered"
	}
	return w
}
