package cli

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/gate"
	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/metrics"
)

// Options are the main command's flags (DESIGN §7). Names in DESIGN and the issues win.
type Options struct {
	Source  string
	Layer   string
	Input   string
	Serial  string
	Package string
	AdbHost string
	AdbPort int

	Interval time.Duration // gfxinfo poll interval; 0 = adaptive
	Refresh  time.Duration // screen refresh

	Scenario  string
	Hz        float64
	Seed      int64
	WorkScale float64
	Speed     float64
	Truth     string

	Record    string
	RecordDir string
	RecordRaw bool
	Force     bool

	Headless bool
	Duration time.Duration
	JSON     bool

	TargetFPS  float64
	SlowMs     float64
	DropLevels string
	Theme      string
	Color      string
	NoMouse    bool

	FailUnderFPS float64
	MaxJankPct   float64
	JUnit        string // --junit FILE: the gates as JUnit XML

	Reset            bool
	SetSlowThreshold int

	gateFPSSet, gateJankSet bool

	Config string
	Debug  bool

	Exports ExportOptions

	// several devices (multiopts.go)
	AllDevices  bool
	serials     []string
	packages    []string
	pkgBySerial map[string]string

	// set after parsing
	simImplied bool
	levels     [4]int
}

func (o *Options) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Source, "source", "auto", "where frames come from: auto, sim, gfxinfo, logcat, gfxinfo+logcat, surfaceflinger (sf), perfetto (Android 12+)")
	fs.StringVar(&o.Layer, "layer", "", "with --source surfaceflinger: the SurfaceFlinger layer to measure (default: the app's presenting layer)")
	fs.StringVar(&o.Input, "input", "", "read a captured gfxinfo dump, logcat text or recording instead of a device (- for stdin)")
	o.bindDevices(fs)
	fs.StringVar(&o.AdbHost, "adb-host", "", "adb server host (default localhost, or $ADB_SERVER_SOCKET)")
	fs.IntVar(&o.AdbPort, "adb-port", 0, "adb server port (default 5037, or $ADB_SERVER_SOCKET)")
	fs.DurationVar(&o.Interval, "interval", 0, "gfxinfo poll interval (default: adaptive to the refresh rate)")
	fs.DurationVar(&o.Refresh, "refresh", defaultRefresh, "screen refresh period")
	fs.StringVar(&o.Scenario, "scenario", "demo", "simulator scenario: demo, smooth, janky, frozen, stress, game, flutter (implies --source sim)")
	fs.Float64Var(&o.Hz, "hz", 60, "simulator refresh rate in Hz (implies --source sim)")
	fs.Int64Var(&o.Seed, "seed", 1, "simulator seed (implies --source sim)")
	fs.Float64Var(&o.WorkScale, "work-scale", 1, "simulator: multiply every frame's work by this (1.1 = a build with 10 % slower frames; implies --source sim)")
	fs.Float64Var(&o.Speed, "speed", 1, "simulator/replay speed: 1 real time, 0 as fast as possible")
	fs.StringVar(&o.Truth, "truth", "", "write the simulator's ground truth as JSON Lines to FILE")
	fs.StringVar(&o.Record, "record", "", "record the session to FILE (.jsonl or .jsonl.gz)")
	fs.StringVar(&o.RecordDir, "record-dir", "", "directory for recordings started with r (default: current directory)")
	fs.BoolVar(&o.RecordRaw, "record-raw", false, "also keep the source's raw text in NAME.raw.gz (--source perfetto: the phone's traces; export --raw-traces writes them out)")
	fs.BoolVar(&o.Force, "force", false, "overwrite an existing recording file")
	fs.BoolVar(&o.Headless, "headless", false, "no screen: run, then print a report (for scripts and CI)")
	fs.DurationVar(&o.Duration, "duration", 0, "stop after this long (simulator: virtual time)")
	fs.BoolVar(&o.JSON, "json", false, "with --headless: print the report as JSON")
	fs.Float64Var(&o.TargetFPS, "target-fps", 0, "FPS target the current value is coloured against (default: 92 % of the refresh rate, 55 at 60 Hz, 110 at 120 Hz)")
	fs.Float64Var(&o.SlowMs, "slow-ms", 0, "list main-thread messages whose max reaches this many ms (default: one frame interval)")
	fs.StringVar(&o.DropLevels, "drop-levels", "3,9,24,42", "NORMAL,MIDDLE,HIGH,FROZEN thresholds in 60 Hz frames")
	fs.StringVar(&o.Theme, "theme", "dark", "colour theme: dark, light, high-contrast, colorblind, or a user theme")
	fs.StringVar(&o.Color, "color", "auto", "colour output: auto, always, never (NO_COLOR is honoured)")
	fs.BoolVar(&o.NoMouse, "no-mouse", false, "do not capture the mouse")
	bindGates(fs, o)
	o.Exports.bind(fs)
	fs.BoolVar(&o.Reset, "reset", false, "send gfxinfo 'reset' with each poll (wipes the app's counters for everyone)")
	fs.IntVar(&o.SetSlowThreshold, "set-slow-threshold", 0, "run 'setprop log.looper.<uid>.main.slow MS' on the device (restart the app after)")
	fs.StringVar(&o.Config, "config", "", "config file (default $FPSTOP_CONFIG or the user config dir)")
	fs.BoolVar(&o.Debug, "debug", false, "verbose log file; print its path on exit")
}

