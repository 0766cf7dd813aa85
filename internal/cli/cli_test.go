package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/fpstop/fpstop/themes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// run invokes the command line in-process and returns stdout, stderr and the exit status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "FPSTOP_CONFIG" || k == "XDG_CONFIG_HOME" {
				return "" // never read the developer's config in tests
			}
			return os.Getenv(k)
		},
		Build: buildinfo.Info{Version: "test", Commit: "c", Date: "d", GoVersion: "go", Platform: "p"}}
	t.Setenv("HOME", t.TempDir()) // user config/cache dirs inside the test
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code := Main(context.Background(), args, env)
	return out.String(), errb.String(), code
}

func decode(t *testing.T, s string) metrics.Report {
	t.Helper()
	var r metrics.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, s)
	}
	return r
}

// TestHeadlessSimMatchesTruth is issue 2's acceptance check: the headless report of a
// simulator run agrees with what its --truth file gives by DESIGN §4.
func TestHeadlessSimMatchesTruth(t *testing.T) {
	dir := t.TempDir()
	truth := filepath.Join(dir, "t.jsonl")
	out, errs, code := run(t, "", "--source", "sim", "--scenario", "janky", "--hz", "120", "--seed", "7",
		"--headless", "--duration", "60s", "--speed", "0", "--json", "--truth", truth)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	f, err := os.Open(truth)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := reference.FromTruth(f, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Frames != ref.Frames || r.JankyFrames != ref.Janky || ref.Frames < 1000 {
		t.Errorf("frames %d janky %d; truth %d and %d", r.Frames, r.JankyFrames, ref.Frames, ref.Janky)
	}
	got := [5]int64{r.DropLevels.Best, r.DropLevels.Normal, r.DropLevels.Middle, r.DropLevels.High, r.DropLevels.Frozen}
	if got != ref.Levels {
		t.Errorf("drop levels %v; truth %v", got, ref.Levels)
	}
	if r.FPS == nil || math.Abs(float64(*r.FPS)-ref.FPS) > 0.01 {
		t.Errorf("fps %v; truth %.3f", r.FPS, ref.FPS)
	}
	if r.Source != "sim" || r.RefreshHz == nil || float64(*r.RefreshHz) != 120 || float64(r.DurationS) != 60 {
		t.Errorf("source %q refresh %v duration %v", r.Source, r.RefreshHz, r.DurationS)
	}
	// The same seed gives the same report.
	out2, _, _ := run(t, "", "--scenario", "janky", "--hz", "120", "--seed", "7", "--headless", "--duration", "60s", "--speed", "0", "--json")
	if out2 != out {
		t.Errorf("same seed, different report")
	}
}

// TestHeadlessSmooth120 is issue 9's promise for the simulator: `--scenario smooth --hz 120`,
// a steady pipelined scroll whose frames take 9–13 ms (more than the 8.33 ms period) but are
// all on time, reports at least 119.5 fps and no janky frame.
func TestHeadlessSmooth120(t *testing.T) {
	out, errs, code := run(t, "", "--source", "sim", "--scenario", "smooth", "--hz", "120",
		"--headless", "--duration", "20s", "--speed", "0", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	if r.FPS == nil || *r.FPS < 119.5 || r.JankyFrames != 0 || r.Frames < 2000 || r.PercentilesMs == nil || r.PercentilesMs.P50 < 9 {
		t.Errorf("%d frames, fps %v, %d janky, percentiles %+v; want ≥ 119.5 fps, none janky, frames over 9 ms",
			r.Frames, r.FPS, r.JankyFrames, r.PercentilesMs)
	}
}

func TestExitCodes(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"bad source", []string{"--source", "bogus", "--headless"}, ExitUsage, "--source"},
		{"bad hz", []string{"--hz", "1000", "--headless"}, ExitUsage, "--hz"},
		{"unknown flag", []string{"--nope"}, ExitUsage, "unknown flag"},
		{"json without headless", []string{"--json"}, ExitUsage, "--json"},
		{"sim flags with gfxinfo", []string{"--source", "gfxinfo", "--hz", "90", "--headless"}, ExitUsage, "simulator"},
		{"bad drop levels", []string{"--drop-levels", "9,3,24,42", "--headless", "--source", "sim"}, ExitUsage, "increase"},
		{"hostile package", []string{"-p", "com.x;rm -rf /", "--headless"}, ExitUsage, "--package"},
		{"hostile package 2", []string{"-p", "$(reboot)", "--headless"}, ExitUsage, "--package"},
		{"missing input", []string{"--input", filepath.Join(empty, "nope.txt"), "--headless"}, ExitRuntime, "cannot read input"},
		{"empty input", []string{"--input", "-", "--headless"}, ExitRuntime, "empty"},
		{"gate fails", []string{"--scenario", "janky", "--headless", "--duration", "5s", "--speed", "0", "--fail-under-fps", "1000"}, ExitGate, "gate failed"},
		{"jank gate fails", []string{"--scenario", "janky", "--headless", "--duration", "5s", "--speed", "0", "--max-jank-pct", "1"}, ExitGate, "jank"},
		{"gates pass", []string{"--scenario", "smooth", "--headless", "--duration", "5s", "--speed", "0", "--fail-under-fps", "30", "--max-jank-pct", "50"}, ExitOK, ""},
		{"dashboard needs a terminal", []string{"--source", "sim"}, ExitUsage, "terminal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := run(t, "", c.args...)
			if code != c.code || !strings.Contains(errs, c.msg) {
				t.Errorf("exit %d (want %d), stderr %q (want it to mention %q)", code, c.code, errs, c.msg)
			}
			if c.code != ExitOK && strings.Count(strings.TrimSpace(errs), "\n") > 2 {
				t.Errorf("errors are one clear sentence, got %q", errs)
			}
		})
	}
}

