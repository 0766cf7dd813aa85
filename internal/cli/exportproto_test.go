package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportPerfettoFormat: an OUT ending in .pftrace (or --format perfetto) gets Perfetto's
// protobuf trace (a Trace message: field 1, length-delimited packets), smaller than the JSON of
// the same recording; --format json overrides the extension; an unknown format is a usage error.
func TestExportPerfettoFormat(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl.gz")
	if _, errs, code := run(t, "", "--scenario", "demo", "--hz", "90", "--headless", "--duration", "10s", "--speed", "0", "--record", rec); code != ExitOK {
		t.Fatalf("record: exit %d %s", code, errs)
	}
	js, pb, forced := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.pftrace"), filepath.Join(dir, "t2.pftrace")
	for _, args := range [][]string{{"--trace", js}, {"--trace", pb}, {"--trace", forced, "--format", "json"}} {
		if _, errs, code := run(t, "", append([]string{"export", rec}, args...)...); code != ExitOK {
			t.Fatalf("export %v: exit %d %s", args, code, errs)
		}
	}
	j, _ := os.ReadFile(js)
	p, _ := os.ReadFile(pb)
	f, _ := os.ReadFile(forced)
	if len(p) == 0 || p[0] != 0x0a || json.Valid(p) || 2*len(p) > len(j) {
		t.Errorf("the .pftrace (%d bytes, first byte %#x) is not a protobuf trace half the JSON's size (%d)", len(p), p[0], len(j))
	}
	if !json.Valid(f) {
		t.Error("--format json wrote something else")
	}
	if _, errs, code := run(t, "", "export", rec, "--trace", filepath.Join(dir, "x"), "--format", "svg"); code != ExitUsage || !strings.Contains(errs, "--format") {
		t.Errorf("--format svg: exit %d %q", code, errs)
	}
}
