package simtext

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/source"
)

// Layout is the Android version whose `dumpsys gfxinfo <pkg> framestats` text GfxinfoDump
// renders: PROFILEDATA columns and summary lines differ between versions.
type Layout int

// Layouts.
const (
	// LayoutAndroid13 is Android 13/14: 23 columns, Janky frames (legacy), gpu percentiles. As on
	// real devices, the header says `FrameDeadline,FrameInterval,FrameStartTime,` while each row
	// holds the frame start time in the column labelled FrameInterval and the period in the
	// column labelled FrameStartTime (realdata PROVENANCE item 2).
	LayoutAndroid13 Layout = iota
	// LayoutAndroid10 is Android 10/11: 17 columns (… QueueBufferDuration, GpuCompleted), gpu
	// percentiles, "Number Frame deadline missed".
	LayoutAndroid10
	// LayoutAndroid9 is Android 9: 16 columns, "Number Frame deadline missed", no gpu lines.
	LayoutAndroid9
	// LayoutAndroid8 is Android 8: 16 columns, no deadline line.
	LayoutAndroid8
	// LayoutAndroid7 is Android 7: 14 columns, 50th percentile and HISTOGRAM; no Window: block.
	LayoutAndroid7
	// LayoutAndroid6 is Android 6: 14 columns, no 50th percentile, no HISTOGRAM; the summary is
	// repeated after the view-root line.
	LayoutAndroid6
)

// Layouts lists every layout, newest first.
var Layouts = []Layout{LayoutAndroid13, LayoutAndroid10, LayoutAndroid9, LayoutAndroid8, LayoutAndroid7, LayoutAndroid6}

// String names the layout ("android13", …).
func (l Layout) String() string {
	switch l {
	case LayoutAndroid13:
		return "android13"
	case LayoutAndroid10:
		return "android10"
	case LayoutAndroid9:
		return "android9"
	case LayoutAndroid8:
		return "android8"
	case LayoutAndroid7:
		return "android7"
	case LayoutAndroid6:
		return "android6"
	}
	return "layout(" + strconv.Itoa(int(l)) + ")"
}

// Columns returns the PROFILEDATA header names the layout prints, in order, exactly as printed
// (so for LayoutAndroid13 the labels FrameInterval and FrameStartTime are in the real devices'
// order, which does not match the values under them).
func (l Layout) Columns() []string {
	base := []string{"Flags", "IntendedVsync", "Vsync", "OldestInputEvent", "NewestInputEvent",
		"HandleInputStart", "AnimationStart", "PerformTraversalsStart", "DrawStart", "SyncQueued",
		"SyncStart", "IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted"}
	switch l {
	case LayoutAndroid13:
		return []string{"Flags", "FrameTimelineVsyncId", "IntendedVsync", "Vsync", "InputEventId",
			"HandleInputStart", "AnimationStart", "PerformTraversalsStart", "DrawStart",
			"FrameDeadline", "FrameInterval", "FrameStartTime", "SyncQueued", "SyncStart",
			"IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted", "DequeueBufferDuration",
			"QueueBufferDuration", "GpuCompleted", "SwapBuffersCompleted", "DisplayPresentTime",
			"CommandSubmissionCompleted"}
	case LayoutAndroid10:
		return append(base, "DequeueBufferDuration", "QueueBufferDuration", "GpuCompleted")
	case LayoutAndroid9, LayoutAndroid8:
		return append(base, "DequeueBufferDuration", "QueueBufferDuration")
	}
	return base
}

// RingSize is how many frames per window Android keeps (and dumps): hwui's RingBuffer<FrameInfo, 120>.
const RingSize = 120

type jankStats struct {
	since                                int64
	total, janky, jankyLegacy            int64
	missedVsync, highInput, slowUI       int64
	slowBitmap, slowIssue                int64
	deadlineMissed, deadlineMissedLegacy int64
	hist                                 hwui.Histogram
	gpu                                  GPUHistogram
}

type dumpWindow struct {
	title    string
	vri      string
	attached bool
	ring     [RingSize]source.Frame
	n, head  int // frames in the ring; index of the oldest
	stats    jankStats
}

