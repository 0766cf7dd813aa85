// Package testkit and its subpackages are the test harnesses, apart from the product: the
// fake phone (fakeadb), a real adb server on a private port (adbtest), the tmux driver and the
// screen tests (tmuxctl, tmuxtest), the end-to-end suite (e2e), the real-capture locator
// (realdata), plain reference definitions (reference) and benchmark inputs (benchgen). This
// package holds what several suites share: the parallelism of suites that wait on real time,
// the fan-out of a fake app's events to its open logcat streams, one build of the real binary,
// the go command's caches kept across a fresh HOME, and the simulator's frames and messages
// copied out. No product package imports any of it (internal/limits checks).
package testkit

import (
	"flag"
	"fmt"
)

// DefaultParallel raises go test's -parallel to n unless the command line set it. go test runs
// GOMAXPROCS parallel tests at once (two on a 2-core machine), which suits tests that compute;
// a suite whose tests mostly wait on real time (a fake phone drawing at 60–120 Hz, polls every
// second) spends its wall time waiting, so more of them overlap. Call it after flag.Parse.
func DefaultParallel(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			set = true
		}
	})
	if !set {
		_ = flag.Set("test.parallel", fmt.Sprint(n))
	}
}
