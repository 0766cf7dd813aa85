package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/session"
)

// labWatchPeriod is how often a multi-device run asks the adb server which devices are there.
const labWatchPeriod = 2 * time.Second

// lab is a multi-device run: one source and pipeline per device, each on its own goroutine.
type lab struct {
	a     *app
	cl    *device.Client
	kind  string
	start time.Time

	mu      sync.Mutex
	devices []*labDevice
	wg      sync.WaitGroup
	// notify shows a notice line: stderr when headless, the overview's notice line on screen.
	notify func(line string)
}

// labDevice is one device of a lab run: its own session (source and pipeline).
type labDevice struct {
	serial    string
	model     string
	kind      string // the source kind reports and exports name ("" : the session's)
	sess      *session.Session
	connected atomic.Bool
	done      chan struct{} // closed once its source ended and the session is closed
	err       error
	wallNs    int64

	mu      sync.Mutex
	notices []string
}

// notice tells of a device event: on stderr now (headless has no screen) and in its report.
func (l *lab) notice(d *labDevice, format string, args ...any) {
	msg := fmt.Sprintf("%+.1fs: ", time.Since(l.start).Seconds()) + fmt.Sprintf(format, args...)
	d.mu.Lock()
	d.notices = append(d.notices, msg)
	d.mu.Unlock()
	l.notify(fmt.Sprintf("fpstop: device %s: %s", d.serial, msg))
	l.a.log.Info("device", "serial", d.serial, "notice", msg)
}

// labContext is the run's context: it ends at --duration (when given) or when cancelled.
func (a *app) labContext(ctx context.Context) (context.Context, context.CancelFunc) {
	runCtx, cancel := context.WithCancel(ctx)
	if a.opts.Duration <= 0 {
		return runCtx, cancel
	}
	runCtx, cancelT := context.WithTimeout(runCtx, a.opts.Duration)
	return runCtx, func() { cancelT(); cancel() }
}

// startLab finds the devices to start with and starts measuring each under runCtx. On error
// it stops what it started (cancelRun) and waits for it.
func (a *app) startLab(ctx, runCtx context.Context, cancelRun context.CancelFunc) (*lab, error) {
	cl, err := a.adbClient(ctx)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	infos, err := cl.Devices(lctx)
	cancel()
	if err != nil {
		return nil, runtimeErr(err)
	}
	initial, err := a.initialDevices(infos)
	if err != nil {
		return nil, err
	}
	l := &lab{a: a, cl: cl, kind: a.opts.Source, start: time.Now()}
	l.notify = func(line string) { fmt.Fprintln(a.env.Stderr, line) }
	for _, in := range initial {
		if err := l.add(runCtx, in); err != nil {
			if a.opts.AllDevices {
				fmt.Fprintf(a.env.Stderr, "fpstop: %s (skipped)\n", oneSentence(err))
				continue
			}
			cancelRun()
			l.wg.Wait()
			return nil, err
		}
	}
	if len(l.list()) == 0 {
		return nil, runtimeErr(errors.New("no device could be measured"))
	}
	return l, nil
}

// headlessMulti measures several devices at once (--all-devices, or -s A -s B) and prints
// {"devices": [report…], "summary": {…}}.
func (a *app) headlessMulti(ctx context.Context) error {
	r, err := a.startLabRun(ctx)
	if err != nil {
		return err
	}
	r.follow()
	<-r.ctx.Done()
	a.exportErr(r.stop())
	return a.labReport(r.lab, r.exports)
}

// labRun is a multi-device run under way, as the headless report and the overview both run it:
// the lab, the run's context and the exports fed from it.
type labRun struct {
	*lab
	ctx       context.Context // ends at --duration (when given) or at stop
	cancel    context.CancelFunc
	exports   *exports
	watchDone chan struct{}
}

// startLabRun starts measuring the devices to start with, then the exports. On error nothing
// it started is left running.
func (a *app) startLabRun(ctx context.Context) (*labRun, error) {
	runCtx, cancelRun := a.labContext(ctx)
	l, err := a.startLab(ctx, runCtx, cancelRun)
	if err != nil {
		cancelRun()
		return nil, err
	}
	exp, err := a.startExports(ctx, l.feed)
	if err != nil {
		cancelRun()
		l.wg.Wait()
		return nil, err
	}
	return &labRun{lab: l, ctx: runCtx, cancel: cancelRun, exports: exp, watchDone: make(chan struct{})}, nil
}

// follow starts watching the adb server's device list until the run ends. It is apart from
// startLabRun because the watch tells of devices through notify, which the overview can only
// point at its screen once the program exists.
func (r *labRun) follow() {
	go func() { r.watch(r.ctx); close(r.watchDone) }()
}

