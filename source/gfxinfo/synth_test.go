package gfxinfo

import (
	"github.com/fpstop/fpstop/source"

	"bytes"
	"strconv"

	"github.com/fpstop/fpstop/internal/hwui"
)

// Synthetic dumpsys gfxinfo text for tests, fuzz seeds and the benchmark, in the shapes real
// devices print (see PROVENANCE.md's "things a parser must handle"); nothing here is copied
// from a capture.

// synthWin describes one window of a synthetic dump.
type synthWin struct {
	title    string
	vis      int
	rows     int
	start    int64 // IntendedVsync of the first row
	period   int64
	firstID  int64 // FrameTimelineVsyncId of the first row (layouts ≥ 20)
	total    int64 // Total frames rendered printed (-1: no summary)
	jankEach int   // every jankEach-th row takes 3 periods (0: none)
}

var layoutNames = map[int][]string{}

func init() {
	names := map[int]string{}
	for n, c := range source.FrameInfoColumns {
		names[c] = n
	}
	for _, n := range []int{14, 16, 17, 20, 22, 23, 24} {
		var s []string
		for _, c := range layoutFor(n) {
			s = append(s, names[c])
		}
		layoutNames[n] = s
	}
	// Real Android 12–14 headers print FrameInterval before FrameStartTime while the values
	// come in the other order (layoutFor(22/23) maps the labels as printed; the parser tells
	// the values apart). Keep the real label order.
}

// rowValue is the value synthetic row i of w has in column c.
func rowValue(w *synthWin, i int, c int) int64 {
	v := w.start + int64(i)*w.period
	dur := int64(6_000_000)
	if w.jankEach > 0 && i%w.jankEach == w.jankEach-1 {
		dur = 3 * w.period
	}
	switch c {
	case source.ColFlags:
		return 0
	case source.ColVsyncID:
		return w.firstID + int64(i)
	case source.ColIntendedVsync, source.ColVsync:
		return v
	case source.ColOldestInput:
		return int64Max
	case source.ColNewestInput, source.ColInputEventID:
		return 0
	case source.ColHandleInput:
		return v + 500_000
	case source.ColAnimation:
		return v + 600_000
	case source.ColTraversals:
		return v + 700_000
	case source.ColDrawStart:
		return v + 1_000_000
	case source.ColDeadline:
		return v + 2*w.period
	case source.ColFrameInterval, source.ColWorkload:
		return w.period
	case source.ColFrameStart:
		return v + 400_000
	case source.ColSyncQueued:
		return v + 2_000_000
	case source.ColSyncStart:
		return v + 2_100_000
	case source.ColIssueDraw:
		return v + 2_300_000
	case source.ColSwapBuffers:
		return v + 4_000_000
	case source.ColFrameCompleted, source.ColGpuCompleted:
		return v + dur
	case source.ColDequeue:
		return 30_000
	case source.ColQueue:
		return 200_000
	case source.ColSwapCompleted:
		return v + 4_500_000
	case source.ColPresent:
		return 0
	case source.ColCommandSubmission:
		return v + 4_200_000
	}
	return 0
}

