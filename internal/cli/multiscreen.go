package cli

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/ui"
)

// dashboardMulti shows the overview of several devices (--all-devices or -s A -s B without
// --headless): one row per device, enter drills into one device's dashboard, esc comes back.
// Notices (devices gone, back, new) go to the overview's notice line, never to the terminal.
func (a *app) dashboardMulti(ctx context.Context) error {
	if err := a.needTerminal(); err != nil {
		return err
	}
	opts, err := a.screenOptions()
	if err != nil {
		return err
	}
	r, err := a.startLabRun(ctx)
	if err != nil {
		return err
	}
	prog := a.newProgram(r.ctx, ui.NewOverview(opts, r.screenDevices))
	r.notify = func(line string) { prog.Send(ui.FlashMsg{Level: ui.FlashWarn, Text: line}) }
	r.follow()
	_, runErr := prog.Run()
	_ = r.stop() // logged; the terminal is the screen's until here
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) &&
		!errors.Is(runErr, context.DeadlineExceeded) {
		return runtimeErr(runErr)
	}
	return nil
}

// screenDevices lists the lab's devices for the overview.
func (l *lab) screenDevices() []ui.LabDevice {
	var out []ui.LabDevice
	for _, d := range l.list() {
		out = append(out, ui.LabDevice{Serial: d.serial, Session: screenSession{d.sess}, Connected: d.connected.Load})
	}
	return out
}