// TestHeadlessNeedsDevice: in headless mode `auto` without a device is an error, never the
// simulator (CI must not pass on simulated data). adb is kept off PATH and the server port is
// one nothing listens on, so no real adb server is touched.
func TestHeadlessNeedsDevice(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("ADB_SERVER_SOCKET", "")
	_, errs, code := run(t, "", "--headless", "--adb-port", "1", "--duration", "1s")
	if code != ExitRuntime || !strings.Contains(errs, "device") {
		t.Errorf("exit %d stderr %q: want 3 and a message about the device", code, errs)
	}
}

// TestInputRealdata runs `--input FILE --headless --json` on every real capture: a report or
// one clear error, never a crash; gfxinfo captures with windows carry Android's own numbers.
func TestInputRealdata(t *testing.T) {
	for _, sub := range []string{"gfxinfo", "logcat"} {
		for _, f := range realdata.Files(t, sub) {
			t.Run(sub+"/"+filepath.Base(f), func(t *testing.T) {
				out, errs, code := run(t, "", "--input", f, "--headless", "--json")
				if code != ExitOK {
					if code != ExitRuntime || strings.Count(strings.TrimSpace(errs), "\n") > 0 || errs == "" {
						t.Fatalf("exit %d, stderr %q", code, errs)
					}
					return
				}
				r := decode(t, out)
				if r.Source != sub {
					t.Errorf("detected as %q", r.Source)
				}
			})
		}
	}
}

