// Package devsource opens the sources that read a phone: it finds the device and the app,
// reads the refresh rate, probes whether the app logs its Looper messages, and builds the
// source of a kind (gfxinfo, logcat, both, SurfaceFlinger, Perfetto, or auto's choice between
// the app's windows and its SurfaceView layer). The single-device run, the dashboard's device
// and layer pickers, the multi-device lab and `fpstop test` all read a device through it.
package devsource

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
	"github.com/fpstop/fpstop/source/logcat"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

// Opener opens device sources as the flags configure them.
type Opener struct {
	AdbHost string // the adb server (default localhost, or $ADB_SERVER_SOCKET)
	AdbPort int
	// Interval is the pollers' period (0: adaptive); Reset sends gfxinfo reset with each poll;
	// KeepRaw keeps the source's raw text for the recording.
	Interval time.Duration
	Reset    bool
	KeepRaw  bool
	// Layer is --layer: the SurfaceFlinger layer to measure ("" : the app's presenting one).
	Layer string
	// SetSlowThreshold, when above 0, sets the app's Looper slow-dispatch threshold (ms).
	SetSlowThreshold int
	// PkgBySerial are the -p SERIAL=PKG choices.
	PkgBySerial map[string]string
	Log         *slog.Logger
	// StartedServer is told of an adb server this connection started (none was running).
	StartedServer func(*device.Client)
	// SayJoin, when set, is told when auto finds the app's Looper lines after the start (a
	// headless run says so on stderr, as it says the start's choice).
	SayJoin func(note string)
}

// Client connects to the adb server the flags and environment name.
func (o *Opener) Client(ctx context.Context) (*device.Client, error) {
	addr, err := device.ServerAddr(o.AdbHost, o.AdbPort)
	if err != nil {
		return nil, exit.Usagef("%v", err)
	}
	cl, err := device.Connect(ctx, addr, device.Options{})
	if err != nil {
		return nil, exit.RuntimeErr(err)
	}
	if cl.StartedServer() && o.StartedServer != nil {
		o.StartedServer(cl)
	}
	return cl, nil
}

// Target is the device and app a device source reads.
type Target struct {
	Client  *device.Client
	Info    device.Info
	Pkg     string
	Refresh float64 // the display's rate in Hz (0: unknown)
	// probe is what auto's looks for the app's Looper lines say (nil until auto looks);
	// probeErr is why the first look could not tell (nil: it found none)
	probe    *ProbeNote
	probeErr error
}

// Opened is a device source ready to run (its report's duration is the run's wall time).
type Opened struct {
	Src  source.Source
	Kind string // as the report names it ("" for auto: the session's source)
	// Note says why auto reads what it reads ("" when nothing to say).
	Note string
	// Device is the phone and app, known before the source says so.
	Device source.Session
	// Probe says what auto does about the app's Looper lines while it looks (nil: not looking).
	Probe *ProbeNote
	// PerfettoOffer: auto on Android 12+ with an app that does not log its Looper messages,
	// where Perfetto would name each janky frame's work; a dashboard offers it (a key), since
	// auto does not start tracing by itself.
	PerfettoOffer bool
}

