package cli

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
)

// dashboardMulti shows the overview of several devices (--all-devices or -s A -s B without
// --headless): one row per device, enter drills into one device's dashboard, esc comes back.
// Notices (devices gone, back, new) go to the overview's notice line, never to the terminal.
func (a *app) dashboardMulti(ctx context.Context) error {
	if !a.env.StdoutIsTerminal {
		return usageErr("the dashboard needs a terminal: use --headless (with --json) in scripts and CI")
	}
	if _, err := themes.SetupColor(a.opts.Color); err != nil {
		return usageErr("%v", err)
	}
	theme, err := a.resolveTheme(a.opts.Theme)
	if err != nil {
		return usageErr("%v", err)
	}
	// Before the program owns stdin (lipgloss #73), as for one device.
	// Always: `t` cycles only the themes that suit the terminal's background.
	light := !lipgloss.HasDarkBackground()
	runCtx, cancelRun := a.labContext(ctx)
	defer cancelRun()
	l, err := a.startLab(ctx, runCtx, cancelRun)
	if err != nil {
		return err
	}
	stopExports, err := a.startExports(ctx, l.feed)
	if err != nil {
		cancelRun()
		l.wg.Wait()
		return err
	}
	opts := ui.Options{Theme: theme, LightBackground: light, TargetFPS: a.opts.TargetFPS, Refresh: a.opts.Refresh}
	progOpts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(runCtx), tea.WithInput(a.env.Stdin), tea.WithOutput(a.env.Stdout)}
	if !a.opts.NoMouse {
		progOpts = append(progOpts, tea.WithMouseCellMotion())
	}
	prog := tea.NewProgram(ui.NewOverview(opts, l.screenDevices), progOpts...)
	l.notify = func(line string) { prog.Send(ui.FlashMsg{Level: ui.FlashWarn, Text: line}) }
	watchDone := make(chan struct{})
	go func() { l.watch(runCtx); close(watchDone) }()
	_, runErr := prog.Run()
	cancelRun()
	<-watchDone
	l.wg.Wait()
	_ = stopExports() // logged; the terminal is the screen's until here
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
