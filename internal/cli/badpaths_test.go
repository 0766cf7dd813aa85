package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordingCannotBeCreated (issue 13): a --record path that cannot be created exits 2 at
// once, before the source starts, with one sentence; fpstop never creates a missing directory.
func TestRecordingCannotBeCreated(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling.jsonl")
	if err := os.Symlink(filepath.Join(dir, "gone", "x.jsonl"), dangling); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"missing directory", filepath.Join(dir, "nodir", "x.jsonl"), "does not exist"},
		{"dangling symlink", dangling, "symbolic link"},
		{"unwritable directory", "/proc/fpstop-test.jsonl", "not writable"},
		{"a directory", dir, "is a directory"},
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, want string }{"read-only directory", filepath.Join(ro, "x.jsonl"), "not writable"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, errs, code := run(t, "", "--source", "sim", "--headless", "--json", "--duration", "20s",
				"--speed", "1", "--force", "--record", c.path)
			if code != ExitUsage || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want %d and one line saying %q", code, errs, ExitUsage, c.want)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v: the source ran", el)
			}
			if _, err := os.Stat(filepath.Join(dir, "nodir")); err == nil {
				t.Error("a missing directory was created")
			}
		})
	}
}

// TestRecordingWriteFails (issue 13): a recording whose writes fail later (/dev/full) stops the
// run at once: exit 3, and the report's warnings say so.
func TestRecordingWriteFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	start := time.Now()
	out, errs, code := run(t, "", "--source", "sim", "--headless", "--json", "--duration", "30s",
		"--speed", "1", "--force", "--record", "/dev/full")
	if code != ExitRuntime {
		t.Fatalf("exit %d, stderr %q; want %d", code, errs, ExitRuntime)
	}
	r := decode(t, out)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "recording") || !strings.Contains(errs, "recording") {
		t.Errorf("warnings %q, stderr %q: the failed recording is not reported", r.Warnings, errs)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the run went on for %v after the recording failed", el)
	}
}
