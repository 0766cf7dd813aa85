package simtext

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// block is one window's part of a rendered dump, parsed independently of the renderer.
type block struct {
	title   string
	summary map[string]string // "Total frames rendered" → "123"
	header  []string
	rows    [][]int64
}

// parseDump splits rendered gfxinfo text into the process summary and window blocks.
func parseDump(t *testing.T, text string) (proc map[string]string, blocks []*block) {
	t.Helper()
	proc = map[string]string{}
	lines := strings.Split(text, "\n")
	var cur *block
	inData := false
	for i, l := range lines {
		switch {
		case l == "---PROFILEDATA---":
			if inData {
				inData = false
				continue
			}
			inData = true
			if cur == nil {
				t.Fatalf("line %d: PROFILEDATA outside a window", i+1)
			}
			if !strings.HasSuffix(lines[i+1], ",") {
				t.Fatalf("header without trailing comma: %q", lines[i+1])
			}
			cur.header = strings.Split(strings.TrimSuffix(lines[i+1], ","), ",")
		case inData:
			if strings.HasPrefix(l, "Flags,") {
				continue
			}
			if !strings.HasSuffix(l, ",") {
				t.Fatalf("row without trailing comma: %q", l)
			}
			fields := strings.Split(strings.TrimSuffix(l, ","), ",")
			if len(fields) != len(cur.header) {
				t.Fatalf("row has %d fields, header %d: %q", len(fields), len(cur.header), l)
			}
			row := make([]int64, len(fields))
			for k, f := range fields {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					t.Fatalf("field %d of %q: %v", k, l, err)
				}
				row[k] = v
			}
			cur.rows = append(cur.rows, row)
		case strings.HasPrefix(l, "\t") && strings.Contains(l, "/android.view.ViewRootImpl@"):
			title := l[1:strings.Index(l, "/android.view.ViewRootImpl@")]
			if !strings.HasSuffix(l, " (visibility=0)") {
				t.Fatalf("view-root line %q", l)
			}
			cur = &block{title: title, summary: map[string]string{}}
			blocks = append(blocks, cur)
		default:
			if k, v, ok := strings.Cut(l, ": "); ok {
				if cur == nil {
					proc[k] = v
				} else {
					cur.summary[k] = v
				}
			}
		}
	}
	return proc, blocks
}

func (b *block) col(t *testing.T, name string) int {
	t.Helper()
	i := slices.Index(b.header, name)
	if i < 0 {
		t.Fatalf("no column %s in %v", name, b.header)
	}
	return i
}

func histogramSum(t *testing.T, line string) int64 {
	t.Helper()
	var sum int64
	for _, kv := range strings.Fields(line) {
		_, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("histogram entry %q", kv)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += n
	}
	return sum
}