// GfxinfoDump is what hwui keeps for one app process: the last RingSize frames of each window and
// cumulative per-window and per-process counters (never reset: "Total frames rendered" counts
// every frame ever rendered, so a poller slower than the ring can detect lost frames). Feed it
// with AddFrame/SetWindow (or Observe, or sim.Sim.SetGfxinfo) and print it with Render. It is safe
// for concurrent use.
type GfxinfoDump struct {
	mu      sync.Mutex
	pkg     string
	pid     int
	proc    jankStats
	windows []*dumpWindow
	byTitle map[string]*dumpWindow
	// removed: titles whose window SetWindow removed and no window attached since. A frame of
	// one still completing counts in the process's counters only (see AddFrame).
	removed map[string]bool
}

// NewGfxinfoDump returns an empty dump for the app pkg running as pid, whose counters started at
// sinceNs (the process's "Stats since").
func NewGfxinfoDump(pkg string, pid int, sinceNs int64) *GfxinfoDump {
	d := &GfxinfoDump{}
	d.Reset(pkg, pid, sinceNs)
	return d
}

// Reset empties d for the app pkg running as pid, whose counters started at sinceNs (the
// simulator calls it from Sim.SetGfxinfo).
func (d *GfxinfoDump) Reset(pkg string, pid int, sinceNs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pkg, d.pid = pkg, pid
	d.proc = jankStats{since: sinceNs}
	d.windows = nil
	d.byTitle = map[string]*dumpWindow{}
	d.removed = map[string]bool{}
}

// Restart models the app's process restarting as pid at sinceNs: a new process, whose windows
// and counters start afresh (a phone's dump then prints the new pid), unless pid is the one
// already printed.
func (d *GfxinfoDump) Restart(pid int, sinceNs int64) {
	d.mu.Lock()
	same, pkg := d.pid == pid, d.pkg
	d.mu.Unlock()
	if !same {
		d.Reset(pkg, pid, sinceNs)
	}
}

// window returns the window titled title, attaching it when new.
func (d *GfxinfoDump) window(title string, atNs int64) *dumpWindow {
	w := d.byTitle[title]
	if w == nil {
		w = &dumpWindow{title: title, vri: fnvHex(title), attached: true, stats: jankStats{since: atNs}}
		d.byTitle[title] = w
		d.windows = append(d.windows, w)
	}
	return w
}

// SetWindow records that the window titled title (ViewRootImpl hash vri, "" to derive one) was
// attached or removed at atNs. A removed window disappears from the dump, as its ViewRootImpl
// does; attaching it again starts afresh (a new ViewRootImpl).
func (d *GfxinfoDump) SetWindow(title, vri string, attached bool, atNs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !attached {
		d.removed[title] = true
		if w := d.byTitle[title]; w != nil {
			delete(d.byTitle, title)
			for i, x := range d.windows {
				if x == w {
					d.windows = append(d.windows[:i:i], d.windows[i+1:]...)
					break
				}
			}
		}
		return
	}
	delete(d.removed, title)
	w := d.window(title, atNs)
	if vri != "" {
		w.vri = vri
	}
}

// Observe feeds the dump with a batch of events: frames are added; other events are ignored.
// Events do not say when a window is removed: use SetWindow, or Sim.SetGfxinfo, which does both.
func (d *GfxinfoDump) Observe(evs []source.Event) {
	for _, ev := range evs {
		if f, ok := ev.(*source.Frame); ok {
			d.AddFrame(f)
		}
	}
}

