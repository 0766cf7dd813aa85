package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/metrics"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json")

// connect starts the server in-process on an in-memory transport with run as its CLI and
// returns a client session.
func connect(t *testing.T, o Options) *mcp.ClientSession {
	t.Helper()
	s, err := newServer(o)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.mcp().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		s.sessions.stopAll()
	})
	return cs
}

// noRun is a CLI that must not be reached.
func noRun(t *testing.T) RunFunc {
	return func(_ context.Context, args []string, _, _ io.Writer, _ func(func() *metrics.Report)) int {
		t.Errorf("the CLI ran %q; the call should have been refused before", args)
		return 3
	}
}

// TestToolsGolden pins the tool list and every tool's input and output schema: a change is a
// change for every agent that calls them (go test ./internal/mcpserver -run Golden -update).
func TestToolsGolden(t *testing.T) {
	cs := connect(t, Options{Version: "test", Run: noRun(t), WorkDir: t.TempDir()})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tool list differs from %s (rerun with -update if the change is meant):\n%s", golden, got)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.OutputSchema == nil {
			t.Errorf("%s has no output schema", tl.Name)
		}
	}
	for _, n := range []string{"list_devices", "list_apps", "measure", "report", "compare", "live_snapshot", "start_session", "stop_session"} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+n+",") {
			t.Errorf("tool %s missing from %v", n, names)
		}
	}
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}

// TestRefusals: a driver command without --allow-commands, paths outside the roots and device
// strings that are not device strings are refused with what to do, before the CLI runs.
func TestRefusals(t *testing.T) {
	work := t.TempDir()
	cs := connect(t, Options{Version: "test", Run: noRun(t), WorkDir: work})
	outside := filepath.Join(t.TempDir(), "run.jsonl.gz")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"measure", map[string]any{"source": "sim", "command": "true"}, "--allow-commands"},
		{"report", map[string]any{"file": outside}, "--root"},
		{"report", map[string]any{"file": "../" + filepath.Base(filepath.Dir(outside)) + "/x"}, "outside"},
		{"compare", map[string]any{"base": "a.jsonl", "new": outside}, "outside"},
		{"measure", map[string]any{"package": "com.x; reboot"}, "list_apps"},
		{"measure", map[string]any{"device": "-x"}, "list_devices"},
		{"measure", map[string]any{"source": "sim", "record_dir": "/"}, "outside"},
		{"measure", map[string]any{"source": "gfxinfo", "scenario": "janky"}, "simulator"},
		{"measure", map[string]any{"source": "sim", "duration_s": 100000}, "duration_s"},
		{"start_session", map[string]any{"source": "sim", "max_duration_s": 99999}, "max_duration_s"},
		{"live_snapshot", map[string]any{"session_id": "s9"}, "start_session"},
	} {
		res, text := callText(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: error %v, %q; want an error saying %q", c.tool, c.args, res.IsError, text, c.want)
		}
	}
}

// TestRootsResolve: a --root allows its files; a link inside the working directory pointing out
// of it does not.
func TestRootsResolve(t *testing.T) {
	work, other := t.TempDir(), t.TempDir()
	r, err := newRoots(work, []string{other})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.allow("file", filepath.Join(other, "a", "b.jsonl")); err != nil {
		t.Errorf("a file under --root refused: %v", err)
	}
	if _, err := r.allow("file", "sub/new.jsonl"); err != nil {
		t.Errorf("a relative path in the working directory refused: %v", err)
	}
	if err := os.Symlink("/", filepath.Join(work, "escape")); err != nil {
		t.Fatal(err)
	}
	if p, err := r.allow("file", "escape/etc/passwd"); err == nil {
		t.Errorf("a link out of the working directory allowed: %s", p)
	}
	if _, err := newRoots(work, []string{filepath.Join(work, "missing")}); err == nil {
		t.Error("a --root that does not exist accepted")
	}
}

// TestMeasureArgs: measure builds the command line a person would type, each value in its own
// --flag=value argument.
func TestMeasureArgs(t *testing.T) {
	var got [][]string
	run := func(_ context.Context, args []string, stdout, _ io.Writer, _ func(func() *metrics.Report)) int {
		got = append(got, args)
		r := metrics.Report{Source: "sim", Frames: 0}
		_ = json.NewEncoder(stdout).Encode(&r)
		return 0
	}
	work := t.TempDir()
	cs := connect(t, Options{Version: "test", Run: run, WorkDir: work, AdbPort: 5099})
	res, text := callText(t, cs, "measure", map[string]any{"source": "sim", "scenario": "janky", "hz": 120, "seed": 7, "speed": 0, "duration_s": 3})
	if res.IsError {
		t.Fatal(text)
	}
	if len(got) != 1 {
		t.Fatalf("%d command lines, want 1", len(got))
	}
	line := strings.Join(got[0], " ")
	for _, want := range []string{"--headless", "--json", "--duration=3s", "--source=sim", "--scenario=janky", "--hz=120", "--seed=7", "--speed=0", "--adb-port=5099", "--record=" + work} {
		if !strings.Contains(line, want) {
			t.Errorf("command line %q lacks %q", line, want)
		}
	}
	if !strings.HasPrefix(text, "com.example") && !strings.Contains(text, "no frames were measured") {
		t.Errorf("summary of an empty run: %q", text)
	}
}

// TestSessionBounds: at most maxSessions run at once; a stopped one makes room; each gets the
// time limit as its --duration.
func TestSessionBounds(t *testing.T) {
	var mu sync.Mutex
	var durations []string
	run := func(ctx context.Context, args []string, stdout, _ io.Writer, live func(func() *metrics.Report)) int {
		for _, a := range args {
			if strings.HasPrefix(a, "--duration=") {
				mu.Lock()
				durations = append(durations, a)
				mu.Unlock()
			}
		}
		r := &metrics.Report{Source: "sim", Frames: 3}
		live(func() *metrics.Report { return r })
		<-ctx.Done() // runs until stopped
		_ = json.NewEncoder(stdout).Encode(r)
		return 0
	}
	cs := connect(t, Options{Version: "test", Run: run, WorkDir: t.TempDir()})
	var ids []string
	for i := 0; i < maxSessions; i++ {
		res, text := callText(t, cs, "start_session", map[string]any{"source": "sim", "max_duration_s": 90})
		if res.IsError {
			t.Fatalf("session %d: %s", i+1, text)
		}
		ids = append(ids, res.StructuredContent.(map[string]any)["session_id"].(string))
	}
	if res, text := callText(t, cs, "start_session", map[string]any{"source": "sim"}); !res.IsError || !strings.Contains(text, "stop_session") {
		t.Errorf("a session beyond %d: error %v, %q", maxSessions, res.IsError, text)
	}
	res, text := callText(t, cs, "live_snapshot", map[string]any{"session_id": ids[0]})
	if res.IsError || !strings.Contains(text, "3 frames") && !strings.Contains(text, "running") {
		t.Errorf("live_snapshot: %s", text)
	}
	if res, text := callText(t, cs, "stop_session", map[string]any{"session_id": ids[0]}); res.IsError || !strings.Contains(text, "stopped") {
		t.Errorf("stop_session: %s", text)
	}
	if res, text := callText(t, cs, "start_session", map[string]any{"source": "sim"}); res.IsError {
		t.Errorf("after a stop, a new session is refused: %s", text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(durations) == 0 || durations[0] != "--duration=1m30s" || durations[len(durations)-1] != "--duration=5m0s" {
		t.Errorf("durations %q: want the limits, 1m30s then the default 5m0s", durations)
	}
}
