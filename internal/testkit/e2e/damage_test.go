package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"

	"github.com/fpstop/fpstop/internal/cli"
)

// damager damages a fraction of the lines of the device's output, as a flaky cable or a full
// buffer would: a line is truncated, gets garbage bytes, loses its newline or is duplicated.
type damager struct {
	mu   sync.Mutex
	rate float64
	rng  *rand.Rand
	hits int
}

func newDamager(rate float64, seed uint64) *damager {
	return &damager{rate: rate, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// apply returns b with the damage done (b itself when d is nil).
func (d *damager) apply(b []byte) []byte {
	if d == nil {
		return b
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var out bytes.Buffer
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		b = b[len(line):]
		if d.rng.Float64() >= d.rate {
			out.Write(line)
			continue
		}
		d.hits++
		body := bytes.TrimSuffix(line, []byte("\n"))
		nl := len(body) < len(line)
		switch d.rng.IntN(4) {
		case 0: // truncated
			if len(body) > 0 {
				body = body[:d.rng.IntN(len(body))]
			}
			out.Write(body)
			if nl {
				out.WriteByte('\n')
			}
		case 1: // garbage bytes
			g := append([]byte(nil), body...)
			for range 1 + d.rng.IntN(3) {
				if len(g) > 0 {
					g[d.rng.IntN(len(g))] = byte(d.rng.IntN(256))
				}
			}
			out.Write(g)
			if nl {
				out.WriteByte('\n')
			}
		case 2: // lost newline
			out.Write(body)
		default: // duplicated
			out.Write(line)
			out.Write(line)
		}
	}
	return out.Bytes()
}

// TestDamagedOutput (issue 13): with 5 % and 30 % of the device's output lines damaged (gfxinfo,
// and logcat too when it is read), fpstop never counts a frame twice or invents a window: frames
// seen ≤ frames drawn, frames seen + frames_lost within 97–102 % of them (94–104 % at 30 % live
// damage: dumps that run together with their Uptime lines lost, an app taken for started in the
// session and a popup reshown under one title still mis-charge a few percent there, issue 31's
// open item; the deterministic sweep, TestDamagedCapture, holds 97–102 % on every seed), and the
// damage is counted in the report's warnings. Each run is 20 s (it was 30 s): ~600 frames drawn
// in the session and thousands of damaged lines at 30 %; the mis-charges come per incident, so
// a shorter run keeps their expected share and widens its spread by √1.5 (30 s runs stayed
// within 98–102.6 %, inside both bands with room for that), while the sweep covers the seeds.
func TestDamagedOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rate   float64
		source string
	}{{0.05, "gfxinfo"}, {0.30, "gfxinfo"}, {0.30, "gfxinfo+logcat"}} {
		t.Run(fmt.Sprintf("%.0f%% %s", c.rate*100, c.source), func(t *testing.T) {
			t.Parallel()
			rate := c.rate
			ph := startPhone(t, 60, "demo", 7, 0)
			ph.damage = newDamager(rate, 13)
			ph.printer.Store(c.source != "gfxinfo")
			env := startEnv(t, ph)
			rec := filepath.Join(t.TempDir(), "run.jsonl")
			r, errs, code := fpstop(t, env, "--source", c.source, "--headless", "--json", "--duration", "20s", "-p", pkg, "--record", rec)
			ph.stop()
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			band := lostBand{97, 102}
			if rate >= 0.3 {
				band = lostBand{94, 104}
			}
			checkDamaged(t, r, rec, ph.truth.Bytes(), rate, ph.damage.hits, 0, band)
		})
	}
}

// damagedCapture runs the simulator as fast as it goes for dur at hz and returns a capture of
// one `dumpsys gfxinfo` every poll of simulated time, each dump damaged by d, the truth, and
// the device time of the first dump (as its Uptime line prints it).
func damagedCapture(t *testing.T, d *damager, hz float64, dur, poll time.Duration, seed int64) (capture, truth []byte, firstNs int64) {
	t.Helper()
	return simCapture(t, "demo", d, hz, dur, poll, seed)
}

// simCapture is damagedCapture of any scenario (d nil: no damage).
func simCapture(t *testing.T, scenario string, d *damager, hz float64, dur, poll time.Duration, seed int64) (capture, truth []byte, firstNs int64) {
	t.Helper()
	c := simDumps(t, simRun{scenario, hz, dur, poll, seed})
	var out bytes.Buffer
	for _, dump := range c.dumps {
		out.Write(d.apply(dump))
	}
	return out.Bytes(), c.truth, c.firstNs
}

// simRun names one simulated capture.
type simRun struct {
	scenario  string
	hz        float64
	dur, poll time.Duration
	seed      int64
}

// simDumped is a simulated capture, dump by dump, before any damage.
type simDumped struct {
	once    sync.Once
	dumps   [][]byte
	truth   []byte
	firstNs int64
	err     error
}

// simDumps holds each capture the tests simulate, made once: the damage sweep reads the same
// minute of dumps under every damage seed, and simulating it is half of each seed's cost.
var simDumpsMade sync.Map // simRun → *simDumped

