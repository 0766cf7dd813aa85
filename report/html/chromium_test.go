package html

// The page as a person sees it: a real headless Chromium (Debian's `chromium`) opens the
// report from disk with every request intercepted, so any load other than the file itself is
// seen and failed before it can leave. The tests skip under -short and, outside CI, when
// Chromium is missing; FPSTOP_REQUIRE_CHROMIUM=1 (set by .ci/run) turns that skip into a
// failure.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// chromiumPath finds the browser or skips (fails under FPSTOP_REQUIRE_CHROMIUM=1).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("opens the report in headless Chromium; skipped under -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("FPSTOP_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium not found on PATH (FPSTOP_REQUIRE_CHROMIUM=1)")
	}
	t.Skip("chromium not found on PATH: apt-get install chromium to run the browser test of the HTML report")
	return ""
}

// browserResult is what loading a page showed.
type browserResult struct {
	requests []string // every request the page made (the page's own URL included)
	blocked  []string // requests other than the page itself, failed by the interceptor
	errors   []string // console errors, uncaught exceptions, error log entries
	light    []byte   // full-page PNG in the light scheme
	dark     []byte   // full-page PNG in the dark scheme
	eval     map[string]any
}

// probe is evaluated in the loaded page: what a reader would see.
const probe = `(() => {
  const charts = [...document.querySelectorAll('svg.chart')];
  return {
    charts: charts.length,
    drawn: charts.filter(s => s.getBoundingClientRect().height > 50 && s.getBoundingClientRect().width > 300).length,
    tooltips: document.querySelectorAll('svg.chart title').length,
    scripts: document.scripts.length,
    fg: getComputedStyle(document.body).color,
    bg: getComputedStyle(document.body).backgroundColor,
  };
})()`

