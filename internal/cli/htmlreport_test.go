package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