// simDumps runs the simulator as fast as it goes for r.dur and renders a `dumpsys gfxinfo`
// every r.poll of simulated time, once per r for the test binary.
func simDumps(t *testing.T, r simRun) *simDumped {
	t.Helper()
	v, _ := simDumpsMade.LoadOrStore(r, &simDumped{})
	c := v.(*simDumped)
	c.once.Do(func() { c.dumps, c.truth, c.firstNs, c.err = renderDumps(r) })
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c
}

// renderDumps is simDumps' work.
func renderDumps(r simRun) (dumps [][]byte, truth []byte, firstNs int64, err error) {
	s, err := sim.New(sim.Config{Scenario: r.scenario, Hz: r.hz, Seed: r.seed, Speed: 0, Duration: r.dur, Package: pkg})
	if err != nil {
		return nil, nil, 0, err
	}
	// The dump is fed from the batches (not by the running simulator), so each dump is what
	// the device held at the batch's end: the capture is the same on every run.
	dump := simtext.NewGfxinfoDump(pkg, s.Config().Pid, 0)
	var tb bytes.Buffer
	s.SetTruth(&tb)
	ch := make(chan []source.Event)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	next := sim.StartNs + int64(r.poll)
	for b := range ch {
		dump.Observe(b)
		var now int64
		for _, ev := range b {
			if tk, ok := ev.(*source.Tick); ok && tk.NowNs > now {
				now = tk.NowNs
			}
		}
		for ; now >= next; next += int64(r.poll) {
			var b bytes.Buffer
			if err == nil {
				err = dump.Render(&b, now, simtext.LayoutAndroid13)
			}
			if firstNs == 0 {
				firstNs = now / 1e6 * 1e6
			}
			dumps = append(dumps, b.Bytes())
		}
	}
	if rerr := <-errc; rerr != nil {
		return nil, nil, 0, rerr
	}
	return dumps, tb.Bytes(), firstNs, err
}

// damagedSeeds is how many damage seeds TestDamagedCapture sweeps per rate: 20, a few in
// -short, FPSTOP_DAMAGE_SEEDS when set (a wider sweep by hand: 60 passed when it was the
// default). Each seed is a minute of dumps parsed in-process, CPU-bound in the suite's serial
// phase: 20 seeds a rate land damage on each kind of line many times over at a third of the
// cost.
func damagedSeeds() int {
	if n, err := strconv.Atoi(os.Getenv("FPSTOP_DAMAGE_SEEDS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 6
	}
	return 20
}

// TestDamagedCapture is TestDamagedOutput on captured files (no adb; fast), swept over many
// damage seeds at 5 % and 30 %: the same guarantees for every seed when the damaged dumps are
// read with --input. (Damage lands on different lines with each seed: a counter's digit, a
// title, a pid, a PROFILEDATA header, the line between two dumps; one seed checks little.)
func TestDamagedCapture(t *testing.T) {
	for _, rate := range []float64{0.05, 0.30} {
		for seed := range damagedSeeds() {
			t.Run(fmt.Sprintf("%.0f%%/seed%d", rate*100, seed), func(t *testing.T) {
				t.Parallel()
				runDamagedCapture(t, rate, uint64(seed))
			})
		}
	}
}

// runDamagedCapture reads a damaged capture of 60 s at 60 Hz (one dump a second) with --input
// and checks the report against the truth.
func runDamagedCapture(t *testing.T, rate float64, seed uint64) {
	d := newDamager(rate, seed)
	capture, truth, firstNs := damagedCapture(t, d, 60, 60*time.Second, time.Second, 5)
	dir := t.TempDir()
	path := filepath.Join(dir, "capture.txt")
	if err := os.WriteFile(path, capture, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "run.jsonl")
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"--input", path, "--headless", "--json", "--record", rec}, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Build: buildinfo.Info{Version: "e2e"},
	})
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r metrics.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	checkDamaged(t, r, rec, truth, rate, d.hits, firstNs, lostBand{97, 102})
}

// lostBand is the share of the frames drawn that frames seen + frames_lost must cover, in %.
type lostBand struct{ lo, hi float64 }

