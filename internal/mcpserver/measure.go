package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/metrics"
)

// Bounds of one measure call: a tool call should end while an agent still waits for it.
const (
	defaultDurationS = 10
	maxDurationS     = 600
	maxIterations    = 20
)

// SourceInput chooses where frames come from; shared by measure and start_session.
type SourceInput struct {
	Device   string   `json:"device,omitempty" jsonschema:"serial from list_devices; empty: the only device"`
	Package  string   `json:"package,omitempty" jsonschema:"app package; empty: the app on screen"`
	Source   string   `json:"source,omitempty" jsonschema:"auto (default: gfxinfo, with logcat messages when the app logs them), gfxinfo, gfxinfo+logcat, logcat, surfaceflinger, or sim (the built-in simulator: no phone needed)"`
	Scenario string   `json:"scenario,omitempty" jsonschema:"simulator scenario: demo, smooth, janky, frozen, stress, game, flutter (source sim only)"`
	Hz       float64  `json:"hz,omitempty" jsonschema:"simulator refresh rate in Hz, 30 to 240 (source sim only; default 60)"`
	Seed     *int64   `json:"seed,omitempty" jsonschema:"simulator seed (source sim only; default 1)"`
	Speed    *float64 `json:"speed,omitempty" jsonschema:"simulator speed: 1 real time (default), 0 as fast as possible (source sim only)"`
}

// MeasureInput is measure's arguments.
type MeasureInput struct {
	SourceInput
	DurationS  float64 `json:"duration_s,omitempty" jsonschema:"how long to measure each iteration, in seconds (default 10, at most 600; the simulator: simulated seconds)"`
	Iterations int     `json:"iterations,omitempty" jsonschema:"how many measured runs (default 1, at most 20); several give means with confidence intervals"`
	Command    string  `json:"command,omitempty" jsonschema:"driver command run with sh -c during each iteration, as fpstop test --command (only when the server was started with --allow-commands)"`
	RecordDir  string  `json:"record_dir,omitempty" jsonschema:"directory for the recordings (inside the working directory or a --root; default fpstop-mcp/DATE-TIME-N in the working directory)"`
}

// Iteration is one measured run of a measure call.
type Iteration struct {
	Index     int         `json:"index"`
	Status    string      `json:"status" jsonschema:"ok or failed"`
	Error     string      `json:"error,omitempty"`
	Recording string      `json:"recording" jsonschema:"the recording's path (pass it to report or compare)"`
	Run       *RunSummary `json:"run" jsonschema:"the iteration's figures (null when it recorded nothing)"`
}

// StatOut is one metric over the iterations.
type StatOut struct {
	Name   string   `json:"name"`
	Unit   string   `json:"unit"`
	N      int      `json:"n" jsonschema:"iterations with a value"`
	Mean   *float64 `json:"mean"`
	CILow  *float64 `json:"ci_low" jsonschema:"lower end of the confidence interval of the mean"`
	CIHigh *float64 `json:"ci_high"`
	StdDev *float64 `json:"stddev"`
}

// MeasureOutput is measure's result.
type MeasureOutput struct {
	Summary    string      `json:"summary"`
	RecordDir  string      `json:"record_dir" jsonschema:"where the recordings are (pass it to compare)"`
	Recordings []string    `json:"recordings"`
	Iterations []Iteration `json:"iterations"`
	Stats      []StatOut   `json:"stats" jsonschema:"each metric's mean and confidence interval over the iterations (empty for one iteration)"`
	Confidence float64     `json:"confidence,omitempty" jsonschema:"confidence of the intervals"`
}

func (s *server) addMeasure(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "measure", Title: "Measure an app's smoothness",
		Description: "Measures an app on a phone (or the simulator, source \"sim\") for duration_s, once or for several iterations, " +
			"optionally while a driver command scrolls it; records every iteration and returns the key figures (fps, fps_wall, jank %, " +
			"drop levels, frame-time percentiles, frames lost), the worst frames with the main-thread messages that ran in them, and the " +
			"recordings' paths. Sends progress notifications; cancelling the call stops the measurement."}, s.measure)
}

