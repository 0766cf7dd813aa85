package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/testkit/junitcheck"
)

// simRecord records a headless simulator run to dir/name and returns its path and report.
func simRecord(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	args = append([]string{"--source", "sim", "--speed", "0", "--headless", "--json", "--record", path}, args...)
	if _, errs, code := run(t, "", args...); code != ExitOK {
		t.Fatalf("recording %s: exit %d: %s", name, code, errs)
	}
	return path
}

// checkJUnit validates a JUnit file (Check always, xmllint when installed; CI requires it with
// FPSTOP_REQUIRE_XMLLINT=1) and returns its testcases.
func checkJUnit(t *testing.T, path string) *junitcheck.Parsed {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := junitcheck.Check(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if testing.Short() {
		return p // xmllint is a process: only in full runs
	}
	switch err := junitcheck.Xmllint(context.Background(), path); {
	case errors.Is(err, junitcheck.ErrNoXmllint) && os.Getenv("FPSTOP_REQUIRE_XMLLINT") == "1":
		t.Fatalf("FPSTOP_REQUIRE_XMLLINT=1 but %v", err)
	case errors.Is(err, junitcheck.ErrNoXmllint):
		t.Logf("schema validation with xmllint skipped: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	return p
}

func decodeCompare(t *testing.T, out string) compare.Result {
	t.Helper()
	var r compare.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not compare JSON: %v\n%s", err, out)
	}
	return r
}

func findMetric(r compare.Result, name string) compare.Metric {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m
		}
	}
	return compare.Metric{}
}

// Janky against smooth at 120 Hz (three 20 s runs a side) is worse, significant, and exits 1
// under --max-fps-drop 2; one run a side is inconclusive; seeds of smooth are unchanged and exit
// 0. The JUnit report validates and lists each gate.
func TestCompareSimulatorRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("records ten 20 s simulator runs")
	}
	dir := t.TempDir()
	// three runs a side (one a side is inconclusive): the side's first run, then --base/--new
	rec := func(scenario string, seed int) string {
		return simRecord(t, dir, fmt.Sprintf("%s%d.jsonl.gz", scenario, seed), "--scenario", scenario, "--hz", "120", "--seed", fmt.Sprint(seed), "--duration", "20s")
	}
	smooth1, janky := rec("smooth", 1), rec("janky", 1)
	more := []string{"--base", rec("smooth", 2), "--base", rec("smooth", 3), "--new", rec("janky", 2), "--new", rec("janky", 3)}
	smooth2 := rec("smooth", 4)
	smoothMore := []string{"--base", more[1], "--base", more[3], "--new", rec("smooth", 5), "--new", rec("smooth", 6)}

	// one run a side: inconclusive, no gate checked, exit 0, and a warning says why
	out, errs, code := run(t, "", "compare", smooth1, janky, "--max-fps-drop", "2", "--format", "json")
	if r := decodeCompare(t, out); code != ExitOK || r.Verdict != compare.Inconclusive || r.GatesFailed || len(r.Warnings) == 0 {
		t.Errorf("one run a side: exit %d, verdict %s, gates failed %v, warnings %q: %s", code, r.Verdict, r.GatesFailed, r.Warnings, errs)
	}

	xml := filepath.Join(dir, "junit.xml")
	out, errs, code = run(t, "", append([]string{"compare", smooth1, janky, "--max-fps-drop", "2", "--format", "json", "--junit", xml}, more...)...)
	if code != ExitGate {
		t.Fatalf("janky vs smooth: exit %d, want 1: %s", code, errs)
	}
	r := decodeCompare(t, out)
	fps := findMetric(r, "fps")
	if r.Verdict != compare.Worse || !fps.Significant || fps.Verdict != compare.Worse || !r.GatesFailed {
		t.Errorf("janky vs smooth: verdict %s, fps %+v", r.Verdict, fps)
	}
	if !strings.Contains(errs, "gate failed") || !strings.Contains(errs, "--max-fps-drop 2") {
		t.Errorf("stderr does not name the gate: %s", errs)
	}
	p := checkJUnit(t, xml)
	if len(p.Cases) != len(r.Gates) || p.Failures == 0 {
		t.Fatalf("junit: %d cases (%d failed) for %d gates", len(p.Cases), p.Failures, len(r.Gates))
	}
	for i, g := range r.Gates {
		c := p.Cases[i]
		if c.Failed != g.Failed || !strings.HasPrefix(c.Name, "max-fps-drop 2") || (g.Scope == "window") != strings.Contains(c.Class, "window") {
			t.Errorf("case %+v for gate %+v", c, g)
		}
		if g.Failed && (!strings.Contains(c.Message, "fps dropped") || !strings.Contains(c.Message, "--max-fps-drop 2")) {
			t.Errorf("failure message lacks the value or threshold: %q", c.Message)
		}
	}

	out, errs, code = run(t, "", append([]string{"compare", smooth1, smooth2, "--max-fps-drop", "2", "--format", "json"}, smoothMore...)...)
	if code != ExitOK {
		t.Fatalf("smooth seeds: exit %d: %s", code, errs)
	}
	r = decodeCompare(t, out)
	for _, name := range []string{"fps", "jank_pct"} {
		if m := findMetric(r, name); m.Verdict != compare.Unchanged || m.Significant || m.Base == nil {
			t.Errorf("smooth seeds 1 vs 2: %s %+v", name, m)
		}
	}
	for _, format := range []string{"text", "md"} {
		out, errs, code = run(t, "", append([]string{"compare", smooth1, smooth2, "--format", format}, smoothMore...)...)
		if code != ExitOK || !strings.Contains(out, "fps") || !strings.Contains(out, "unchanged") {
			t.Errorf("--format %s: exit %d: %s\n%s", format, code, errs, out)
		}
	}
}