// checkDamaged holds a report of damaged input against the truth, over the session: frames
// completed after the first dump and by the last one (the first dump's backlog was drawn
// before the session: when its rows are damaged they are neither seen nor lost). firstNs is
// the first dump's time when the test knows it (0: the earliest poll recorded with a time; a
// first dump whose Uptime line was damaged records none).
func checkDamaged(t *testing.T, r metrics.Report, rec string, truth []byte, rate float64, hits int, firstNs int64, band lostBand) {
	t.Helper()
	_, evs, err := recordtest.ReadAll(rec)
	if err != nil {
		t.Fatal(err)
	}
	var from, to int64
	for _, ev := range evs {
		if p, ok := ev.(*source.Poll); ok {
			if from == 0 || p.AtNs < from {
				from = p.AtNs
			}
			to = max(to, p.AtNs)
		}
	}
	if firstNs > 0 {
		from = firstNs
	}
	seenIn := int64(0)
	dups := map[string]int{}
	for _, ev := range evs {
		if f, ok := ev.(*source.Frame); ok {
			dups[fmt.Sprint(f.Window, f.VsyncID, f.VsyncNs)]++
			if f.DoneNs > from && f.DoneNs <= to && f.Flags&source.FlagSkippedFrame == 0 {
				seenIn++
			}
		}
	}
	for k, n := range dups {
		if n > 1 {
			t.Errorf("frame %s emitted %d times", k, n)
		}
	}
	all, _ := parseTruth(t, truth)
	truthWins := map[string]bool{}
	drawn := int64(0)
	for _, f := range all {
		truthWins[f.Window] = true
		if f.DoneNs > from && f.DoneNs <= to && f.Flags&source.FlagSkippedFrame == 0 {
			drawn++
		}
	}
	for _, w := range r.Windows {
		if !truthWins[w.Name] {
			t.Errorf("phantom window %q (the phone has %v)", w.Name, truthWins)
		}
	}
	lost := int64(0)
	if r.FramesLost != nil {
		lost = *r.FramesLost
	}
	t.Logf("%.0f%% damage (%d lines): seen %d + lost %d = %.1f%% of %d drawn in the session", rate*100, hits,
		seenIn, lost, float64(seenIn+lost)*100/float64(drawn), drawn)
	if drawn < 300 {
		t.Fatalf("the session holds only %d frames", drawn)
	}
	if seenIn > drawn {
		t.Errorf("frames seen %d > drawn %d", seenIn, drawn)
	}
	if pct := float64(seenIn+lost) * 100 / float64(drawn); pct < band.lo || pct > band.hi {
		t.Errorf("seen %d + lost %d is %.1f%% of the %d drawn, want %g–%g%%", seenIn, lost, pct, drawn, band.lo, band.hi)
	}
	warn := strings.Join(r.Warnings, "\n")
	if !strings.Contains(warn, "damaged") && !strings.Contains(warn, "torn") {
		t.Errorf("the damage is not in the warnings: %q", r.Warnings)
	}
}

// TestWrongPackage (issue 13): -p of an app that is not running: the waiting notice is in the
// report's warnings and on stderr, and a headless run that never saw the app exits 3 — or 1
// when a gate was given (a run with no frames fails every gate).
func TestWrongPackage(t *testing.T) {
	t.Parallel()
	ph := startPhone(t, 60, "smooth", 3, 0)
	env := startEnv(t, ph)
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"--adb-port", fmt.Sprint(env.Port), "-s", env.Serial,
		"-p", "com.example.other", "--headless", "--json", "--duration", "3s"}, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Build: buildinfo.Info{Version: "e2e"},
	})
	if code != cli.ExitRuntime || !strings.Contains(errb.String(), "waiting for com.example.other") ||
		!strings.Contains(errb.String(), "never seen") {
		t.Errorf("exit %d, stderr %q; want 3 with the waiting notice", code, errb.String())
	}
	var r metrics.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || !strings.Contains(strings.Join(r.Warnings, "\n"), "waiting for com.example.other") {
		t.Errorf("report %v warnings %q", err, r.Warnings)
	}
	_, errs, code := fpstop(t, env, "-p", "com.example.other", "--headless", "--json", "--duration", "3s", "--fail-under-fps", "30")
	if code != cli.ExitGate || !strings.Contains(errs, "no frames") {
		t.Errorf("with a gate: exit %d, stderr %q; want 1", code, errs)
	}
}

// TestSignalWhileLoadingConfig (issue 13): the real binary honours SIGTERM while it reads its
// config file — a FIFO nobody writes to, which would block a plain read forever: it stops at
// once with exit 3 and one sentence naming the file.
func TestSignalWhileLoadingConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and starts the real binary")
	}
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "config.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	cmd := exec.Command(binary(t), "--config", fifo, "--source", "sim", "--headless", "--duration", "1s")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitOpeningFIFO(cmd.Process.Pid, 10*time.Second)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("SIGTERM ignored while loading the config")
	}
	msg := strings.TrimSpace(errb.String())
	if code := cmd.ProcessState.ExitCode(); code != cli.ExitRuntime || !strings.Contains(msg, "interrupted while reading "+fifo) ||
		strings.Count(msg, "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want 3 and one sentence naming the file", code, msg)
	}
}

// waitOpeningFIFO waits until one of pid's threads is blocked opening a FIFO (Linux shows
// wait_for_partner as the thread's wait channel), at most d: a fixed pause was too short for a
// binary starting on a loaded machine (the signal came before its handler) and too long
// otherwise. Without /proc it pauses half a second.
func waitOpeningFIFO(pid int, d time.Duration) {
	tasks := fmt.Sprintf("/proc/%d/task", pid)
	if _, err := os.Stat(tasks); err != nil {
		time.Sleep(500 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ids, _ := os.ReadDir(tasks)
		for _, id := range ids {
			if w, err := os.ReadFile(filepath.Join(tasks, id.Name(), "wchan")); err == nil && string(w) == "wait_for_partner" {
				return
			}
		}
	}
}
