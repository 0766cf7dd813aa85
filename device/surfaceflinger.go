package device

import (
	"context"
	"strings"
	"unicode/utf8"
)

// MaxLayerNameLen is the longest SurfaceFlinger layer name passed to a device.
const MaxLayerNameLen = 512

// layerNameExtra are the characters besides ASCII letters, digits and space a layer name may
// hold: what Android's layer names are made of (`SurfaceView[pkg/Act]@0(BLAST)#12`,
// `pkg/Act$_4242#7`, `RequestedLayerState{… parentId=3}`).
const layerNameExtra = ". _-$/:[]()@#{}="

// ValidLayerName checks a SurfaceFlinger layer name before it reaches a device shell: 1 to
// MaxLayerNameLen bytes of ASCII letters, digits, space and . _ - $ / : [ ] ( ) @ # { } =,
// not starting with '-' (dumpsys would read an option). Layer names come from the device
// (`--list`), so a hostile app could name a layer anything: quotes, backslashes, ; | & `,
// control characters and non-ASCII are refused. The error wraps ErrInvalid.
func ValidLayerName(name string) error {
	switch {
	case name == "" || strings.TrimSpace(name) == "":
		return invalidf("invalid layer name: empty")
	case len(name) > MaxLayerNameLen:
		return invalidf("invalid layer name %.40q…: longer than %d bytes", name, MaxLayerNameLen)
	case strings.HasPrefix(name, "-"):
		return invalidf("invalid layer name %q: starts with '-'", name)
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !isIdentByte(ch) && strings.IndexByte(layerNameExtra, ch) < 0 {
			r, _ := utf8.DecodeRuneInString(name[i:])
			return invalidf("invalid layer name %q: contains %q", name, r)
		}
	}
	return nil
}

// LayerLatencyCommand is the shell command that prints a layer's latency ring:
// `dumpsys SurfaceFlinger --latency 'NAME'`, the name single-quoted (it holds blanks, brackets,
// '$' and '#') after ValidLayerName, which allows no quote, so the quoting cannot be escaped.
func LayerLatencyCommand(layer string) (string, error) {
	if err := ValidLayerName(layer); err != nil {
		return "", err
	}
	return "dumpsys SurfaceFlinger --latency '" + layer + "'", nil
}

// SFList returns `dumpsys SurfaceFlinger --list`: every layer's name, one a line (Android 15+
// wraps each in `RequestedLayerState{…}`).
func (c *Client) SFList(ctx context.Context, serial string) ([]byte, error) {
	return c.Shell(ctx, serial, "dumpsys SurfaceFlinger --list")
}

// SFLatency returns `dumpsys SurfaceFlinger --latency 'LAYER'`: the refresh period, then the
// layer's last 127 frames (desired present, actual present, ready). It never clears the ring
// (`--latency-clear` would wipe data other tools read). The name is refused unless
// ValidLayerName accepts it.
func (c *Client) SFLatency(ctx context.Context, serial, layer string) ([]byte, error) {
	cmd, err := LayerLatencyCommand(layer)
	if err != nil {
		return nil, err
	}
	return c.Shell(ctx, serial, cmd)
}

// TimestatsOp is one `dumpsys SurfaceFlinger --timestats` operation.
type TimestatsOp string

// Timestats operations: dump reads; enable and disable flip SurfaceFlinger's global switch
// (statsd may have turned it on: disable only what fpstop enabled).
const (
	TimestatsDump    TimestatsOp = "-dump"
	TimestatsEnable  TimestatsOp = "-enable"
	TimestatsDisable TimestatsOp = "-disable"
)

// SFTimestats runs `dumpsys SurfaceFlinger --timestats OP` for one of the TimestatsOp values
// (anything else is refused).
func (c *Client) SFTimestats(ctx context.Context, serial string, op TimestatsOp) ([]byte, error) {
	switch op {
	case TimestatsDump, TimestatsEnable, TimestatsDisable:
	default:
		return nil, invalidf("invalid timestats operation %q", string(op))
	}
	return c.Shell(ctx, serial, "dumpsys SurfaceFlinger --timestats "+string(op))
}

// SFList runs `dumpsys SurfaceFlinger --list` on the target.
func (t Target) SFList(ctx context.Context) ([]byte, error) { return t.Client.SFList(ctx, t.Serial) }

// SFLatency runs `dumpsys SurfaceFlinger --latency 'LAYER'` on the target.
func (t Target) SFLatency(ctx context.Context, layer string) ([]byte, error) {
	return t.Client.SFLatency(ctx, t.Serial, layer)
}

// SFTimestats runs `dumpsys SurfaceFlinger --timestats OP` on the target.
func (t Target) SFTimestats(ctx context.Context, op string) ([]byte, error) {
	return t.Client.SFTimestats(ctx, t.Serial, TimestatsOp(op))
}
