package cli

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// TestDetectRealCaptures (issue 31): every real gfxinfo and logcat capture is recognised as
// what it is by the evidence rule; the captures of other dumpsys services are not taken for
// either, and SurfaceFlinger text is recognised as itself (read, or refused saying why).
func TestDetectRealCaptures(t *testing.T) {
	for sub, want := range map[string]inputKind{"gfxinfo": inputGfxinfo, "logcat": inputLogcat, "misc": ""} {
		for _, f := range realdata.Files(t, sub) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := detectKind(b); got != want {
				t.Errorf("%s: detected %q, want %q", filepath.Base(f), got, want)
			}
		}
	}
	for _, f := range realdata.Files(t, "surfaceflinger") {
		if !strings.HasSuffix(f, ".md") { // every shape: --latency, --list, a plain dump
			b, _ := os.ReadFile(f)
			if got := detectKind(b); got != inputSurfaceFlinger {
				t.Errorf("%s: detected %q, want %q", filepath.Base(f), got, inputSurfaceFlinger)
			}
		}
	}
}

// TestDetectNeedsEvidence (issue 31): one line that happens to parse does not make a file
// logcat, a header alone does not make a gfxinfo dump or a recording; random bytes are nothing.
func TestDetectNeedsEvidence(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	random := make([]byte, 300<<10)
	rng.Read(random)
	var mostlyJunk strings.Builder
	mostlyJunk.WriteString("A/tag: looks like a brief logcat line\n")
	for i := 0; i < 10; i++ {
		mostlyJunk.WriteString("this line is no log at all\n")
	}
	for name, in := range map[string][]byte{
		"random bytes":        random,
		"one A/ line in junk": []byte(mostlyJunk.String()),
		"gfxinfo header only": []byte("Applications Graphics Acceleration Info:\n"),
		"recording header":    []byte(`{"type":"header","format":1}` + "\n"),
		"one huge line":       bytes.Repeat([]byte("x"), sampleMax+10),
	} {
		if got := detectKind(in); got != "" {
			t.Errorf("%s: detected %q, want nothing", name, got)
		}
	}
	// Logcat whose messages carry stack traces (indented continuation lines) is still logcat.
	trace := "17987-17987/com.x D/tag: >>>>> Dispatching to Handler (h) {1} r: 0\n" +
		strings.Repeat("    java.lang.Thread.sleep(Native Method)\n", 20)
	if got := detectKind([]byte(trace)); got != inputLogcat {
		t.Errorf("logcat with a stack trace: %q", got)
	}
}

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
	if _, _, _, err := openInput(p, nil); !errors.Is(err, errUnrecognised) {
		t.Errorf("openInput: %v, want errUnrecognised", err)
	}
}