// sourceArgs checks the source arguments and turns them into command-line flags.
func sourceArgs(in SourceInput) ([]string, error) {
	if err := validSerial(in.Device); err != nil {
		return nil, err
	}
	if err := validPackage(in.Package); err != nil {
		return nil, err
	}
	src := in.Source
	if src == "" {
		src = "auto"
	}
	switch src {
	case "auto", "sim", "gfxinfo", "logcat", "gfxinfo+logcat", "surfaceflinger", "sf":
	default:
		return nil, fmt.Errorf("source %q: want auto, gfxinfo, gfxinfo+logcat, logcat, surfaceflinger or sim", in.Source)
	}
	args := []string{"--source=" + src}
	sim := src == "sim"
	if !sim && (in.Scenario != "" || in.Hz != 0 || in.Seed != nil || in.Speed != nil) {
		return nil, errors.New("scenario, hz, seed and speed are simulator settings: add source \"sim\", or leave them out")
	}
	if sim && in.Device != "" {
		return nil, errors.New("the simulator has no device: leave device out, or choose another source")
	}
	if in.Device != "" {
		args = append(args, "--serial="+in.Device)
	}
	if in.Package != "" {
		args = append(args, "--package="+in.Package)
	}
	if in.Scenario != "" {
		if strings.ContainsAny(in.Scenario, " =\x00") || strings.HasPrefix(in.Scenario, "-") {
			return nil, fmt.Errorf("scenario %q is not a scenario name", in.Scenario)
		}
		args = append(args, "--scenario="+in.Scenario)
	}
	if in.Hz != 0 {
		args = append(args, fmt.Sprintf("--hz=%g", in.Hz))
	}
	if in.Seed != nil {
		args = append(args, fmt.Sprintf("--seed=%d", *in.Seed))
	}
	if in.Speed != nil {
		args = append(args, fmt.Sprintf("--speed=%g", *in.Speed))
	}
	return args, nil
}

// recordDir is the client's directory (confined), else a new one under fpstop-mcp/.
func (s *server) recordDir(dir, tool string) (string, error) {
	if dir == "" {
		s.mu.Lock()
		s.seq++
		n := s.seq
		s.mu.Unlock()
		dir = filepath.Join(s.roots.work, "fpstop-mcp", fmt.Sprintf("%s-%s-%d", time.Now().UTC().Format("20060102-150405"), tool, n))
	}
	p, err := s.roots.allow("record_dir", dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", fmt.Errorf("cannot create record_dir %s: %w", p, err)
	}
	return p, nil
}

func (s *server) measure(ctx context.Context, req *mcp.CallToolRequest, in MeasureInput) (*mcp.CallToolResult, MeasureOutput, error) {
	out := MeasureOutput{Recordings: []string{}, Iterations: []Iteration{}, Stats: []StatOut{}}
	if in.Command != "" && !s.o.AllowCommands {
		return nil, out, errors.New("driver commands are off: this server was started without --allow-commands. " +
			"Next: ask the user to restart it as `fpstop mcp --allow-commands`, or drive the app yourself between start_session, live_snapshot and stop_session")
	}
	src, err := sourceArgs(in.SourceInput)
	if err != nil {
		return nil, out, err
	}
	dur := in.DurationS
	if dur == 0 {
		dur = defaultDurationS
	}
	if !(dur >= 0.5 && dur <= maxDurationS) {
		return nil, out, fmt.Errorf("duration_s %v: want 0.5 to %d seconds", in.DurationS, maxDurationS)
	}
	n := in.Iterations
	if n == 0 {
		n = 1
	}
	if n < 1 || n > maxIterations {
		return nil, out, fmt.Errorf("iterations %d: want 1 to %d", in.Iterations, maxIterations)
	}
	dir, err := s.recordDir(in.RecordDir, "measure")
	if err != nil {
		return nil, out, err
	}
	out.RecordDir = dir
	prog := startProgress(ctx, req, expectedSeconds(in.SourceInput, dur, n), n)
	defer prog.stop()
	if n == 1 && in.Command == "" {
		err = s.measureOnce(ctx, src, dur, dir, prog, &out)
	} else {
		err = s.measureTest(ctx, src, dur, n, in.Command, dir, prog, &out)
	}
	if err != nil {
		return nil, out, s.withForeground(ctx, in.SourceInput, err)
	}
	out.Summary = measureParagraph(&out)
	for _, it := range out.Iterations {
		if it.Run != nil && it.Run.Frames == 0 {
			if hint := s.foregroundHint(ctx, in.SourceInput); hint != "" {
				out.Summary += " No frames of the app measured: " + hint + "."
			}
			break
		}
	}
	return textResult(out.Summary, out), out, nil
}

// expectedSeconds is how long the measurement should take in wall time (0: unknown).
func expectedSeconds(in SourceInput, dur float64, n int) float64 {
	if in.Source == "sim" && in.Speed != nil {
		if *in.Speed == 0 {
			return 0
		}
		return dur / *in.Speed * float64(n)
	}
	return dur * float64(n)
}

