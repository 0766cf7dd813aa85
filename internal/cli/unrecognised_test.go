package cli

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/capture"
)

// TestUnrecognisedInputExits3 (issue 31): an input of no known kind is a runtime error that
// says what was seen; --source naming a kind hands the input to that reader instead.
func TestUnrecognisedInputExits3(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "random.bin")
	b := make([]byte, 1<<20)
	rand.New(rand.NewSource(7)).Read(b)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, "", "--input", p, "--headless", "--json")
	if code != ExitRuntime || out != "" || !strings.Contains(errs, "is not a recording, a gfxinfo dump, logcat text") ||
		!strings.Contains(errs, "first 256 kB") || !strings.Contains(errs, "not text") {
		t.Errorf("exit %d, stderr %q, stdout %d bytes; want 3 and what was seen", code, errs, len(out))
	}
	_, errs, code = run(t, "", "--input", p, "--source", "logcat", "--headless", "--json")
	if code != ExitRuntime || !strings.Contains(errs, "no logcat") {
		t.Errorf("--source logcat: exit %d, stderr %q; want the logcat reader's own error", code, errs)
	}
	_, _, code = run(t, "not a log\n", "--input", "-", "--headless", "--json")
	if code != ExitRuntime {
		t.Errorf("stdin of junk: exit %d, want 3", code)
	}
	if _, _, _, err := capture.Detect(p, nil); !errors.Is(err, capture.ErrUnrecognised) {
		t.Errorf("Detect: %v, want ErrUnrecognised", err)
	}
}
