package e2e

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runBinary runs the real fpstop with args (through sh when shell is set, for ulimit) and
// returns stdout, stderr, the exit code and the peak RSS in MB.
func runBinary(t *testing.T, shell string, args ...string) (string, string, int, float64) {
	t.Helper()
	var cmd *exec.Cmd
	if shell != "" {
		cmd = exec.Command("sh", append([]string{"-c", shell + `; exec "$0" "$@"`, binary(t)}, args...)...)
	} else {
		cmd = exec.Command(binary(t), args...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // kB on Linux
	return out.String(), errb.String(), code, rss
}

// TestRecordingWriteFails (issue 13, moved here by issue 31): a recording whose writes fail
// later stops the run at once: exit 3, and the report's warnings say so. The failure is a file
// size limit (ulimit -f, SIGXFSZ ignored), never a write to the host's /dev/full.
func TestRecordingWriteFails(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the binary")
	}
	rec := filepath.Join(t.TempDir(), "r.jsonl")
	out, errs, code, _ := runBinary(t, "trap '' XFSZ; ulimit -f 16", "--source", "sim", "--headless", "--json",
		"--duration", "30s", "--speed", "1", "--record", rec)
	if code != 3 {
		t.Fatalf("exit %d, stderr %q; want 3", code, errs)
	}
	var r struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "recording") || !strings.Contains(errs, "recording") {
		t.Errorf("warnings %q, stderr %q: the failed recording is not reported", r.Warnings, errs)
	}
}

// TestRandomInputBounded (issue 31): 100 MB of random bytes as --input: exit 3 with what was
// seen, in bounded memory.
func TestRandomInputBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the binary")
	}
	p := filepath.Join(t.TempDir(), "random.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(31))
	buf := make([]byte, 1<<20)
	for i := 0; i < 100; i++ {
		rng.Read(buf)
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--input", p, "--headless", "--json"}, {"report", p}} {
		out, errs, code, rss := runBinary(t, "", args...)
		t.Logf("%s: exit %d, peak RSS %.1f MB, stderr %q", args[0], code, rss, errs)
		if code != 3 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want 3 and one sentence", args, code, len(out), errs)
		}
		if rss > 64 {
			t.Errorf("%v: peak RSS %.1f MB, want ≤ 64", args, rss)
		}
	}
}
