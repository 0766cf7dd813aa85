package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	return cl, nil
}

// target is the device and app a device source reads.
type target struct {
	client  *device.Client
	info    device.Info
	pkg     string
	refresh float64
}

// resolveTarget finds the device (serial flag, $ANDROID_SERIAL, or the only one) and the app
// (--package, else the foreground app), and reads the refresh rate.
func (a *app) resolveTarget(ctx context.Context) (*target, error) {
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
	info, err := device.Select(infos, device.DefaultSerial(a.opts.Serial))
	if err != nil {
		return nil, runtimeErr(err)
	}
	pkg := a.opts.Package
	if pkg != "" {
		if err := device.ValidPackage(pkg); err != nil {
			return nil, usageErr("%v", err)
		}
	} else {
		fg, _, err := cl.ForegroundApp(cctx, info.Serial)
		if err != nil {
			return nil, runtimeErr(fmt.Errorf("no --package given and the foreground app could not be found: %w", err))
		}
		if err := device.ValidPackage(fg); err != nil {
			return nil, runtimeErr(fmt.Errorf("foreground app %q: %w", fg, err))
		}
		pkg = fg
	}
	hz, err := cl.RefreshRate(cctx, info.Serial)
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

// deviceSource opens a device source of the given kind.
func (a *app) deviceSource(ctx context.Context, kind string, headless bool) (*opened, error) {
	t, err := a.resolveTarget(ctx)
	if err != nil {
		return nil, err
	}
	if a.opts.SetSlowThreshold > 0 {
		if err := a.setSlowThreshold(ctx, t); err != nil {
			return nil, err
		}
	}
	var pre []source.Event
	if t.refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.refresh})
	}
	gfx := func() source.Source {
		return gfxinfo.NewPoller(t.dev(), gfxinfo.PollerConfig{
			Package: t.pkg, Interval: a.opts.Interval, Reset: a.opts.Reset, KeepRaw: a.opts.RecordRaw,
			Device: t.sessionDevice(),
		})
	}
	sf := func() *surfaceflinger.Poller {
		return surfaceflinger.NewPoller(t.dev(), surfaceflinger.Config{Package: t.pkg, Layer: a.opts.Layer,
			Interval: a.opts.Interval, KeepRaw: a.opts.RecordRaw, Device: t.sessionDevice()})
	}
	switch kind {
	case "auto":
		// kind "": the report names the source the session ends up with
		return &opened{src: prefixed(pre, &surfaceflinger.Auto{Gfx: gfx(), SF: sf()}), live: true}, nil
	case "surfaceflinger":
		return &opened{src: prefixed(pre, sf()), kind: kind, live: true}, nil
	case "gfxinfo":
		return &opened{src: prefixed(pre, gfx()), kind: kind, live: true}, nil
	case "logcat":
		return &opened{src: prefixed(pre, a.logcatLive(t)), kind: kind, live: true}, nil
	default: // gfxinfo+logcat
		return &opened{src: prefixed(pre, merged(source.KindGfxinfoLogcat, gfx(), a.logcatLive(t))), kind: kind, live: true}, nil
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

// prefixedSource sends some events first, then runs the inner source.
type prefixedSource struct {
	pre   []source.Event
	inner source.Source
}

func prefixed(pre []source.Event, inner source.Source) source.Source {
	if len(pre) == 0 {
		return inner
	}
	return &prefixedSource{pre: pre, inner: inner}
}

func (p *prefixedSource) Run(ctx context.Context, out chan<- []source.Event) error {
	select {
	case out <- p.pre:
	case <-ctx.Done():
		return ctx.Err()
	}
	return p.inner.Run(ctx, out)
}

// mergedSource runs several sources at once into one stream (gfxinfo+logcat). Their Session
// events are rewritten to the combined kind with the frame cost basis.
type mergedSource struct {
	kind source.Kind
	srcs []source.Source
}

func merged(kind source.Kind, srcs ...source.Source) source.Source {
	return &mergedSource{kind: kind, srcs: srcs}
}

func (m *mergedSource) Run(ctx context.Context, out chan<- []source.Event) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(m.srcs))
	for i, s := range m.srcs {
		ch := make(chan []source.Event, 16)
		wg.Add(2)
		go func() {
			defer wg.Done()
			errs[i] = s.Run(ctx, ch)
			close(ch)
		}()
		go func() {
			defer wg.Done()
			for batch := range ch {
				for j, ev := range batch {
					if s, ok := ev.(*source.Session); ok {
						cp := *s
						cp.Source = m.kind
						cp.CostBasis = source.CostFrame
						batch[j] = &cp
					}
				}
				select {
				case out <- batch:
				case <-ctx.Done():
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return ctx.Err()
}

// logcatLive follows the app's logcat on the device (Looper printer lines, Choreographer and
// Looper warnings), following its pid across restarts.
func (a *app) logcatLive(t *target) source.Source {
	d := t.dev()
	return logcat.NewLive(d, logcat.LiveOptions{Package: t.pkg, Device: t.sessionDevice(), Pid: d.Pid(t.pkg), Raw: a.opts.RecordRaw})
}
