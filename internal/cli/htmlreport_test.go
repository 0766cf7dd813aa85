package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// TestReportHTML: `fpstop report FILE --format html` writes the page to stdout or to -o FILE
// (never over an existing file without --force), and applies the gates like the other formats.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl.gz")
	if _, errs, code := run(t, "", "--scenario", "janky", "--hz", "120", "--headless", "--duration", "5s", "--speed", "0", "--record", rec); code != ExitOK {
		t.Fatalf("record: exit %d %s", code, errs)
	}
	page, errs, code := run(t, "", "report", rec, "--format", "html")
	if code != ExitOK || !strings.HasPrefix(page, "<!doctype html>") || strings.Count(page, `class="chart `) < 3 {
		t.Fatalf("html to stdout: exit %d %s\n%.300s", code, errs, page)
	}
	out := filepath.Join(dir, "report.html")
	if stdout, errs, code := run(t, "", "report", rec, "--format", "html", "-o", out); code != ExitOK || stdout != "" {
		t.Fatalf("html -o: exit %d, stdout %q, %s", code, stdout, errs)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) != len(page) {
		t.Errorf("the -o file has %d bytes (%v), stdout had %d", len(b), err, len(page))
	}
	if _, errs, code := run(t, "", "report", rec, "--format", "html", "-o", out); code != ExitUsage || !strings.Contains(errs, "--force") {
		t.Errorf("overwrite without --force: exit %d %q", code, errs)
	}
	if _, errs, code := run(t, "", "report", rec, "--format", "html", "-o", out, "--force", "--fail-under-fps", "1000"); code != ExitGate {
		t.Errorf("gate: exit %d %s", code, errs)
	}
	if _, _, code := run(t, "", "report", rec, "--format", "pdf"); code != ExitUsage {
		t.Errorf("unknown format: exit %d", code)
	}
	bad := filepath.Join(dir, "missing.html")
	if _, _, code := run(t, "", "report", filepath.Join(dir, "nope.jsonl"), "--format", "html", "-o", bad); code != ExitRuntime {
		t.Errorf("missing recording: exit %d", code)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s behind", bad)
	}
}

// TestCompareHTML: `fpstop compare BASE NEW --format html` writes the comparison page (to -o
// FILE as well) with both sides, and keeps the compare gates' exit status.
func TestCompareHTML(t *testing.T) {
	dir := t.TempDir()
	smooth := simRecord(t, dir, "smooth.jsonl.gz", "--scenario", "smooth", "--hz", "120", "--seed", "1", "--duration", "10s")
	janky := simRecord(t, dir, "janky.jsonl.gz", "--scenario", "janky", "--hz", "120", "--seed", "1", "--duration", "10s")
	// three runs a side: one is inconclusive and checks no gate
	var more []string
	for _, sd := range []string{"2", "3"} {
		more = append(more, "--base", simRecord(t, dir, "smooth"+sd+".jsonl.gz", "--scenario", "smooth", "--hz", "120", "--seed", sd, "--duration", "10s"),
			"--new", simRecord(t, dir, "janky"+sd+".jsonl.gz", "--scenario", "janky", "--hz", "120", "--seed", sd, "--duration", "10s"))
	}
	page, errs, code := run(t, "", "compare", smooth, janky, "--format", "html", "--resamples", "200")
	if code != ExitOK || !strings.HasPrefix(page, "<!doctype html>") {
		t.Fatalf("compare html: exit %d %s\n%.300s", code, errs, page)
	}
	for _, want := range []string{"BASE · " + smooth, "NEW · " + janky, `class="chart fps cmp"`, `class="chart hist"`, `<table class="verdicts">`} {
		if !strings.Contains(page, want) {
			t.Errorf("compare page lacks %q", want)
		}
	}
	out := filepath.Join(dir, "cmp.html")
	if _, errs, code := run(t, "", append([]string{"compare", smooth, janky, "--format", "html", "--resamples", "200", "-o", out, "--max-fps-drop", "2"}, more...)...); code != ExitGate {
		t.Errorf("gate: exit %d %s", code, errs)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "FAILED") {
		t.Errorf("the -o page (%v) does not show the failed gate", err)
	}
}

// TestReportHTMLRealCaptures: every real gfxinfo capture that gives a report also gives an HTML
// page, with one table of Android's printed summary per window and process that Android
// summarised, showing the frame totals Android printed.
func TestReportHTMLRealCaptures(t *testing.T) {
	files := realdata.Files(t, "gfxinfo")
	pages := 0
	for _, f := range files {
		rec := filepath.Join(t.TempDir(), "rec.jsonl")
		out, _, code := run(t, "", "--input", f, "--headless", "--json", "--record", rec)
		if code != ExitOK {
			continue // a capture that cannot be read is the parser's tests' business
		}
		rep := decode(t, out)
		page, errs, code := run(t, "", "report", rec, "--format", "html")
		if code != ExitOK {
			t.Errorf("%s: report --format html: exit %d %s", filepath.Base(f), code, errs)
			continue
		}
		pages++
		want := len(rep.AndroidProcesses)
		for _, w := range rep.Windows {
			if w.Android != nil {
				want++
			}
		}
		if got := strings.Count(page, `<table class="android">`); got != want {
			t.Errorf("%s: %d Android tables, want %d", filepath.Base(f), got, want)
		}
		for _, p := range rep.AndroidProcesses {
			if p.TotalFrames != nil && !strings.Contains(page, fmt.Sprintf(`<td class="num">%d</td></tr>`, *p.TotalFrames)) {
				t.Errorf("%s: process %s: Android's total %d not shown", filepath.Base(f), p.Process, *p.TotalFrames)
			}
		}
	}
	if pages == 0 {
		t.Fatal("no real capture gave a page")
	}
}
