// Package tmuxtest runs the real fpstop binary in a real terminal: private tmux servers, keys
// sent one at a time, the screen read back with capture-pane. It checks what the headless
// golden and teatest tests cannot: the program's terminal setup and teardown, colour output
// as a terminal receives it, NO_COLOR, recordings written by `r` and replayed.
//
// tmux is required; without it the tests skip, unless FPSTOP_REQUIRE_TMUX=1, which makes them
// fail. Each test starts its own tmux server (tmux -L with a unique socket name), with HOME
// and the XDG directories in a temporary directory so no user configuration is read, and
// kills it when it ends.
package tmuxtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit"
)

var (
	// bin is the fpstop binary built by TestMain.
	bin string
	// skipWhy says why the tests skip ("" = they run).
	skipWhy string
)

// keyPause is the pause after each key: Bubble Tea reads keys that arrive together as one
// input and may merge them, so keys go one per send-keys call with a pause between.
const keyPause = 150 * time.Millisecond

// waitLimit bounds every wait for the screen to show something.
const waitLimit = 15 * time.Second

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		skipWhy = "-short: the terminal tests start tmux and the real binary"
		return m.Run()
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("FPSTOP_REQUIRE_TMUX") == "1" {
			fmt.Fprintln(os.Stderr, "tmuxtest: FPSTOP_REQUIRE_TMUX=1 but tmux is not on PATH")
			return 1
		}
		skipWhy = "tmux is not on PATH: the terminal tests of the real binary need it (FPSTOP_REQUIRE_TMUX=1 makes this a failure)"
		return m.Run()
	}
	defer testkit.RemoveBinary()
	var err error
	if bin, err = testkit.BuildBinary(); err != nil {
		fmt.Fprintf(os.Stderr, "tmuxtest: building fpstop: %v\n", err)
		return 1
	}
	return m.Run()
}