// AddFrame records one rendered frame of f.Window (attaching the window when unknown). Frames
// flagged SkippedFrame are kept in the ring but not counted, as JankTracker does.
//
// A frame of a window SetWindow removed (a popup's last frame, still on the render thread
// when the window went: it completes after the removal) counts in the process's counters and
// in no window's. On a device the ViewRootImpl's destroy waits for the render thread, so the
// frame is counted by the window's JankTracker and the process's, and the window is gone from
// the next dump. Attaching a window for it instead left a phantom under the popup's title,
// with a view-root id derived from the title (the same every time) and a counter from that
// one frame, and the popup shown next took that window over (its ring and counter): a live
// janky run at 120 Hz showed a popup's counter going 28 → 1 under one view-root id, and fpstop
// rightly warned of a damaged counter.
func (d *GfxinfoDump) AddFrame(f *source.Frame) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed[f.Window] {
		if f.Flags&source.FlagSkippedFrame == 0 {
			d.proc.add(f)
		}
		return
	}
	w := d.window(f.Window, f.VsyncNs)
	fc := *f
	if f.Phases != nil {
		ph := *f.Phases
		fc.Phases = &ph
	}
	if w.n < RingSize {
		w.ring[(w.head+w.n)%RingSize] = fc
		w.n++
	} else {
		w.ring[w.head] = fc
		w.head = (w.head + 1) % RingSize
	}
	if f.Flags&source.FlagSkippedFrame != 0 {
		return
	}
	w.stats.add(&fc)
	d.proc.add(&fc)
}

// add counts a frame the way libs/hwui/JankTracker.cpp does, simplified: the histogram holds
// FrameCompleted − IntendedVsync minus the sync stall; a frame is janky when its GPU work
// completes at or after FrameDeadline, janky (legacy) when its duration to SwapBuffersCompleted
// exceeds the interval; the cause counters use JankTracker's thresholds relative to the interval.
// "Frame deadline missed (legacy)" counts frames completing after IntendedVsync + interval.
func (s *jankStats) add(f *source.Frame) {
	s.total++
	ph := f.Phases
	if ph == nil {
		ph = &source.Phases{FrameCompleted: f.DoneNs}
	}
	T := f.IntervalNs
	if T <= 0 {
		T = 16_666_667
	}
	stall := max(ph.SyncStart-ph.SyncQueued, 0)
	dur := max(ph.FrameCompleted-f.VsyncNs-stall, 0)
	s.hist.Add(dur)
	gpuDone := ph.GpuCompleted
	if gpuDone == 0 {
		gpuDone = ph.FrameCompleted
	}
	deadline := f.DeadlineNs
	if deadline == 0 {
		deadline = f.VsyncNs + T
	}
	legacyEnd := ph.SwapBuffersCompleted
	if legacyEnd == 0 {
		legacyEnd = ph.FrameCompleted
	}
	if max(legacyEnd-f.VsyncNs-stall, 0) > T {
		s.jankyLegacy++
	}
	if ph.FrameCompleted >= f.VsyncNs+T {
		s.deadlineMissedLegacy++
	}
	if gpuDone >= deadline {
		s.janky++
		s.deadlineMissed++
		vs := ph.Vsync
		if vs == 0 {
			vs = f.VsyncNs
		}
		if vs-f.VsyncNs >= 1 {
			s.missedVsync++
		}
		if ph.SyncStart-vs >= T/2 {
			s.slowUI++
		}
		if ph.IssueDrawCommandsStart-ph.SyncStart >= T/5 {
			s.slowBitmap++
		}
		if ph.FrameCompleted-ph.IssueDrawCommandsStart >= T*3/4 {
			s.slowIssue++
		}
	}
	if ph.HandleInputStart > 0 && ph.HandleInputStart-f.VsyncNs >= T {
		s.highInput++
	}
	if ph.GpuCompleted > 0 {
		sub := ph.CommandSubmissionCompleted
		if sub == 0 {
			sub = ph.SwapBuffers
		}
		s.gpu.Add(ph.GpuCompleted - sub)
	}
}

// TotalFrames returns the "Total frames rendered" of window title (-1 when not attached).
func (d *GfxinfoDump) TotalFrames(title string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.byTitle[title]; w != nil {
		return w.stats.total
	}
	return -1
}

// Windows returns the titles of the attached windows, in attach order.
func (d *GfxinfoDump) Windows() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, len(d.windows))
	for i, w := range d.windows {
		out[i] = w.title
	}
	return out
}

// RenderNoProcess writes what `dumpsys gfxinfo <pkg>` prints when the app is not running.
func RenderNoProcess(w io.Writer, pkg string) error {
	_, err := fmt.Fprintf(w, "No process found for: %s\n", pkg)
	return err
}

// realtimeOffsetMs is the simulated time spent in deep sleep (Realtime − Uptime).
const realtimeOffsetMs = 1_105_330_509