// Target finds the device (serial, else $ANDROID_SERIAL, else the only one) and the
// app (pkg, else the foreground app), and reads the refresh rate.
func (o *Opener) Target(ctx context.Context, serial, pkg string) (*Target, error) {
	cl, err := o.Client(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	infos, err := cl.Devices(cctx)
	if err != nil {
		return nil, exit.RuntimeErr(err)
	}
	info, err := device.Select(infos, device.DefaultSerial(serial))
	if err != nil {
		return nil, exit.RuntimeErr(err)
	}
	return o.Complete(cctx, cl, info, pkg)
}

// Complete finds the app on info's device (pkg, else its -p SERIAL=PKG, else the
// foreground app) and reads the device's refresh rate.
func (o *Opener) Complete(ctx context.Context, cl *device.Client, info device.Info, pkg string) (*Target, error) {
	if pkg == "" {
		pkg = o.PkgBySerial[info.Serial]
	}
	if pkg != "" {
		if err := device.ValidPackage(pkg); err != nil {
			return nil, exit.Usagef("%v", err)
		}
	} else {
		fg, _, err := cl.ForegroundApp(ctx, info.Serial)
		if err != nil {
			return nil, exit.RuntimeErr(fmt.Errorf("no --package given and the foreground app could not be found: %w", err))
		}
		if err := device.ValidPackage(fg); err != nil {
			return nil, exit.RuntimeErr(fmt.Errorf("foreground app %q: %w", fg, err))
		}
		pkg = fg
	}
	hz, err := cl.RefreshRate(ctx, info.Serial)
	if err != nil {
		o.Log.Warn("refresh rate unknown", "err", err)
		hz = 0
	}
	return &Target{Client: cl, Info: info, Pkg: pkg, Refresh: hz}, nil
}

// dev is the device as the sources' Dumper and Streamer.
func (t *Target) dev() device.Target { return device.Target{Client: t.Client, Serial: t.Info.Serial} }

func (t *Target) sessionDevice() source.Device {
	return source.Device{Serial: t.Info.Serial, Model: t.Info.Model, Android: t.Info.Android, SDK: t.Info.SDK}
}

// Open opens a device source of the given kind for serial and pkg ("" = the defaults, as
// Target says).
func (o *Opener) Open(ctx context.Context, kind, serial, pkg string) (*Opened, error) {
	t, err := o.Target(ctx, serial, pkg)
	if err != nil {
		return nil, err
	}
	if o.SetSlowThreshold > 0 {
		if err := o.setSlowThreshold(ctx, t); err != nil {
			return nil, err
		}
	}
	if kind == "perfetto" {
		return o.perfetto(ctx, t)
	}
	note := ""
	if kind == "auto" {
		found, err := o.probeLooper(ctx, t, 1)
		if found {
			// still auto: the windows through gfxinfo+logcat, its SurfaceView layer when that draws
			kind = "auto+logcat"
			note = looperNote(t.Pkg)
		} else {
			// auto looks again while it runs, and says so
			t.probe, t.probeErr = &ProbeNote{pkg: t.Pkg}, err
		}
	}
	src, k := o.Source(t, kind)
	return &Opened{Src: src, Kind: k, Note: note, Probe: t.probe,
		Device:        source.Session{Device: t.sessionDevice(), Package: t.Pkg},
		PerfettoOffer: kind == "auto" && t.Info.SDK >= device.PerfettoMinSDK}, nil
}

// Source is the source of the given kind reading target t, and the kind the report names
// ("" for auto: the source the session ends up with).
func (o *Opener) Source(t *Target, kind string) (source.Source, string) {
	var pre []source.Event
	if t.Refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.Refresh})
	}
	// watch: auto measures the layer, so the windows' poller keeps probing them promptly
	watch := new(atomic.Bool)
	gfx := func() source.Source {
		return gfxinfo.NewPoller(t.dev(), gfxinfo.PollerConfig{
			Package: t.Pkg, Interval: o.Interval, Reset: o.Reset, KeepRaw: o.KeepRaw,
			Device: t.sessionDevice(), Watch: watch,
		})
	}
	sf := func() *surfaceflinger.Poller {
		return surfaceflinger.NewPoller(t.dev(), surfaceflinger.Config{Package: t.Pkg, Layer: o.Layer,
			Interval: o.Interval, KeepRaw: o.KeepRaw, Device: t.sessionDevice()})
	}
	switch kind {
	case "auto": // the first look found no Looper lines: the windows' source looks again
		// kind "": the report names the session's source, its layers[] what was measured
		win := o.looperJoining(t, gfx())
		return source.Prefixed(pre, &surfaceflinger.Auto{Gfx: win, SF: sf(), Watch: watch}), ""
	case "auto+gfxinfo": // auto that does not look for Looper lines (fpstop test's later iterations)
		return source.Prefixed(pre, &surfaceflinger.Auto{Gfx: gfx(), SF: sf(), Watch: watch}), ""
	case "auto+logcat":
		merged := source.Merged(source.KindGfxinfoLogcat, gfx(), o.logcatLive(t))
		return source.Prefixed(pre, &surfaceflinger.Auto{Gfx: merged, SF: sf(), Watch: watch}), ""
	case "surfaceflinger":
		return source.Prefixed(pre, sf()), kind
	case "gfxinfo":
		return source.Prefixed(pre, gfx()), kind
	case "logcat":
		return source.Prefixed(pre, o.logcatLive(t)), kind
	default: // gfxinfo+logcat
		return source.Prefixed(pre, o.gfxinfoLogcat(t)), kind
	}
}

// gfxinfoLogcat is gfxinfo and logcat together, each steering the other so the phone is asked
// less: the logcat stream's vsync messages wake the gfxinfo poller when the idle app draws
// again (and before its ring fills), and the pid the dumps print spares the logcat side its
// own pidof every few seconds.
func (o *Opener) gfxinfoLogcat(t *Target) source.Source {
	drawn := make(chan int, 64)
	pid := &knownPid{lookup: t.dev().Pid(t.Pkg)}
	gfx := gfxinfo.NewPoller(t.dev(), gfxinfo.PollerConfig{
		Package: t.Pkg, Interval: o.Interval, Reset: o.Reset, KeepRaw: o.KeepRaw,
		Device: t.sessionDevice(), Drawn: drawn,
	})
	lc := logcat.NewLive(t.dev(), logcat.LiveOptions{Package: t.Pkg, Device: t.sessionDevice(), Pid: pid.get, Raw: o.KeepRaw})
	return source.Merged(source.KindGfxinfoLogcat,
		source.Tapped(gfx, pid.look),
		source.Tapped(lc, func(b []source.Event) {
			if n := source.VsyncFrames(b); n > 0 {
				select {
				case drawn <- n:
				default: // the poller is behind: it has been woken already
				}
			}
		}))
}