// needTmux skips the test when tmux is missing (TestMain has already failed the run when
// FPSTOP_REQUIRE_TMUX=1).
func needTmux(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

var serial atomic.Int64

// term is one private tmux server with one session ("t") whose only pane runs fpstop.
type term struct {
	t    *testing.T
	sock string
	conf string
	env  []string
	home string // HOME (and the XDG directories under it)
	work string // the pane's working directory
}

// newTerm starts a private tmux server; run starts the program in it.
func newTerm(t *testing.T) *term {
	t.Helper()
	needTmux(t)
	dir := t.TempDir()
	tm := &term{
		t:    t,
		sock: fmt.Sprintf("fpstop-test-%d-%d", os.Getpid(), serial.Add(1)),
		conf: filepath.Join(dir, "tmux.conf"),
		home: filepath.Join(dir, "home"),
		work: filepath.Join(dir, "work"),
	}
	for _, d := range []string{tm.home, tm.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// No status line, so the pane is the whole window. exit-empty off: the server outlives its
	// sessions, so a test can end one program and start the next on the same socket without
	// racing a server that is shutting down (kill-server still ends it in close).
	conf := "set -g status off\nset -g default-terminal tmux-256color\nset -s exit-empty off\n"
	if err := os.WriteFile(tm.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// A clean environment: nothing from the user's configuration, a UTF-8 locale so tmux keeps
	// the box-drawing characters, truecolor so colour output is predictable.
	tm.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tm.home,
		"XDG_CONFIG_HOME=" + filepath.Join(tm.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(tm.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(tm.home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(tm.home, ".local", "share"),
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"COLORTERM=truecolor",
		"TERM=xterm-256color",
	}
	if d := os.Getenv("TMPDIR"); d != "" {
		tm.env = append(tm.env, "TMPDIR="+d)
	}
	t.Cleanup(tm.close)
	return tm
}

// close kills the server, checks it is gone and removes its socket file (tmux leaves it).
func (tm *term) close() {
	sockPath, _ := tm.tmux("display-message", "-p", "#{socket_path}")
	_, _ = tm.tmux("kill-server")
	if out, err := tm.tmux("ls"); err == nil {
		tm.t.Errorf("tmux server %s still running after kill-server: %s", tm.sock, out)
		return
	}
	if p := strings.TrimSpace(sockPath); filepath.Base(p) == tm.sock {
		_ = os.Remove(p)
	}
}

// tmux runs a tmux command against this server.
func (tm *term) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-u", "-L", tm.sock, "-f", tm.conf}, args...)...)
	cmd.Env = tm.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

func (tm *term) must(args ...string) string {
	tm.t.Helper()
	out, err := tm.tmux(args...)
	if err != nil {
		tm.t.Fatal(err)
	}
	return out
}

// run starts fpstop with args in a w×h session; env adds variables for the program only.
func (tm *term) run(w, h int, env []string, args ...string) {
	tm.t.Helper()
	cmd := []string{"new-session", "-d", "-s", "t", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-c", tm.work}
	tm.must(append(cmd, tm.program(env, args)...)...)
}

// rerun replaces the program in the session's pane with a new fpstop run (same size). The
// session and the server stay up, so nothing races a server shutting down.
func (tm *term) rerun(env []string, args ...string) {
	tm.t.Helper()
	cmd := []string{"respawn-pane", "-k", "-t", "t", "-c", tm.work}
	tm.must(append(cmd, tm.program(env, args)...)...)
	tm.waitFor("the old screen to clear", false, func(s string) bool { return !exitRe.MatchString(s) })
}

// program is the pane's command line: a shell runs fpstop and then reports its exit status and
// stays, so the pane (and the terminal modes fpstop left behind) can be read after it exits.
func (tm *term) program(env []string, args []string) []string {
	cmd := []string{"sh", "-c", `"$@"; echo "[fpstop exited $?]"; exec sleep 600`, "sh", "env"}
	cmd = append(append(cmd, env...), bin)
	return append(cmd, args...)
}

// screen is the pane's text; esc keeps the colour and attribute escapes.
func (tm *term) screen(esc bool) string {
	tm.t.Helper()
	args := []string{"capture-pane", "-p", "-t", "t"}
	if esc {
		args = append(args, "-e")
	}
	return tm.must(args...)
}

// pane reads a pane format variable, e.g. pane_dead.
func (tm *term) pane(v string) string {
	tm.t.Helper()
	return strings.TrimSpace(tm.must("display-message", "-p", "-t", "t", "#{"+v+"}"))
}

// key sends one key (a tmux key name) and pauses.
func (tm *term) key(k string) {
	tm.t.Helper()
	tm.must("send-keys", "-t", "t", k)
	time.Sleep(keyPause)
}

// waitFor polls the screen until ok accepts it and returns that screen; it fails the test
// with the last screen after waitLimit.
func (tm *term) waitFor(what string, esc bool, ok func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(waitLimit)
	var s string
	for {
		s = tm.screen(esc)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", waitLimit, what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitText waits until the screen contains every one of texts.
func (tm *term) waitText(texts ...string) string {
	tm.t.Helper()
	return tm.waitFor(fmt.Sprintf("%q", texts), false, func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// waitGone waits until the screen no longer contains text.
func (tm *term) waitGone(text string) string {
	tm.t.Helper()
	return tm.waitFor(fmt.Sprintf("%q to go away", text), false, func(s string) bool { return !strings.Contains(s, text) })
}

// exitRe is the line the pane's shell prints when fpstop exits.
var exitRe = regexp.MustCompile(`\[fpstop exited (\d+)\]`)

// waitExit waits for fpstop to exit and checks it exited 0 and left the terminal as it found
// it: main screen, no mouse reporting, cursor shown, the dashboard gone.
func (tm *term) waitExit() {
	tm.t.Helper()
	s := tm.waitFor("fpstop to exit", false, exitRe.MatchString)
	if st := exitRe.FindStringSubmatch(s)[1]; st != "0" {
		tm.t.Errorf("fpstop exited with status %s; screen:\n%s", st, s)
	}
	for _, v := range []struct{ name, want string }{
		{"alternate_on", "0"}, {"mouse_any_flag", "0"}, {"mouse_button_flag", "0"},
		{"mouse_all_flag", "0"}, {"mouse_sgr_flag", "0"}, {"cursor_flag", "1"},
	} {
		if got := tm.pane(v.name); got != v.want {
			tm.t.Errorf("terminal not restored after exit: %s = %s, want %s", v.name, got, v.want)
		}
	}
	if strings.Contains(s, "Drop levels") || strings.Contains(s, "too small") {
		tm.t.Errorf("the dashboard is still on screen after exit:\n%s", s)
	}
}

// framesRe finds the frame count in the drop-level panel.
var framesRe = regexp.MustCompile(`frames ([0-9.]+[kM]?) · janky`)

// frames is the frame count on screen (-1 when not shown).
func frames(screen string) float64 {
	m := framesRe.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	s, mul := m[1], 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		s, mul = s[:len(s)-1], 1e3
	case strings.HasSuffix(s, "M"):
		s, mul = s[:len(s)-1], 1e6
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1
	}
	return f * mul
}

// fpsRe finds the FPS panel's numbers: the current value and the run's fps and fps_wall.
var fpsRe = regexp.MustCompile(`run [0-9.—]+ fps rendering, [0-9.—]+ wall`)

// numbers is what must freeze while paused: the frame count, the FPS panel's run numbers and
// the first line of the FPS panel.
func numbers(screen string) string {
	lines := strings.Split(screen, "\n")
	first := ""
	if len(lines) > 3 {
		first = lines[3]
	}
	return fmt.Sprint(frames(screen), fpsRe.FindString(screen), first)
}

// sgrRe finds SGR escape sequences.
var sgrRe = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// colours is the sorted set of SGR sequences on a screen.
func colours(screen string) string {
	set := map[string]bool{}
	for _, s := range sgrRe.FindAllString(screen, -1) {
		set[s] = true
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// titleStyle is the escapes before the header's "fpstop" on an escaped screen.
func titleStyle(screen string) string {
	i := strings.Index(screen, "fpstop")
	if i < 0 {
		return ""
	}
	return strings.Join(sgrRe.FindAllString(screen[:i], -1), "")
}

func TestDashboardKeys(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	tm.run(120, 40, nil, "--scenario", "demo", "--speed", "4", "--hz", "120")

	// The dashboard renders, labelled as the simulator, and updates.
	tm.waitText("SIMULATOR demo", "120 Hz", "Drop levels", "Frame-time histogram", "Windows")
	first := frames(tm.waitFor("a frame count", false, func(s string) bool { return frames(s) > 0 }))
	s := tm.waitFor("the frame count to move", false, func(s string) bool { return frames(s) > first })
	if !strings.Contains(s, "normal ≥6") || !strings.Contains(s, "frozen ≥84") {
		t.Errorf("drop levels at 120 Hz not labelled 6/18/48/84:\n%s", s)
	}

	// ? opens the help, esc closes it.
	tm.key("?")
	tm.waitText("esc or ? closes")
	tm.key("Escape")
	tm.waitGone("esc or ? closes")

	// p pauses: PAUSED, and the numbers stop changing while collection goes on.
	tm.key("p")
	s = tm.waitText("PAUSED")
	frozen := numbers(s)
	until := time.Now().Add(1500 * time.Millisecond) // 6 s of simulated time at --speed 4
	for time.Now().Before(until) {
		if got := numbers(tm.screen(false)); got != frozen {
			t.Fatalf("numbers changed while paused: %q, then %q", frozen, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// p resumes: the numbers move again.
	tm.key("p")
	tm.waitGone("PAUSED")
	tm.waitFor("the numbers to move after resuming", false, func(s string) bool { return numbers(s) != frozen })

	// t cycles the theme: the flash names it and the colours change, the header's title
	// among them (a fixed element: data changes cannot recolour it).
	s = tm.screen(true)
	before, title := colours(s), titleStyle(s)
	if title == "" {
		t.Fatalf("no colour escapes before the title:\n%q", s)
	}
	tm.key("t")
	tm.waitText("theme: ")
	tm.waitFor("the colours to change with the theme", true, func(s string) bool {
		return colours(s) != before && titleStyle(s) != "" && titleStyle(s) != title
	})

	// w sets the window filter, s the sort order.
	tm.key("w")
	tm.waitFor("a window filter", false, func(s string) bool {
		return !strings.Contains(s, "filter: all") && strings.Contains(s, "FPS · ") && strings.Contains(s, "Frame-time histogram · ")
	})
	tm.key("s")
	tm.waitText("sort: total")

	// c clears the statistics: the frame count drops.
	n := frames(tm.waitFor("a frame count over 400", false, func(s string) bool { return frames(s) > 400 }))
	tm.key("c")
	tm.waitFor("the frame count to drop after clearing", false, func(s string) bool {
		f := frames(s)
		return f >= 0 && f < n/2
	})

	// q quits and restores the terminal.
	tm.key("q")
	tm.waitExit()
}

func TestTooSmall(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	tm.run(50, 12, nil, "--scenario", "demo")
	tm.waitText("terminal too small", "need 60×16, have 50×12")
	tm.key("q")
	tm.waitExit()
}

// colourSGR matches an SGR sequence with a colour parameter (30-37, 38;…, 40-47, 48;…, 90-107);
// 39 and 49, the default colours tmux writes after an attribute, are no colour.
var colourSGR = regexp.MustCompile(`\x1b\[(?:[0-9]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9]*)*m`)

// reverseSGR matches an SGR sequence that turns reverse video on.
var reverseSGR = regexp.MustCompile(`\x1b\[(?:[0-9]*;)*7(?:;[0-9]*)*m`)

func TestNoColor(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	tm.run(120, 40, []string{"NO_COLOR=1"}, "--scenario", "demo", "--speed", "4")
	tm.waitText("SIMULATOR demo", "Drop levels")
	tm.waitFor("a frame count", false, func(s string) bool { return frames(s) > 0 })
	// Also with an overlay open, which draws its own resets.
	for _, k := range []string{"", "?"} {
		if k != "" {
			tm.key(k)
			tm.waitText("esc or ? closes")
		}
		s := tm.screen(true)
		if m := colourSGR.FindStringIndex(s); m != nil {
			i := m[0]
			t.Fatalf("NO_COLOR screen has a colour escape at %d: %q", i, s[max(0, i-40):min(len(s), i+40)])
		}
		if k == "" {
			// Colour is gone, attributes stay: bold titles, the selected row reversed and marked.
			sel := ""
			for _, l := range strings.Split(s, "\n") {
				if strings.Contains(l, "▶") {
					sel = l
				}
			}
			if !reverseSGR.MatchString(sel) || !strings.Contains(s, "\x1b[1m") {
				t.Fatalf("NO_COLOR: the selected messages row is not marked ▶ and reversed, or no bold title:\n%q", sel)
			}
		}
	}
	tm.key("q")
	tm.waitExit()
}

func TestRecordReportReplay(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	rec := filepath.Join(tm.work, "rec")
	if err := os.Mkdir(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	tm.run(120, 40, nil, "--scenario", "demo", "--speed", "4", "--hz", "120", "--record-dir", rec)
	tm.waitText("SIMULATOR demo", "Drop levels")
	tm.waitFor("a frame count", false, func(s string) bool { return frames(s) > 0 })

	// r starts a recording; the header counts its seconds; r again saves it.
	tm.key("r")
	tm.waitText("● REC")
	tm.waitText("● REC 00:03")
	tm.key("r")
	// The notice line names the full path (as far as the line allows) and the screen never
	// printed over itself.
	tm.waitText("recording saved: " + rec[:min(len(rec), 60)])
	tm.waitGone("● REC")
	tm.key("q")
	tm.waitExit()

	files, _ := filepath.Glob(filepath.Join(rec, "fpstop-*.jsonl.gz"))
	if len(files) != 1 {
		all, _ := os.ReadDir(rec)
		t.Fatalf("want one fpstop-*.jsonl.gz in %s, have %v (dir: %v)", rec, files, all)
	}
	file := files[0]
	// After the screen closed: the full path and a one-line summary on the terminal.
	after := strings.Join(strings.Fields(tm.screen(false)), "")
	if !strings.Contains(after, strings.Join(strings.Fields("fpstop: recording saved: "+file+":"), "")) ||
		!regexp.MustCompile(`[0-9]+frames,[0-9]+events`).MatchString(after) {
		t.Errorf("no full path and summary of the recording after exit:\n%s", tm.screen(false))
	}

	// fpstop report reads it: exit 0, frames > 0.
	cmd := exec.Command(bin, "report", file)
	cmd.Env, cmd.Dir = tm.env, tm.work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fpstop report %s: %v\n%s", file, err, stderr.String())
	}
	var rep struct {
		Frames int64 `json:"frames"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("fpstop report: not JSON: %v\n%s", err, out)
	}
	if rep.Frames <= 0 {
		t.Fatalf("fpstop report: frames = %d, want > 0\n%s", rep.Frames, out)
	}

	// fpstop replay shows it with the progress bar; space pauses, → seeks, + speeds up.
	tm.rerun(nil, "replay", file)
	s := tm.waitText("▶ REPLAY", "space play/pause", "←/→ seek")
	if _, _, _, ok := replay(s); !ok {
		t.Fatalf("no progress bar:\n%s", s)
	}
	tm.key("Space")
	s = tm.waitFor("the replay to pause", false, func(s string) bool { p, _, _, ok := replay(s); return ok && p })
	_, pos, speed, _ := replay(s)
	if speed != "1" {
		t.Errorf("replay speed %s×, want 1×", speed)
	}
	total := secs(replayRe.FindStringSubmatch(s)[4])
	if total < 5 {
		t.Fatalf("the recording is %d s long, want at least 5 s:\n%s", total, s)
	}
	// Paused, only seeking moves the position: → jumps 10 s (or to the end).
	want := min(secs(pos)+10, total) - 1
	tm.key("Right")
	tm.waitFor(fmt.Sprintf("→ to move the position from %s to %d s or later", pos, want), false, func(s string) bool {
		_, p, _, ok := replay(s)
		return ok && secs(p) >= want
	})
	tm.key("+")
	tm.waitFor("+ to double the speed", false, func(s string) bool { _, _, sp, ok := replay(s); return ok && sp == "2" })
	tm.key("q")
	tm.waitExit()
}

// replayRe reads the progress line: state, speed, position, bar, length.
var replayRe = regexp.MustCompile(`(?m)^ (▶|❚❚) ([0-9.]+)× ([0-9:]+) [━╸─]+ ([0-9:]+|--:--) *$`)

// secs reads a clock (m:ss, mm:ss or h:mm:ss) as seconds (-1 when unknown).
func secs(c string) int {
	n := 0
	for _, f := range strings.Split(c, ":") {
		v, err := strconv.Atoi(f)
		if err != nil {
			return -1
		}
		n = n*60 + v
	}
	return n
}

// replay reads the progress line.
func replay(s string) (paused bool, pos, speed string, ok bool) {
	m := replayRe.FindStringSubmatch(s)
	if m == nil {
		return false, "", "", false
	}
	return m[1] == "❚❚", m[3], m[2], true
}
