// Package lab is fpstop's multi-device run (--all-devices, or -s A -s B): one source and
// pipeline per device, a watch on the adb server's device list that marks devices gone and
// picks new ones up, the exports fed from every device, and the report with every device's
// numbers and a summary. The command line hands it what the flags say (Config); the overview
// screen runs it through Start.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/gate"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/source"
)

// Config is what a lab run is asked to do, from the flags.
type Config struct {
	// Client is the adb server's: the device list and its changes come from it.
	Client *device.Client
	// Kind is the --source every device runs as.
	Kind string
	// AllDevices measures every online device and picks up new ones; else Serials are measured.
	AllDevices bool
	Serials    []string
	// Duration ends the run (0: until the context ends).
	Duration time.Duration
	// Open starts reading one device as kind: its source, the kind its report names ("" for
	// auto: the session's) and the app it reads.
	Open func(ctx context.Context, in device.Info, kind string) (src source.Source, reported, pkg string, err error)
	// Session is how each device's session runs (no recording: a lab run records nothing).
	Session session.Config
	// StartExports starts the exports over the lab's feed.
	StartExports func(ctx context.Context, feed export.Feed) (Exports, error)
	Gates        gate.Gates
	JSON         bool   // print the report as JSON
	Version      string // fpstop's, for the reports
	Stdout       io.Writer
	Stderr       io.Writer
	Log          *slog.Logger
}

// Exports are the running exporters a lab run feeds (Prometheus, OTLP, the metrics file).
type Exports interface {
	// Stop writes the final numbers and shuts down; its error is said but does not change the
	// exit status.
	Stop() error
	// Warnings are the summary's lines for the exports that failed.
	Warnings() []string
	// Failed is the error of a run whose exports all failed.
	Failed() error
}

// labWatchPeriod is how often a multi-device run asks the adb server which devices are there.
const labWatchPeriod = 2 * time.Second

// lab is a multi-device run: one source and pipeline per device, each on its own goroutine.
type lab struct {
	cfg   *Config
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
	l.cfg.Log.Info("device", "serial", d.serial, "notice", msg)
}

// runContext is the run's context: it ends at --duration (when given) or when cancelled.
func (c *Config) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	runCtx, cancel := context.WithCancel(ctx)
	if c.Duration <= 0 {
		return runCtx, cancel
	}
	runCtx, cancelT := context.WithTimeout(runCtx, c.Duration)
	return runCtx, func() { cancelT(); cancel() }
}

// startLab finds the devices to start with and starts measuring each under runCtx. On error
// it stops what it started (cancelRun) and waits for it.
func (c *Config) startLab(ctx, runCtx context.Context, cancelRun context.CancelFunc) (*lab, error) {
	cl := c.Client
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	infos, err := cl.Devices(lctx)
	cancel()
	if err != nil {
		return nil, exit.RuntimeErr(err)
	}
	initial, err := c.initialDevices(infos)
	if err != nil {
		return nil, err
	}
	l := &lab{cfg: c, cl: cl, kind: c.Kind, start: time.Now()}
	l.notify = func(line string) { fmt.Fprintln(c.Stderr, line) }
	for _, in := range initial {
		if err := l.add(runCtx, in); err != nil {
			if c.AllDevices {
				fmt.Fprintf(c.Stderr, "fpstop: %s (skipped)\n", exit.Sentence(err))
				continue
			}
			cancelRun()
			l.wg.Wait()
			return nil, err
		}
	}
	if len(l.list()) == 0 {
		return nil, exit.RuntimeErr(errors.New("no device could be measured"))
	}
	return l, nil
}

// Headless measures several devices at once (--all-devices, or -s A -s B) until the run ends
// and prints {"devices": [report…], "summary": {…}}.
func Headless(ctx context.Context, cfg Config) error {
	r, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	r.Follow()
	<-r.ctx.Done()
	if err := r.Stop(); err != nil { // said; the report is what the run is for
		fmt.Fprintf(cfg.Stderr, "fpstop: %s\n", exit.Sentence(err))
	}
	return r.report(r.exports)
}

// Run is a multi-device run under way, as the headless report and the overview both run it:
// the lab, the run's context and the exports fed from it.
type Run struct {
	*lab
	ctx       context.Context // ends at --duration (when given) or at stop
	cancel    context.CancelFunc
	exports   Exports
	watchDone chan struct{}
}

// Start starts measuring the devices to start with, then the exports. On error nothing it
// started is left running.
func Start(ctx context.Context, cfg Config) (*Run, error) {
	c := &cfg
	runCtx, cancelRun := c.runContext(ctx)
	l, err := c.startLab(ctx, runCtx, cancelRun)
	if err != nil {
		cancelRun()
		return nil, err
	}
	exp, err := c.StartExports(ctx, l.feed)
	if err != nil {
		cancelRun()
		l.wg.Wait()
		return nil, err
	}
	return &Run{lab: l, ctx: runCtx, cancel: cancelRun, exports: exp, watchDone: make(chan struct{})}, nil
}

// Context ends at --duration (when given) or at Stop.
func (r *Run) Context() context.Context { return r.ctx }

// Notify sends the notice lines (devices gone, back, new) to show instead of stderr; call it
// before Follow.
func (r *Run) Notify(show func(line string)) { r.notify = show }

// Follow starts watching the adb server's device list until the run ends. It is apart from
// Start because the watch tells of devices through Notify, which the overview can only point
// at its screen once the program exists.
func (r *Run) Follow() {
	go func() { r.watch(r.ctx); close(r.watchDone) }()
}

// Stop ends the run and waits for the watch (Follow must have been called) and every device's
// session; it returns the exports' error, once they are stopped.
func (r *Run) Stop() error {
	r.cancel()
	<-r.watchDone
	r.wg.Wait()
	return r.exports.Stop()
}

// initialDevices are the devices to start with: every online one (--all-devices), or each
// device named with -s, which must be there and online (exit 3 otherwise, as for one device).
func (c *Config) initialDevices(infos []device.Info) ([]device.Info, error) {
	if !c.AllDevices {
		var out []device.Info
		for _, s := range c.Serials {
			in, err := device.Select(infos, s)
			if err != nil {
				return nil, exit.RuntimeErr(err)
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
		return nil, exit.RuntimeErr(err)
	}
	return out, nil
}

// add starts measuring a device until ctx ends.
func (l *lab) add(ctx context.Context, in device.Info) error {
	src, kind, pkg, err := l.cfg.Open(ctx, in, l.kind)
	if err != nil {
		return fmt.Errorf("device %s: %w", in.Serial, err)
	}
	d := &labDevice{serial: in.Serial, model: in.Model, kind: kind, done: make(chan struct{})}
	d.connected.Store(true)
	start := time.Now()
	d.sess = session.Start(ctx, l.cfg.Session, src, nil)
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
	l.cfg.Log.Info("lab device", "serial", in.Serial, "model", in.Model, "package", pkg)
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
			l.cfg.Log.Warn("device list", "err", err)
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
	if !l.cfg.AllDevices || ctx.Err() != nil {
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
			l.notify(fmt.Sprintf("fpstop: %s (not measured)", exit.Sentence(err)))
			continue
		}
		l.notice(l.find(s), "new device (%s): measuring", online[s].Model)
	}
}

// Device is one device of the run, as the overview shows it.
type Device struct {
	Serial    string
	Session   *session.Session
	Connected func() bool
}

// Devices are the run's devices so far, in the order they were added.
func (r *Run) Devices() []Device {
	var out []Device
	for _, d := range r.list() {
		out = append(out, Device{Serial: d.serial, Session: d.sess, Connected: d.connected.Load})
	}
	return out
}