func TestRecordReportExport(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl.gz")
	live, errs, code := run(t, "", "--scenario", "demo", "--hz", "90", "--headless", "--duration", "20s", "--speed", "0", "--json", "--record", rec)
	if code != ExitOK {
		t.Fatalf("record: exit %d %s", code, errs)
	}
	// refuses to overwrite
	if _, errs, code := run(t, "", "--scenario", "demo", "--headless", "--duration", "1s", "--speed", "0", "--record", rec); code != ExitUsage || !strings.Contains(errs, "exists") {
		t.Errorf("overwrite: exit %d %q", code, errs)
	}
	rep, errs, code := run(t, "", "report", rec)
	if code != ExitOK {
		t.Fatalf("report: exit %d %s", code, errs)
	}
	a, b := decode(t, live), decode(t, rep)
	a.DurationS, b.DurationS = 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("report of the recording differs from the live report:\nlive   %s\nreport %s", ja, jb)
	}
	md, _, code := run(t, "", "report", rec, "--format", "md")
	if code != ExitOK || !strings.Contains(md, "|") {
		t.Errorf("md report: exit %d\n%s", code, md)
	}
	if _, errs, code := run(t, "", "report", rec, "--fail-under-fps", "1000"); code != ExitGate {
		t.Errorf("report gate: exit %d %s", code, errs)
	}
	csv, _, code := run(t, "", "report", rec, "--format", "csv")
	if code != ExitOK || strings.Count(csv, "\n") != int(b.Frames)+1 {
		t.Errorf("csv: exit %d, %d lines for %d frames", code, strings.Count(csv, "\n"), b.Frames)
	}
	trace := filepath.Join(dir, "trace.json")
	if _, errs, code := run(t, "", "export", rec, "--trace", trace); code != ExitOK {
		t.Fatalf("export: exit %d %s", code, errs)
	}
	// a file that exists: exit 2 from every command that writes one (not 3 from export)
	for _, args := range [][]string{{"export", rec, "--trace", trace}, {"report", rec, "-o", trace}, {"--source", "sim", "--headless", "--duration", "1s", "--speed", "0", "--record", trace}} {
		if _, errs, code := run(t, "", args...); code != ExitUsage || !strings.Contains(errs, "--force") {
			t.Errorf("%s to an existing file: exit %d %q", args[0], code, errs)
		}
	}
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	raw, _ := os.ReadFile(trace)
	if err := json.Unmarshal(raw, &tr); err != nil || len(tr.TraceEvents) < int(b.Frames) {
		t.Errorf("trace: %v, %d events", err, len(tr.TraceEvents))
	}
	// A trace over the size limit is refused with its estimated size and how to cut it; a
	// window (--from/--to) or --force writes it.
	defer func(l int64) { traceLimit = l }(traceLimit)
	traceLimit = int64(len(raw)) / 2
	big := filepath.Join(dir, "big.json")
	if _, errs, code := run(t, "", "export", rec, "--trace", big); code != ExitUsage ||
		!strings.Contains(errs, "the trace would be about") || !strings.Contains(errs, "--from/--to") {
		t.Errorf("export over the limit: exit %d %q", code, errs)
	}
	if _, err := os.Stat(big); err == nil {
		t.Error("a refused export left a file")
	}
	if _, errs, code := run(t, "", "export", rec, "--trace", big, "--from", "1s", "--to", "2s"); code != ExitOK {
		t.Errorf("export of a window: exit %d %s", code, errs)
	}
	if _, errs, code := run(t, "", "export", rec, "--trace", big, "--to", "soon"); code != ExitUsage || !strings.Contains(errs, "--to") {
		t.Errorf("export --to soon: exit %d %s", code, errs)
	}
	// --input on a recording replays it
	in, errs, code := run(t, "", "--input", rec, "--headless", "--json", "--speed", "0")
	if code != ExitOK || decode(t, in).Frames != b.Frames {
		t.Errorf("--input recording: exit %d %s", code, errs)
	}
}

func TestVersionAndMan(t *testing.T) {
	out, _, code := run(t, "", "version")
	if code != 0 || !strings.Contains(out, "fpstop test (commit c") {
		t.Errorf("version: %d %q", code, out)
	}
	out, _, code = run(t, "", "--version")
	if code != 0 || !strings.Contains(out, "fpstop test") {
		t.Errorf("--version: %d %q", code, out)
	}
	out, _, code = run(t, "", "man")
	if code != 0 || !strings.Contains(out, ".TH FPSTOP") {
		t.Errorf("man: %d %q", code, out[:min(200, len(out))])
	}
	// the page renders clean: no printf artefacts ("92 %!o(MISSING)f"), the percent signs kept,
	// and the description one paragraph, not one per source line
	if i := strings.Index(out, "%!"); i >= 0 {
		t.Errorf("man page has a printf artefact: %q", out[max(0, i-60):min(len(out), i+40)])
	}
	if !strings.Contains(out, "92 % of the refresh rate") {
		t.Error("man page lost the % of a flag's usage")
	}
	desc := out[strings.Index(out, ".SH DESCRIPTION"):]
	desc = desc[:strings.Index(desc[1:], ".SH")+1]
	if strings.Contains(desc, ".PP") || !strings.Contains(desc, "dropped frames by severity") {
		t.Errorf("DESCRIPTION broken into paragraphs:\n%s", desc)
	}
	out, _, code = run(t, "", "completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion: %d", code)
	}
}

