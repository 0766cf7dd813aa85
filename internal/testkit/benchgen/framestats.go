package benchgen

import (
	"bufio"
	"fmt"
	"strconv"

	"github.com/fpstop/fpstop/internal/hwui"
)

// Concatenated `dumpsys gfxinfo <pkg> framestats` outputs as anchors-perf.md describes them:
// each dump holds the process summary and two windows (a popup of 8 rows, the focused activity
// of 120 rows), each with its summary, 154-bucket HISTOGRAM and PROFILEDATA block; consecutive
// dumps overlap as polls do (the activity's ring moves by 60 frames a dump).

const (
	pkg      = "com.example.feed"
	activity = pkg + "/" + pkg + ".MainActivity"
	popup    = "PopupWindow:8a2f1c"
	periodNs = 16_666_667
)

// The headers as phones print them. Android 12+ prints FrameInterval before FrameStartTime while
// its values come in the other order (the real captures in ../shared/realdata show it).
var headers = map[int]string{
	17: "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart," +
		"PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers," +
		"FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,",
	23: "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart," +
		"PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart," +
		"IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration," +
		"GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,",
}

type window struct {
	title    string
	rows     int
	start    int64 // IntendedVsync of the first row
	firstID  int64 // FrameTimelineVsyncId of the first row
	total    int64
	jankEach int // every jankEach-th frame (by absolute index) takes 3 periods
}

type fsGen struct {
	w      *bufio.Writer
	b      []byte
	layout int
}

// row appends frame i of w: phase times vary a little with the frame so digits differ row to row.
func (g *fsGen) row(w *window, i int) {
	v := w.start + int64(i)*periodNs
	idx := (v - 100e9) / periodNs
	jit := idx * 7919 % 400_000
	dur := 6_000_000 + jit*5
	if w.jankEach > 0 && idx%int64(w.jankEach) == int64(w.jankEach-1) {
		dur = 3 * periodNs
	}
	b := g.b
	put := func(x int64) { b = strconv.AppendInt(b, x, 10); b = append(b, ',') }
	put(0) // Flags
	if g.layout == 23 {
		put(w.firstID + int64(i))
	}
	put(v) // IntendedVsync
	put(v) // Vsync
	if g.layout == 23 {
		put(0) // InputEventId
	} else {
		put(9223372036854775807) // OldestInputEvent
		put(0)                   // NewestInputEvent
	}
	put(v + 500_000 + jit) // HandleInputStart
	put(v + 600_000 + jit) // AnimationStart
	put(v + 700_000 + jit) // PerformTraversalsStart
	put(v + 1_000_000 + jit)
	if g.layout == 23 {
		put(v + 2*periodNs)    // FrameDeadline
		put(v + 400_000 + jit) // labelled FrameInterval: the frame start time
		put(periodNs)          // labelled FrameStartTime: the interval
	}
	put(v + 2_000_000 + jit) // SyncQueued
	put(v + 2_100_000 + jit) // SyncStart
	put(v + 2_300_000 + jit) // IssueDrawCommandsStart
	put(v + 4_000_000 + jit) // SwapBuffers
	put(v + dur)             // FrameCompleted
	put(30_000 + jit/10)     // DequeueBufferDuration
	put(200_000 + jit/4)     // QueueBufferDuration
	put(v + dur)             // GpuCompleted
	if g.layout == 23 {
		put(v + 4_500_000 + jit) // SwapBuffersCompleted
		put(0)                   // DisplayPresentTime
		put(v + 4_200_000 + jit) // CommandSubmissionCompleted
	}
	g.b = append(b, '\n')
}

func (g *fsGen) summary(since, total int64) {
	b := fmt.Appendf(g.b, "Stats since: %dns\nTotal frames rendered: %d\nJanky frames: %d (%.2f%%)\n",
		since, total, total/7, 100/7.0)
	if g.layout == 23 {
		b = fmt.Appendf(b, "Janky frames (legacy): %d (%.2f%%)\n", total/7, 100/7.0)
	}
	b = append(b, "50th percentile: 7ms\n90th percentile: 9ms\n95th percentile: 50ms\n99th percentile: 50ms\n"+
		"Number Missed Vsync: 0\nNumber High input latency: 0\nNumber Slow UI thread: 0\n"+
		"Number Slow bitmap uploads: 0\nNumber Slow issue draw commands: 0\nNumber Frame deadline missed: 0\n"+
		"HISTOGRAM:"...)
	for i := 0; i < hwui.NumBuckets; i++ {
		ms := hwui.BucketMs(i) // the label Android prints
		c := int64(0)
		switch i {
		case 2:
			c = total - total/7
		case 45:
			c = total / 7
		}
		b = fmt.Appendf(b, " %dms=%d", ms, c)
	}
	g.b = append(b, '\n')
}

func (g *fsGen) dump(uptimeMs int64, wins []window) {
	g.b = fmt.Appendf(g.b, "Applications Graphics Acceleration Info:\nUptime: %d Realtime: %d\n\n"+
		"** Graphics info for pid 4242 [%s] **\n\n", uptimeMs, uptimeMs+1000, pkg)
	g.summary(1_004_242, wins[0].total+wins[1].total)
	g.b = append(g.b, "\nProfile data in ms:\n"...)
	for i := range wins {
		w := &wins[i]
		g.b = fmt.Appendf(g.b, "\n\t%s/android.view.ViewRootImpl@1a2b3%x (visibility=0)\nWindow: %s\n", w.title, i, w.title)
		g.summary(1_000_000, w.total)
		g.b = append(g.b, "\n---PROFILEDATA---\n"...)
		g.b = append(g.b, headers[g.layout]...)
		g.b = append(g.b, '\n')
		for r := 0; r < w.rows; r++ {
			g.row(w, r)
		}
		g.b = append(g.b, "---PROFILEDATA---\n\n"...)
	}
	g.b = append(g.b, "View hierarchy:\n\n"...)
	for i := range wins {
		g.b = fmt.Appendf(g.b, "  %s/android.view.ViewRootImpl@1a2b3%x\n  12 views, 10.00 kB of render nodes\n\n", wins[i].title, i)
	}
}

// Framestats writes ceil(rows/128) dumps in the 17- or 23-column layout and returns the rows
// written.
func Framestats(w *bufio.Writer, layout, rows int) (int, error) {
	g := &fsGen{w: w, layout: layout, b: make([]byte, 0, 64<<10)}
	start := int64(100e9)
	n := 0
	for i := 0; n < rows; i++ {
		wins := []window{
			{title: popup, rows: 8, start: start + 3e6, firstID: 5_000_000 + int64(i)*60, total: int64(8 + i)},
			{title: activity, rows: 120, start: start, firstID: 1_000_000 + int64(i)*60, total: int64(120 + 60*i), jankEach: 7},
		}
		g.b = g.b[:0]
		g.dump(start/1e6+2500, wins)
		if _, err := w.Write(g.b); err != nil {
			return n, fmt.Errorf("writing framestats: %w", err)
		}
		start += 60 * periodNs
		n += 128
	}
	return n, nil
}
