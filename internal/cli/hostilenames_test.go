package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// hostileNames are window names an app chooses (popup and dialog titles): formulas for a
// spreadsheet, and characters that make a name display as another.
var hostileNames = []string{`=HYPERLINK("http://x.example","click")`, "@SUM(1+1)", "+1+1", "-2+3+cmd|x",
	"\tTab", "Pay\u202eyaP.apk", "Ma\u200bin\u2066Activity"}

// hostileRecording writes a recording whose windows, process and Looper names are hostile.
func hostileRecording(t *testing.T) string {
	t.Helper()
	T := int64(16_666_667)
	t0 := int64(5_000_000_000_000)
	hdr := record.Header{Format: record.FormatVersion, FpstopVersion: "test", Source: source.KindGfxinfo,
		Package: "com.example.app", RefreshHz: 60, CostBasis: source.CostFrame, StartUTC: time.Unix(0, 0), StartMonoNs: t0}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	w, err := record.Create(path, hdr, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []source.Event
	for i := 0; i < 600; i++ {
		v := t0 + int64(i)*T
		name := hostileNames[i%len(hostileNames)]
		evs = append(evs, &source.Frame{Window: name, Process: "=cmd|' /C calc'!A0", VsyncNs: v, DoneNs: v + T/2 + int64(i%7)*T,
			IntervalNs: T})
		if i%10 == 0 {
			evs = append(evs, &source.Message{Handler: "Evil\u202eHandler", Callback: "=1+2", What: 3, StartNs: v, EndNs: v + 30_000_000})
		}
	}
	evs = append(evs, &source.Tick{NowNs: t0 + 700*T})
	if err := w.Write(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// noInvisible fails t when out holds a bidi control or zero-width character, or lacks their
// escapes.
func noInvisible(t *testing.T, format, out string) {
	t.Helper()
	if i := strings.IndexFunc(out, func(r rune) bool { return r == 0x202e || r == 0x200b || r == 0x2066 }); i >= 0 {
		t.Errorf("%s: an invisible character reached the output at byte %d: %q", format, i, out[max(0, i-40):min(len(out), i+40)])
	}
	if !strings.Contains(out, `u202e`) || !strings.Contains(out, `u200b`) {
		t.Errorf("%s: the escapes are missing", format)
	}
}

// TestHostileNamesEveryFormat (issue 31): a recording with formula-like and bidi/zero-width
// names: the CSV's text cells that start with = + - @ or tab get a leading ' inside a quoted
// cell and its numbers are untouched; CSV, JSON, Markdown, HTML and the trace show the
// invisible characters escaped.
func TestHostileNamesEveryFormat(t *testing.T) {
	rec := hostileRecording(t)
	out, errs, code := run(t, "", "report", rec, "--format", "csv")
	if code != ExitOK {
		t.Fatalf("csv: exit %d %s", code, errs)
	}
	noInvisible(t, "csv", out)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv does not parse: %v", err)
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		seen[r[0]] = true
		if r[1] != "'=cmd|' /C calc'!A0" {
			t.Errorf("process cell %q", r[1])
		}
		if _, err := strconv.ParseInt(r[2], 10, 64); err != nil {
			t.Errorf("vsync_ns %q is not a number", r[2])
		}
	}
	for _, want := range []string{`'=HYPERLINK("http://x.example","click")`, "'@SUM(1+1)", "'+1+1", "'-2+3+cmd|x", "'\tTab", `Pay\u202eyaP.apk`} {
		if !seen[want] {
			t.Errorf("no window cell %q in %v", want, seen)
		}
	}
	for _, raw := range []string{`"'@SUM(1+1)"`, `"'+1+1"`, `"'-2+3+cmd|x"`} {
		if !strings.Contains(out, raw) {
			t.Errorf("csv: %s is not a quoted cell", raw)
		}
	}
	for _, format := range []string{"json", "md", "html"} {
		out, errs, code := run(t, "", "report", rec, "--format", format)
		if code != ExitOK {
			t.Fatalf("%s: exit %d %s", format, code, errs)
		}
		noInvisible(t, format, out)
	}
	trace := filepath.Join(t.TempDir(), "t.json")
	if _, errs, code := run(t, "", "export", rec, "--trace", trace); code != ExitOK {
		t.Fatalf("trace: exit %d %s", code, errs)
	}
	b := readFile(t, trace)
	noInvisible(t, "trace", b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