var validSources = []string{"auto", "sim", "gfxinfo", "logcat", "gfxinfo+logcat", "surfaceflinger", "sf", "perfetto"}

// validate checks flag values and their combinations. changed reports whether a flag was given
// on the command line (only that implies the simulator); set also counts the config file.
// checkOutputs refuses, before anything runs, an output path at which a device, FIFO,
// directory or link exists (issue 31).
func (o *Options) checkOutputs() error {
	for flag, path := range map[string]string{"--record": o.Record, "--truth": o.Truth, "--junit": o.JUnit} {
		if path != "" && path != "-" {
			if err := outfile.Check(path); err != nil {
				return usageErr("%s: %v", flag, err)
			}
		}
	}
	return nil
}

func (o *Options) validate(changed, set func(string) bool) error {
	if err := o.checkOutputs(); err != nil {
		return err
	}
	ok := false
	for _, s := range validSources {
		if o.Source == s {
			ok = true
		}
	}
	if !ok {
		return usageErr("--source %q: want one of %s", o.Source, strings.Join(validSources, ", "))
	}
	if o.Source == "sf" {
		o.Source = "surfaceflinger"
	}
	if err := o.validateLayer(); err != nil {
		return err
	}
	o.gateFPSSet, o.gateJankSet = set("fail-under-fps"), set("max-jank-pct")
	o.simImplied = changed("scenario") || changed("hz") || changed("seed") || changed("work-scale")
	if o.simImplied {
		switch o.Source {
		case "auto":
			if o.Input == "" {
				o.Source = "sim"
			}
		case "sim":
		default:
			return usageErr("--scenario, --hz, --seed and --work-scale are simulator flags; they cannot go with --source %s", o.Source)
		}
	}
	if o.Input != "" && o.Source == "sim" {
		return usageErr("--input reads a capture; it cannot go with the simulator")
	}
	if o.Truth != "" && o.Source != "sim" {
		return usageErr("--truth is written by the simulator: add --source sim")
	}
	if o.Hz < 30 || o.Hz > 240 || math.IsNaN(o.Hz) {
		return usageErr("--hz %v: want a refresh rate from 30 to 240", o.Hz)
	}
	if o.Speed < 0 || o.Speed > 1000 || math.IsNaN(o.Speed) {
		return usageErr("--speed %v: want 0 (as fast as possible) or a factor up to 1000", o.Speed)
	}
	if o.Duration < 0 {
		return usageErr("--duration must not be negative")
	}
	if o.Refresh < 20*time.Millisecond || o.Refresh > time.Minute {
		return usageErr("--refresh %v: want 20ms to 1m", o.Refresh)
	}
	if o.Interval != 0 && (o.Interval < 50*time.Millisecond || o.Interval > time.Minute) {
		return usageErr("--interval %v: want 50ms to 1m", o.Interval)
	}
	if !(o.TargetFPS >= 0 && o.TargetFPS <= 1000) { // NaN is refused too; 0 means automatic
		return usageErr("--target-fps %v: want a positive rate (0: 92 %% of the refresh rate)", o.TargetFPS)
	}
	if !(o.SlowMs >= 0) || math.IsInf(o.SlowMs, 0) {
		return usageErr("--slow-ms must be a non-negative number of ms")
	}
	if !(o.FailUnderFPS >= 0) || math.IsInf(o.FailUnderFPS, 0) || !(o.MaxJankPct >= 0 && o.MaxJankPct <= 100) {
		return usageErr("gates: --fail-under-fps must be ≥ 0 and --max-jank-pct from 0 to 100")
	}
	if o.AdbPort < 0 || o.AdbPort > 65535 {
		return usageErr("--adb-port %d: not a port", o.AdbPort)
	}
	if o.SetSlowThreshold < 0 || o.SetSlowThreshold > 60000 {
		return usageErr("--set-slow-threshold %d: want 1 to 60000 ms", o.SetSlowThreshold)
	}
	switch o.Color {
	case "auto", "always", "never":
	default:
		return usageErr("--color %q: want auto, always or never", o.Color)
	}
	if o.Package != "" {
		if err := device.ValidPackage(o.Package); err != nil {
			return usageErr("--package: %v", err)
		}
	}
	if o.Serial != "" && strings.ContainsAny(o.Serial, "\x00\n\r") {
		return usageErr("--serial %q: not a device serial", o.Serial)
	}
	lv, err := metrics.ParseDropLevels(o.DropLevels)
	if err != nil {
		return usageErr("--drop-levels: %v", err)
	}
	o.levels = lv
	if err := o.validateDevices(); err != nil {
		return err
	}
	if err := o.Exports.validate(changed); err != nil {
		return err
	}
	if o.JSON && !o.Headless {
		return usageErr("--json goes with --headless (the report is printed when the run ends)")
	}
	return nil
}

