//go:build !unix

package logcat

// cpuNs is not measured on this platform.
func cpuNs() int64 { return 0 }
