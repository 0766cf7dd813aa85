package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/metrics"
)

// mcpClient is the real binary running as `fpstop mcp`, talked to with the MCP Go SDK's own
// client over its stdin/stdout.
type mcpClient struct {
	cs       *mcp.ClientSession
	dir      string // the server's working directory
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
}

// startMCP starts `fpstop mcp ARGS` in a fresh working directory; it is stopped when the test
// ends (closing its stdin ends it; the SDK's transport kills it if it lingers).
func startMCP(t *testing.T, args ...string) *mcpClient {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts the real binary as an MCP server")
	}
	c := &mcpClient{dir: t.TempDir()}
	cmd := exec.Command(binary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "FPSTOP_CONFIG=", "ANDROID_SERIAL=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "fpstop-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params)
			c.mu.Unlock()
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to fpstop mcp: %v\n%s", err, stderr.String())
	}
	c.cs = cs
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("closing the server: %v (stderr: %s)", err, stderr.String())
		}
	})
	return c
}

// call calls a tool; the structured result is decoded into out (when not nil) and the text
// content returned.
func (c *mcpClient) call(t *testing.T, ctx context.Context, tool string, args any, out any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{"progressToken": tool}})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
			text.WriteString("\n")
		}
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content: %v", tool, err)
		}
	}
	return res, text.String()
}

// cliLocal runs the command line in-process without a device.
func cliLocal(args ...string) (string, string, int) {
	var out, errb strings.Builder
	code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "FPSTOP_CONFIG" || k == "XDG_CONFIG_HOME" {
				return ""
			}
			return os.Getenv(k)
		}, Build: buildinfo.Info{Version: "e2e"}})
	return out.String(), errb.String(), code
}

// runSummary is the part of a RunSummary the tests read.
type runSummary struct {
	Summary   string         `json:"summary"`
	Frames    int64          `json:"frames"`
	FPS       *float64       `json:"fps"`
	JankPct   *float64       `json:"jank_pct"`
	DurationS float64        `json:"duration_s"`
	Report    metrics.Report `json:"report"`
}

type measureOut struct {
	Summary    string   `json:"summary"`
	RecordDir  string   `json:"record_dir"`
	Recordings []string `json:"recordings"`
	Iterations []struct {
		Status string      `json:"status"`
		Run    *runSummary `json:"run"`
	} `json:"iterations"`
}

// TestMCPToolList: the binary lists the tools the golden file pins, with the same schemas.
func TestMCPToolList(t *testing.T) {
	t.Parallel()
	c := startMCP(t)
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "mcpserver", "testdata", "tools.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want, got []map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(res.Tools)
	if err := json.Unmarshal(gb, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the binary's tools differ from the golden file:\n%s", gb)
	}
}

