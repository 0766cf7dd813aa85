package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
)

// dashboard runs the live screen.
func (a *app) dashboard(ctx context.Context) error {
	if err := needTerminal(a.env); err != nil {
		return err
	}
	if a.opts.Record != "" {
		// A recording that cannot be created is refused before the source starts.
		if _, err := session.NewRecording(a.opts.Record, a.sessionConfig(true).Recording); err != nil {
			return recordingErr(err)
		}
	}
	op, err := a.openSource(ctx, false)
	if err != nil {
		return err
	}
	return a.runScreen(ctx, op, nil)
}

// runScreen shows the dashboard for op (replay: with its controls).
func (a *app) runScreen(ctx context.Context, op *opened, replay ui.ReplayControl) error {
	opts, err := a.screenOptions()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sess := session.Start(ctx, a.sessionConfig(true), op.src, nil)
	if op.device.Device.Serial != "" {
		sess.Connecting(op.device, connectingText(op)) // the phone on screen while auto chooses
	}
	exp, err := a.opts.Exports.start(ctx, latestFeed(sess.Latest), a.env, a.log)
	if err != nil {
		_ = sess.Close()
		return err
	}
	defer func() { _ = exp.Stop() }()
	opts.Exports = exp.Status // failing exports on the status line while they fail
	a.probes.cur.Store(op.probe)
	opts.SourceNote = a.probes.text // auto looking for the app's Looper lines, while it looks
	if a.opts.Record != "" {
		if _, err := sess.StartRecording(a.opts.Record); err != nil {
			_ = sess.Close()
			return recordingErr(err)
		}
	}
	opts.Session, opts.Replay, opts.Note, opts.PickDevice = screenSession{sess}, replay, op.note, op.pick
	if replay == nil && a.opts.Input == "" {
		ds := &deviceScreen{screenSession: screenSession{sess}, a: a, ctx: ctx, kind: deviceKind(a.opts.Source)}
		ds.setOffer(perfettoOffer(op))
		opts.Session = ds
	}
	prog := newProgram(ctx, ui.New(opts), a.env, a.opts.NoMouse)
	if op.fallback {
		go announceDevices(ctx, prog, a.opts.AdbHost, a.opts.AdbPort)
	}
	go showChanges(ctx, prog, sess)
	_, runErr := prog.Run()
	if err := sess.Close(); err != nil {
		fmt.Fprintf(a.env.Stderr, "fpstop: recording: %s\n", oneSentence(err))
	}
	// Now that the screen is closed: where every recording of this run went, and what it holds
	// (the notice line said so too, but it is gone with the screen).
	for _, v := range sess.SavedRecordings() {
		fmt.Fprintf(a.env.Stderr, "fpstop: recording saved: %s\n", v)
	}
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) {
		return runtimeErr(runErr)
	}
	return nil
}

// showChanges hands the screen each snapshot whose state changed as soon as it is published: a
// freeze shows when the pipeline sees it, not up to a refresh period later at the next poll.
func showChanges(ctx context.Context, prog *tea.Program, sess *session.Session) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sess.Changes():
			prog.Send(ui.SnapshotMsg{Snapshot: sess.Latest()})
		}
	}
}

func deviceKind(s string) string {
	switch s {
	case "logcat", "gfxinfo+logcat", "surfaceflinger", "gfxinfo", "perfetto":
		return s
	}
	return "auto" // gfxinfo, or the app's SurfaceView layer when only that presents
}

// resolveTheme finds a built-in theme, a theme file path, or a user theme in the config
// directory's themes/ folder (userDir, asked only when name is no built-in theme).
func resolveTheme(name string, userDir func() string) (themes.Theme, error) {
	t, err := themes.Resolve(name)
	if err == nil {
		return t, nil
	}
	if dir := userDir(); dir != "" {
		p := filepath.Join(dir, name+".yaml")
		ut, uerr := themes.Load(p)
		if uerr == nil {
			return ut, nil
		}
		if _, serr := os.Stat(p); serr == nil {
			return themes.Theme{}, uerr // the user's theme exists: its real error, not "unknown"
		}
	}
	return themes.Theme{}, err
}

// announceDevices watches the adb server while the simulator stands in for a missing device,
// and says when a usable device appears (hot-plug), so the user can pick it with d.
func announceDevices(ctx context.Context, prog *tea.Program, adbHost string, adbPort int) {
	addr, err := device.ServerAddr(adbHost, adbPort)
	if err != nil {
		return
	}
	cl, err := device.Connect(ctx, addr, device.Options{NoStartServer: true})
	if err != nil {
		return
	}
	told := map[string]bool{}
	for u := range device.Watch(ctx, cl, device.DefaultWatchInterval) {
		for _, d := range u.Devices {
			if d.Online() && !told[d.Serial] {
				told[d.Serial] = true
				prog.Send(ui.FlashMsg{Level: ui.FlashInfo, Text: fmt.Sprintf("device %s (%s) connected: press d to read it", d.Serial, d.Model)})
			}
		}
	}
}