// metricsConfig is the pipeline configuration the flags ask for. A headless run keeps no frame
// history: only the screen's timeline view reads it.
func (o *Options) metricsConfig() metrics.Config {
	c := metrics.Config{DropLevels: o.levels, TargetFPS: o.TargetFPS, SlowMs: o.SlowMs}
	if o.Headless {
		c.HistoryLen = -1
	}
	return c
}

func (o *Options) String() string {
	return fmt.Sprintf("source=%s input=%q serial=%q package=%q", o.Source, o.Input, o.Serial, o.Package)
}

// bindGates adds the CI gate flags (main command and `report`).
func bindGates(fs *pflag.FlagSet, o *Options) {
	fs.Float64Var(&o.FailUnderFPS, "fail-under-fps", 0, "gate: exit 1 when fps is below N (a run without frames fails)")
	fs.Float64Var(&o.MaxJankPct, "max-jank-pct", 0, "gate: exit 1 when the janky-frame share exceeds P % (a run without frames fails)")
	fs.StringVar(&o.JUnit, "junit", "", "write the gates as JUnit XML to FILE (one testcase per gate)")
}

// gates are the gate flags as the gates a run is held to (a flag not given is off).
func (o *Options) gates() gate.Gates {
	g := gate.Gates{FPS: gate.Off, Jank: gate.Off, JUnit: o.JUnit}
	if o.gateFPSSet {
		g.FPS = o.FailUnderFPS
	}
	if o.gateJankSet {
		g.Jank = o.MaxJankPct
	}
	return g
}

const defaultRefresh = 250 * time.Millisecond

// validateLayer checks the SurfaceFlinger flags: the source reads a device only, and --layer
// reaches a device shell, so it must pass the device layer's check.
func (o *Options) validateLayer() error {
	if o.Layer == "" {
		return nil
	}
	if o.Source != "surfaceflinger" || o.Input != "" {
		return usageErr("--layer needs --source surfaceflinger on a device")
	}
	if err := device.ValidLayerName(o.Layer); err != nil {
		return usageErr("--layer: %v", err)
	}
	return nil
}
