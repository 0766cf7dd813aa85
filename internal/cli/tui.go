package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
)

// feed runs one source at a time into the runner's input; switching stops the old source,
// clears the statistics and starts the new one.
type feed struct {
	ctx    context.Context
	in     chan []source.Event
	runner *metrics.Runner
	log    func(msg string, args ...any)

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func newFeed(ctx context.Context, runner *metrics.Runner, log func(string, ...any)) *feed {
	return &feed{ctx: ctx, in: make(chan []source.Event, 64), runner: runner, log: log}
}

// start stops the current source (if any), resets the pipeline when reset, and runs src.
func (f *feed) start(src source.Source, reset bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancel != nil {
		f.cancel()
		<-f.done
	}
	if reset {
		f.runner.Do(f.ctx, func(p *metrics.Pipeline) { p.Reset() })
	}
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	f.cancel, f.done = cancel, done
	go func() {
		defer close(done)
		// Each source writes into a channel of its own that is forwarded, so a stopped
		// source's last batches are dropped instead of mixing with the next source's.
		ch := make(chan []source.Event, 16)
		go func() {
			for b := range ch {
				select {
				case f.in <- b:
				case <-ctx.Done():
				}
			}
		}()
		err := src.Run(ctx, ch)
		close(ch)
		if err != nil && !errors.Is(err, context.Canceled) {
			f.log("source stopped", "err", err)
			select {
			case f.in <- []source.Event{&source.Notice{Level: source.LevelErr, State: source.StateEnded, Text: oneSentence(err)}}:
			case <-ctx.Done():
			}
			return
		}
		if ctx.Err() == nil {
			select {
			case f.in <- []source.Event{&source.Notice{Level: source.LevelInfo, State: source.StateEnded, Text: "input ended"}}:
			case <-ctx.Done():
			}
		}
	}()
}

func (f *feed) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancel != nil {
		f.cancel()
		<-f.done
		f.cancel = nil
	}
}

// dashboard runs the live screen.
func (a *app) dashboard(ctx context.Context) error {
	if !a.env.StdoutIsTerminal {
		return usageErr("the dashboard needs a terminal: use --headless (with --json) in scripts and CI")
	}
	op, err := a.openSource(ctx, false)
	if err != nil {
		return err
	}
	return a.runScreen(ctx, op, nil)
}

