// Package realdata locates the real Android captures in ../shared/realdata for tests. The
// captures are third-party material and are never committed to this repository: a test asks
// for the folder and is skipped with a clear message when it is absent, unless
// FPSTOP_REQUIRE_REALDATA=1 (set by .ci/run), which turns the skip into a failure.
package realdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the realdata folder (or one of its subfolders), skipping or failing t when absent.
// FPSTOP_REALDATA overrides the location.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	base := os.Getenv("FPSTOP_REALDATA")
	if base == "" {
		_, file, _, _ := runtime.Caller(0)
		// internal/testkit/realdata/realdata.go → repo root → ../shared/realdata
		base = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "realdata")
	}
	dir := filepath.Join(base, sub)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if os.Getenv("FPSTOP_REQUIRE_REALDATA") == "1" {
			t.Fatalf("real captures not found at %s (FPSTOP_REQUIRE_REALDATA=1)", dir)
		}
		t.Skipf("real captures not found at %s: skipping (set FPSTOP_REALDATA to their folder)", dir)
	}
	return dir
}

// Files lists the regular files in Dir(t, sub), sorted by name.
func Files(t testing.TB, sub string) []string {
	t.Helper()
	dir := Dir(t, sub)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no files in %s", dir)
	}
	return out
}