// measureOnce is one headless run (fpstop --headless --json --record FILE).
func (s *server) measureOnce(ctx context.Context, src []string, dur float64, dir string, prog *progress, out *MeasureOutput) error {
	rec := filepath.Join(dir, "run.jsonl.gz")
	if _, err := os.Stat(rec); err == nil {
		return fmt.Errorf("%s already exists: choose another record_dir", rec)
	}
	args := append([]string{"--headless", "--json", "--duration=" + durationArg(dur), "--record=" + rec}, src...)
	args = append(args, s.adbArgs()...)
	stdout, errText, code := s.run(ctx, args, nil, prog)
	if ctx.Err() != nil {
		return fmt.Errorf("measurement cancelled: %w", ctx.Err())
	}
	if code != 0 || len(stdout) == 0 {
		return cliError("the measurement", errText, code)
	}
	var r metrics.Report
	if err := json.Unmarshal(stdout, &r); err != nil {
		return fmt.Errorf("the measurement printed no report: %w", err)
	}
	sum, err := summarise(&r)
	if err != nil {
		return err
	}
	out.Recordings = append(out.Recordings, rec)
	out.Iterations = append(out.Iterations, Iteration{Index: 1, Status: compare.StatusOK, Recording: rec, Run: sum})
	return nil
}

// measureTest is `fpstop test`: several iterations, or a driver command.
func (s *server) measureTest(ctx context.Context, src []string, dur float64, n int, command, dir string, prog *progress, out *MeasureOutput) error {
	args := append([]string{"test", fmt.Sprintf("--iterations=%d", n), "--duration=" + durationArg(dur),
		"--record-dir=" + dir, "--format=json"}, src...)
	if command != "" {
		args = append(args, "--command="+command)
	}
	args = append(args, s.adbArgs()...)
	stdout, errText, code := s.run(ctx, args, nil, prog)
	if ctx.Err() != nil {
		return fmt.Errorf("measurement cancelled: %w", ctx.Err())
	}
	var sum compare.Summary
	if len(stdout) == 0 || json.Unmarshal(stdout, &sum) != nil {
		return cliError("the measurement", errText, code)
	}
	out.Confidence = sum.Confidence
	for _, it := range sum.Iterations {
		o := Iteration{Index: it.Index, Status: it.Status, Error: it.Error}
		if it.Recording != "" {
			o.Recording = filepath.Join(dir, it.Recording)
			out.Recordings = append(out.Recordings, o.Recording)
			if run, err := s.reportFile(ctx, o.Recording); err == nil {
				o.Run = run
			} else if o.Error == "" {
				o.Error = err.Error()
			}
		}
		out.Iterations = append(out.Iterations, o)
	}
	if n > 1 {
		for _, st := range sum.Stats {
			out.Stats = append(out.Stats, StatOut{Name: st.Name, Unit: st.Unit, N: st.N, Mean: st.Mean, CILow: st.CILow, CIHigh: st.CIHigh, StdDev: st.StdDev})
		}
	}
	return nil
}

// withForeground adds the app on screen to an error about an app that never ran.
func (s *server) withForeground(ctx context.Context, in SourceInput, err error) error {
	m := err.Error()
	if !(strings.Contains(m, "never seen") || strings.Contains(m, "not running")) {
		return err
	}
	if hint := s.foregroundHint(ctx, in); hint != "" {
		return fmt.Errorf("%w (%s)", err, hint)
	}
	return err
}

// foregroundHint names the app on screen of the device measured ("" for the simulator or when
// it cannot be read), for a run that saw no frames of the app asked for.
func (s *server) foregroundHint(ctx context.Context, in SourceInput) string {
	if in.Source == "sim" {
		return ""
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	cl, err := s.client(cctx)
	if err != nil {
		return ""
	}
	infos, err := cl.Devices(cctx)
	if err != nil {
		return ""
	}
	for _, info := range infos {
		if info.Online() && (in.Device == "" || info.Serial == in.Device) {
			if pkg, _, err := cl.ForegroundApp(cctx, info.Serial); err == nil && pkg != "" {
				return fmt.Sprintf("the app on screen is %s: pass package %q to measure it", pkg, pkg)
			}
		}
	}
	return ""
}

// measureParagraph is the summary of a measure call: the run's own, or the iterations' means.
func measureParagraph(o *MeasureOutput) string {
	if len(o.Iterations) == 1 && o.Iterations[0].Run != nil {
		return o.Iterations[0].Run.Summary + " Recording: " + o.Iterations[0].Recording + "."
	}
	failed := 0
	var first *RunSummary
	for _, it := range o.Iterations {
		if it.Status != compare.StatusOK {
			failed++
		}
		if first == nil && it.Run != nil {
			first = it.Run
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d iteration(s), %d failed", len(o.Iterations), failed)
	for _, st := range o.Stats {
		if (st.Name == "fps" || st.Name == "jank_pct") && st.Mean != nil {
			fmt.Fprintf(&b, "; %s %s", st.Name, num(*st.Mean))
			if st.CILow != nil && st.CIHigh != nil {
				fmt.Fprintf(&b, " (%.0f %% interval %s to %s)", math.Round(o.Confidence*100), num(*st.CILow), num(*st.CIHigh))
			}
		}
	}
	b.WriteString(".")
	if first != nil {
		b.WriteString(" First run: " + first.Summary)
	}
	fmt.Fprintf(&b, " Recordings in %s (pass it to compare).", o.RecordDir)
	return b.String()
}
