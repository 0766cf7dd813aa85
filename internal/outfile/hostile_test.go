package outfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileTarget is something other than a regular file at an output path.
type hostileTarget struct {
	name, path, want string
	// untouched reports what changed at the path, "" when nothing did.
	untouched func() string
}

// hostileTargets makes, in a temp dir, a FIFO, a symbolic link to a regular file, a
// directory, a socket and (as root, where the system allows it) a character device like
// /dev/full — never the real one.
func hostileTargets(t *testing.T) []hostileTarget {
	t.Helper()
	dir := t.TempDir()
	sameType := func(p string, m fs.FileMode) func() string {
		return func() string {
			st, err := os.Lstat(p)
			if err != nil {
				return err.Error()
			}
			if st.Mode().Type() != m.Type() {
				return "type changed to " + st.Mode().Type().String()
			}
			return ""
		}
	}
	var out []hostileTarget
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	out = append(out, hostileTarget{"fifo", fifo, "named pipe (FIFO)", sameType(fifo, fs.ModeNamedPipe)})
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	out = append(out, hostileTarget{"symlink", link, "symbolic link", func() string {
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			return "the link's target was written: " + string(b)
		}
		return sameType(link, fs.ModeSymlink)()
	}})
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	out = append(out, hostileTarget{"directory", sub, "directory", sameType(sub, fs.ModeDir)})
	sock := filepath.Join(dir, "sock")
	if ln, err := net.Listen("unix", sock); err == nil {
		t.Cleanup(func() { ln.Close() })
		out = append(out, hostileTarget{"socket", sock, "socket", sameType(sock, fs.ModeSocket)})
	}
	dev := filepath.Join(dir, "full")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|7); err == nil { // major 1, minor 7: full
		out = append(out, hostileTarget{"character device", dev, "character device", sameType(dev, fs.ModeDevice|fs.ModeCharDevice)})
	} else {
		t.Logf("no character device case: mknod: %v", err)
	}
	return out
}

// TestHostileTargets (issue 31): Create (with and without force), Append and Replace refuse a
// FIFO, a symbolic link, a directory, a socket and a device with a sentence naming what is
// there, and leave it as it was.
func TestHostileTargets(t *testing.T) {
	ops := map[string]func(string) error{
		"Create": func(p string) error { f, err := Create(p, false); closeIf(f); return err },
		"Create force": func(p string) error {
			f, err := Create(p, true)
			if err == nil {
				f.WriteString("clobbered")
			}
			closeIf(f)
			return err
		},
		"Append": func(p string) error { f, err := Append(p); closeIf(f); return err },
		"Replace": func(p string) error {
			return Replace(p, func(w io.Writer) error { _, err := io.WriteString(w, "clobbered"); return err })
		},
	}
	for _, h := range hostileTargets(t) {
		for name, op := range ops {
			err := op(h.path)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), h.want) ||
				!strings.Contains(err.Error(), "regular file or a new path") {
				t.Errorf("%s on a %s: %v, want a refusal naming %q", name, h.name, err, h.want)
			}
			if what := h.untouched(); what != "" {
				t.Errorf("%s on a %s: %s", name, h.name, what)
			}
		}
	}
	// nothing left behind by Replace's temporary files
	for _, h := range hostileTargets(t)[:1] {
		ents, _ := os.ReadDir(filepath.Dir(h.path))
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("temporary file left: %s", e.Name())
			}
		}
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// TestReplace: a new path and an existing regular file are written whole, mode 0644, and the
// temporary file is gone.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.prom")
	for _, text := range []string{"one\n", "two\n"} {
		if err := Replace(p, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != text {
			t.Errorf("content %q, want %q", b, text)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries, want only the file", len(ents))
	}
	werr := errors.New("boom")
	if err := Replace(p, func(io.Writer) error { return werr }); !errors.Is(err, werr) {
		t.Errorf("a failed write: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two\n" {
		t.Errorf("a failed write changed the file: %q", b)
	}
}