// Render writes `dumpsys gfxinfo <pkg> framestats` as a device at monotonic time nowNs prints
// it in layout: the header, the process summary, per window the view-root line, its summary and
// its PROFILEDATA block with the rows of its ring whose SyncStart is set, and the view hierarchy.
func (d *GfxinfoDump) Render(w io.Writer, nowNs int64, layout Layout) error {
	return d.render(w, nowNs, layout, true)
}

// RenderSummary writes `dumpsys gfxinfo <pkg>` without framestats: the same text as Render
// without the PROFILEDATA blocks (the counters, summaries and the view hierarchy only).
func (d *GfxinfoDump) RenderSummary(w io.Writer, nowNs int64, layout Layout) error {
	return d.render(w, nowNs, layout, false)
}

func (d *GfxinfoDump) render(w io.Writer, nowNs int64, layout Layout, framestats bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	bw := bufio.NewWriterSize(w, 32<<10)
	upMs := nowNs / 1_000_000
	fmt.Fprintf(bw, "Applications Graphics Acceleration Info:\nUptime: %d Realtime: %d\n\n", upMs, upMs+realtimeOffsetMs)
	fmt.Fprintf(bw, "** Graphics info for pid %d [%s] **\n\n", d.pid, d.pkg)
	writeStats(bw, &d.proc, layout)
	bw.WriteString("\nPipeline=Skia (OpenGL)\nCPU Caches:\n  Glyph Cache: 848.59 KB (1 entry)\n  Glyph Count: 56 \n" +
		"Total CPU memory usage:\n  868953 bytes, 848.59 KB (0.00 bytes is purgeable)\nGPU Caches:\n  Image:\n" +
		"    Texture: 405.98 KB (98 entries)\nTotal GPU memory usage:\n  2781745 bytes, 2.65 MB (431.34 KB is purgeable)\n\n")
	bw.WriteString("Profile data in ms:\n")
	cols := layout.Columns()
	var row []byte
	for _, win := range d.windows {
		fmt.Fprintf(bw, "\n\t%s/android.view.ViewRootImpl@%s (visibility=0)\n", win.title, win.vri)
		switch layout {
		case LayoutAndroid7:
		case LayoutAndroid6:
			writeStats(bw, &win.stats, layout)
		default:
			fmt.Fprintf(bw, "Window: %s\n", win.title)
			writeStats(bw, &win.stats, layout)
		}
		if !framestats {
			bw.WriteString("\n")
			continue
		}
		bw.WriteString("\n\n\n---PROFILEDATA---\n")
		for _, c := range cols {
			bw.WriteString(c)
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		for i := 0; i < win.n; i++ {
			f := &win.ring[(win.head+i)%RingSize]
			if f.Phases == nil || f.Phases.SyncStart == 0 {
				continue
			}
			row = appendRow(row[:0], f, layout)
			bw.Write(row)
		}
		bw.WriteString("---PROFILEDATA---\n\n")
	}
	bw.WriteString("\nView hierarchy:\n\n")
	for _, win := range d.windows {
		fmt.Fprintf(bw, "  %s/android.view.ViewRootImpl@%s\n  12 views, 14.22 kB of render nodes\n\n", win.title, win.vri)
	}
	fmt.Fprintf(bw, "\nTotal ViewRootImpl   : %d\nTotal attached Views : %d\nTotal RenderNode     : %.2f kB (used) / %.2f kB (capacity)\n\n",
		len(d.windows), 12*len(d.windows), 14.22*float64(len(d.windows)), 34.73*float64(len(d.windows)))
	return bw.Flush()
}

func pct(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) * 100 / float64(total)
}

