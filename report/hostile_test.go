package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
)

// hostileLines is a small recording as text: a header, a session, 60 frames at 60 Hz and a
// message.
func hostileLines(hz string) []string {
	lines := []string{
		`{"type":"header","format":1,"fpstop_version":"test","source":"gfxinfo","package":"com.example.app","refresh_hz":` + hz + `,"cost_basis":"frame","start_utc":"2026-01-01T00:00:00Z","start_mono_ns":1000000000000}`,
		`{"type":"session","source":"gfxinfo","package":"com.example.app","refresh_hz":` + hz + `,"cost_basis":"frame","start_mono_ns":1000000000000}`,
		`{"type":"refresh","at_ns":1000000000000,"hz":` + hz + `}`,
	}
	for i := 0; i < 60; i++ {
		v := int64(1_000_000_000_000) + int64(i)*16_666_667
		lines = append(lines, fmt.Sprintf(`{"type":"frame","window":"com.example.app/.Main","vsync_ns":%d,"done_ns":%d,"interval_ns":16666667}`, v, v+8_000_000))
	}
	lines = append(lines, `{"type":"message","handler":"android.os.Handler","callback":"x.Y","what":1,"start_ns":1000100000000,"end_ns":1000120000000}`)
	return lines
}

// withEnd closes a recording's lines with its end line.
func withEnd(lines []string) []string {
	return append(lines, `{"type":"end"}`)
}

func writeLines(t *testing.T, lines []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDoubledRecording (issue 31): a recording whose every event line is written twice reports
// the same frames and messages as the original, with a warning saying the repeats were counted
// once.
func TestDoubledRecording(t *testing.T) {
	lines := hostileLines("60")
	var doubled []string
	for i, l := range lines {
		doubled = append(doubled, l)
		if i > 0 {
			doubled = append(doubled, l)
		}
	}
	orig, err := readReport(writeLines(t, withEnd(lines)), metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := readReport(writeLines(t, withEnd(doubled)), metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if twice.Frames != orig.Frames || twice.Frames != 60 || twice.Messages.Paired != orig.Messages.Paired {
		t.Errorf("doubled: %d frames, %d messages; original %d, %d", twice.Frames, twice.Messages.Paired, orig.Frames, orig.Messages.Paired)
	}
	if w := strings.Join(twice.Warnings, "\n"); !strings.Contains(w, "61 repeated event lines") {
		t.Errorf("warnings %q: the repeats are not said", w)
	}
	if len(orig.Warnings) != 0 {
		t.Errorf("the original has warnings: %q", orig.Warnings)
	}
}

// TestSameMillisecondMessages: logcat stamps whole milliseconds, so one thread's short messages
// in the same millisecond are recorded as identical lines (start = end); each is a message of its
// own, counted, with no warning, while a doubled message that took time is still counted once.
func TestSameMillisecondMessages(t *testing.T) {
	const short = `{"type":"message","pid":1,"tid":1,"thread":"main","handler":"android.view.Choreographer$FrameHandler","callback":"c","what":0,"start_ns":1000200000000,"end_ns":1000200000000}`
	lines := hostileLines("60")
	base, err := readReport(writeLines(t, withEnd(lines)), metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
	three := append(append([]string{}, lines...), short, short, short, lines[len(lines)-1])
	rep, err := readReport(writeLines(t, withEnd(three)), metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Messages.Paired, base.Messages.Paired+3; got != want {
		t.Errorf("%d messages paired, want %d: same-millisecond messages were taken for repeats", got, want)
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "1 repeated event line ") || strings.Count(w, "repeated") != 1 {
		t.Errorf("warnings %q: want the one repeated message that took time, and only it", w)
	}
}

// TestOutOfRangeNumbers (issue 31): refresh rates of 1e308, a negative or a tiny one, and lines
// holding NaN, Infinity or an integer too large are refused line by line with a warning; the
// report is still made and is valid JSON.
func TestOutOfRangeNumbers(t *testing.T) {
	for _, hz := range []string{"1e308", "-60", "1e-300"} {
		lines := hostileLines(hz)
		lines = append(lines, `{"type":"refresh","at_ns":1000500000000,"hz":NaN}`,
			`{"type":"refresh","at_ns":1000500000000,"hz":Infinity}`,
			`{"type":"frame","window":"w","vsync_ns":1e308,"done_ns":1,"interval_ns":16666667}`,
			`{"type":"message","handler":"h","callback":"c","what":1,"start_ns":1000200000000,"end_ns":1000100000000}`)
		r, err := readReport(writeLines(t, lines), metrics.Config{}, metrics.ReportMeta{})
		if err != nil {
			t.Fatalf("%s: %v", hz, err)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("%s: the report does not encode: %v", hz, err)
		}
		w := strings.Join(r.Warnings, "\n")
		for _, want := range []string{"refresh rates out of range ignored", "unreadable line", "impossible timestamps"} {
			if !strings.Contains(w, want) {
				t.Errorf("%s: warnings %q lack %q", hz, w, want)
			}
		}
		if r.Frames != 60 {
			t.Errorf("%s: %d frames, want 60", hz, r.Frames)
		}
	}
}

// TestR2Huge: a huge value encodes as a number (it once failed MarshalJSON with "+Inf").
func TestR2Huge(t *testing.T) {
	b, err := json.Marshal(metrics.R2(1e308))
	if err != nil || !json.Valid(b) {
		t.Errorf("%s %v", b, err)
	}
}
