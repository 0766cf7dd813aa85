// Package mcpserver is `fpstop mcp`: a Model Context Protocol server that lets a coding agent
// measure an app, summarise a recording and compare two runs (docs/agents.md). It owns no
// measuring code: every tool builds the command line a person would type and runs it through
// the CLI (Options.Run), then reads the JSON that command prints, so a tool means exactly what
// the command means and new report or comparison fields reach the agent unchanged.
package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/metrics"
)

// RunFunc runs one fpstop command line (args without the program name) with its own output
// streams and returns its exit status. live, when not nil, is handed the report-so-far of a
// headless run once its session has started.
type RunFunc func(ctx context.Context, args []string, stdout, stderr io.Writer, live func(func() *metrics.Report)) int

// Options configure the server.
type Options struct {
	Version string
	// AllowCommands lets measure run a client's driver command (--allow-commands).
	AllowCommands bool
	// Roots are directories besides the working directory where files may be read and written.
	Roots []string
	// AdbHost and AdbPort name the adb server (as the main command's flags).
	AdbHost string
	AdbPort int
	// Run runs a command line (the CLI's Main).
	Run RunFunc
	// WorkDir is the working directory (default: the process's).
	WorkDir string
}

// server is the state behind the tools.
type server struct {
	o        Options
	roots    *roots
	sessions *sessions
	mu       sync.Mutex
	seq      int // numbers the default record directories
}

// Serve runs the server on in/out until the client closes the connection or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	s, err := newServer(o)
	if err != nil {
		return err
	}
	defer s.sessions.stopAll()
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}}
	err = s.mcp().Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil // the client went away, or the server was interrupted: a normal end
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func newServer(o Options) (*server, error) {
	if o.Run == nil {
		return nil, errors.New("mcpserver: no runner")
	}
	if o.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		o.WorkDir = wd
	}
	r, err := newRoots(o.WorkDir, o.Roots)
	if err != nil {
		return nil, err
	}
	return &server{o: o, roots: r, sessions: newSessions()}, nil
}

// instructions is what the server tells the client about itself at initialisation.
const instructions = `fpstop measures how smoothly an Android app renders (fps, jank by Android's rules, dropped
frames by severity, and the main-thread messages that ran in the worst frames), from a phone over
adb or from a built-in simulator (source "sim"). Typical use: list_devices, then measure (or
start_session, drive the app, live_snapshot, stop_session), change the code, measure again, and
compare the two runs' recordings. Every result starts with a plain-language summary.`

// mcp builds the MCP server with every tool.
func (s *server) mcp() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fpstop", Title: "fpstop", Version: s.o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.addDeviceTools(srv)
	s.addMeasure(srv)
	s.addFileTools(srv)
	s.addSessionTools(srv)
	return srv
}

// run runs a command line and returns its stdout, its error lines and exit status.
func (s *server) run(ctx context.Context, args []string, live func(func() *metrics.Report), stderr io.Writer) (out []byte, errText string, code int) {
	var o, e bytes.Buffer
	var w io.Writer = &e
	if stderr != nil {
		w = io.MultiWriter(&e, stderr)
	}
	code = s.o.Run(ctx, args, &o, w, live)
	return o.Bytes(), e.String(), code
}

// adbArgs are the adb server flags every device command line gets.
func (s *server) adbArgs() []string {
	var a []string
	if s.o.AdbHost != "" {
		a = append(a, "--adb-host="+s.o.AdbHost)
	}
	if s.o.AdbPort != 0 {
		a = append(a, fmt.Sprintf("--adb-port=%d", s.o.AdbPort))
	}
	return a
}

// cliError turns what a command printed on stderr into an error that says what to do next.
func cliError(what, errText string, code int) error {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(errText))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "fpstop: ") || strings.HasPrefix(l, "fpstop test: ") {
			lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, "fpstop: "), "fpstop test: "))
		}
	}
	msg := strings.Join(lines, " ")
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", code)
	}
	return fmt.Errorf("%s failed: %s%s", what, msg, nextStep(msg))
}

// nextStep adds what to do about the commonest failures.
func nextStep(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "no adb server") || strings.Contains(m, "adb is not installed"):
		return " Next: install adb and start it (`adb start-server`), connect a phone with USB debugging on (or `adb connect HOST:PORT`), or measure the simulator with source \"sim\"."
	case strings.Contains(m, "several android devices"):
		return " Next: pass device (a serial from list_devices)."
	case strings.Contains(m, "no android device") || strings.Contains(m, "not found") || strings.Contains(m, "offline"):
		return " Next: connect the phone with USB debugging on and check list_devices, or measure the simulator with source \"sim\"."
	case strings.Contains(m, "unauthorized"):
		return " Next: accept the \"Allow USB debugging?\" prompt on the phone, then retry."
	case strings.Contains(m, "never seen") || strings.Contains(m, "not running"):
		return " Next: start the app and bring it on screen, or call list_apps for the foreground package."
	}
	return ""
}

// textResult is a result's text content: the summary first, the numbers after (as JSON), for
// clients that read the text rather than the structured content.
func textResult(summary string, out any) *mcp.CallToolResult {
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil // the SDK then puts the structured content's JSON in the text
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(b)}}}
}

// durationArg prints seconds as a Go duration flag value.
func durationArg(sec float64) string {
	return (time.Duration(sec * float64(time.Second))).String()
}