// runScreen shows the dashboard for op (replay: with its controls).
func (a *app) runScreen(ctx context.Context, op *opened, replay ui.ReplayControl) error {
	if _, err := themes.SetupColor(a.opts.Color); err != nil {
		return usageErr("%v", err)
	}
	theme, err := a.resolveTheme(a.opts.Theme)
	if err != nil {
		return usageErr("%v", err)
	}
	// Ask the terminal for its background only when the theme needs it, and before the program
	// owns stdin (lipgloss #73: the reply would race Bubble Tea's input reader).
	light := theme.Background == themes.BackgroundLight ||
		theme.Background == themes.BackgroundAuto && !lipgloss.HasDarkBackground()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := metrics.NewPipeline(a.cfg())
	runner := metrics.NewRunner(p, a.opts.Refresh)
	fd := newFeed(ctx, runner, a.log.Info)
	runDone := make(chan struct{})
	go func() { _ = runner.Run(ctx, fd.in); close(runDone) }()
	fd.start(op.src, false)
	stopExports, err := a.startExports(ctx, latestFeed(runner))
	if err != nil {
		fd.stop()
		return err
	}
	defer func() { _ = stopExports() }()

	var recMu sync.Mutex
	var rec *recording
	startRec := func(path string) (string, error) {
		recMu.Lock()
		defer recMu.Unlock()
		if rec != nil {
			return rec.path, nil
		}
		snap := runner.Latest()
		if path == "" {
			path = filepath.Join(a.opts.RecordDir, record.DefaultName(snap.Session.Package, time.Now()))
		}
		r, err := a.startRecording(path)
		if err != nil {
			return "", err
		}
		sess := snap.Session
		r.session = &sess
		if err := r.open(); err != nil {
			return "", err
		}
		if !runner.Do(ctx, func(*metrics.Pipeline) { runner.SetTap(r.tap) }) {
			return "", errors.New("the pipeline has stopped")
		}
		rec = r
		return path, nil
	}
	stopRec := func() (string, error) {
		recMu.Lock()
		defer recMu.Unlock()
		if rec == nil {
			return "", nil
		}
		runner.Do(ctx, func(*metrics.Pipeline) { runner.SetTap(nil) })
		path, err := rec.path, rec.close()
		rec = nil
		return path, err
	}
	if a.opts.Record != "" {
		if _, err := startRec(a.opts.Record); err != nil {
			fd.stop()
			return err
		}
	}

	opts := ui.Options{
		Theme: theme, LightBackground: light, TargetFPS: a.opts.TargetFPS, Refresh: a.opts.Refresh,
		Snapshots: runner.Latest,
		OnClear:   func() { runner.Do(ctx, func(p *metrics.Pipeline) { p.Reset() }) },
		OnRecord: func(start bool) (string, error) {
			if start {
				return startRec("")
			}
			return stopRec()
		},
		Recording: func() (bool, string, time.Time, error) {
			recMu.Lock()
			defer recMu.Unlock()
			if rec == nil {
				return false, "", time.Time{}, nil
			}
			path, since, err := rec.status()
			return true, path, since, err
		},
		Replay:     replay,
		Note:       op.note,
		PickDevice: op.pick,
	}
	if replay == nil && a.opts.Input == "" {
		opts.Devices = a.listDevices
		opts.Apps = a.listApps
		opts.OnPick = func(serial, pkg string) tea.Cmd {
			return func() tea.Msg {
				pctx, pcancel := context.WithTimeout(ctx, 15*time.Second)
				defer pcancel()
				a.opts.Serial, a.opts.Package = serial, pkg
				nop, err := a.deviceSource(pctx, deviceKind(a.opts.Source), false)
				if err != nil {
					return ui.FlashMsg{Level: ui.FlashErr, Text: oneSentence(err)}
				}
				fd.start(nop.src, true)
				return ui.FlashMsg{Level: ui.FlashInfo, Text: fmt.Sprintf("now reading %s on %s", a.opts.Package, serial)}
			}
		}
	}
	progOpts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(a.env.Stdin), tea.WithOutput(a.env.Stdout)}
	if !a.opts.NoMouse {
		progOpts = append(progOpts, tea.WithMouseCellMotion())
	}
	prog := tea.NewProgram(ui.New(opts), progOpts...)
	if op.fallback {
		go a.announceDevices(ctx, prog)
	}
	_, runErr := prog.Run()
	fd.stop()
	if _, err := stopRec(); err != nil {
		fmt.Fprintf(a.env.Stderr, "fpstop: recording: %s\n", oneSentence(err))
	}
	cancel()
	<-runDone
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) {
		return runtimeErr(runErr)
	}
	return nil
}

func deviceKind(s string) string {
	switch s {
	case "logcat", "gfxinfo+logcat":
		return s
	}
	return "gfxinfo"
}

// resolveTheme finds a built-in theme, a theme file path, or a user theme in the config
// directory's themes/ folder.
func (a *app) resolveTheme(name string) (themes.Theme, error) {
	t, err := themes.Resolve(name)
	if err == nil {
		return t, nil
	}
	if dir := a.userThemeDir(); dir != "" {
		if ut, uerr := themes.Load(filepath.Join(dir, name+".yaml")); uerr == nil {
			return ut, nil
		}
	}
	return themes.Theme{}, err
}

// listDevices feeds the device picker.
func (a *app) listDevices(ctx context.Context) ([]ui.DeviceItem, error) {
	cl, err := a.adbClient(ctx)
	if err != nil {
		return nil, err
	}
	infos, err := cl.Devices(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ui.DeviceItem, 0, len(infos))
	for _, in := range infos {
		out = append(out, ui.DeviceItem{Serial: in.Serial, Model: in.Model, Android: in.Android, State: in.State})
	}
	return out, nil
}

// listApps feeds the app picker: third-party packages, the foreground app first.
func (a *app) listApps(ctx context.Context, serial string) ([]ui.AppItem, error) {
	cl, err := a.adbClient(ctx)
	if err != nil {
		return nil, err
	}
	pkgs, err := cl.Packages(ctx, serial)
	if err != nil {
		return nil, err
	}
	fg, _, _ := cl.ForegroundApp(ctx, serial)
	sort.Strings(pkgs)
	out := make([]ui.AppItem, 0, len(pkgs)+1)
	if fg != "" {
		out = append(out, ui.AppItem{Package: fg, Foreground: true, Running: true})
	}
	for _, p := range pkgs {
		if p != fg && device.ValidPackage(p) == nil {
			out = append(out, ui.AppItem{Package: p})
		}
	}
	return out, nil
}

// announceDevices watches the adb server while the simulator stands in for a missing device,
// and says when a usable device appears (hot-plug), so the user can pick it with d.
func (a *app) announceDevices(ctx context.Context, prog *tea.Program) {
	addr, err := device.ServerAddr(a.opts.AdbHost, a.opts.AdbPort)
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