// TestMCPMeasureDevice: measure over a real adb server against the fake phone gives the numbers
// a headless run of the same scenario gives, run at the same time.
func TestMCPMeasureDevice(t *testing.T) {
	ph := startPhone(t, 60, "janky", 11, 0)
	defer ph.stop()
	env := startEnv(t, ph)
	c := startMCP(t, "--adb-port", fmt.Sprint(env.Port))
	var wg sync.WaitGroup
	var single metrics.Report
	var singleErr string
	var code int
	wg.Add(1)
	go func() {
		defer wg.Done()
		single, singleErr, code = fpstop(t, env, "--headless", "--duration", "10s", "--json")
	}()
	var out measureOut
	res, text := c.call(t, context.Background(), "measure", map[string]any{"device": env.Serial, "package": pkg, "duration_s": 10}, &out)
	wg.Wait()
	if res.IsError {
		t.Fatalf("measure failed: %s", text)
	}
	if code != cli.ExitOK {
		t.Fatalf("headless run: exit %d: %s", code, singleErr)
	}
	if len(out.Iterations) != 1 || out.Iterations[0].Run == nil || len(out.Recordings) != 1 {
		t.Fatalf("one iteration with a run and a recording wanted: %+v", out)
	}
	if _, err := os.Stat(out.Recordings[0]); err != nil {
		t.Errorf("recording: %v", err)
	}
	got := out.Iterations[0].Run
	if !strings.HasPrefix(text, got.Summary) || !strings.Contains(got.Summary, "fps") {
		t.Errorf("the text does not start with the summary paragraph: %q", text)
	}
	// as TestLabAllDevicesEqualsSingle: two runs started apart poll on their own schedules
	rate := float64(single.Frames) / float64(single.DurationS)
	skewS := 1 + math.Abs(got.DurationS-float64(single.DurationS))
	if d := math.Abs(float64(got.Frames - single.Frames)); single.Frames < 100 || d > 0.02*float64(single.Frames)+rate*skewS {
		t.Errorf("measure %d frames (%.2f s), headless %d (%.2f s)", got.Frames, got.DurationS, single.Frames, float64(single.DurationS))
	}
	if got.FPS == nil || single.FPS == nil || math.Abs(*got.FPS-float64(*single.FPS)) > 1 {
		t.Errorf("fps: measure %v, headless %v", fmtF(got.FPS), fmtR(single.FPS))
	}
	if got.JankPct == nil || single.JankPct == nil || math.Abs(*got.JankPct-float64(*single.JankPct)) > 5 {
		t.Errorf("jank %%: measure %v, headless %v", fmtF(got.JankPct), fmtR(single.JankPct))
	}
	if got.Report.Device == nil || got.Report.Device.Model != single.Device.Model || got.Report.Source != single.Source {
		t.Errorf("device/source: measure %+v %s, headless %+v %s", got.Report.Device, got.Report.Source, single.Device, single.Source)
	}
	t.Logf("measure %d frames %s fps %s %% janky; headless %d frames %s fps %s %% janky", got.Frames, fmtF(got.FPS), fmtF(got.JankPct),
		single.Frames, fmtR(single.FPS), fmtR(single.JankPct))
	c.mu.Lock()
	n := len(c.progress)
	c.mu.Unlock()
	if n == 0 {
		t.Error("a 10 s measurement sent no progress notification")
	}
	// an app that is not running: the answer (an error when the run saw it waiting for the app)
	// names the one on screen
	res, text = c.call(t, context.Background(), "measure", map[string]any{"device": env.Serial, "package": "com.example.other", "duration_s": 4}, nil)
	if !strings.Contains(text, "the app on screen is "+pkg) {
		t.Errorf("measuring an app that is not running: error %v, %q", res.IsError, text)
	}
}

