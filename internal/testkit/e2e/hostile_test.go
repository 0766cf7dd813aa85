package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// runBinary runs the real fpstop with args (through sh when shell is set, for ulimit) and
// returns stdout, stderr, the exit code and the peak RSS in MB.
//
// The peak RSS is GNU time's (%M): the rusage Go's exec reports is no measure of the child,
// since Go starts it with vfork and Linux charges the exec'ing child the parent's peak RSS (the
// test binary's, well over the limits checked here when the whole e2e suite runs).
func runBinary(t *testing.T, shell string, args ...string) (string, string, int, float64) {
	t.Helper()
	argv := append([]string{binary(t)}, args...)
	if shell != "" {
		argv = append([]string{"sh", "-c", shell + `; exec "$0" "$@"`}, argv...)
	}
	rssFile := filepath.Join(t.TempDir(), "maxrss")
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("GNU time (/usr/bin/time, Debian package time) is needed to measure a child's peak RSS")
	}
	cmd := exec.Command(timeBin, append([]string{"-f", "%M", "-o", rssFile}, argv...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rss := peakRSSMB(t, rssFile)
	return out.String(), errb.String(), code, rss
}

// peakRSSMB reads GNU time's -o file: the %M line (kB), after any "Command exited …" line.
func peakRSSMB(t *testing.T, path string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading GNU time's output: %v", err)
	}
	lines := strings.Fields(strings.TrimSpace(string(b)))
	if len(lines) == 0 {
		t.Fatalf("GNU time wrote nothing to %s", path)
	}
	var kb float64
	if _, err := fmt.Sscan(lines[len(lines)-1], &kb); err != nil {
		t.Fatalf("GNU time's output %q: %v", b, err)
	}
	return kb / 1024
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

// TestLongLineBounded (issue 31): a gfxinfo capture holding one 256 MB line (the 1 GB,
// scaled for CI: without the bound the resident memory grows with the line) is read in bounded
// memory, from a file (mapped) and from stdin, the line skipped with a counted warning and the
// frames around it kept.
func TestLongLineBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the binary")
	}
	capture := realdata.Files(t, "gfxinfo")
	var good []byte
	for _, f := range capture {
		if strings.Contains(f, "choi890-soundviz-android13plus-120hz-framestats-scroll") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			good = b
		}
	}
	if good == nil {
		t.Fatal("capture not found")
	}
	p := filepath.Join(t.TempDir(), "long.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(good, []byte("---PROFILEDATA---"))
	f.Write(head)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < 256; i++ {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Write([]byte("\n"))
	f.Write(good)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"file", "stdin"} {
		shell := ""
		in := p
		if how == "stdin" {
			shell, in = "exec <"+p, "-"
		}
		out, errs, code, rss := runBinary(t, shell, "--input", in, "--headless", "--json")
		t.Logf("%s: exit %d, peak RSS %.1f MB", how, code, rss)
		if code != 0 || !strings.Contains(out, "lines longer than") || !strings.Contains(out, `"frames": 120`) {
			t.Errorf("%s: exit %d, stderr %q; want the frames and the skipped line said\n%.2000s", how, code, errs, out)
		}
		if rss > 64 {
			t.Errorf("%s: peak RSS %.1f MB, want ≤ 64", how, rss)
		}
	}
}

// TestGiantBlock (issue 31): one PROFILEDATA block longer than the reader's per-dump bound is
// read up to the bound and the rest skipped, and the warnings account for every row: the frames
// counted plus the lines skipped are the rows written (before, the rest was parsed as dozens of
// damaged dumps).
func TestGiantBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the binary")
	}
	var capture []byte
	for _, f := range realdata.Files(t, "gfxinfo") {
		if strings.Contains(f, "choi890-soundviz-android13plus-120hz-framestats-scroll") {
			capture, _ = os.ReadFile(f)
		}
	}
	if capture == nil {
		t.Fatal("capture not found")
	}
	// the capture's dump up to its PROFILEDATA header, with an Uptime past the last row
	cut := bytes.Index(capture, []byte("---PROFILEDATA---\n"))
	nl := bytes.IndexByte(capture[cut+18:], '\n')
	head := bytes.Replace(capture[:cut+18+nl+1], []byte("Uptime: 314859701"), []byte("Uptime: 330000000"), 1)
	p := filepath.Join(t.TempDir(), "block.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(head)
	const rows = 150_000
	b := int64(314856675367713)
	for i := int64(0); i < rows; i++ {
		v := b + i*8_333_333
		fmt.Fprintf(bw, "0,%d,%d,%d,0,%d,%d,%d,%d,%d,8333333,%d,%d,%d,%d,%d,%d,21302,290781,%d,%d,%d,%d,\n",
			27432918+i, v, v, v+400000, v+410000, v+4000000, v+4100000, v+16666666, v+400000, v+5000000, v+5100000,
			v+5200000, v+6000000, v+7000000, v+7000000, v+6500000, v+20000000, v+6000000)
	}
	bw.WriteString("---PROFILEDATA---\n")
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, errs, code, rss := runBinary(t, "", "--input", p, "--headless", "--json")
	t.Logf("exit %d, peak RSS %.1f MB", code, rss)
	var r struct {
		Frames   int64
		Warnings []string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d %s: %v", code, errs, err)
	}
	var skipped int64 = -1
	for _, w := range r.Warnings {
		if strings.Contains(w, "dumps longer than") {
			fmt.Sscanf(w[strings.Index(w, "the ")+4:], "%d", &skipped)
		}
		if strings.Contains(w, "damaged pid line") {
			t.Errorf("the rest of the block was parsed as damage: %q", w)
		}
	}
	// the block's closing marker is one skipped line too
	if skipped < 0 || r.Frames+skipped != rows+1 {
		t.Errorf("%d frames + %d lines skipped, want %d rows (+1 marker) accounted for; warnings %q", r.Frames, skipped, rows, r.Warnings)
	}
}
