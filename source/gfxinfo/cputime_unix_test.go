//go:build unix

package gfxinfo

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time, to report throughput per CPU second next to
// wall time (the shared 2-core machine is often busy with other work).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
