// Package testkit holds what the process-starting test suites (internal/testkit/e2e, internal/testkit/tmuxtest)
// share: the parallelism of suites that wait on real time, and the fan-out of a fake app's
// events to its open logcat streams. It is a test harness: no product package
// imports it.
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
