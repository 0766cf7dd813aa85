package perfetto

import "context"

// Tracer is what the live source needs of a phone; device.Target implements it. It lives
// here, not in device, so the source never imports device and tests can serve a fake phone.
type Tracer interface {
	// PerfettoStart starts a background session (perfetto --background --txt -c - -o path) with the
	// text config on stdin; it returns the perfetto PID printed by the phone, or an error that
	// says plainly why (not supported before Android 12 / tracing busy / refused). An error
	// with a pid (> 0): perfetto printed it, then the phone stopped answering, so the session
	// may run until it is stopped.
	PerfettoStart(ctx context.Context, config, path string) (pid int, err error)
	// PerfettoRead returns the file's bytes from offset on (empty when nothing new; an error
	// wrapping fs.ErrNotExist when the file is not there yet).
	PerfettoRead(ctx context.Context, path string, offset int64) ([]byte, error)
	// PerfettoStop sends SIGTERM to pid if that pid is still a perfetto process, then removes
	// path (pid 0: only removes path).
	PerfettoStop(ctx context.Context, pid int, path string) error
}
