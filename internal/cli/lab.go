package cli

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/lab"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/ui"
)

// labConfig is the multi-device run the flags ask for (package lab runs it): each device is
// read as a single-device run reads it.
func (a *app) labConfig(ctx context.Context) (lab.Config, error) {
	dv := a.devices()
	cl, err := dv.Client(ctx)
	if err != nil {
		return lab.Config{}, err
	}
	open := func(ctx context.Context, in device.Info, kind string) (source.Source, string, string, error) {
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		t, err := dv.Complete(tctx, cl, in, a.opts.packageFor(in.Serial))
		cancel()
		if err != nil {
			return nil, "", "", err
		}
		if kind == "auto" && dv.LogsLooper(ctx, t) {
			kind = "gfxinfo+logcat" // the app prints Looper lines: read them, as a single-device run does
		}
		src, reported := dv.Source(t, kind)
		return src, reported, t.Pkg, nil
	}
	startExports := func(ctx context.Context, feed export.Feed) (lab.Exports, error) {
		x, err := a.opts.Exports.start(ctx, feed, a.env, a.log)
		if err != nil {
			return nil, err
		}
		return x, nil
	}
	return lab.Config{Client: cl, Kind: a.opts.Source, AllDevices: a.opts.AllDevices, Serials: a.opts.serials,
		Duration: a.opts.Duration, Open: open, Session: a.sessionConfig(false), StartExports: startExports,
		Gates: a.opts.gates(), JSON: a.opts.JSON, Version: a.env.Build.Version,
		Stdout: a.env.Stdout, Stderr: a.env.Stderr, Log: a.log}, nil
}

// dashboardMulti shows the overview of several devices (--all-devices or -s A -s B without
// --headless): one row per device, enter drills into one device's dashboard, esc comes back.
// Notices (devices gone, back, new) go to the overview's notice line, never to the terminal.
func (a *app) dashboardMulti(ctx context.Context) error {
	if err := needTerminal(a.env); err != nil {
		return err
	}
	opts, err := a.screenOptions()
	if err != nil {
		return err
	}
	cfg, err := a.labConfig(ctx)
	if err != nil {
		return err
	}
	r, err := lab.Start(ctx, cfg)
	if err != nil {
		return err
	}
	overview := ui.NewOverview(opts, func() []ui.LabDevice { return screenDevices(r) })
	prog := newProgram(r.Context(), overview, a.env, a.opts.NoMouse)
	r.Notify(func(line string) { prog.Send(ui.FlashMsg{Level: ui.FlashWarn, Text: line}) })
	r.Follow()
	_, runErr := prog.Run()
	_ = r.Stop() // logged; the terminal is the screen's until here
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) &&
		!errors.Is(runErr, context.DeadlineExceeded) {
		return runtimeErr(runErr)
	}
	return nil
}

// screenDevices lists the lab's devices for the overview.
func screenDevices(r *lab.Run) []ui.LabDevice {
	var out []ui.LabDevice
	for _, d := range r.Devices() {
		out = append(out, ui.LabDevice{Serial: d.Serial, Session: screenSession{d.Session}, Connected: d.Connected})
	}
	return out
}
