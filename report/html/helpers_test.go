package html

import (
	"bytes"
	"context"
	"math/rand"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

var testNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// simRecording runs the simulator as fast as it can and records it, as `fpstop --scenario S
// --hz HZ --seed N --headless --duration D --speed 0 --record FILE` does.
func simRecording(t testing.TB, dir, scenario string, hz float64, seed int64, dur time.Duration) string {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: hz, Seed: seed, Duration: dur})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan []source.Event, 16)
	go func() { _ = s.Run(context.Background(), ch); close(ch) }()
	path := filepath.Join(dir, scenario+".jsonl.gz")
	var w *record.Writer
	for b := range ch {
		if w == nil {
			var sess *source.Session
			for _, ev := range b {
				if x, ok := ev.(*source.Session); ok && sess == nil {
					sess = x
				}
			}
			if w, err = record.Create(path, record.HeaderFromSession(sess, "test", testNow), record.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// renderFile loads a recording and returns its HTML report.
func renderFile(t testing.TB, path string) (*Session, string) {
	t.Helper()
	s, err := Load(path, metrics.Config{}, metrics.ReportMeta{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, s, Options{Now: testNow}); err != nil {
		t.Fatal(err)
	}
	return s, b.String()
}

// Patterns of what would make a browser fetch something: a URL with a scheme or a
// protocol-relative one in src/href/srcset/action/poster/data attributes, CSS url() and
// @import, <link>, <script src>, <base>, <iframe>/<object>/<embed> and meta refresh. Plain
// <a href> links are the one kind allowed (a click, never a load).
var (
	reAttrURL   = regexp.MustCompile(`(?i)\s(src|srcset|href|xlink:href|action|poster|data|background|formaction)\s*=\s*["']?\s*([a-z][a-z0-9+.-]*:|//)`)
	reCSSURL    = regexp.MustCompile(`(?i)url\s*\(|@import`)
	reLoadTags  = regexp.MustCompile(`(?i)<(link|script|base|iframe|object|embed|img|image|use|video|audio|source)[\s>]`)
	reMetaRefr  = regexp.MustCompile(`(?i)http-equiv\s*=\s*["']?refresh`)
	reAnchorURL = regexp.MustCompile(`(?i)<a\s[^>]*href\s*=`)
)

// externalRefs lists every reference in page that could load something, <a href> excepted.
func externalRefs(page string) []string {
	var out []string
	stripped := reAnchorURL.ReplaceAllString(page, "<a ")
	for _, re := range []*regexp.Regexp{reAttrURL, reCSSURL, reLoadTags, reMetaRefr} {
		out = append(out, re.FindAllString(stripped, -1)...)
	}
	return out
}

// svgCharts returns each inline <svg class="chart …"> of the page.
func svgCharts(page string) []string {
	var out []string
	for rest := page; ; {
		i := strings.Index(rest, `<svg viewBox=`)
		if i < 0 {
			return out
		}
		j := strings.Index(rest[i:], `</svg>`)
		if j < 0 {
			return out
		}
		if el := rest[i : i+j+6]; strings.Contains(el[:min(len(el), 80)], `class="chart `) {
			out = append(out, el)
		}
		rest = rest[i+j+6:]
	}
}

// genHour writes a long 120 Hz session straight from events: mostly on-time frames with
// phases, a janky burst now and then, and a freeze (≥ 90 vsyncs) every freezeEvery frames.
// It returns the path and the number of frozen frames it wrote.
func genLong(t testing.TB, dir string, hz float64, dur time.Duration, freezeEvery int) (string, int) {
	t.Helper()
	rng := rand.New(rand.NewSource(17))
	T := int64(1e9 / hz)
	t0 := int64(9_000_000_000_000)
	hdr := record.Header{Format: record.FormatVersion, FpstopVersion: "test", Source: source.KindGfxinfo,
		Package: "com.example.long", RefreshHz: hz, CostBasis: source.CostFrame, StartUTC: testNow, StartMonoNs: t0,
		Device: source.Device{Serial: "emulator-5554", Model: "sdk_gphone64", Android: "14", SDK: 34}}
	path := filepath.Join(dir, "long.jsonl.gz")
	w, err := record.Create(path, hdr, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	frozen := 0
	var batch []source.Event
	n := int(int64(dur) / T)
	for i := 0; i < n; i++ {
		v := t0 + int64(i)*T
		cost := T/3 + rng.Int63n(T/2)
		switch {
		case i%freezeEvery == freezeEvery/2:
			cost = 90*T + rng.Int63n(40*T)
			frozen++
		case rng.Intn(100) < 4:
			cost = T + rng.Int63n(12*T)
		}
		ui := cost / 3
		batch = append(batch, &source.Frame{Window: "com.example.long/.Main", Process: "com.example.long", VsyncNs: v,
			DoneNs: v + cost, UIDoneNs: v + ui, IntervalNs: T, Phases: &source.Phases{Vsync: v, HandleInputStart: v + 40_000,
				AnimationStart: v + 90_000, PerformTraversalsStart: v + 150_000, DrawStart: v + ui/2, SyncQueued: v + ui - 5_000,
				SyncStart: v + ui, IssueDrawCommandsStart: v + ui + 80_000, FrameCompleted: v + cost}})
		if len(batch) >= 1024 || i == n-1 {
			batch = append(batch, &source.Tick{NowNs: v})
			if err := w.Write(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, frozen
}