// TestLogcatRecordingExports: a recording of logcat text alone (frames derived from the vsync
// messages, cost basis main_thread) reports, exports to CSV and traces the same frames.
func TestLogcatRecordingExports(t *testing.T) {
	dir := t.TempDir()
	s, err := sim.New(sim.Config{Scenario: "demo", Hz: 60, Seed: 9, Duration: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan []source.Event, 16)
	go func() { _ = s.Run(context.Background(), ch); close(ch) }()
	var evs []source.Event
	for b := range ch {
		evs = append(evs, b...)
	}
	var text bytes.Buffer
	if err := simtext.RenderLogcat(&text, evs, simtext.FormatThreadtime, simtext.LogcatOptions{}); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(in, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "log.jsonl")
	out, errs, code := run(t, "", "--input", in, "--headless", "--json", "--record", rec)
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, errs)
	}
	live := decode(t, out)
	if live.Source != "logcat" || live.CostBasis != "main_thread" || live.Frames < 500 {
		t.Fatalf("source %q basis %q frames %d", live.Source, live.CostBasis, live.Frames)
	}
	rep, _, _ := run(t, "", "report", rec)
	if r := decode(t, rep); r.Frames != live.Frames {
		t.Errorf("report of the recording: %d frames, live %d", r.Frames, live.Frames)
	}
	csv, _, code := run(t, "", "report", rec, "--format", "csv")
	if code != ExitOK || strings.Count(csv, "\n") != int(live.Frames)+1 {
		t.Errorf("csv: exit %d, %d rows for %d frames", code, strings.Count(csv, "\n")-1, live.Frames)
	}
	trace := filepath.Join(dir, "t.json")
	if _, errs, code := run(t, "", "export", rec, "--trace", trace); code != ExitOK {
		t.Fatalf("export: %d %s", code, errs)
	}
	raw, _ := os.ReadFile(trace)
	if n := strings.Count(string(raw), `"cat":"frame"`); n != int(live.Frames) {
		t.Errorf("trace has %d frame slices, report %d frames", n, live.Frames)
	}
}

// TestCompletion: the shells' completion (cobra's __complete) offers the scenarios with their
// descriptions, the sources, the themes and each command's formats, and no file names for them.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--scenario", ""}, []string{"janky\t", "smooth\t", "game\t"}},
		{[]string{"--source", ""}, []string{"gfxinfo+logcat", "surfaceflinger", "sim"}},
		{[]string{"--theme", ""}, themes.Names()},
		{[]string{"report", "x.jsonl", "--format", ""}, []string{"json", "md", "csv", "html"}},
		{[]string{"compare", "a", "b", "--format", ""}, []string{"text", "md", "json", "html"}},
		{[]string{"test", "--format", ""}, []string{"text", "json"}},
		{[]string{"export", "x.jsonl", "--format", ""}, []string{"json", "perfetto"}},
	} {
		out, _, code := run(t, "", append([]string{"__complete"}, c.args...)...)
		for _, w := range c.want {
			if code != ExitOK || !strings.Contains(out, "\n"+w) && !strings.HasPrefix(out, w) {
				t.Errorf("%v: %q lacks %q", c.args, out, w)
			}
		}
		if !strings.Contains(out, ":4\n") { // ShellCompDirectiveNoFileComp
			t.Errorf("%v: directive in %q, want no file completion", c.args, out)
		}
	}
}

// TestReportOnCaptures: fpstop report takes anything --input reads (the issue: "not an fpstop
// recording" for a gfxinfo or logcat capture): its JSON is the headless report of the same
// input, and CSV, Markdown and HTML (named after the capture) work too.
func TestReportOnCaptures(t *testing.T) {
	for _, sub := range []string{"gfxinfo", "logcat"} {
		files := realdata.Files(t, sub)
		if len(files) == 0 {
			continue
		}
		f := files[0]
		t.Run(sub, func(t *testing.T) {
			want, errs, code := run(t, "", "--input", f, "--headless", "--json")
			if code != ExitOK {
				t.Skipf("the capture gives no report headless either: exit %d %s", code, errs)
			}
			got, errs, code := run(t, "", "report", f)
			if code != ExitOK {
				t.Fatalf("report: exit %d %s", code, errs)
			}
			w, g := decode(t, want), decode(t, got)
			if g.Source != w.Source || g.Frames != w.Frames || g.JankyFrames != w.JankyFrames || r2s(g.FPS) != r2s(w.FPS) || len(g.SlowMessages) != len(w.SlowMessages) {
				t.Errorf("report: %s %d frames %d janky fps %s; headless: %s %d %d %s", g.Source, g.Frames, g.JankyFrames, r2s(g.FPS), w.Source, w.Frames, w.JankyFrames, r2s(w.FPS))
			}
			for _, format := range []string{"csv", "md", "html"} {
				out, errs, code := run(t, "", "report", f, "--format", format)
				if code != ExitOK || len(out) == 0 {
					t.Errorf("--format %s: exit %d %s", format, code, errs)
				}
				if format == "html" && !strings.Contains(out, filepath.Base(f)) {
					t.Error("the HTML report does not name the capture")
				}
				// one dump has no time span: no per-second chart of one made-up bar
				if format == "html" && g.DurationS == 0 && (strings.Contains(out, `class="chart fps`) || !strings.Contains(out, "one dump")) {
					t.Error("a single dump's HTML report draws an FPS-over-time chart or does not say it is one dump")
				}
			}
		})
	}
}

func r2s(p *metrics.R2) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(float64(*p))
}
