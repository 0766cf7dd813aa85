package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCreate(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f, err := Create(p, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("one")
	f.Close()
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 under umask 077", st.Mode().Perm())
	}
	if _, err := Create(p, false); !errors.Is(err, ErrExists) {
		t.Errorf("second create: %v, want ErrExists", err)
	}
	f, err = Create(p, true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(p); len(b) != 0 {
		t.Errorf("force did not truncate: %q", b)
	}
	if _, err := Create(filepath.Join(p, "under-a-file"), false); err == nil {
		t.Error("creating under a file must fail")
	}
}
