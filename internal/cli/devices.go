package cli

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/devsource"
)

// devices opens device sources as the flags say (package devsource).
func (a *app) devices() *devsource.Opener {
	o := &a.opts
	return &devsource.Opener{AdbHost: o.AdbHost, AdbPort: o.AdbPort, Interval: o.Interval, Reset: o.Reset,
		KeepRaw: o.RecordRaw, Layer: o.Layer, SetSlowThreshold: o.SetSlowThreshold, PkgBySerial: o.pkgBySerial,
		Log: a.log, StartedServer: func(cl *device.Client) { a.closers = append(a.closers, stopStartedAdb(cl, a.env.Stderr)) },
		SayJoin: a.probes.say}
}

// autoProbes is what auto's looks for the app's Looper lines tell the user: the dashboard's
// status line shows the running source's note (cur) on every refresh; a headless run says a
// join on stderr (say).
type autoProbes struct {
	cur atomic.Pointer[devsource.ProbeNote]
	say func(string)
}

// text is the running source's note ("" when it is not auto looking for Looper lines).
func (p *autoProbes) text() string {
	return p.cur.Load().Text(time.Now())
}

// stopStartedAdb is the closer of an adb server fpstop started (none was running): when fpstop
// exits it stops it and says so on stderr (not at once: the dashboard may be on screen).
func stopStartedAdb(cl *device.Client, stderr io.Writer) func() error {
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := cl.KillServer(ctx); err != nil {
			fmt.Fprintf(stderr, "fpstop: started an adb server at %s (none was running) but could not stop it: %v\n", cl.Addr(), err)
			return err
		}
		fmt.Fprintf(stderr, "fpstop: started an adb server at %s (none was running) and stopped it on exit\n", cl.Addr())
		return nil
	}
}

// deviceOpened is a device source as the run opens it: live.
func deviceOpened(d *devsource.Opened) *opened {
	return &opened{src: d.Src, kind: d.Kind, live: true, note: d.Note, device: d.Device, probe: d.Probe,
		perfettoOffer: d.PerfettoOffer}
}

// deviceSource opens a device source of the given kind for the flags' device and app.
func (a *app) deviceSource(ctx context.Context, kind string, headless bool) (*opened, error) {
	if headless {
		// auto that finds the app's Looper lines after the start says so, as at the start
		a.probes.say = func(note string) { fmt.Fprintf(a.env.Stderr, "fpstop: %s\n", note) }
	}
	d, err := a.devices().Open(ctx, kind, a.opts.Serial, a.opts.Package)
	if err != nil {
		return nil, err
	}
	return deviceOpened(d), nil
}