// knownPid is the app's pid as the gfxinfo dumps last printed it; pidof on the device only
// until a dump has told.
type knownPid struct {
	v      atomic.Int64
	lookup func(ctx context.Context) (int, error)
}

func (k *knownPid) get(ctx context.Context) (int, error) {
	if p := k.v.Load(); p > 0 {
		return int(p), nil
	}
	return k.lookup(ctx)
}

func (k *knownPid) look(b []source.Event) {
	for _, e := range b {
		// (the Session names the app's main process, at the start and on a restart; its other
		// processes' polls must not move the logcat stream)
		if x, ok := e.(*source.Session); ok && x.Pid > 0 {
			k.v.Store(int64(x.Pid))
		}
	}
}

// setSlowThreshold runs `setprop log.looper.<uid>.main.slow MS` (only with --set-slow-threshold).
func (o *Opener) setSlowThreshold(ctx context.Context, t *Target) error {
	uid, err := t.Client.UID(ctx, t.Info.Serial, t.Pkg)
	if err != nil {
		return exit.RuntimeErr(fmt.Errorf("--set-slow-threshold: the uid of %s: %w", t.Pkg, err))
	}
	key := fmt.Sprintf("log.looper.%d.main.slow", uid)
	if err := t.Client.SetProp(ctx, t.Info.Serial, key, fmt.Sprint(o.SetSlowThreshold)); err != nil {
		return exit.RuntimeErr(fmt.Errorf("--set-slow-threshold: %w", err))
	}
	o.Log.Info("setprop", "key", key, "ms", o.SetSlowThreshold)
	return nil
}

// logcatLive follows the app's logcat on the device (Looper printer lines, Choreographer and
// Looper warnings), following its pid across restarts.
func (o *Opener) logcatLive(t *Target) source.Source {
	d := t.dev()
	return logcat.NewLive(d, logcat.LiveOptions{Package: t.Pkg, Device: t.sessionDevice(), Pid: d.Pid(t.Pkg), Raw: o.KeepRaw})
}

// OpenLayer is the SurfaceFlinger source fixed on one layer of serial's pkg (the layer
// picker's choice; the name came from the device, so it is checked again here).
func (o *Opener) OpenLayer(ctx context.Context, serial, pkg, layer string) (*Opened, error) {
	if err := device.ValidLayerName(layer); err != nil {
		return nil, err
	}
	t, err := o.Target(ctx, serial, pkg)
	if err != nil {
		return nil, err
	}
	var pre []source.Event
	if t.Refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.Refresh})
	}
	sf := surfaceflinger.NewPoller(t.dev(), surfaceflinger.Config{Package: t.Pkg, Layer: layer,
		Interval: o.Interval, KeepRaw: o.KeepRaw, Device: t.sessionDevice()})
	return &Opened{Src: source.Prefixed(pre, sf), Kind: "surfaceflinger"}, nil
}

// perfetto opens --source perfetto: the first session is started here, so that a phone
// refusing it (Android 11 or older, tracing busy) ends fpstop at once with one line (exit 3)
// instead of a dashboard without frames.
func (o *Opener) perfetto(ctx context.Context, t *Target) (*Opened, error) {
	live := perfetto.NewLive(t.dev(), perfetto.LiveOptions{Package: t.Pkg, Device: t.sessionDevice(),
		KeepRaw: o.KeepRaw})
	if err := live.Start(ctx); err != nil {
		return nil, exit.RuntimeErr(fmt.Errorf("--source perfetto: %w", err))
	}
	var pre []source.Event
	if t.Refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.Refresh})
	}
	// An app that prints Looper lines gets its logcat read beside the trace (one stream, as
	// under gfxinfo+logcat): its messages join the sections behind each janky frame. Looked
	// for now and again while the trace runs, as auto does.
	var src source.Source
	note := ""
	if found, _ := o.probeLooper(ctx, t, 1); found {
		note = perfettoLooperNote(t.Pkg)
		src = source.Merged(source.KindPerfettoLogcat, live, o.logcatLive(t))
	} else {
		src = o.logcatJoining(t, live, source.KindPerfettoLogcat, perfettoLooperNote(t.Pkg), nil)
	}
	return &Opened{Src: source.Prefixed(pre, src), Kind: "perfetto", Note: note,
		Device: source.Session{Device: t.sessionDevice(), Package: t.Pkg}}, nil
}
