package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// TestPackageWithInput: -p with --input keeps only that process's windows, or says on stderr
// and in the report's warnings that it could not — never silently reports every process.
func TestPackageWithInput(t *testing.T) {
	dump := filepath.Join(realdata.Dir(t, "gfxinfo"), "anavmode-topicon-t865-android13plus-framestats-allprocs.txt")
	t.Run("gfxinfo dump of every process", func(t *testing.T) {
		out, errs, code := run(t, "", "--input", dump, "-p", "com.android.settings", "--headless", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		r := decode(t, out)
		if len(r.Windows) != 3 {
			t.Errorf("%d windows, want Settings' 3", len(r.Windows))
		}
		for _, w := range r.Windows {
			if w.Process != "com.android.settings" {
				t.Errorf("window %q of %q reported", w.Name, w.Process)
			}
		}
		if r.Package == nil || *r.Package != "com.android.settings" || errs != "" {
			t.Errorf("package %v, stderr %q", r.Package, errs)
		}
	})
	t.Run("gfxinfo without that process", func(t *testing.T) {
		out, errs, code := run(t, "", "--input", dump, "-p", "com.example.absent", "--headless", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		r := decode(t, out)
		if len(r.Windows) != 0 || r.Frames != 0 {
			t.Errorf("%d windows, %d frames reported for a process the dump does not have", len(r.Windows), r.Frames)
		}
		if !strings.Contains(errs, "-p com.example.absent: no process") || !strings.Contains(strings.Join(r.Warnings, "\n"), "-p com.example.absent: no process") {
			t.Errorf("stderr %q, warnings %q", errs, r.Warnings)
		}
	})
	t.Run("logcat text naming processes by pid", func(t *testing.T) {
		text := "10-19 13:25:38.000 20000 20000 I Choreographer: Skipped 6 frames!  x\n" +
			"10-19 13:25:38.001 10391 10391 I Choreographer: Skipped 7 frames!  x\n"
		out, errs, code := run(t, text, "--input", "-", "--source", "logcat", "-p", "com.example.app", "--headless", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		r := decode(t, out)
		if !strings.Contains(errs, "-p was ignored") || !strings.Contains(strings.Join(r.Warnings, "\n"), "-p was ignored") {
			t.Errorf("stderr %q, warnings %q", errs, r.Warnings)
		}
	})
	t.Run("recordings", func(t *testing.T) {
		dir := t.TempDir()
		all := filepath.Join(dir, "all.jsonl.gz")
		if _, errs, code := run(t, "", "--input", dump, "--headless", "--record", all); code != ExitOK {
			t.Fatalf("recording the dump: exit %d: %s", code, errs)
		}
		out, errs, code := run(t, "", "--input", all, "-p", "com.android.settings", "--headless", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if r := decode(t, out); len(r.Windows) != 3 || errs != "" {
			t.Errorf("%d windows from a recorded dump with -p, stderr %q", len(r.Windows), errs)
		}
		sim := filepath.Join(dir, "sim.jsonl.gz")
		if _, errs, code := run(t, "", "--scenario", "smooth", "--headless", "--duration", "2s", "--speed", "0", "--record", sim); code != ExitOK {
			t.Fatalf("recording the simulator: exit %d: %s", code, errs)
		}
		out, errs, code = run(t, "", "--input", sim, "-p", "com.example.other", "--headless", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		r := decode(t, out)
		if !strings.Contains(errs, "-p was ignored") || !strings.Contains(strings.Join(r.Warnings, "\n"), "-p com.example.other: -p was ignored") {
			t.Errorf("stderr %q, warnings %q", errs, r.Warnings)
		}
	})
}
