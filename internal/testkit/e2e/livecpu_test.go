package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/metrics"
)

// BenchmarkLiveCPU measures what a live session costs the machine: the real binary follows one
// simulated 120 Hz phone (the in-repo fake phone behind Debian's adb server on a private port)
// headless (FPSTOP_LIVE_CPU_SCENARIO, default janky: stutters and idle gaps, so the logcat clock's
// offset can be found), with `--source gfxinfo+logcat` and with `--source gfxinfo`, and the CPU time
// (utime+stime from /proc) of fpstop and of every process it started — the adb server, which
// fpstop does not start here, excepted — is taken over FPSTOP_LIVE_CPU_SECONDS (default 30)
// after 5 s of start-up, as a share of one core. Run it with scripts/measure-live-cpu.sh;
// `go test ./...` runs no benchmark. Linux only (/proc).
func BenchmarkLiveCPU(b *testing.B) {
	secs := 30
	if v := os.Getenv("FPSTOP_LIVE_CPU_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("FPSTOP_LIVE_CPU_SECONDS=%q: want a positive number of seconds", v)
		}
		secs = n
	}
	scenario := "janky"
	if v := os.Getenv("FPSTOP_LIVE_CPU_SCENARIO"); v != "" {
		scenario = v
	}
	bin := binary(b)
	for _, src := range []string{"gfxinfo+logcat", "gfxinfo"} {
		b.Run(src, func(b *testing.B) {
			ph := startPhone(b, 120, scenario, 7, 37_500_000) // logcat's clock 37.5 ms off, as logd's can be
			ph.printer.Store(true)                            // a debug build printing Looper lines
			env := adbtest.Start(b, fakeadb.Config{Handler: ph.handler, Model: "Pixel 7", Android: "14", SDK: 34})
			for i := 0; i < b.N; i++ {
				cpu := liveCPURun(b, bin, env.Port, env.Serial, src, time.Duration(secs)*time.Second)
				b.ReportMetric(cpu, "cpu%")
			}
		})
	}
}

// liveCPURun runs one session and returns its CPU share of one core over the window.
func liveCPURun(b *testing.B, bin string, port int, serial, src string, window time.Duration) float64 {
	const warmup = 5 * time.Second
	cmd, out, errb := startIsolated(b, bin, "--adb-port", strconv.Itoa(port), "-s", serial, "-p", pkg, "--source", src,
		"--headless", "--json", "--duration", (warmup + window + 5*time.Second).String())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	pid := cmd.Process.Pid
	time.Sleep(warmup)
	t0, at0 := treeTicks(pid), time.Now()
	time.Sleep(window)
	t1, at1 := treeTicks(pid), time.Now()
	rss := procRSSMB(pid)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("fpstop: %v\n%s", err, errb.String())
	}
	var r metrics.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		b.Fatalf("no report (%v): %s\n%s", err, out.String(), errb.String())
	}
	// a run that measured nothing would be cheap for the wrong reason
	if r.Frames < 1000 || (strings.Contains(src, "logcat") && r.Messages.Paired < 1000) {
		b.Fatalf("%s: %d frames, %d messages paired: the session did not follow the phone\n%s", src, r.Frames, r.Messages.Paired, errb.String())
	}
	cpu := 100 * float64(t1-t0) / 100 / at1.Sub(at0).Seconds() // USER_HZ is 100 on Linux
	b.Logf("%s at 120 Hz: %.2f %% of one core over %s (fpstop and its children), RSS %.1f MB; %d frames, %d messages paired, %d worst frames with messages",
		src, cpu, at1.Sub(at0).Round(time.Second), rss, r.Frames, r.Messages.Paired, attributed(r.WorstFrames))
	if len(r.Warnings) > 0 {
		b.Logf("warnings: %q", r.Warnings)
	}
	if e := errb.String(); cpu > 3 && e != "" {
		b.Logf("stderr of the costly run: %.2000s", e)
	}
	return cpu
}

// treeTicks is utime+stime of pid, of every live descendant, and of the children pid has
// already waited for (cutime+cstime), in clock ticks.
func treeTicks(pid int) int64 {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	ticks := map[int]int64{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := statFields(p)
		if len(f) < 15 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		parent[p], ticks[p] = pp, u+s
		if p == pid {
			cu, _ := strconv.ParseInt(f[13], 10, 64)
			cs, _ := strconv.ParseInt(f[14], 10, 64)
			ticks[p] += cu + cs
		}
	}
	var sum int64
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += t
				break
			}
		}
	}
	return sum
}

// statFields are /proc/PID/stat's fields from the third (state) on.
func statFields(pid int) []string {
	bs, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(bs)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil
	}
	return strings.Fields(s[i+2:])
}

// attributed counts the worst frames a message was found for (the clock offset was found).
func attributed(ws []metrics.WorstFrame) int {
	n := 0
	for _, w := range ws {
		if len(w.Messages) > 0 {
			n++
		}
	}
	return n
}

// startIsolated starts the real binary with its own HOME and XDG directories (no user config,
// no ANDROID_SERIAL) and returns it running, with its stdout and stderr collected.
func startIsolated(b *testing.B, bin string, args ...string) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	b.Helper()
	home := b.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "ANDROID_SERIAL=")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd, &out, &errb
}