func writeStats(bw *bufio.Writer, s *jankStats, layout Layout) {
	fmt.Fprintf(bw, "Stats since: %dns\nTotal frames rendered: %d\n", s.since, s.total)
	if layout == LayoutAndroid13 {
		fmt.Fprintf(bw, "Janky frames: %d (%.2f%%)\nJanky frames (legacy): %d (%.2f%%)\n",
			s.janky, pct(s.janky, s.total), s.jankyLegacy, pct(s.jankyLegacy, s.total))
	} else {
		// before Android 12 the only definition was the legacy one
		fmt.Fprintf(bw, "Janky frames: %d (%.2f%%)\n", s.jankyLegacy, pct(s.jankyLegacy, s.total))
	}
	ps := []int{50, 90, 95, 99}
	if layout == LayoutAndroid6 {
		ps = ps[1:]
	}
	for _, p := range ps {
		fmt.Fprintf(bw, "%dth percentile: %dms\n", p, s.hist.Percentile(p))
	}
	fmt.Fprintf(bw, "Number Missed Vsync: %d\nNumber High input latency: %d\nNumber Slow UI thread: %d\n"+
		"Number Slow bitmap uploads: %d\nNumber Slow issue draw commands: %d\n",
		s.missedVsync, s.highInput, s.slowUI, s.slowBitmap, s.slowIssue)
	switch layout {
	case LayoutAndroid13:
		fmt.Fprintf(bw, "Number Frame deadline missed: %d\nNumber Frame deadline missed (legacy): %d\n",
			s.deadlineMissed, s.deadlineMissedLegacy)
	case LayoutAndroid10, LayoutAndroid9:
		fmt.Fprintf(bw, "Number Frame deadline missed: %d\n", s.deadlineMissedLegacy)
	}
	if layout == LayoutAndroid6 {
		return
	}
	bw.WriteString("HISTOGRAM:")
	for i, c := range s.hist.Counts {
		fmt.Fprintf(bw, " %dms=%d", hwui.BucketMs(i), c)
	}
	bw.WriteByte('\n')
	if layout == LayoutAndroid13 || layout == LayoutAndroid10 {
		for _, p := range []int{50, 90, 95, 99} {
			fmt.Fprintf(bw, "%dth gpu percentile: %dms\n", p, s.gpu.Percentile(p))
		}
		bw.WriteString("GPU HISTOGRAM:")
		for i, c := range s.gpu.Counts {
			fmt.Fprintf(bw, " %dms=%d", GPUBucketMs(i), c)
		}
		bw.WriteByte('\n')
	}
}

// Sentinels Android prints when there was no input event.
const (
	noOldestInput = math.MaxInt64
	noNewestInput = 0
)

// appendRow appends one PROFILEDATA row (trailing comma and newline) for f.
func appendRow(b []byte, f *source.Frame, layout Layout) []byte {
	ph := f.Phases
	put := func(v int64) { b = strconv.AppendInt(b, v, 10); b = append(b, ',') }
	put(f.Flags)
	if layout == LayoutAndroid13 {
		put(f.VsyncID)
	}
	put(f.VsyncNs)
	put(ph.Vsync)
	if layout == LayoutAndroid13 {
		put(0) // InputEventId
	} else {
		put(noOldestInput)
		put(noNewestInput)
	}
	put(ph.HandleInputStart)
	put(ph.AnimationStart)
	put(ph.PerformTraversalsStart)
	put(ph.DrawStart)
	if layout == LayoutAndroid13 {
		deadline := f.DeadlineNs
		if deadline == 0 {
			deadline = math.MaxInt64
		}
		interval := f.IntervalNs
		if interval == 0 {
			interval = -1
		}
		put(deadline)
		// real devices: the column labelled FrameInterval holds the start time, the one
		// labelled FrameStartTime the period
		put(ph.FrameStartTime)
		put(interval)
	}
	put(ph.SyncQueued)
	put(ph.SyncStart)
	put(ph.IssueDrawCommandsStart)
	put(ph.SwapBuffers)
	put(ph.FrameCompleted)
	if layout <= LayoutAndroid8 {
		put(ph.DequeueBufferDuration)
		put(ph.QueueBufferDuration)
	}
	if layout <= LayoutAndroid10 {
		put(ph.GpuCompleted)
	}
	if layout == LayoutAndroid13 {
		put(ph.SwapBuffersCompleted)
		put(ph.DisplayPresentTime)
		put(ph.CommandSubmissionCompleted)
	}
	return append(b, '\n')
}

// fnvHex is a stable 7-digit hex identity hash derived from s (FNV-1a).
func fnvHex(s string) string {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return strconv.FormatUint(uint64(0x1000000+h%0xeffffff), 16)
}
