package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// outTarget is something other than a regular file where fpstop is told to write.
type outTarget struct {
	name, path, want string
	check            func(t *testing.T) // fails t when the target changed
}

// outTargets makes, in a temp dir, a FIFO (mkfifo), a symbolic link to a regular file, a
// directory and, where the system allows it (root in CI), a character device like /dev/full —
// never the host's own device.
func outTargets(t *testing.T) []outTarget {
	t.Helper()
	dir := t.TempDir()
	keeps := func(p string, typ fs.FileMode) func(*testing.T) {
		return func(t *testing.T) {
			t.Helper()
			st, err := os.Lstat(p)
			if err != nil || st.Mode().Type() != typ {
				t.Errorf("%s changed: %v %v", p, st, err)
			}
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	out := []outTarget{
		{"fifo", fifo, "named pipe (FIFO)", keeps(fifo, fs.ModeNamedPipe)},
		{"symlink", link, "symbolic link", func(t *testing.T) {
			t.Helper()
			keeps(link, fs.ModeSymlink)(t)
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Errorf("the link's target was written: %q", b)
			}
		}},
		{"directory", sub, "directory", keeps(sub, fs.ModeDir)},
	}
	dev := filepath.Join(dir, "full")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
		out = append(out, outTarget{"device", dev, "character device", keeps(dev, fs.ModeDevice|fs.ModeCharDevice)})
	} else if os.Getuid() == 0 {
		t.Logf("mknod as root: %v (no device case)", err)
	}
	return out
}

// TestOutputPathsRefuseNonRegular (issue 31): every file fpstop writes — --metrics-file,
// --record, --truth, --junit, report -o, export --trace — is refused at once (exit 2, one
// sentence naming what is there) when the path holds a FIFO, a symbolic link, a directory or a
// device, with or without --force; the target is left as it was.
func TestOutputPathsRefuseNonRegular(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	if _, errs, code := run(t, "", "--source", "sim", "--headless", "--duration", "3s", "--speed", "0", "--record", rec); code != ExitOK {
		t.Fatalf("record: exit %d %s", code, errs)
	}
	sim := []string{"--source", "sim", "--headless", "--json", "--duration", "20s", "--speed", "1", "--force"}
	for _, tg := range outTargets(t) {
		for name, args := range map[string][]string{
			"--metrics-file": append(append([]string{}, sim...), "--metrics-file", tg.path),
			"--record":       append(append([]string{}, sim...), "--record", tg.path),
			"--truth":        append(append([]string{}, sim...), "--truth", tg.path),
			"--junit":        append(append([]string{}, sim...), "--junit", tg.path),
			"report -o":      {"report", rec, "--format", "csv", "-o", tg.path, "--force"},
			"report html -o": {"report", rec, "--format", "html", "-o", tg.path},
			"export --trace": {"export", rec, "--trace", tg.path, "--force"},
		} {
			t.Run(tg.name+" "+name, func(t *testing.T) {
				out, errs, code := run(t, "", args...)
				if code != ExitUsage || !strings.Contains(errs, tg.want) || !strings.Contains(errs, "regular file or a new path") ||
					strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
					t.Errorf("exit %d, stderr %q, stdout %d bytes; want %d and one sentence naming a %s", code, errs, len(out), ExitUsage, tg.want)
				}
				tg.check(t)
			})
		}
	}
}
