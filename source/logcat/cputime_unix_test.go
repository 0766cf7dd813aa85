//go:build unix

package logcat

import "syscall"

// cpuNs is the CPU time (user + system) the process has used, in ns: benchmarks report MB per
// CPU second next to wall-clock MB/s, which other load on a shared machine distorts.
func cpuNs() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
