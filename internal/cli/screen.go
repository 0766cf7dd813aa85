package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
)

// sessionConfig is how the flags run a session (screen: announce a source's end on screen).
func (a *app) sessionConfig(screen bool) session.Config {
	return session.Config{
		Metrics: a.opts.metricsConfig(), Refresh: a.opts.Refresh, AnnounceEnd: screen, Log: a.log.Info, ErrorText: oneSentence,
		Recording: session.RecordOptions{Dir: a.opts.RecordDir, Force: a.opts.Force,
			Raw: a.opts.RecordRaw, Version: a.env.Build.Version},
	}
}

// recordingErr is a recording that cannot start: a name clash is a usage error.
func recordingErr(err error) error { return exit.RecordingErr(err) }

// screenSession is the session as the dashboard's ui.Session and ui.Recorder.
type screenSession struct{ s *session.Session }

func (s screenSession) Latest() *metrics.Snapshot { return s.s.Latest() }
func (s screenSession) Clear()                    { s.s.Clear() }
func (s screenSession) StartRecording() (string, error) {
	p, err := s.s.StartRecording("")
	if abs, aerr := filepath.Abs(p); err == nil && aerr == nil {
		p = abs // the notice line names the full path
	}
	return p, err
}
func (s screenSession) StopRecording() (string, error) { return s.s.StopRecording() }

// LastSaved is the recording saved last in one line, its full path first (the notice line
// shows it; the same lines are printed after the screen closes).
func (s screenSession) LastSaved() string {
	v := s.s.SavedRecordings()
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1].String()
}
func (s screenSession) RecordingStatus() ui.RecordingStatus {
	st := s.s.RecordingStatus()
	return ui.RecordingStatus{Active: st.Active, Path: st.Path, Since: st.Since, Err: st.Err}
}

// deviceScreen is a session reading a device: also a ui.DeviceSwitcher, ui.LayerSwitcher and
// ui.SourceSwitcher.
type deviceScreen struct {
	screenSession
	a    *app
	ctx  context.Context // the dashboard's: the sources it starts stop with it
	kind string          // the --source the device runs as
	src  sourceState     // what `P` switches to
}

// Devices feeds the device picker.
func (d *deviceScreen) Devices(ctx context.Context) ([]ui.DeviceItem, error) {
	cl, err := d.a.devices().Client(ctx)
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

// Apps feeds the app picker: third-party packages, the foreground app first.
func (d *deviceScreen) Apps(ctx context.Context, serial string) ([]ui.AppItem, error) {
	cl, err := d.a.devices().Client(ctx)
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

// show runs op in place of the current source: its phone on screen at once, "connecting" until
// its source says what it reads, with its own Looper probe and Perfetto offer.
func (d *deviceScreen) show(op *opened) error {
	if err := d.s.SwitchDevice(d.ctx, op.src, op.device, connectingText(op)); err != nil {
		return err
	}
	d.a.probes.cur.Store(op.probe)
	d.setOffer(perfettoOffer(op))
	return nil
}

// Switch opens the picked device and app (the flags are not touched: this runs in a Bubble
// Tea command's goroutine) and runs it in place of the current source.
func (d *deviceScreen) Switch(ctx context.Context, serial, pkg string) (string, error) {
	d.src.busy.Lock()
	defer d.src.busy.Unlock()
	dop, err := d.a.devices().Open(ctx, d.kind, serial, pkg)
	if err != nil && d.kind == "perfetto" {
		// the phone refused tracing: why, in the words the P switch uses (no device text)
		still := ""
		if s := d.s.Latest(); s != nil {
			still = string(s.Session.Source)
		}
		return "", errors.New(perfettoRefusal(err, still))
	}
	if err != nil {
		return "", errors.New(oneSentence(err))
	}
	op := deviceOpened(dop)
	if err := d.show(op); err != nil {
		return "", err
	}
	if pkg == "" {
		pkg = "the foreground app"
	}
	if op.note != "" {
		return fmt.Sprintf("%s on %s · %s", pkg, serial, op.note), nil
	}
	return fmt.Sprintf("%s on %s", pkg, serial), nil
}

// connectingText is the state line while a picked device's source starts: the phone by model
// and serial, and what auto is doing meanwhile.
func connectingText(op *opened) string {
	d := op.device.Device
	name := d.Serial
	if d.Model != "" {
		name = d.Model + " (" + d.Serial + ")"
	}
	text := "connecting to " + name
	if op.kind == "" { // auto
		text += " — choosing gfxinfo or SurfaceFlinger"
	}
	return text + "…"
}

// SwitchLayer measures another SurfaceFlinger layer of the app on screen (the layer picker):
// the SurfaceFlinger source restarts fixed on that layer, whatever --source was.
func (d *deviceScreen) SwitchLayer(ctx context.Context, layer string) (string, error) {
	s := d.s.Latest()
	if s == nil || s.Session.Package == "" {
		return "", errors.New("no app is being read yet")
	}
	op, err := d.a.devices().OpenLayer(ctx, s.Session.Device.Serial, s.Session.Package, layer)
	if err != nil {
		return "", errors.New(oneSentence(err))
	}
	dev := source.Session{Device: s.Session.Device, Package: s.Session.Package}
	if err := d.s.SwitchDevice(d.ctx, op.Src, dev, "measuring layer "+layer+"…"); err != nil {
		return "", err
	}
	d.a.probes.cur.Store(nil) // (the layer alone: no logcat to look for)
	return layer, nil
}

// The device screen steers devices, apps, SurfaceFlinger layers and the source (Perfetto).
var (
	_ ui.DeviceSwitcher = (*deviceScreen)(nil)
	_ ui.LayerSwitcher  = (*deviceScreen)(nil)
	_ ui.SourceSwitcher = (*deviceScreen)(nil)
)

// needTerminal refuses the dashboard and the overview when stdout is not a terminal: they would
// write escape codes into a pipe.
func needTerminal(env Env) error {
	if !env.StdoutIsTerminal {
		return usageErr("the dashboard needs a terminal: use --headless (with --json) in scripts and CI")
	}
	return nil
}

// screenOptions are what the dashboard and the overview share: the colour profile, the theme
// and the terminal's background. Call it before a program owns stdin (lipgloss #73: the reply
// to the background query would race Bubble Tea's input reader).
func (a *app) screenOptions() (ui.Options, error) {
	if _, err := themes.SetupColor(a.opts.Color); err != nil {
		return ui.Options{}, usageErr("%v", err)
	}
	theme, err := resolveTheme(a.opts.Theme, a.userThemeDir)
	if err != nil {
		return ui.Options{}, usageErr("%v", err)
	}
	// Always asked: `t` cycles only the themes that suit the terminal's background.
	light := !lipgloss.HasDarkBackground()
	return ui.Options{Theme: theme, LightBackground: light, TargetFPS: a.opts.TargetFPS, Refresh: a.opts.Refresh}, nil
}

// newProgram is the full-screen program for m: the alternate screen on env's stdin and stdout,
// mouse reports unless --no-mouse, ended with ctx.
func newProgram(ctx context.Context, m tea.Model, env Env, noMouse bool) *tea.Program {
	progOpts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(env.Stdin), tea.WithOutput(env.Stdout)}
	if !noMouse {
		progOpts = append(progOpts, tea.WithMouseCellMotion())
	}
	return tea.NewProgram(m, progOpts...)
}