// fpstop test with the simulator: N recordings and a summary whose per-iteration values are
// the single runs' (seed + i − 1), whose mean is theirs and whose interval holds the mean.
func TestTestCommandSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 10 simulator runs")
	}
	dir := t.TempDir()
	rd := filepath.Join(dir, "runs")
	out, errs, code := run(t, "", "test", "--source", "sim", "--scenario", "demo", "--hz", "120", "--speed", "0", "--seed", "11",
		"--iterations", "5", "--duration", "10s", "--command", "true", "--record-dir", rd, "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for i := 1; i <= 5; i++ {
		if !strings.Contains(errs, fmt.Sprintf("iteration %d of 5", i)) {
			t.Errorf("no progress for iteration %d: %s", i, errs)
		}
		if _, err := os.Stat(filepath.Join(rd, fmt.Sprintf("iteration-%02d.jsonl.gz", i))); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(errs, "ETA") {
		t.Errorf("no ETA: %s", errs)
	}
	var sum compare.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	var single []float64
	for i := 0; i < 5; i++ {
		o, e, c := run(t, "", "--source", "sim", "--scenario", "demo", "--hz", "120", "--speed", "0", "--seed", fmt.Sprint(11+i),
			"--headless", "--json", "--duration", "10s")
		if c != ExitOK {
			t.Fatalf("single run: %s", e)
		}
		v := float64(*decode(t, o).FPS)
		single = append(single, v)
		if got := sum.Iterations[i].Values["fps"]; got == nil || math.Abs(*got-v) > 0.005 {
			t.Errorf("iteration %d fps %v, the single run %v", i+1, got, v)
		}
	}
	st := sum.Stats[0]
	m := (single[0] + single[1] + single[2] + single[3] + single[4]) / 5
	if st.Name != "fps" || st.N != 5 || math.Abs(*st.Mean-m) > 0.01 || *st.CILow > *st.Mean || *st.CIHigh < *st.Mean {
		t.Errorf("fps summary %+v, mean of the single runs %v", st, m)
	}
	for _, v := range single {
		if v < *st.Min-0.005 || v > *st.Max+0.005 {
			t.Errorf("single run %v outside [%v, %v]", v, *st.Min, *st.Max)
		}
	}
	// a test directory is a side for compare
	if _, errs, code := run(t, "", "compare", rd, rd, "--format", "json"); code != ExitOK {
		t.Errorf("compare of a test directory with itself: exit %d: %s", code, errs)
	}
}

// A failing driver marks its iteration failed; the run goes on, says so, and exits 1. The JUnit
// report has the iteration and each gate as testcases.
func TestTestCommandDriverFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs driver commands with sh")
	}
	dir := t.TempDir()
	rd, xml := filepath.Join(dir, "runs"), filepath.Join(dir, "junit.xml")
	before := filepath.Join(dir, "before.txt")
	out, errs, code := run(t, "", "test", "--source", "sim", "--scenario", "smooth", "--speed", "0", "--iterations", "3",
		"--duration", "3s", "--command", `[ "$FPSTOP_ITERATION" != 2 ]`, "--record-dir", rd, "--junit", xml,
		"--before", `echo "$FPSTOP_ITERATION" >> `+before, "--fail-under-fps", "1", "--max-jank-pct", "100")
	if code != ExitGate {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	if !strings.Contains(errs, "iteration 2 failed: driver command exited with status 1") || !strings.Contains(errs, "iteration 3 of 3") {
		t.Errorf("stderr: %s", errs)
	}
	if !strings.Contains(out, "1 failed") {
		t.Errorf("summary: %s", out)
	}
	p := checkJUnit(t, xml)
	if p.Tests != 9 || p.Failures != 1 || !p.Cases[3].Failed || p.Cases[3].Class != "fpstop.test.iteration.2" {
		t.Errorf("junit: %+v", p)
	}
	paths, err := compare.Paths([]string{rd})
	if err != nil || len(paths) != 2 {
		t.Errorf("compare would use %v (%v), want the 2 successful iterations", paths, err)
	}
	if b, err := os.ReadFile(before); err != nil || string(b) != "1\n2\n3\n" {
		t.Errorf("--before ran as %q (%v)", b, err)
	}
	// a failing --before fails its iteration, and the next one still runs
	_, errs, code = run(t, "", "test", "--source", "sim", "--speed", "0", "--iterations", "2", "--duration", "1s",
		"--before", `[ "$FPSTOP_ITERATION" != 1 ]`, "--record-dir", filepath.Join(dir, "b"))
	if code != ExitGate || !strings.Contains(errs, "iteration 1 failed: --before exited with status 1") || !strings.Contains(errs, "1 of 2 iterations ok") {
		t.Errorf("failing --before: exit %d: %s", code, errs)
	}
}

func TestTestCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"test", "--source", "sim", "--command", "true"},                       // the simulator needs --duration
		{"test", "--source", "sim", "--duration", "1s", "--iterations", "0"},   // no iterations
		{"test", "--source", "sim", "--duration", "1s", "--cold"},              // no app to restart
		{"test", "--source", "sim", "--duration", "1s", "--record", "x.jsonl"}, // not for test
		{"test", "--source", "sim", "--duration", "1s", "-p", "com.x;reboot"},  // hostile package
		{"compare", "a", "b", "--min-effect", "fps=-1"},
		{"compare", "a", "b", "--format", "pdf"},
	} {
		if _, errs, code := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
}

// Headless runs and fpstop report write their gates as JUnit: one testcase per gate with the
// measured value and the threshold.
func TestReportAndHeadlessJUnit(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "h.xml")
	rec := filepath.Join(dir, "r.jsonl.gz")
	_, errs, code := run(t, "", "--source", "sim", "--scenario", "janky", "--speed", "0", "--duration", "5s", "--headless",
		"--record", rec, "--fail-under-fps", "1000", "--max-jank-pct", "100", "--junit", xml)
	if code != ExitGate {
		t.Fatalf("exit %d: %s", code, errs)
	}
	p := checkJUnit(t, xml)
	if p.Tests != 2 || p.Failures != 1 || !p.Cases[0].Failed || p.Cases[0].Name != "fail-under-fps 1000" ||
		!strings.Contains(p.Cases[0].Message, "under --fail-under-fps 1000") || !strings.HasPrefix(p.Cases[0].Class, "fpstop.headless.") {
		t.Errorf("headless junit: %+v", p)
	}
	// the gate fails exactly when the recording has janky frames (derived from its report)
	out, _, _ := run(t, "", "report", rec)
	janky := decode(t, out).JankyFrames > 0
	want := ExitOK
	if janky {
		want = ExitGate
	}
	xml2 := filepath.Join(dir, "r.xml")
	if _, errs, code := run(t, "", "report", rec, "--max-jank-pct", "0", "--junit", xml2); code != want {
		t.Fatalf("report: exit %d, want %d: %s", code, want, errs)
	}
	p = checkJUnit(t, xml2)
	if p.Tests != 1 || p.Cases[0].Failed != janky || p.Cases[0].Name != "max-jank-pct 0" || !strings.Contains(p.Cases[0].Output, "against --max-jank-pct 0") {
		t.Errorf("report junit: %+v", p)
	}
	if janky && !strings.Contains(p.Cases[0].Message, "over --max-jank-pct 0") {
		t.Errorf("failure message: %q", p.Cases[0].Message)
	}
}

// A config file's dashboard settings do not stop fpstop test; only the command line's do.
func TestTestCommandIgnoresDashboardConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("theme: light\nrefresh: 500ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := run(t, "", "test", "--config", cfg, "--source", "sim", "--speed", "0", "--iterations", "1",
		"--duration", "1s", "--record-dir", filepath.Join(dir, "r"))
	if code != ExitOK {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// One config file serves every command: the dashboard's keys do not break report or compare,
// and a key no command knows is still an error.
func TestConfigFileWithDashboardKeys(t *testing.T) {
	dir := t.TempDir()
	rec := simRecord(t, dir, "r.jsonl.gz", "--scenario", "smooth", "--duration", "3s")
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("theme: light\nrefresh: 500ms\ndrop-levels: \"3,9,24,42\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withConfig := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string {
				if k == "FPSTOP_CONFIG" {
					return cfg
				}
				return ""
			}})
		return errb.String(), code
	}
	for _, args := range [][]string{{"report", rec}, {"compare", rec, rec}} {
		if errs, code := withConfig(args...); code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	if err := os.WriteFile(cfg, []byte("colour: never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs, code := withConfig("compare", rec, rec); code != ExitUsage || !strings.Contains(errs, "colour") {
		t.Errorf("an unknown key: exit %d: %s", code, errs)
	}
}
