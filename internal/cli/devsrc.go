package cli

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
	"github.com/fpstop/fpstop/source/logcat"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

// adbClient connects to the adb server the flags and environment name.
func (a *app) adbClient(ctx context.Context) (*device.Client, error) {
	addr, err := device.ServerAddr(a.opts.AdbHost, a.opts.AdbPort)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	cl, err := device.Connect(ctx, addr, device.Options{})
	if err != nil {
		return nil, runtimeErr(err)
	}
	if cl.StartedServer() {
		a.startedAdb(cl)
	}
	return cl, nil
}

// startedAdb remembers an adb server fpstop started (none was running): when fpstop exits it
// stops it and says so on stderr (not at once: the dashboard may be on screen).
func (a *app) startedAdb(cl *device.Client) {
	a.closers = append(a.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := cl.KillServer(ctx); err != nil {
			fmt.Fprintf(a.env.Stderr, "fpstop: started an adb server at %s (none was running) but could not stop it: %v\n", cl.Addr(), err)
			return err
		}
		fmt.Fprintf(a.env.Stderr, "fpstop: started an adb server at %s (none was running) and stopped it on exit\n", cl.Addr())
		return nil
	})
}

// target is the device and app a device source reads.
type target struct {
	client  *device.Client
	info    device.Info
	pkg     string
	refresh float64
}

// resolveTargetFor finds the device (serial, else $ANDROID_SERIAL, else the only one) and the
// app (pkg, else the foreground app), and reads the refresh rate. The dashboard's pickers pass
// their choice here; the flags' choice comes through deviceSource.
func (a *app) resolveTargetFor(ctx context.Context, serial, pkg string) (*target, error) {
	cl, err := a.adbClient(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	infos, err := cl.Devices(cctx)
	if err != nil {
		return nil, runtimeErr(err)
	}
	info, err := device.Select(infos, device.DefaultSerial(serial))
	if err != nil {
		return nil, runtimeErr(err)
	}
	return a.completeTarget(cctx, cl, info, pkg)
}

// completeTarget finds the app on info's device (pkg, else its -p SERIAL=PKG, else the
// foreground app) and reads the device's refresh rate.
func (a *app) completeTarget(ctx context.Context, cl *device.Client, info device.Info, pkg string) (*target, error) {
	if pkg == "" {
		pkg = a.opts.pkgBySerial[info.Serial]
	}
	if pkg != "" {
		if err := device.ValidPackage(pkg); err != nil {
			return nil, usageErr("%v", err)
		}
	} else {
		fg, _, err := cl.ForegroundApp(ctx, info.Serial)
		if err != nil {
			return nil, runtimeErr(fmt.Errorf("no --package given and the foreground app could not be found: %w", err))
		}
		if err := device.ValidPackage(fg); err != nil {
			return nil, runtimeErr(fmt.Errorf("foreground app %q: %w", fg, err))
		}
		pkg = fg
	}
	hz, err := cl.RefreshRate(ctx, info.Serial)
	if err != nil {
		a.log.Warn("refresh rate unknown", "err", err)
		hz = 0
	}
	return &target{client: cl, info: info, pkg: pkg, refresh: hz}, nil
}

// dev is the device as the sources' Dumper and Streamer.
func (t *target) dev() device.Target { return device.Target{Client: t.client, Serial: t.info.Serial} }

func (t *target) sessionDevice() source.Device {
	return source.Device{Serial: t.info.Serial, Model: t.info.Model, Android: t.info.Android, SDK: t.info.SDK}
}

// deviceSource opens a device source of the given kind for the flags' device and app.
func (a *app) deviceSource(ctx context.Context, kind string, headless bool) (*opened, error) {
	op, err := a.deviceSourceFor(ctx, kind, a.opts.Serial, a.opts.Package)
	if err == nil && kind == "auto" && op.note == "" && !headless {
		op.note = perfettoHint(op.device)
	}
	return op, err
}

// deviceSourceFor opens a device source of the given kind for serial and pkg ("" = the
// defaults, as resolveTargetFor says).
func (a *app) deviceSourceFor(ctx context.Context, kind, serial, pkg string) (*opened, error) {
	t, err := a.resolveTargetFor(ctx, serial, pkg)
	if err != nil {
		return nil, err
	}
	if a.opts.SetSlowThreshold > 0 {
		if err := a.setSlowThreshold(ctx, t); err != nil {
			return nil, err
		}
	}
	if kind == "perfetto" {
		return a.perfettoSource(ctx, t)
	}
	note := ""
	if kind == "auto" && a.logsLooper(ctx, t) {
		// still auto: the windows through gfxinfo+logcat, its SurfaceView layer when that draws
		kind = "auto+logcat"
		note = t.pkg + " logs its Looper messages: reading gfxinfo+logcat, which names the messages behind janky frames (and its SurfaceView layer through SurfaceFlinger when that is what draws)"
	}
	src, k := a.sourceFor(t, kind)
	return &opened{src: src, kind: k, live: true, note: note,
		device: source.Session{Device: t.sessionDevice(), Package: t.pkg}}, nil
}

// logsLooper reads what the app logged recently (logcat -d of its pid) and reports whether it
// prints Looper lines (printer or slow-dispatch ones). Any failure (app not running, an old
// logcat, a slow device) means no: auto then stays on gfxinfo.
func (a *app) logsLooper(ctx context.Context, t *target) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	pid, err := t.client.Pidof(ctx, t.info.Serial, t.pkg)
	if err != nil {
		a.log.Info("looper probe: no pid", "pkg", t.pkg, "err", err)
		return false
	}
	out, err := t.client.LogcatDump(ctx, t.info.Serial, logcat.ProbeArgs(strconv.Itoa(pid)))
	if err != nil {
		a.log.Info("looper probe: logcat failed", "err", err)
		return false
	}
	found := logcat.LogsLooper(out)
	a.log.Info("looper probe", "pkg", t.pkg, "pid", pid, "bytes", len(out), "looper_lines", found)
	return found
}

