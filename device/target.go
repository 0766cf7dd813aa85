package device

import (
	"context"
	"io"
)

// Target is a Client bound to one device, with the method shapes fpstop's sources take:
// source/gfxinfo's Dumper and ResetDumper (Gfxinfo, GfxinfoReset), source/logcat's Streamer
// (Stream, whose args are logcat's arguments) and a pid lookup for the logcat source.
type Target struct {
	Client *Client
	Serial string
}

// Gfxinfo runs `dumpsys gfxinfo PKG framestats` (never reset).
func (t Target) Gfxinfo(ctx context.Context, pkg string) ([]byte, error) {
	return t.Client.Gfxinfo(ctx, t.Serial, pkg, false)
}

// GfxinfoReset runs `dumpsys gfxinfo PKG framestats reset`: use it only when the user asked.
func (t Target) GfxinfoReset(ctx context.Context, pkg string) ([]byte, error) {
	return t.Client.Gfxinfo(ctx, t.Serial, pkg, true)
}

// GfxinfoCounters runs `dumpsys gfxinfo PKG` (no framestats): the gfxinfo poller's idle probe.
func (t Target) GfxinfoCounters(ctx context.Context, pkg string) ([]byte, error) {
	return t.Client.GfxinfoCounters(ctx, t.Serial, pkg)
}

// Stream runs `logcat ARGS...` (checked by ValidLogcatArgs) and streams its output.
func (t Target) Stream(ctx context.Context, args []string) (io.ReadCloser, error) {
	return t.Client.Logcat(ctx, t.Serial, args)
}

// Pid returns a lookup of pkg's current pid (Pidof), for the logcat source's pid following.
func (t Target) Pid(pkg string) func(ctx context.Context) (int, error) {
	return func(ctx context.Context) (int, error) { return t.Client.Pidof(ctx, t.Serial, pkg) }
}
