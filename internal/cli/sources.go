package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/capture"
	"github.com/fpstop/fpstop/internal/devsource"
	"github.com/fpstop/fpstop/internal/outfile"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// opened is a source ready to run, with what the screen and report say about it.
type opened struct {
	src  source.Source
	kind string // the --source it runs as
	// live is true for a device: the report's duration is the wall time of the run.
	live bool
	// virtual is true when the source ends by itself at --duration (the simulator).
	virtual bool
	// note is shown on screen (e.g. why the simulator runs).
	note string
	// fallback: the simulator runs because no device could be used (the dashboard watches for
	// one being plugged in)
	fallback bool
	// pick: several devices and none chosen; the dashboard opens the device picker
	pick bool
	// device: the phone and app a device source reads, known before the source says so
	// (a switch shows them while the source starts)
	device source.Session
	// probe: auto's looks for the app's Looper lines, for the status line (nil: none)
	probe *devsource.ProbeNote
	// perfettoOffer: auto on Android 12+ with an app that does not log its Looper messages,
	// where Perfetto would name each janky frame's work: the dashboard offers it (`P`)
	perfettoOffer bool
}

// waiting is the source shown while the user picks a device: it says so and waits.
type waiting struct{ text string }

func (w waiting) Run(ctx context.Context, out chan<- []source.Event) error {
	select {
	case out <- []source.Event{&source.Notice{Level: source.LevelInfo, State: source.StateWaiting, Text: w.text}}:
	case <-ctx.Done():
	}
	<-ctx.Done()
	return ctx.Err()
}

// simSource builds the simulator from the flags; truth is written to --truth.
func (a *app) simSource(note string) (*opened, error) {
	s, err := sim.New(sim.Config{Scenario: a.opts.Scenario, Hz: a.opts.Hz, Seed: a.opts.Seed,
		Speed: a.opts.Speed, Duration: a.opts.Duration, WorkScale: a.opts.WorkScale})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if a.opts.Truth != "" {
		f, err := outfile.Create(a.opts.Truth, a.opts.Force)
		if err != nil {
			return nil, runtimeErr(err)
		}
		s.SetTruth(f)
		a.closers = append(a.closers, f.Close)
	}
	return &opened{src: s, kind: "sim", virtual: true, note: note}, nil
}

// inputSource reads --input (package capture): a gfxinfo dump, logcat text, SurfaceFlinger
// text, a Perfetto trace or a recording, detected from the content unless --source says.
func (a *app) inputSource() (*opened, error) {
	o := &a.opts
	in, c, err := capture.Open(o.Input, a.env.Stdin, capture.Options{Source: o.Source, Package: o.Package, Raw: o.RecordRaw, Speed: o.Speed})
	if c != nil {
		a.closers = append(a.closers, c.Close)
	}
	if err != nil {
		return nil, err
	}
	return &opened{src: in.Src, kind: in.Kind}, nil
}

// asRecording is path as the commands that read recordings read it (capture.AsRecording): a
// Perfetto trace converted once into a temporary recording, removed when fpstop exits.
func (a *app) asRecording(path string) (string, error) {
	rec, remove, err := capture.AsRecording(path, a.opts.Package, a.env.Build.Version)
	if remove != nil {
		a.closers = append(a.closers, remove)
	}
	return rec, err
}

// openSource picks the source by DESIGN §7's table.
func (a *app) openSource(ctx context.Context, headless bool) (*opened, error) {
	o := &a.opts
	if o.Input != "" {
		return a.inputSource()
	}
	switch o.Source {
	case "sim":
		return a.simSource("")
	case "gfxinfo", "logcat", "gfxinfo+logcat", "surfaceflinger", "perfetto":
		op, err := a.deviceSource(ctx, o.Source, headless)
		if serial := device.DefaultSerial(o.Serial); err != nil && serial != "" {
			return namedMissing(serial, err, headless)
		}
		return op, err
	}
	// auto: gfxinfo, or SurfaceFlinger when the app draws only into a SurfaceView
	op, err := a.deviceSource(ctx, "auto", headless)
	if err == nil {
		return op, nil
	}
	if !headless && errors.Is(err, device.ErrSeveralDevices) {
		// several devices and none named: the dashboard opens the device picker
		return &opened{src: waiting{text: "several devices: choose one (d)"}, kind: "gfxinfo", pick: true,
			note: oneSentence(err)}, nil
	}
	if serial := device.DefaultSerial(o.Serial); serial != "" || o.Package != "" {
		// the user named a device or an app: simulated numbers in its place would be a lie
		return namedMissing(serial, err, headless)
	}
	if headless {
		return nil, runtimeErr(fmt.Errorf("%v (headless runs need a device; the simulator runs only with --source sim)", err))
	}
	a.log.Info("no device: showing the simulator", "why", err)
	op, serr := a.simSource("no device (" + shortReason(err) + "): showing the simulator · d picks a device")
	if op != nil {
		op.fallback = true
	}
	return op, serr
}

// shortReason says in a few words why no device could be used (the log has the whole error).
func shortReason(err error) string {
	switch {
	case errors.Is(err, device.ErrNoAdb):
		return "adb is not installed"
	case errors.Is(err, device.ErrNoServer):
		return "no adb server"
	case errors.Is(err, device.ErrUnauthorized):
		return "unauthorized: accept the prompt on the phone"
	case errors.Is(err, device.ErrOffline):
		return "the device is offline"
	case errors.Is(err, device.ErrNoDevice):
		return "none connected"
	}
	return oneSentence(err)
}

// namedMissing is what a run does when the device or app the user named (-s, $ANDROID_SERIAL,
// -p) cannot be used: the dashboard opens the device picker when other devices are connected,
// otherwise — and always headless — fpstop exits 3 with one sentence. Never the simulator.
func namedMissing(serial string, err error, headless bool) (*opened, error) {
	if serial != "" && (errors.Is(err, device.ErrDeviceNotFound) || errors.Is(err, device.ErrNoDevice)) {
		why := "adb sees no device"
		if errors.Is(err, device.ErrDeviceNotFound) {
			why = "adb sees only other devices"
		}
		msg := fmt.Sprintf("device %s is not connected (%s): check the serial with `fpstop devices`, or `adb connect %s` for a network device", serial, why, serial)
		if !headless && errors.Is(err, device.ErrDeviceNotFound) {
			return &opened{src: waiting{text: "device " + serial + " is not connected: choose one (d)"}, kind: "gfxinfo",
				pick: true}, nil
		}
		return nil, runtimeErr(sentence{msg: msg, err: err})
	}
	return nil, runtimeErr(err)
}

// sentence is an error shown as its own sentence that still matches the error it explains.
type sentence struct {
	msg string
	err error
}

func (s sentence) Error() string { return s.msg }
func (s sentence) Unwrap() error { return s.err }