// TestMCPCancelMeasure: cancelling a long measure stops the device session: the phone is no
// longer polled, and the server goes on answering.
func TestMCPCancelMeasure(t *testing.T) {
	t.Parallel()
	ph := startPhone(t, 60, "smooth", 5, 0)
	defer ph.stop()
	env := adbtest.Start(t, fakeadb.Config{Handler: ph.handler, Model: "Pixel 7", Android: "14", SDK: 34})
	c := startMCP(t, "--adb-port", fmt.Sprint(env.Port))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "measure", Meta: mcp.Meta{"progressToken": "long"},
			Arguments: map[string]any{"device": env.Serial, "package": pkg, "duration_s": 300, "source": "gfxinfo"}})
		done <- err
	}()
	polls := func() int {
		n := 0
		for _, cmd := range env.Fake.Commands() {
			if strings.HasPrefix(cmd, "dumpsys gfxinfo") {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for polls() < 3 { // measuring: the phone is being polled
		if time.Now().After(deadline) {
			t.Fatal("the measurement never polled the phone")
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a cancelled call returned a result")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	// the session stops: polls settle (an in-flight poll may still land)
	last, stable := polls(), time.Now()
	for time.Since(stable) < 3*time.Second {
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("the phone is still polled after the cancellation (%d polls)", polls())
		}
		time.Sleep(250 * time.Millisecond)
		if n := polls(); n != last {
			last, stable = n, time.Now()
		}
	}
	var devs struct {
		Devices []struct{ Serial string } `json:"devices"`
	}
	if res, text := c.call(t, context.Background(), "list_devices", map[string]any{}, &devs); res.IsError || len(devs.Devices) != 1 {
		t.Errorf("the server after a cancellation: %s", text)
	}
}

// TestMCPReportRealdata: report on a real capture, allowed by --root, gives the numbers the
// command line gives; without --root it is refused with what to do.
func TestMCPReportRealdata(t *testing.T) {
	t.Parallel()
	dir := realdata.Dir(t, "gfxinfo")
	file := filepath.Join(dir, "choi890-soundviz-android13plus-120hz-framestats-scroll.txt")
	out, errs, code := cliLocal("--headless", "--json", "--input", file)
	if code != cli.ExitOK {
		t.Fatalf("headless --input: exit %d: %s", code, errs)
	}
	var want metrics.Report
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	c := startMCP(t, "--root", dir)
	var got runSummary
	res, text := c.call(t, context.Background(), "report", map[string]any{"file": file}, &got)
	if res.IsError {
		t.Fatalf("report: %s", text)
	}
	if got.Frames != want.Frames || got.Frames == 0 || !reflect.DeepEqual(got.Report.PercentilesMs, want.PercentilesMs) ||
		!reflect.DeepEqual(got.Report.WorstFrames, want.WorstFrames) || got.Report.JankyFrames != want.JankyFrames {
		t.Errorf("report: %d frames, %d janky, %+v; the command line: %d, %d, %+v", got.Frames, got.Report.JankyFrames,
			got.Report.PercentilesMs, want.Frames, want.JankyFrames, want.PercentilesMs)
	}
	if !strings.Contains(got.Summary, "120 Hz") {
		t.Errorf("summary: %q", got.Summary)
	}
	// a Perfetto trace: FrameTimeline's blame reaches the summary
	trace := filepath.Join(realdata.Dir(t, "perfetto"), "ft_events", "trace.pftrace")
	pc := startMCP(t, "--root", filepath.Dir(trace))
	var pt struct {
		Summary     string         `json:"summary"`
		BlameFrames map[string]int `json:"blame_frames"`
	}
	if res, text := pc.call(t, context.Background(), "report", map[string]any{"file": trace}, &pt); res.IsError ||
		pt.BlameFrames["app_frames"] == 0 || !strings.Contains(pt.Summary, "FrameTimeline blames the app") {
		t.Errorf("report of a Perfetto trace: blame %v, %s", pt.BlameFrames, text)
	}
	bare := startMCP(t)
	if res, text := bare.call(t, context.Background(), "report", map[string]any{"file": file}, nil); !res.IsError || !strings.Contains(text, "--root") {
		t.Errorf("a capture outside the roots: error %v, %q", res.IsError, text)
	}
}

// TestMCPCompareSim: two simulator builds measured through measure and compared: a second seed
// of the same build is unchanged, a janky build worse — as fpstop compare says.
func TestMCPCompareSim(t *testing.T) {
	t.Parallel()
	c := startMCP(t)
	ctx := context.Background()
	runs := map[string]map[string]any{
		"base":  {"scenario": "smooth", "seed": 1},
		"same":  {"scenario": "smooth", "seed": 50},
		"janky": {"scenario": "janky", "seed": 101},
	}
	dirs := map[string]string{}
	for name, a := range runs {
		a["source"], a["hz"], a["speed"], a["duration_s"], a["iterations"], a["record_dir"] = "sim", 120, 0, 20, 3, name
		var out measureOut
		if res, text := c.call(t, ctx, "measure", a, &out); res.IsError || len(out.Recordings) != 3 {
			t.Fatalf("measure %s: %s", name, text)
		}
		dirs[name] = out.RecordDir
	}
	for _, cse := range []struct{ new, want string }{{"same", "unchanged"}, {"janky", "worse"}} {
		var out struct {
			Summary string `json:"summary"`
			Verdict string `json:"verdict"`
			Metrics []struct {
				Name    string   `json:"name"`
				P       *float64 `json:"p"`
				CILow   *float64 `json:"ci_low"`
				Verdict string   `json:"verdict"`
			} `json:"metrics"`
		}
		res, text := c.call(t, ctx, "compare", map[string]any{"base": "base", "new": cse.new}, &out)
		if res.IsError {
			t.Fatalf("compare base %s: %s", cse.new, text)
		}
		cliOut, errs, code := cliLocal("compare", "--format", "json", dirs["base"], dirs[cse.new])
		if code != cli.ExitOK {
			t.Fatalf("fpstop compare: exit %d: %s", code, errs)
		}
		var want struct{ Verdict string }
		if err := json.Unmarshal([]byte(cliOut), &want); err != nil {
			t.Fatal(err)
		}
		if out.Verdict != cse.want || want.Verdict != cse.want {
			t.Errorf("base vs %s: the tool says %s, the command line %s; want %s", cse.new, out.Verdict, want.Verdict, cse.want)
		}
		if !strings.Contains(strings.ToLower(out.Summary), cse.want) || len(out.Metrics) == 0 || out.Metrics[0].Name != "fps" {
			t.Errorf("base vs %s: summary %q, %d metrics", cse.new, out.Summary, len(out.Metrics))
		}
	}
}

// TestMCPDriverCommand: a driver command is refused unless the server was started with
// --allow-commands (on the simulator, so only the refusal can fail the call), and runs when it
// was.
func TestMCPDriverCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	args := func(c *mcpClient) map[string]any {
		return map[string]any{"source": "sim", "speed": 0, "duration_s": 2, "command": "touch " + filepath.Join(c.dir, "ran")}
	}
	off := startMCP(t)
	res, text := off.call(t, ctx, "measure", args(off), nil)
	if !res.IsError || !strings.Contains(text, "--allow-commands") {
		t.Errorf("a driver command without --allow-commands: error %v, %q", res.IsError, text)
	}
	if _, err := os.Stat(filepath.Join(off.dir, "ran")); err == nil {
		t.Error("the refused command ran")
	}
	on := startMCP(t, "--allow-commands")
	var out measureOut
	if res, text := on.call(t, ctx, "measure", args(on), &out); res.IsError || len(out.Iterations) != 1 || out.Iterations[0].Status != "ok" {
		t.Fatalf("with --allow-commands: %s", text)
	}
	if _, err := os.Stat(filepath.Join(on.dir, "ran")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

// TestMCPSession: a live session on the simulator: a snapshot while it runs, then its final
// figures and recording when stopped.
func TestMCPSession(t *testing.T) {
	t.Parallel()
	c := startMCP(t)
	ctx := context.Background()
	type sessOut struct {
		SessionID string      `json:"session_id"`
		State     string      `json:"state"`
		Recording string      `json:"recording"`
		Run       *runSummary `json:"run"`
	}
	var st sessOut
	if res, text := c.call(t, ctx, "start_session", map[string]any{"source": "sim", "scenario": "janky", "max_duration_s": 60}, &st); res.IsError || st.SessionID == "" {
		t.Fatalf("start_session: %s", text)
	}
	var snap sessOut
	deadline := time.Now().Add(20 * time.Second)
	for snap.Run == nil || snap.Run.Frames == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no frames in the live snapshots")
		}
		time.Sleep(500 * time.Millisecond)
		if res, text := c.call(t, ctx, "live_snapshot", map[string]any{"session_id": st.SessionID}, &snap); res.IsError {
			t.Fatalf("live_snapshot: %s", text)
		}
	}
	if snap.State != "running" {
		t.Errorf("snapshot state %q", snap.State)
	}
	var fin sessOut
	if res, text := c.call(t, ctx, "stop_session", map[string]any{"session_id": st.SessionID}, &fin); res.IsError || fin.Run == nil {
		t.Fatalf("stop_session: %s", text)
	}
	if fin.State != "stopped" || fin.Run.Frames < snap.Run.Frames {
		t.Errorf("stopped: state %q, %d frames (a snapshot had %d)", fin.State, fin.Run.Frames, snap.Run.Frames)
	}
	if _, err := os.Stat(fin.Recording); err != nil {
		t.Errorf("recording: %v", err)
	}
	if res, text := c.call(t, ctx, "live_snapshot", map[string]any{"session_id": st.SessionID}, nil); !res.IsError {
		t.Errorf("a stopped session still answers: %s", text)
	}
}

func fmtF(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

func fmtR(v *metrics.R2) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(float64(*v))
}