// loadInChromium opens the file with every request paused: the file itself continues, anything
// else is recorded and failed. It takes a full-page screenshot in the light and dark schemes.
// profileDir returns a fresh Chromium profile directory, removed when the test ends. Chromium's
// helper processes (its crash handler) may still write there for a moment after the browser
// itself has exited, which once made t.TempDir's cleanup fail a run with "directory not empty"
// under load: the removal is retried for a few seconds instead, and a profile that still
// cannot be removed is logged, not a failure of what the test checks.
func profileDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fpstop-chromium-profile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for try := 0; ; try++ {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if try == 50 {
				t.Logf("chromium profile %s not removed: %v", dir, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}

// browser starts a headless Chromium with a private profile, no network and a 90 s limit;
// stop ends it.
func browser(t *testing.T, exe string) (ctx context.Context, stop func()) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1200, 900),
		// Belt and braces: even a request the interceptor missed could resolve no name and
		// reach no proxy.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"), chromedp.ProxyServer("127.0.0.1:9"),
		chromedp.UserDataDir(profileDir(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	return bctx, func() {
		bcancel()
		acancel()
		cancel()
	}
}

func loadInChromium(t *testing.T, exe, file string) browserResult {
	t.Helper()
	bctx, stop := browser(t, exe)
	defer stop()
	url := "file://" + file
	var mu sync.Mutex
	res := browserResult{}
	chromedp.ListenTarget(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *fetch.EventRequestPaused:
			res.requests = append(res.requests, e.Request.URL)
			id := e.RequestID
			if e.Request.URL == url {
				go chromedp.Run(bctx, fetch.ContinueRequest(id))
				return
			}
			res.blocked = append(res.blocked, e.Request.URL)
			go chromedp.Run(bctx, fetch.FailRequest(id, network.ErrorReasonBlockedByClient))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				res.errors = append(res.errors, fmt.Sprintf("console.%s %v", e.Type, argsText(e.Args)))
			}
		case *runtime.EventExceptionThrown:
			res.errors = append(res.errors, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				res.errors = append(res.errors, fmt.Sprintf("log %s: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	})
	var eval map[string]any
	var light, dark []byte
	err := chromedp.Run(bctx,
		fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*"}}),
		runtime.Enable(), log.Enable(),
		chromedp.Navigate(url),
		chromedp.WaitReady("footer", chromedp.ByQuery),
		chromedp.Evaluate(probe, &eval),
		chromedp.FullScreenshot(&light, 100),
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.FullScreenshot(&dark, 100),
	)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	var darkEval map[string]any
	if err := chromedp.Run(bctx, chromedp.Evaluate(probe, &darkEval)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	eval["dark_fg"], eval["dark_bg"] = darkEval["fg"], darkEval["bg"]
	mu.Lock()
	defer mu.Unlock()
	res.light, res.dark, res.eval = light, dark, eval
	return res
}

func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if a.Value != nil {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// inkFraction is the share of pixels that differ clearly from the top-left (background) pixel,
// and the number of distinct colours seen (sampled): a blank or one-colour page has ~0 and 1.
func inkFraction(t *testing.T, pngData []byte) (float64, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	br, bg, bb, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	ink, total := 0, 0
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			total++
			if absDiff(r, br)+absDiff(g, bg)+absDiff(bl, bb) > 3*0x1000 {
				ink++
			}
			colours[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	return float64(ink) / float64(max(total, 1)), len(colours)
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func pngSize(t *testing.T, data []byte) image.Point {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return image.Point{cfg.Width, cfg.Height}
}

// TestChromiumRendersJankyReport: the simulator's janky 120 Hz report in a real browser makes
// no request but its own file, logs no error, runs no script, draws its charts with tooltips,
// follows the dark scheme and gives a non-blank screenshot.
func TestChromiumRendersJankyReport(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	_, page := renderFile(t, simRecording(t, dir, "janky", 120, 1, 30*time.Second))
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res := loadInChromium(t, exe, file)
	if len(res.requests) == 0 {
		t.Fatal("the interceptor saw no request at all, not even the page: it is not working")
	}
	if len(res.blocked) > 0 {
		t.Errorf("the page made requests besides its own file: %q", res.blocked)
	}
	if len(res.errors) > 0 {
		t.Errorf("console errors: %q", res.errors)
	}
	ev := res.eval
	if n, _ := ev["charts"].(float64); n < 3 {
		t.Errorf("%v charts in the DOM, want at least 3", ev["charts"])
	}
	if ev["drawn"] != ev["charts"] {
		t.Errorf("%v of %v charts have a visible size", ev["drawn"], ev["charts"])
	}
	if n, _ := ev["tooltips"].(float64); n < 100 {
		t.Errorf("%v tooltips in the charts", ev["tooltips"])
	}
	if n, _ := ev["scripts"].(float64); n != 0 {
		t.Errorf("%v scripts: the charts must be drawn into the file, not at load time", n)
	}
	if ev["fg"] == ev["dark_fg"] || ev["bg"] == ev["dark_bg"] {
		t.Errorf("the dark scheme changes nothing: light %v on %v, dark %v on %v", ev["fg"], ev["bg"], ev["dark_fg"], ev["dark_bg"])
	}
	for name, shot := range map[string][]byte{"light": res.light, "dark": res.dark} {
		ink, colours := inkFraction(t, shot)
		size := pngSize(t, shot)
		t.Logf("%s screenshot %dx%d: %.1f %% ink, %d colours", name, size.X, size.Y, ink*100, colours)
		if ink < 0.03 || colours < 8 || size.Y < 1500 {
			t.Errorf("%s screenshot looks blank: %.2f %% ink, %d colours, %dx%d", name, ink*100, colours, size.X, size.Y)
		}
	}
	if out := os.Getenv("FPSTOP_SCREENSHOT_DIR"); out != "" {
		os.WriteFile(filepath.Join(out, "report-light.png"), res.light, 0o644)
		os.WriteFile(filepath.Join(out, "report-dark.png"), res.dark, 0o644)
	}
}

// TestChromiumCatchesRequests proves the browser check can fail: a page that loads an image
// from the network and logs an error is caught on both counts (and the image never loads).
func TestChromiumCatchesRequests(t *testing.T) {
	exe := chromiumPath(t)
	file := filepath.Join(t.TempDir(), "bad.html")
	bad := `<!doctype html><title>bad</title><img src="https://example.invalid/x.png"><footer>x</footer>` +
		`<svg class="chart"></svg><script>console.error("planted")</script>`
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	res := loadInChromium(t, exe, file)
	if len(res.blocked) == 0 || !strings.Contains(strings.Join(res.blocked, " "), "example.invalid") {
		t.Errorf("the planted request was not seen: %q", res.requests)
	}
	if !strings.Contains(strings.Join(res.errors, " "), "planted") {
		t.Errorf("the planted console error was not seen: %q", res.errors)
	}
}

// historyRecording writes a gfxinfo-like recording: 2.5 s of frames from the first dump's
// backlog (history, before the session's start), 10 s of frames after it (every 7th janky), and
// Android's printed summary of the window with its legacy jank count.
func historyRecording(t *testing.T, dir string) string {
	const T = int64(16_666_667)
	start := int64(100e9)
	pkg, win := "com.example.app", "com.example.app/com.example.app.Main"
	evs := []source.Event{&source.Session{Source: source.KindGfxinfo, Package: pkg, RefreshHz: 60, CostBasis: source.CostFrame, StartMonoNs: start},
		&source.Refresh{AtNs: start, Hz: 60}}
	for v := start - 2500e6; v < start+10e9; v += T {
		cost := int64(9e6)
		if (v/T)%7 == 0 {
			cost = 40e6 // two vsyncs dropped
		}
		evs = append(evs, &source.Frame{Window: win, Process: pkg, VsyncNs: v, DoneNs: v + cost, IntervalNs: T, History: v < start})
	}
	n := func(v int64) *int64 { return &v }
	evs = append(evs, &source.AndroidSummary{AtNs: start + 10e9, Window: win, Process: pkg, TotalFrames: n(750), JankyFrames: n(100), JankyLegacy: n(107)},
		&source.Tick{NowNs: start + 10e9})
	path := filepath.Join(dir, "history.jsonl")
	w, err := record.Create(path, record.HeaderFromSession(evs[0].(*source.Session), "test", testNow), record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestChromiumSharedTimeAxis: in the browser, the FPS and frame-time charts share one time axis
// (the same ticks at the same places, history before 0 included) and the Android table shows
// fpstop's legacy jank count beside Android's.
func TestChromiumSharedTimeAxis(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	s, page := renderFile(t, historyRecording(t, dir))
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	const axes = `(() => {
  const ticks = sel => [...document.querySelectorAll(sel + ' g.axis text.tick')].map(t => {
    const r = t.getBoundingClientRect(); return [t.textContent, Math.round(r.x + r.width / 2)]; });
  return {fps: ticks('svg.chart.fps'), timeline: ticks('svg.chart.timeline'),
    rows: [...document.querySelectorAll('table.android tr')].map(r => r.innerText)};
})()`
	var got struct {
		FPS      [][]any  `json:"fps"`
		Timeline [][]any  `json:"timeline"`
		Rows     []string `json:"rows"`
	}
	evalInChromium(t, exe, file, axes, &got)
	same := len(got.FPS) >= 3 && len(got.FPS) == len(got.Timeline)
	for i := 0; same && i < len(got.FPS); i++ {
		dx := got.FPS[i][1].(float64) - got.Timeline[i][1].(float64)
		same = got.FPS[i][0] == got.Timeline[i][0] && dx >= -1 && dx <= 1 // the same tick within a pixel
	}
	if !same {
		t.Errorf("the charts' time axes differ:\nFPS      %v\ntimeline %v", got.FPS, got.Timeline)
	}
	var zero, negative bool
	for _, tk := range got.FPS {
		zero = zero || tk[0] == "0 s"
		negative = negative || strings.HasPrefix(tk[0].(string), "-") || strings.HasPrefix(tk[0].(string), "−")
	}
	if !zero || !negative || strings.Contains(fmt.Sprint(got.FPS), "-0 s") {
		t.Errorf("ticks %v: want 0 s, the history before it, and no -0 s", got.FPS)
	}
	legacy := s.Analysis.Report.Windows[0].JankyLegacy
	var row string
	for _, r := range got.Rows {
		if strings.Contains(r, "legacy") {
			row = r
		}
	}
	if legacy == nil || !strings.Contains(row, fmt.Sprint(*legacy)) || !strings.Contains(row, "107") {
		t.Errorf("legacy row %q, fpstop's count %v: want both counts shown", row, legacy)
	}
}

// evalInChromium opens file in the browser and evaluates js into out.
func evalInChromium(t *testing.T, exe, file, js string, out any) {
	t.Helper()
	bctx, stop := browser(t, exe)
	defer stop()
	if err := chromedp.Run(bctx, chromedp.Navigate("file://"+file), chromedp.WaitReady("footer", chromedp.ByQuery),
		chromedp.Evaluate(js, out)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
}