// stop ends the run and waits for the watch (follow must have been called) and every device's
// session; it returns the exports' error, once they are stopped.
func (r *labRun) stop() error {
	r.cancel()
	<-r.watchDone
	r.wg.Wait()
	return r.exports.Stop()
}

// initialDevices are the devices to start with: every online one (--all-devices), or each
// device named with -s, which must be there and online (exit 3 otherwise, as for one device).
func (a *app) initialDevices(infos []device.Info) ([]device.Info, error) {
	if !a.opts.AllDevices {
		var out []device.Info
		for _, s := range a.opts.serials {
			in, err := device.Select(infos, s)
			if err != nil {
				return nil, runtimeErr(err)
			}
			out = append(out, in)
		}
		return out, nil
	}
	var out []device.Info
	for _, in := range infos {
		if in.Online() {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Serial < out[j].Serial })
	if len(out) == 0 {
		_, err := device.Select(infos, "") // its error says why (none, unauthorized, offline)
		if err == nil {
			err = device.ErrNoDevice
		}
		return nil, runtimeErr(err)
	}
	return out, nil
}

// add starts measuring a device until ctx ends.
func (l *lab) add(ctx context.Context, in device.Info) error {
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	t, err := l.a.completeTarget(tctx, l.cl, in, l.a.opts.packageFor(in.Serial))
	cancel()
	if err != nil {
		return fmt.Errorf("device %s: %w", in.Serial, err)
	}
	kind := l.kind
	if kind == "auto" && l.a.logsLooper(ctx, t) {
		kind = "gfxinfo+logcat" // the app prints Looper lines: read them, as a single-device run does
	}
	src, kind := l.a.sourceFor(t, kind)
	d := &labDevice{serial: in.Serial, model: in.Model, kind: kind, done: make(chan struct{})}
	d.connected.Store(true)
	start := time.Now()
	d.sess = session.Start(ctx, l.a.sessionConfig(false), src, nil)
	l.mu.Lock()
	l.devices = append(l.devices, d)
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(d.done)
		d.err = d.sess.Wait()
		d.wallNs = int64(time.Since(start))
		_ = d.sess.Close() // no recording: nothing to report; the final snapshot is published
	}()
	l.a.log.Info("lab device", "serial", in.Serial, "model", in.Model, "package", t.pkg)
	return nil
}

func (l *lab) list() []*labDevice {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*labDevice(nil), l.devices...)
}

func (l *lab) find(serial string) *labDevice {
	for _, d := range l.list() {
		if d.serial == serial {
			return d
		}
	}
	return nil
}

// feed is what the exports see: every device's newest Snapshot.
func (l *lab) feed() []export.Device {
	var out []export.Device
	for _, d := range l.list() {
		out = append(out, export.Device{Snap: d.sess.Latest(), Source: d.kind, Connected: d.connected.Load()})
	}
	return out
}

// watch follows the adb server's device list: a device gone or offline is marked disconnected
// (its source keeps retrying and resumes if it comes back), and with --all-devices a device
// plugged in during the run is picked up.
func (l *lab) watch(ctx context.Context) {
	t := time.NewTicker(labWatchPeriod)
	defer t.Stop()
	told := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		infos, err := l.cl.Devices(qctx)
		cancel()
		if err != nil {
			l.a.log.Warn("device list", "err", err)
			continue
		}
		l.update(ctx, infos, told)
	}
}

func (l *lab) update(ctx context.Context, infos []device.Info, told map[string]bool) {
	online := map[string]device.Info{}
	for _, in := range infos {
		if in.Online() {
			online[in.Serial] = in
		}
	}
	for _, d := range l.list() {
		_, on := online[d.serial]
		if was := d.connected.Swap(on); was && !on {
			l.notice(d, "disconnected (unplugged or offline); its numbers so far are kept")
		} else if !was && on {
			l.notice(d, "connected again: measuring resumes")
		}
	}
	if !l.a.opts.AllDevices || ctx.Err() != nil {
		return
	}
	serials := make([]string, 0, len(online))
	for s := range online {
		serials = append(serials, s)
	}
	sort.Strings(serials)
	for _, s := range serials {
		if l.find(s) != nil || told[s] {
			continue
		}
		if err := l.add(ctx, online[s]); err != nil {
			told[s] = true
			l.notify(fmt.Sprintf("fpstop: %s (not measured)", oneSentence(err)))
			continue
		}
		l.notice(l.find(s), "new device (%s): measuring", online[s].Model)
	}
}