func TestGfxinfoDumpRender(t *testing.T) {
	s, err := sim.New(sim.Config{Scenario: "stress", Hz: 120, Seed: 6, Duration: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := NewGfxinfoDump("", 0, 0)
	s.SetGfxinfo(d)
	batches := sourcetest.Batches(t, s)
	evs := flatten(batches)
	perWin := map[string][]*source.Frame{}
	var total int
	for _, f := range frames(evs) {
		perWin[f.Window] = append(perWin[f.Window], f)
		total++
	}
	now := sim.StartNs + int64(8*time.Second)
	wantCols := map[Layout]int{LayoutAndroid13: 23, LayoutAndroid10: 17, LayoutAndroid9: 16,
		LayoutAndroid8: 16, LayoutAndroid7: 14, LayoutAndroid6: 14}
	for _, layout := range Layouts {
		t.Run(layout.String(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := d.Render(&buf, now, layout); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			if !strings.HasPrefix(text, "Applications Graphics Acceleration Info:\nUptime: "+strconv.FormatInt(now/1e6, 10)+" Realtime: ") {
				t.Fatalf("header: %.100q", text)
			}
			if !strings.Contains(text, "\n** Graphics info for pid 23817 [com.example.feed] **\n") ||
				!strings.Contains(text, "\nProfile data in ms:\n") || !strings.Contains(text, "\nView hierarchy:\n") {
				t.Fatal("missing section")
			}
			proc, blocks := parseDump(t, text)
			if proc["Total frames rendered"] != strconv.Itoa(total) {
				t.Fatalf("process total %q, frames sent %d", proc["Total frames rendered"], total)
			}
			if layout == LayoutAndroid6 {
				if _, ok := proc["50th percentile"]; ok {
					t.Fatal("Android 6 prints no 50th percentile")
				}
			} else if histogramSum(t, proc["HISTOGRAM"]) != int64(total) {
				t.Fatal("process HISTOGRAM does not sum to the total")
			}
			if _, ok := proc["Janky frames (legacy)"]; ok != (layout == LayoutAndroid13) {
				t.Fatal("Janky frames (legacy) only on Android 12+")
			}
			if len(blocks) != len(perWin) || len(blocks) < 4 {
				t.Fatalf("%d window blocks, %d windows drew", len(blocks), len(perWin))
			}
			for _, b := range blocks {
				fs := perWin[b.title]
				if len(b.header) != wantCols[layout] || !slices.Equal(b.header, layout.Columns()) {
					t.Fatalf("header %v", b.header)
				}
				if layout != LayoutAndroid7 {
					if b.summary["Total frames rendered"] != strconv.Itoa(len(fs)) {
						t.Fatalf("%s: total %q, frames %d", b.title, b.summary["Total frames rendered"], len(fs))
					}
				}
				if layout <= LayoutAndroid8 && b.summary["Window"] != b.title {
					t.Fatalf("Window: line %q", b.summary["Window"])
				}
				// the last 120 frames, in order
				want := fs[max(0, len(fs)-RingSize):]
				if len(b.rows) != len(want) || len(fs) > RingSize && len(b.rows) != RingSize {
					t.Fatalf("%s: %d rows, want %d", b.title, len(b.rows), len(want))
				}
				iv, fc := b.col(t, "IntendedVsync"), b.col(t, "FrameCompleted")
				ss, fl := b.col(t, "SyncStart"), b.col(t, "Flags")
				for k, row := range b.rows {
					f := want[k]
					if row[iv] != f.VsyncNs || row[fc] != f.DoneNs || row[ss] != f.Phases.SyncStart || row[fl] != f.Flags {
						t.Fatalf("%s row %d %v ≠ frame %+v", b.title, k, row, f)
					}
					if layout == LayoutAndroid13 {
						// the real-device quirk: labels FrameInterval/FrameStartTime hold each other's values
						if row[b.col(t, "FrameStartTime")] != f.IntervalNs || row[b.col(t, "FrameInterval")] != f.Phases.FrameStartTime {
							t.Fatalf("FrameInterval/FrameStartTime columns: %v", row)
						}
						if row[b.col(t, "FrameTimelineVsyncId")] != f.VsyncID || row[b.col(t, "FrameDeadline")] != f.DeadlineNs {
							t.Fatalf("vsync id / deadline: %v", row)
						}
					}
					if layout <= LayoutAndroid8 && row[b.col(t, "DequeueBufferDuration")] != f.Phases.DequeueBufferDuration {
						t.Fatalf("DequeueBufferDuration: %v", row)
					}
				}
			}
		})
	}
}

// TestGfxinfoRing feeds frames by hand: only the last 120 are printed, every frame is counted,
// rows without SyncStart are not printed, a removed window disappears.
func TestGfxinfoRing(t *testing.T) {
	d := NewGfxinfoDump("com.example.feed", 4242, 1_000)
	T := int64(16_666_667)
	mk := func(i int64, win string) *source.Frame {
		v := 10_000_000_000 + i*T
		ph := &source.Phases{Vsync: v, HandleInputStart: v + ms, AnimationStart: v + ms, PerformTraversalsStart: v + ms,
			DrawStart: v + 2*ms, SyncQueued: v + 3*ms, SyncStart: v + 3*ms, IssueDrawCommandsStart: v + 4*ms,
			SwapBuffers: v + 6*ms, FrameCompleted: v + 8*ms + i%5*5*ms, GpuCompleted: v + 8*ms + i%5*5*ms,
			SwapBuffersCompleted: v + 7*ms, CommandSubmissionCompleted: v + 6*ms, FrameStartTime: v}
		if i == 7 {
			ph.SyncStart = 0 // never synced: not printed, still counted
		}
		return &source.Frame{Window: win, Process: "com.example.feed", VsyncNs: v, DoneNs: ph.FrameCompleted,
			UIDoneNs: v + 4*ms, IntervalNs: T, DeadlineNs: v + T, Phases: ph}
	}
	var all []source.Event
	for i := int64(0); i < 300; i++ {
		all = append(all, mk(i, "A"))
		if i < 10 {
			all = append(all, mk(i, "B"))
		}
	}
	d.Observe(all)
	if d.TotalFrames("A") != 300 || d.TotalFrames("B") != 10 || d.TotalFrames("C") != -1 {
		t.Fatalf("totals %d %d", d.TotalFrames("A"), d.TotalFrames("B"))
	}
	var buf bytes.Buffer
	if err := d.Render(&buf, 20_000_000_000, LayoutAndroid13); err != nil {
		t.Fatal(err)
	}
	proc, blocks := parseDump(t, buf.String())
	if proc["Total frames rendered"] != "310" || len(blocks) != 2 {
		t.Fatalf("total %q, %d blocks", proc["Total frames rendered"], len(blocks))
	}
	a := blocks[0]
	if len(a.rows) != RingSize || a.rows[0][a.col(t, "IntendedVsync")] != 10_000_000_000+180*T {
		t.Fatalf("A: %d rows, first %d", len(a.rows), a.rows[0][2])
	}
	if len(blocks[1].rows) != 9 { // frame 7 has no SyncStart
		t.Fatalf("B: %d rows", len(blocks[1].rows))
	}
	// Android's percentiles from the same histogram rule
	var h hwui.Histogram
	for i := int64(0); i < 300; i++ {
		h.Add(8*ms + i%5*5*ms)
	}
	if a.summary["90th percentile"] != fmt.Sprintf("%dms", h.Percentile(90)) {
		t.Fatalf("90th %q, want %dms", a.summary["90th percentile"], h.Percentile(90))
	}
	if !strings.HasPrefix(a.summary["Janky frames"], "180 (60.00%)") { // frames of 18, 23 and 28 ms of every 5 miss the deadline
		t.Fatalf("janky %q", a.summary["Janky frames"])
	}
	d.SetWindow("B", "", false, 20_000_000_000)
	buf.Reset()
	d.Render(&buf, 20_000_000_000, LayoutAndroid10)
	if strings.Contains(buf.String(), "\tB/") || !slices.Equal(d.Windows(), []string{"A"}) {
		t.Fatal("removed window still dumped")
	}
	buf.Reset()
	if err := RenderNoProcess(&buf, "com.example.feed"); err != nil || buf.String() != "No process found for: com.example.feed\n" {
		t.Fatalf("%q %v", buf.String(), err)
	}
}

// TestGfxinfoLateFrameOfRemovedWindow: a popup's last frame completes after its window was
// removed (the simulator emits a frame when it completes). It counts in the process's counter
// and in no window's, and the popup shown next is a new view root whose counter starts at its
// own frames. Attaching a window for the late frame left a phantom under the popup's title,
// with a view-root id derived from the title, and the next popup took it over (its ring and
// counter): a live janky session at 120 Hz read that id's counter going 28 → 1 and warned of
// damage.
func TestGfxinfoLateFrameOfRemovedWindow(t *testing.T) {
	d := NewGfxinfoDump("com.example.feed", 4242, 1_000)
	T := int64(8_333_333)
	mk := func(i int64) *source.Frame {
		v := 10_000_000_000 + i*T
		ph := &source.Phases{Vsync: v, SyncQueued: v + ms, SyncStart: v + ms, IssueDrawCommandsStart: v + 2*ms,
			SwapBuffers: v + 3*ms, FrameCompleted: v + 5*ms, GpuCompleted: v + 5*ms, FrameStartTime: v}
		return &source.Frame{Window: "PopupWindow:c9cbcba", Process: "com.example.feed", VsyncNs: v, DoneNs: v + 5*ms,
			IntervalNs: T, DeadlineNs: v + T, Phases: ph}
	}
	render := func() (map[string]string, []*block, string) {
		var buf bytes.Buffer
		if err := d.Render(&buf, 20_000_000_000, LayoutAndroid13); err != nil {
			t.Fatal(err)
		}
		proc, blocks := parseDump(t, buf.String())
		return proc, blocks, buf.String()
	}
	d.SetWindow("PopupWindow:c9cbcba", "aaaaaaa", true, 10_000_000_000)
	for i := int64(0); i < 27; i++ {
		d.AddFrame(mk(i))
	}
	d.SetWindow("PopupWindow:c9cbcba", "aaaaaaa", false, 10_000_000_000+27*T)
	d.AddFrame(mk(27)) // drawn before the removal, completed after it
	proc, blocks, _ := render()
	if proc["Total frames rendered"] != "28" || len(blocks) != 0 || d.TotalFrames("PopupWindow:c9cbcba") != -1 {
		t.Fatalf("after the removal: process total %q, %d windows dumped (want 28 and none)", proc["Total frames rendered"], len(blocks))
	}
	d.SetWindow("PopupWindow:c9cbcba", "bbbbbbb", true, 10_000_000_000+40*T)
	d.AddFrame(mk(40))
	proc, blocks, text := render()
	if proc["Total frames rendered"] != "29" || len(blocks) != 1 || len(blocks[0].rows) != 1 ||
		blocks[0].summary["Total frames rendered"] != "1" || !strings.Contains(text, "ViewRootImpl@bbbbbbb (visibility=0)") {
		t.Fatalf("the popup shown again: process total %q, %d windows, want 29 and one new view root with 1 row counting 1:\n%s",
			proc["Total frames rendered"], len(blocks), text)
	}
}

var (
	reThreadtime = regexp.MustCompile(`^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) +(\d+) +(\d+) ([VDIWEF]) (.{8,}?) ?: (.*)$`)
	reMonotonic  = regexp.MustCompile(`^ *(\d+)\.(\d{6}) +(\d+) +(\d+) ([VDIWEF]) (.{8,}?) ?: (.*)$`)
	reDispatch   = regexp.MustCompile(`^>>>>> Dispatching to Handler \(([^)]+)\) \{([0-9a-f]+)\} (\S+): (-?\d+)$`)
	reFinished   = regexp.MustCompile(`^<<<<< Finished to Handler \(([^)]+)\) \{([0-9a-f]+)\} (\S+)$`)
	reSkipped    = regexp.MustCompile(`^Skipped (\d+) frames!  The application may be doing too much work on its main thread\.$`)
)

func TestRenderLogcat(t *testing.T) {
	batches := collect(t, sim.Config{Scenario: "frozen", Hz: 90, Seed: 3, Duration: 15 * time.Second})
	evs := flatten(batches)
	var msgs []*source.Message
	var skips []*source.Skipped
	for _, ev := range evs {
		switch ev := ev.(type) {
		case *source.Message:
			msgs = append(msgs, ev)
		case *source.Skipped:
			skips = append(skips, ev)
		}
	}
	if len(skips) == 0 {
		t.Fatal("no skipped lines to render")
	}
	const offset = 4_321_000 // ns
	for _, format := range []LogFormat{FormatMonotonic, FormatThreadtime} {
		t.Run(format.String(), func(t *testing.T) {
			var buf bytes.Buffer
			opts := LogcatOptions{ClockOffsetNs: offset, NoisePerSecond: 3, NoiseSeed: 1}
			if err := RenderLogcat(&buf, evs, format, opts); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			var disp, fin, skipped, noise int
			var lastTime int64
			var mi int
			for _, l := range lines {
				var at int64 // µs or ms since boot / base
				var pid, tid, lvl, tag, msg string
				if format == FormatMonotonic {
					m := reMonotonic.FindStringSubmatch(l)
					if m == nil {
						t.Fatalf("line does not match -v monotonic -v usec: %q", l)
					}
					sec, _ := strconv.ParseInt(m[1], 10, 64)
					usec, _ := strconv.ParseInt(m[2], 10, 64)
					at = sec*1_000_000 + usec
					pid, tid, lvl, tag, msg = m[3], m[4], m[5], m[6], m[7]
				} else {
					m := reThreadtime.FindStringSubmatch(l)
					if m == nil {
						t.Fatalf("line does not match -v threadtime: %q", l)
					}
					mo, _ := strconv.Atoi(m[1])
					dd, _ := strconv.Atoi(m[2])
					hh, _ := strconv.Atoi(m[3])
					mn, _ := strconv.Atoi(m[4])
					ss, _ := strconv.Atoi(m[5])
					msec, _ := strconv.Atoi(m[6])
					wall := time.Date(DefaultWallBase.Year(), time.Month(mo), dd, hh, mn, ss, msec*1e6, time.UTC)
					at = wall.Sub(DefaultWallBase).Milliseconds()
					pid, tid, lvl, tag, msg = m[7], m[8], m[9], m[10], m[11]
				}
				if at < lastTime {
					t.Fatalf("lines out of time order at %q", l)
				}
				lastTime = at
				tag = strings.TrimRight(tag, " ")
				switch {
				case tag == "Looper":
					if lvl != "D" || pid != "23817" || tid != "23817" {
						t.Fatalf("Looper line %q", l)
					}
					// pairs come in message order; times are the message's plus the offset
					if d := reDispatch.FindStringSubmatch(msg); d != nil {
						m := msgs[mi]
						if d[1] != m.Handler || d[3] != m.Callback || d[4] != strconv.Itoa(m.What) {
							t.Fatalf("dispatch %q for %+v", l, m)
						}
						if want := trunc(m.StartNs+offset, format); at != want {
							t.Fatalf("dispatch at %d, want %d: %q", at, want, l)
						}
						disp++
					} else if f := reFinished.FindStringSubmatch(msg); f != nil {
						m := msgs[mi]
						if f[1] != m.Handler || f[3] != m.Callback {
							t.Fatalf("finished %q for %+v", l, m)
						}
						if want := trunc(m.EndNs+offset, format); at != want {
							t.Fatalf("finished at %d, want %d: %q", at, want, l)
						}
						fin++
						mi++
					} else {
						t.Fatalf("Looper line %q", l)
					}
				case tag == "Choreographer":
					s := reSkipped.FindStringSubmatch(msg)
					if s == nil || lvl != "I" || s[1] != strconv.Itoa(skips[skipped].Frames) {
						t.Fatalf("skipped line %q", l)
					}
					skipped++
				default:
					noise++
				}
			}
			if disp != len(msgs) || fin != len(msgs) || skipped != len(skips) {
				t.Fatalf("%d dispatch, %d finished for %d messages; %d skipped of %d", disp, fin, len(msgs), skipped, len(skips))
			}
			if noise < 20 {
				t.Fatalf("%d noise lines", noise)
			}
		})
	}
	// deterministic, and no noise unless asked
	var a, b bytes.Buffer
	RenderLogcat(&a, evs, FormatMonotonic, LogcatOptions{})
	RenderLogcat(&b, evs, FormatMonotonic, LogcatOptions{})
	if !bytes.Equal(a.Bytes(), b.Bytes()) || strings.Count(a.String(), "\n") != 2*len(msgs)+len(skips) {
		t.Fatal("plain rendering not deterministic or has extra lines")
	}
}

// trunc is t in the format's resolution: µs since boot (monotonic) or ms since the wall base.
func trunc(t int64, f LogFormat) int64 {
	if f == FormatMonotonic {
		return t / 1_000
	}
	return t / 1_000_000
}

// TestGfxinfoWhileRunning renders the dump while the simulator feeds it (run with -race), and
// checks the counters only grow.
func TestGfxinfoWhileRunning(t *testing.T) {
	s, err := sim.New(sim.Config{Scenario: "stress", Hz: 144, Seed: 2, Duration: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := NewGfxinfoDump("", 0, 0)
	s.SetGfxinfo(d)
	done := make(chan struct{})
	out := make(chan []source.Event, 8)
	errc := make(chan error, 1)
	go func() {
		defer close(done)
		errc <- s.Run(context.Background(), out)
		close(out)
	}()
	go func() {
		for range out {
		}
	}()
	var last int64
	re := regexp.MustCompile(`(?m)^Total frames rendered: (\d+)$`)
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		var buf bytes.Buffer
		if err := d.Render(&buf, s.Now(), LayoutAndroid13); err != nil {
			t.Fatal(err)
		}
		m := re.FindStringSubmatch(buf.String())
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if n < last {
			t.Fatalf("Total frames rendered went from %d to %d", last, n)
		}
		last = n
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if last == 0 {
		t.Fatal("no frames")
	}
}

// TestRenderLogcatAnnounced: rendered batch by batch as a live stream, with the Dispatch events
// the simulator sends for long messages, the Dispatching line of a long message comes in the
// batch of its Dispatch (while it runs) and the whole text is the text of one call without
// them.
func TestRenderLogcatAnnounced(t *testing.T) {
	batches := collect(t, sim.Config{Scenario: "frozen", Hz: 60, Seed: 5, Duration: 20 * time.Second})
	var whole, live bytes.Buffer
	if err := RenderLogcat(&whole, flatten(batches), FormatMonotonic, LogcatOptions{}); err != nil {
		t.Fatal(err)
	}
	announced := map[int64]bool{}
	early := 0
	for _, b := range batches {
		var part bytes.Buffer
		if err := RenderLogcat(&part, b, FormatMonotonic, LogcatOptions{Announced: announced}); err != nil {
			t.Fatal(err)
		}
		for _, ev := range b {
			if d, ok := ev.(*source.Dispatch); ok && strings.Contains(part.String(), ">>>>> Dispatching") && !strings.Contains(part.String(), "<<<<< Finished to Handler ("+d.Handler) {
				early++
			}
		}
		live.Write(part.Bytes())
	}
	if live.String() != whole.String() {
		t.Errorf("the live rendering differs from the whole one (%d vs %d bytes)", live.Len(), whole.Len())
	}
	if early == 0 || len(announced) > 1 {
		t.Errorf("%d long messages announced before they finished; %d still open", early, len(announced))
	}
}