// sourceFor is the source of the given kind reading target t, and the kind the report names
// ("" for auto: the source the session ends up with).
func (a *app) sourceFor(t *target, kind string) (source.Source, string) {
	var pre []source.Event
	if t.refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.refresh})
	}
	// watch: auto measures the layer, so the windows' poller keeps probing them promptly
	watch := new(atomic.Bool)
	gfx := func() source.Source {
		return gfxinfo.NewPoller(t.dev(), gfxinfo.PollerConfig{
			Package: t.pkg, Interval: a.opts.Interval, Reset: a.opts.Reset, KeepRaw: a.opts.RecordRaw,
			Device: t.sessionDevice(), Watch: watch,
		})
	}
	sf := func() *surfaceflinger.Poller {
		return surfaceflinger.NewPoller(t.dev(), surfaceflinger.Config{Package: t.pkg, Layer: a.opts.Layer,
			Interval: a.opts.Interval, KeepRaw: a.opts.RecordRaw, Device: t.sessionDevice()})
	}
	switch kind {
	case "auto", "auto+gfxinfo": // auto+gfxinfo: auto that does not probe the Looper (fpstop test)
		// kind "": the report names the session's source, its layers[] what was measured
		return source.Prefixed(pre, &surfaceflinger.Auto{Gfx: gfx(), SF: sf(), Watch: watch}), ""
	case "auto+logcat":
		merged := source.Merged(source.KindGfxinfoLogcat, gfx(), a.logcatLive(t))
		return source.Prefixed(pre, &surfaceflinger.Auto{Gfx: merged, SF: sf(), Watch: watch}), ""
	case "surfaceflinger":
		return source.Prefixed(pre, sf()), kind
	case "gfxinfo":
		return source.Prefixed(pre, gfx()), kind
	case "logcat":
		return source.Prefixed(pre, a.logcatLive(t)), kind
	default: // gfxinfo+logcat
		return source.Prefixed(pre, a.gfxinfoLogcat(t)), kind
	}
}

// gfxinfoLogcat is gfxinfo and logcat together, each steering the other so the phone is asked
// less: the logcat stream's vsync messages wake the gfxinfo poller when the idle app draws
// again (and before its ring fills), and the pid the dumps print spares the logcat side its
// own pidof every few seconds.
func (a *app) gfxinfoLogcat(t *target) source.Source {
	drawn := make(chan int, 64)
	pid := &knownPid{lookup: t.dev().Pid(t.pkg)}
	gfx := gfxinfo.NewPoller(t.dev(), gfxinfo.PollerConfig{
		Package: t.pkg, Interval: a.opts.Interval, Reset: a.opts.Reset, KeepRaw: a.opts.RecordRaw,
		Device: t.sessionDevice(), Drawn: drawn,
	})
	lc := logcat.NewLive(t.dev(), logcat.LiveOptions{Package: t.pkg, Device: t.sessionDevice(), Pid: pid.get, Raw: a.opts.RecordRaw})
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
func (a *app) setSlowThreshold(ctx context.Context, t *target) error {
	uid, err := t.client.UID(ctx, t.info.Serial, t.pkg)
	if err != nil {
		return runtimeErr(fmt.Errorf("--set-slow-threshold: the uid of %s: %w", t.pkg, err))
	}
	key := fmt.Sprintf("log.looper.%d.main.slow", uid)
	if err := t.client.SetProp(ctx, t.info.Serial, key, fmt.Sprint(a.opts.SetSlowThreshold)); err != nil {
		return runtimeErr(fmt.Errorf("--set-slow-threshold: %w", err))
	}
	a.log.Info("setprop", "key", key, "ms", a.opts.SetSlowThreshold)
	return nil
}

// logcatLive follows the app's logcat on the device (Looper printer lines, Choreographer and
// Looper warnings), following its pid across restarts.
func (a *app) logcatLive(t *target) source.Source {
	d := t.dev()
	return logcat.NewLive(d, logcat.LiveOptions{Package: t.pkg, Device: t.sessionDevice(), Pid: d.Pid(t.pkg), Raw: a.opts.RecordRaw})
}

// layerSource is the SurfaceFlinger source fixed on one layer of serial's pkg (the layer
// picker's choice; the name came from the device, so it is checked again here).
func (a *app) layerSource(ctx context.Context, serial, pkg, layer string) (*opened, error) {
	if err := device.ValidLayerName(layer); err != nil {
		return nil, err
	}
	t, err := a.resolveTargetFor(ctx, serial, pkg)
	if err != nil {
		return nil, err
	}
	var pre []source.Event
	if t.refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.refresh})
	}
	sf := surfaceflinger.NewPoller(t.dev(), surfaceflinger.Config{Package: t.pkg, Layer: layer,
		Interval: a.opts.Interval, KeepRaw: a.opts.RecordRaw, Device: t.sessionDevice()})
	return &opened{src: source.Prefixed(pre, sf), kind: "surfaceflinger", live: true}, nil
}
