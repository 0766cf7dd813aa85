package capture

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// TestDetectRealCaptures (issue 31): every real gfxinfo and logcat capture is recognised as
// what it is by the evidence rule; the captures of other dumpsys services are not taken for
// either, and SurfaceFlinger text is recognised as itself (read, or refused saying why).
func TestDetectRealCaptures(t *testing.T) {
	for sub, want := range map[string]Kind{"gfxinfo": Gfxinfo, "logcat": Logcat, "misc": ""} {
		for _, f := range realdata.Files(t, sub) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := DetectKind(b); got != want {
				t.Errorf("%s: detected %q, want %q", filepath.Base(f), got, want)
			}
		}
	}
	for _, f := range realdata.Files(t, "surfaceflinger") {
		if !strings.HasSuffix(f, ".md") { // every shape: --latency, --list, a plain dump
			b, _ := os.ReadFile(f)
			if got := DetectKind(b); got != SurfaceFlinger {
				t.Errorf("%s: detected %q, want %q", filepath.Base(f), got, SurfaceFlinger)
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
		if got := DetectKind(in); got != "" {
			t.Errorf("%s: detected %q, want nothing", name, got)
		}
	}
	// Logcat whose messages carry stack traces (indented continuation lines) is still logcat.
	trace := "17987-17987/com.x D/tag: >>>>> Dispatching to Handler (h) {1} r: 0\n" +
		strings.Repeat("    java.lang.Thread.sleep(Native Method)\n", 20)
	if got := DetectKind([]byte(trace)); got != Logcat {
		t.Errorf("logcat with a stack trace: %q", got)
	}
}

func TestDetectKind(t *testing.T) {
	for in, want := range map[string]Kind{
		"Applications Graphics Acceleration Info:\nUptime: 1":               Gfxinfo,
		"\xef\xbb\xbf---PROFILEDATA---\n0,1,2,3,4,5,6,7,8,9,10,11,12,13,\n": Gfxinfo,
		"0,1,2,3,4,5,6,7,8,9,10,11,12,13,\n":                                Gfxinfo,
		"{\"type\":\"header\",\"format\":1}\n{\"type\":\"end\"}":            Recording,
		"\x1f\x8b\x08": Recording,
		"05-18 00:42:29.500  123  123 D Looper  : >>>>> Dispatching to Handler (a) {1} null: 0": Logcat,
		"\xff\xfeA\x00p\x00p\x00l\x00i\x00c\x00a\x00t\x00i\x00o\x00n\x00s\x00 \x00G\x00r\x00a\x00p\x00h\x00i\x00c\x00s\x00 \x00A\x00c\x00c\x00e\x00l\x00e\x00r\x00a\x00t\x00i\x00o\x00n\x00 \x00I\x00n\x00f\x00o\x00\n\x00U\x00p\x00t\x00i\x00m\x00e\x00:\x00 \x001\x00": Gfxinfo,
	} {
		if got := DetectKind([]byte(in)); got != want {
			t.Errorf("DetectKind(%q) = %s, want %s", in[:min(30, len(in))], got, want)
		}
	}
}

// TestDetectPerfetto: binary Perfetto traces (plain and gzip'd) are told from recordings and
// text by their content, whatever their name; text that happens to start with a newline is not
// a trace.
func TestDetectPerfetto(t *testing.T) {
	dir := realdata.Dir(t, "perfetto")
	for _, sub := range []string{"ft_events", "ft_power_mode", "doframe_depth"} {
		b, err := os.ReadFile(filepath.Join(dir, sub, "trace.pftrace"))
		if err != nil {
			t.Fatal(err)
		}
		if got := DetectKind(b); got != Perfetto {
			t.Errorf("%s: %s, want perfetto", sub, got)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(b)
		zw.Close()
		if got := DetectKind(gz.Bytes()); got != Perfetto {
			t.Errorf("%s gzip'd: %s, want perfetto", sub, got)
		}
	}
	var rec bytes.Buffer
	zw := gzip.NewWriter(&rec)
	zw.Write([]byte(`{"type":"header","format":1}` + "\n"))
	zw.Close()
	for _, in := range []string{"\n--------- beginning of main\n05-18 00:42:29.500  123  123 D Looper  : x",
		"\n\n", "\n\x05\x08\x01\x10\x02", rec.String()} {
		if got := DetectKind([]byte(in)); got == Perfetto {
			t.Errorf("DetectKind(%q) = perfetto", in[:min(20, len(in))])
		}
	}
}

// FuzzDetectKind (issue 13): any first bytes of an input are classified as one of the kinds
// or as not enough evidence (issue 31), never a panic.
func FuzzDetectKind(f *testing.F) {
	f.Add([]byte("Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 2\n"))
	f.Add([]byte("11-23 08:00:00.000  123  123 D Looper  : >>>>> Dispatching to Handler (x) {1} null: 0\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{0xff, 0xfe, 'A', 0, 'p', 0})
	f.Add([]byte{'A', 0, 'p', 0, 'p', 0, 'l', 0, 'i', 0})
	f.Add([]byte("\n\x05\x08\x01\x10\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		switch k := DetectKind(b); k {
		case Gfxinfo, Logcat, Recording, SurfaceFlinger, Perfetto, "":
		default:
			t.Fatalf("kind %q", k)
		}
	})
}

// DetectKind classifies a whole input held in memory as Detect does a file: the kind, or ""
// when the evidence does not suffice.
func DetectKind(b []byte) Kind {
	k, _ := detect(newSample(b, true), true)
	return k
}