// appendRows appends w's CSV rows in the given layout, with Android's trailing commas.
func appendRows(b []byte, layout int, w *synthWin) []byte {
	cols := layoutFor(layout)
	for i := 0; i < w.rows; i++ {
		for _, c := range cols {
			vc := c
			// Real 22/23-column rows: the column labelled FrameInterval holds FrameStartTime
			// and the one labelled FrameStartTime holds the period.
			if layout == 22 || layout == 23 {
				switch c {
				case source.ColFrameInterval:
					vc = source.ColFrameStart
				case source.ColFrameStart:
					vc = source.ColFrameInterval
				}
			}
			b = strconv.AppendInt(b, rowValue(w, i, vc), 10)
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	return b
}

// appendSummary appends a summary; since is its "Stats since" (a process's differs per pid).
func appendSummary(b []byte, since, total int64, modern bool) []byte {
	b = append(b, "Stats since: "...)
	b = strconv.AppendInt(b, since, 10)
	b = append(b, "ns\nTotal frames rendered: "...)
	b = strconv.AppendInt(b, total, 10)
	b = append(b, "\nJanky frames: 0 (0.00%)\n"...)
	if modern {
		b = append(b, "Janky frames (legacy): 0 (0.00%)\n"...)
	}
	p := "5ms"
	if total == 0 {
		p = "4950ms"
	}
	for _, n := range []string{"50th", "90th", "95th", "99th"} {
		b = append(b, n+" percentile: "+p+"\n"...)
	}
	b = append(b, "Number Missed Vsync: 0\nNumber High input latency: 0\nNumber Slow UI thread: 0\n"+
		"Number Slow bitmap uploads: 0\nNumber Slow issue draw commands: 0\nNumber Frame deadline missed: 0\n"...)
	b = append(b, "HISTOGRAM:"...)
	for i := 0; i < hwui.NumBuckets; i++ {
		b = append(b, ' ')
		ms := hwui.BucketMs(i) // the label Android prints
		b = strconv.AppendInt(b, int64(ms), 10)
		b = append(b, "ms="...)
		c := int64(0)
		if i == 0 {
			c = total
		}
		b = strconv.AppendInt(b, c, 10)
	}
	b = append(b, '\n')
	return b
}

// synthDump appends one framestats dump of process pid/pkg with the windows given.
func synthDump(b []byte, layout int, uptimeMs int64, pid int, pkg string, wins []synthWin) []byte {
	b = append(b, "Applications Graphics Acceleration Info:\nUptime: "...)
	b = strconv.AppendInt(b, uptimeMs, 10)
	b = append(b, " Realtime: "...)
	b = strconv.AppendInt(b, uptimeMs+1000, 10)
	b = append(b, "\n\n** Graphics info for pid "...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, " ["+pkg+"] **\n\n"...)
	var total int64
	for _, w := range wins {
		if w.total > 0 {
			total += w.total
		}
	}
	b = appendSummary(b, 1_000_000+int64(pid), total, layout >= 20)
	b = append(b, "\nProfile data in ms:\n"...)
	for i := range wins {
		w := &wins[i]
		b = append(b, "\n\t"+w.title+"/android.view.ViewRootImpl@1a2b3"+strconv.FormatInt(int64(i), 16)+" (visibility="...)
		b = strconv.AppendInt(b, int64(w.vis), 10)
		b = append(b, ")\nWindow: "+w.title+"\n"...)
		if w.total >= 0 {
			b = appendSummary(b, 1_000_000, w.total, layout >= 20)
		}
		b = append(b, "\n---PROFILEDATA---\n"...)
		for _, n := range layoutNames[layout] {
			b = append(b, n+","...)
		}
		b = append(b, '\n')
		b = appendRows(b, layout, w)
		b = append(b, "---PROFILEDATA---\n\n"...)
	}
	b = append(b, "View hierarchy:\n\n"...)
	for i := range wins {
		b = append(b, "  "+wins[i].title+"/android.view.ViewRootImpl@1a2b3"+strconv.FormatInt(int64(i), 16)+"\n  12 views, 10.00 kB of render nodes\n\n"...)
	}
	return b
}

// toUTF16 encodes ASCII text as UTF-16 with a BOM and CRLF line ends, as Windows PowerShell's
// `>` redirect writes it.
func toUTF16(s []byte, bigEndian bool) []byte {
	s = bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n"))
	out := []byte{0xFF, 0xFE}
	if bigEndian {
		out = []byte{0xFE, 0xFF}
	}
	for _, c := range s {
		if bigEndian {
			out = append(out, 0, c)
		} else {
			out = append(out, c, 0)
		}
	}
	return out
}

// pollCapture is n polls of two windows (16 and 4 rows, each dump sharing half its rows with
// the one before) in layout cols, every jankEach-th frame of the first janky (0: none).
func pollCapture(n, layout, jankEach int) [][]byte {
	const period = 16_666_667
	a := synthWin{title: pkg + "/.Main", rows: 16, start: 10e9, period: period, firstID: 1, total: 16, jankEach: jankEach}
	b := synthWin{title: pkg + "/.Popup", rows: 4, start: 10e9 + 5e6, period: period, firstID: 1000, total: 4}
	var dumps [][]byte
	for i := 0; i < n; i++ {
		a2, b2 := a, b
		a2.start += int64(i) * 8 * period
		a2.firstID += int64(i) * 8
		a2.total += int64(i) * 8
		b2.start += int64(i) * 2 * period
		b2.firstID += int64(i) * 2
		b2.total += int64(i) * 2
		dumps = append(dumps, synthDump(nil, layout, int64(10_300+150*i), 5, pkg, []synthWin{a2, b2}))
	}
	return dumps
}
