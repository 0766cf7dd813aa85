package cli

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/realdata"
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

// TestUnrecognisableInput (issue 13): input with nothing fpstop can read says what it found
// and exits 3 (never an empty clean report).
func TestUnrecognisableInput(t *testing.T) {
	dir := t.TempDir()
	rnd := make([]byte, 100<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(rng.IntN(256))
	}
	long := bytes.Repeat([]byte("x"), 3<<20) // one 3 MB line, no newline
	for name, data := range map[string][]byte{"random bytes": rnd, "one long line": long} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := run(t, "", "--input", p, "--headless", "--json")
		if code != ExitRuntime || !strings.Contains(errs, "no logcat or gfxinfo lines recognised in") || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want 3 and what was found", name, code, errs, out)
		}
	}
}

// utf16NoBOM encodes ASCII/UTF-8 text as UTF-16LE without a byte-order mark.
func utf16NoBOM(s []byte) []byte {
	var out []byte
	for _, r := range string(s) {
		out = binary.LittleEndian.AppendUint16(out, uint16(r))
	}
	return out
}

// TestUTF16WithoutBOM (issue 13): captures in UTF-16 without a byte-order mark (gfxinfo and
// logcat) are detected and read.
func TestUTF16WithoutBOM(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, kind string }{
		{"gfxinfo/yuvaupdate-android14plus-framestats-utf8.txt", "gfxinfo"},
		{"logcat/snippet-xesam-brief-format-looper-pair.txt", "logcat"},
	} {
		data, err := os.ReadFile(filepath.Join(realdata.Dir(t, filepath.Dir(c.file)), filepath.Base(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(c.file))
		if err := os.WriteFile(p, utf16NoBOM(data), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := run(t, "", "--input", p, "--headless", "--json")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", c.file, code, errs)
		}
		r := decode(t, out)
		if r.Source != c.kind || r.Frames+r.Messages.Paired == 0 {
			t.Errorf("%s: source %q, %d frames, %d messages", c.file, r.Source, r.Frames, r.Messages.Paired)
		}
	}
}
