package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/config"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
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
		if code != ExitRuntime || !strings.Contains(errs, "is not a recording, a gfxinfo dump, logcat text") || out != "" {
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

// TestBadFlagValues (issue 13): NaN and a non-ASCII package are refused with a clear sentence.
func TestBadFlagValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target-fps", "NaN"}, "--target-fps NaN"},
		{[]string{"--slow-ms", "NaN"}, "--slow-ms"},
		{[]string{"--fail-under-fps", "NaN"}, "--fail-under-fps"},
		{[]string{"-p", "com.ä.app"}, `contains 'ä'`},
	} {
		_, errs, code := run(t, "", append([]string{"--source", "sim", "--headless", "--duration", "1s", "--speed", "0"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestConfigBounded (issue 13): a config file larger than 1 MB (/dev/zero) is refused at once,
// and reading a FIFO that nobody writes to stops when the run is cancelled (a signal).
func TestConfigBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		start := time.Now()
		_, errs, code := run(t, "", "--config", "/dev/zero", "--source", "sim", "--headless", "--duration", "1s")
		if code != ExitUsage || !strings.Contains(errs, "larger than 1 MB") || time.Since(start) > 5*time.Second {
			t.Errorf("/dev/zero: exit %d, stderr %q after %v", code, errs, time.Since(start))
		}
	}
	fifo := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel) // as SIGTERM cancels main's context
	var out, errb bytes.Buffer
	start := time.Now()
	code := Main(ctx, []string{"--config", fifo, "--source", "sim", "--headless", "--duration", "1s"},
		Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	if code != ExitRuntime || !strings.Contains(errb.String(), "interrupted while reading "+fifo) || time.Since(start) > 5*time.Second {
		t.Errorf("FIFO: exit %d after %v, stderr %q; want 3, saying the read was interrupted", code, time.Since(start), errb.String())
	}
}

// TestInvalidUserTheme (issue 13): a user theme named with --theme that exists but is invalid
// reports the file's own error, not "unknown theme".
func TestInvalidUserTheme(t *testing.T) {
	cfgDir := t.TempDir()
	cfg := filepath.Join(cfgDir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("# empty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := config.ThemeDir(cfg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte("name: mine\ncolors: [this is: not a mapping\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &app{opts: Options{Config: cfg}, env: Env{Getenv: func(string) string { return "" }}}
	_, err := resolveTheme("mine", a.userThemeDir)
	if err == nil || strings.Contains(err.Error(), "unknown theme") || !strings.Contains(err.Error(), "mine.yaml") {
		t.Errorf("err %v: want the file's own error", err)
	}
	// The command: exit 2 at once, with that error.
	_, errs, code := run(t, "", "--config", cfg, "--theme", "mine", "--source", "sim", "--headless", "--duration", "1s", "--speed", "0")
	if code != ExitUsage || strings.Contains(errs, "unknown theme") || !strings.Contains(errs, "mine.yaml") {
		t.Errorf("exit %d, stderr %q; want 2 and the file's own error", code, errs)
	}
}

// TestSilentAdbServer (issue 13): an adb server that accepts and never answers: exit 3 and one
// sentence, "the adb server at ADDR did not answer within 15 s" ("context deadline exceeded"
// says nothing to a user). It waits out fpstop's own 15 s.
func TestSilentAdbServer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 15 s")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	_, errs, code := run(t, "", "--adb-host", "127.0.0.1", "--adb-port", strconv.Itoa(port), "-p", "com.example.app",
		"--headless", "--json", "--duration", "3s")
	msg := strings.TrimSpace(errs)
	if code != ExitRuntime || !strings.Contains(msg, "the adb server at 127.0.0.1:"+strconv.Itoa(port)+" did not answer within 15 s") ||
		strings.Contains(msg, "deadline") || strings.Count(msg, "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want 3 and the one sentence", code, msg)
	}
}
