package gfxinfo

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

const pkg = "com.example.app"

func mustParse(t testing.TB, data []byte) *Dump {
	t.Helper()
	d, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func oneWindow(t *testing.T, d *Dump) *Window {
	t.Helper()
	if len(d.Processes) != 1 || len(d.Processes[0].Windows) != 1 {
		t.Fatalf("want 1 process with 1 window, got %+v", d.Processes)
	}
	return &d.Processes[0].Windows[0]
}

// TestLayouts checks every PROFILEDATA layout maps each column by name to the right field.
func TestLayouts(t *testing.T) {
	for _, layout := range []int{14, 16, 17, 20, 22, 23, 24} {
		w := synthWin{title: pkg + "/.Main", rows: 5, start: 5_000_000_000, period: 8_333_333, firstID: 700, total: 5}
		d := mustParse(t, synthDump(nil, layout, 6000, 42, pkg, []synthWin{w}))
		got := oneWindow(t, d)
		if got.Rows != 5 || len(got.Frames) != 5 || got.Columns != layout || got.TotalFrames != 5 {
			t.Fatalf("layout %d: rows %d frames %d columns %d total %d", layout, got.Rows, len(got.Frames), got.Columns, got.TotalFrames)
		}
		if len(d.Warnings) != 0 {
			t.Errorf("layout %d: warnings %q", layout, d.Warnings)
		}
		for i, f := range got.Frames {
			v := w.start + int64(i)*w.period
			if f.VsyncNs != v || f.DoneNs != v+6_000_000 || f.UIDoneNs != v+2_100_000 || f.Flags != 0 ||
				f.Window != w.title || f.Process != pkg {
				t.Errorf("layout %d row %d: %+v", layout, i, f)
			}
			p := f.Phases
			if p.Vsync != v || p.HandleInputStart != v+500_000 || p.AnimationStart != v+600_000 ||
				p.PerformTraversalsStart != v+700_000 || p.DrawStart != v+1_000_000 ||
				p.SyncQueued != v+2_000_000 || p.SyncStart != v+2_100_000 ||
				p.IssueDrawCommandsStart != v+2_300_000 || p.SwapBuffers != v+4_000_000 ||
				p.FrameCompleted != v+6_000_000 {
				t.Errorf("layout %d row %d: phases %+v", layout, i, *p)
			}
			if layout >= 16 && (p.DequeueBufferDuration != 30_000 || p.QueueBufferDuration != 200_000) {
				t.Errorf("layout %d: buffer durations %+v", layout, *p)
			}
			if (layout >= 17) != (p.GpuCompleted == v+6_000_000) {
				t.Errorf("layout %d: GpuCompleted %d", layout, p.GpuCompleted)
			}
			if layout >= 20 {
				if f.VsyncID != 700+int64(i) || f.DeadlineNs != v+2*w.period || p.SwapBuffersCompleted != v+4_500_000 {
					t.Errorf("layout %d row %d: id %d deadline %d swapdone %d", layout, i, f.VsyncID, f.DeadlineNs, p.SwapBuffersCompleted)
				}
			} else if f.VsyncID != 0 || f.DeadlineNs != 0 {
				t.Errorf("layout %d: id/deadline set: %+v", layout, f)
			}
			// 22+ carry the period, whatever the labels say (22/23 print them swapped).
			if layout >= 22 {
				if f.IntervalNs != w.period || p.FrameStartTime != v+400_000 {
					t.Errorf("layout %d: interval %d start %d", layout, f.IntervalNs, p.FrameStartTime)
				}
			} else if f.IntervalNs != 0 {
				t.Errorf("layout %d: interval %d without a period column", layout, f.IntervalNs)
			}
			if layout >= 23 && p.CommandSubmissionCompleted != v+4_200_000 {
				t.Errorf("layout %d: CommandSubmissionCompleted %d", layout, p.CommandSubmissionCompleted)
			}
			if layout == 24 && p.WorkloadTarget != w.period {
				t.Errorf("layout 24: WorkloadTarget %d", p.WorkloadTarget)
			}
		}
	}
}

// TestPeriodByValue: the period is found by value whichever label it sits under.
func TestPeriodByValue(t *testing.T) {
	hdr := "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,\n"
	rowSwapped := "0,9,1000000000,1000000000,0,1000100000,1000200000,1000300000,1000400000,1016666667,1000050000,16666667,1001000000,1001100000,1001200000,1002000000,1005000000,1000,2000,1005000000,1004000000,0,\n"
	rowLabelled := "0,10,1016666667,1016666667,0,1016766667,1016866667,1016966667,1017066667,1033333334,16666667,1016716667,1017666667,1017766667,1017866667,1018666667,1021666667,1000,2000,1021666667,1020666667,0,\n"
	rowUnknown := "0,11,1033333334,1033333334,0,1033433334,1033533334,1033633334,1033733334,9223372036854775807,-1,1033383334,1034333334,1034433334,1034533334,1035333334,1038333334,1000,2000,1038333334,1037333334,0,\n"
	d := mustParse(t, []byte("---PROFILEDATA---\n"+hdr+rowSwapped+rowLabelled+rowUnknown+"---PROFILEDATA---\n"))
	w := oneWindow(t, d)
	if len(w.Frames) != 3 {
		t.Fatalf("frames %d", len(w.Frames))
	}
	if f := w.Frames[0]; f.IntervalNs != 16666667 || f.Phases.FrameStartTime != 1000050000 {
		t.Errorf("swapped: %d %d", f.IntervalNs, f.Phases.FrameStartTime)
	}
	if f := w.Frames[1]; f.IntervalNs != 16666667 || f.Phases.FrameStartTime != 1016716667 {
		t.Errorf("labelled: %d %d", f.IntervalNs, f.Phases.FrameStartTime)
	}
	if f := w.Frames[2]; f.IntervalNs != 0 || f.DeadlineNs != 0 || f.Phases.FrameStartTime != 1033383334 {
		t.Errorf("sentinels: interval %d deadline %d start %d", f.IntervalNs, f.DeadlineNs, f.Phases.FrameStartTime)
	}
}

func TestVendorColumnIgnored(t *testing.T) {
	in := "---PROFILEDATA---\nFlags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FRAME_NUMBER,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,\n" +
		"0,2000000000,2000000000,9223372036854775807,0,2000100000,2000200000,2000300000,2000400000,77,2001000000,2001100000,2001200000,2002000000,2008000000,1000,2000,\n" +
		"---PROFILEDATA---\n"
	d := mustParse(t, []byte(in))
	w := oneWindow(t, d)
	if len(w.Frames) != 1 || w.Frames[0].Phases.SyncQueued != 2001000000 || w.Frames[0].DoneNs != 2008000000 {
		t.Fatalf("frames %+v", w.Frames)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "FRAME_NUMBER") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// TestHeaderlessRowsAndNoTrailingComma: Google's doc sample prints rows only; some tools
// strip the trailing comma.
func TestHeaderlessRowsAndNoTrailingComma(t *testing.T) {
	in := "0,27965466202353,27965466202353,27965449758000,27965461202353,27965467153286,27965471442505,27965471925682,27965474025318,27965474588547,27965474860786,27965475078599,27965479796151,27965480589068,\n" +
		"0,27965482993342,27965482993342,27965465835000,27965477993342,27965483807401,27965486875630,27965487288443,27965489520682,27965490184380,27965490568703,27965491408078,27965496119641,27965496619641\n"
	d := mustParse(t, []byte(in))
	w := oneWindow(t, d)
	if len(w.Frames) != 2 || w.Columns != 14 || w.Frames[1].DoneNs != 27965496619641 || w.Frames[0].UIDoneNs != 27965474860786 {
		t.Fatalf("window %+v", w)
	}
}

func TestEncodings(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 3, start: 9_000_000_000, period: 16_666_667, firstID: 1, total: 3}
	plain := synthDump(nil, 23, 10000, 7, pkg, []synthWin{w})
	for name, in := range map[string][]byte{
		"utf8":      plain,
		"utf8bom":   append([]byte{0xEF, 0xBB, 0xBF}, plain...),
		"crlf":      bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n")),
		"utf16le":   toUTF16(plain, false),
		"utf16be":   toUTF16(plain, true),
		"utf16le-n": toUTF16(plain, false)[2:],
	} {
		d, err := Parse(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := oneWindow(t, d)
		if got.Title != w.title || len(got.Frames) != 3 || got.TotalFrames != 3 || d.UptimeNs != 10000e6 ||
			d.Processes[0].Pid != 7 || d.Processes[0].Name != pkg || len(d.Warnings) != 0 {
			t.Errorf("%s: %+v %q", name, got, d.Warnings)
		}
	}
}

func TestSeveralProcessesAndWindows(t *testing.T) {
	var b []byte
	b = synthDump(b, 23, 20000, 100, "com.a", []synthWin{
		{title: "com.a/.Main", rows: 4, start: 1e9, period: 16_666_667, firstID: 1, total: 10},
		{title: "PopupWindow:abc", vis: 8, rows: 0, start: 1e9, period: 16_666_667, total: 0},
	})
	// A second process in the same dump: strip its dump header so it continues the first.
	second := synthDump(nil, 23, 20000, 200, "com.a:remote", []synthWin{
		{title: "com.a/.Remote", rows: 2, start: 2e9, period: 16_666_667, firstID: 50, total: 2},
	})
	second = second[bytes.Index(second, []byte("** Graphics")):]
	b = append(b, second...)
	d := mustParse(t, b)
	if len(d.Processes) != 2 {
		t.Fatalf("processes %d", len(d.Processes))
	}
	a, r := d.Processes[0], d.Processes[1]
	if a.Pid != 100 || r.Pid != 200 || r.Name != "com.a:remote" || len(a.Windows) != 2 || len(r.Windows) != 1 {
		t.Fatalf("%+v", d.Processes)
	}
	pop := a.Windows[1]
	if pop.Title != "PopupWindow:abc" || pop.Visibility != 8 || pop.Rows != 0 || pop.TotalFrames != 0 ||
		pop.Summary == nil || *pop.Summary.P99Ms != 4950 || pop.Summary.Window != "PopupWindow:abc" {
		t.Errorf("zero-frame window %+v", pop)
	}
	if a.Summary == nil || *a.Summary.TotalFrames != 10 || a.Summary.Pid != 100 || a.Summary.Window != "" {
		t.Errorf("process summary %+v", a.Summary)
	}
	if r.Windows[0].Frames[0].Process != "com.a:remote" || r.Windows[0].Frames[0].VsyncID != 50 {
		t.Errorf("remote frame %+v", r.Windows[0].Frames[0])
	}
}

// TestAndroid6Summaries: Android 6 prints a per-window summary right after the view-root line,
// without 50th percentile and HISTOGRAM; the M preview says "Number Slow draw".
func TestAndroid6Summaries(t *testing.T) {
	in := `Applications Graphics Acceleration Info:
Uptime: 9658130 Realtime: 9658130

** Graphics info for pid 9702 [com.android.chrome] **

Stats since: 9656484850794ns
Total frames rendered: 3
Janky frames: 2 (66,67%)
90th percentile: 101ms
95th percentile: 101ms
99th percentile: 101ms
Number Missed Vsync: 2
Number High input latency: 0
Number Slow UI thread: 2
Number Slow bitmap uploads: 0
Number Slow draw: 1

Profile data in ms:

	com.android.chrome/org.chromium.Main/android.view.ViewRootImpl@6b40547 (visibility=0)
Stats since: 9656484850794ns
Total frames rendered: 3
Janky frames: 2 (66.67%)
90th percentile: 101ms
95th percentile: 101ms
99th percentile: 101ms
Number Missed Vsync: 2
Number High input latency: 0
Number Slow UI thread: 2
Number Slow bitmap uploads: 0
Number Slow issue draw commands: 1

View hierarchy:

  com.android.chrome/org.chromium.Main/android.view.ViewRootImpl@6b40547
  21 views, 31.36 kB of display lists
`
	d := mustParse(t, []byte(in))
	p := d.Processes[0]
	w := oneWindow(t, d)
	for _, s := range []*source.AndroidSummary{p.Summary, w.Summary} {
		if s == nil || *s.TotalFrames != 3 || *s.JankyFrames != 2 || s.JankyLegacy != nil || s.P50Ms != nil ||
			*s.P90Ms != 101 || *s.SlowIssue != 1 || s.Histogram != nil || s.DeadlineMiss != nil {
			t.Errorf("summary %+v", s)
		}
	}
	if w.Title != "com.android.chrome/org.chromium.Main" || w.Visibility != 0 || len(d.Warnings) != 0 {
		t.Errorf("window %+v warnings %q", w, d.Warnings)
	}
}

func TestOldProfileTableAndTornRows(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 3, start: 3e9, period: 16_666_667, total: 3}
	b := synthDump(nil, 16, 5000, 1, pkg, []synthWin{w})
	// An old profile table under the view root, and two torn rows in the block.
	b = bytes.Replace(b, []byte("(visibility=0)\n"), []byte("(visibility=0)\n\tDraw\tPrepare\tProcess\tExecute\n\t50.00\t0.43\t13.83\t3.75\n\t1.73\t0.27\t8.10\t3.41\n\n"), 1)
	b = bytes.Replace(b, []byte("---PROFILEDATA---\n\n"), []byte("0,123,45\n0,3050000000,x,\n---PROFILEDATA---\n\n"), 1)
	d := mustParse(t, b)
	got := oneWindow(t, d)
	if got.ProfileRows != 2 || got.Rows != 3 || len(got.Frames) != 3 {
		t.Errorf("profile rows %d rows %d frames %d", got.ProfileRows, got.Rows, len(got.Frames))
	}
	if n := strings.Join(d.Warnings, "|"); !strings.Contains(n, "torn PROFILEDATA row") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

func TestIncompleteRows(t *testing.T) {
	hdr := "---PROFILEDATA---\nFlags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,\n"
	ok := "0,1000000000,1000000000,0,0,1000100000,1000200000,1000300000,1000400000,1001000000,1001100000,1001200000,1002000000,1008000000,\n"
	zero := "0,1016666667,1016666667,0,0,1016766667,1016866667,1016966667,1017066667,1017666667,1017766667,1017866667,1018666667,0,\n"
	garbage := "0,1033333334,1033333334,0,0,1033433334,1033533334,1033633334,1033733334,1034333334,1034433334,1034533334,1035333334,288234774265332736,\n"
	d := mustParse(t, []byte("Uptime: 2000 Realtime: 3000\n"+hdr+ok+zero+garbage+"---PROFILEDATA---\n"))
	w := oneWindow(t, d)
	if w.Rows != 3 || w.Incomplete != 2 || len(w.Frames) != 1 {
		t.Errorf("rows %d incomplete %d frames %d", w.Rows, w.Incomplete, len(w.Frames))
	}
}

func TestStatesAndErrors(t *testing.T) {
	d := mustParse(t, []byte("Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 2\n\nNo process found for: com.x\n"))
	if !d.NotRunning {
		t.Error("NotRunning not set")
	}
	d = mustParse(t, toUTF16([]byte("Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 2\n\n** Graphics info for pid 5 [com.x] **\nFailure while dumping the app: ProcessRecord{45d538c 5:com.x/u0a675}\n"), false))
	if d.Failure != "ProcessRecord{45d538c 5:com.x/u0a675}" {
		t.Errorf("Failure %q", d.Failure)
	}
	for _, in := range []string{"", "hello\nworld\n", "\x00\x01\x02", "Total Views: 3\n"} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestSeveralDumps(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 4, start: 1e9, period: 16_666_667, firstID: 1, total: 4}
	b := synthDump(nil, 23, 3000, 9, pkg, []synthWin{w})
	w.start += 2 * w.period
	w.firstID += 2
	w.total = 6
	b = synthDump(b, 23, 3100, 9, pkg, []synthWin{w})
	ds, err := ParseAll(b)
	if err != nil || len(ds) != 2 || ds[1].UptimeNs != 3100e6 || ds[1].Processes[0].Windows[0].TotalFrames != 6 {
		t.Fatalf("ParseAll: %v %d", err, len(ds))
	}
	d := mustParse(t, b)
	if d.UptimeNs != 3000e6 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "2 dumps") {
		t.Errorf("Parse of two dumps: uptime %d warnings %q", d.UptimeNs, d.Warnings)
	}
}

func TestDecimalCommaAndCutHistogram(t *testing.T) {
	in := "** Graphics info for pid 1 [a] **\nTotal frames rendered: 10\nJanky frames: 3 (30,00%)\nJanky frames (legacy): 4 (40,00%)\nHISTOGRAM: 5ms=2 6ms=3...\n"
	d := mustParse(t, []byte(in))
	s := d.Processes[0].Summary
	if *s.JankyFrames != 3 || *s.JankyLegacy != 4 || s.Histogram != nil {
		t.Errorf("%+v", s)
	}
	if len(d.Warnings) != 1 {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// TestRowNumbers: every digit count and sign a row field can have, against strconv.
func TestRowNumbers(t *testing.T) {
	hdr := "---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,SyncStart,\n"
	for _, v := range []int64{0, 1, 9, 12, 123, 1234, 12345, 123456, 1234567, 12345678, 123456789,
		1234567890, 31485667536771, 314856675367713, 3148566753677130, 31485667536771300,
		314856675367713000, 9223372036854775807, -1, -12345678, -9223372036854775807} {
		// The value under test sits in the middle (Dequeue) and at the end (SyncStart), the
		// end field both with and without a trailing comma.
		for _, tail := range []string{",", ""} {
			row := fmt.Sprintf("0,1000000000,1005000000,%d,7,%d%s", v, v, tail)
			d, err := Parse([]byte(hdr + row + "\n---PROFILEDATA---\n"))
			if err != nil {
				t.Fatal(err)
			}
			w := oneWindow(t, d)
			if len(w.Frames) != 1 || w.Frames[0].Phases.DequeueBufferDuration != v || w.Frames[0].Phases.SyncStart != v ||
				w.Frames[0].Phases.QueueBufferDuration != 7 {
				t.Errorf("%d%q: %+v %q", v, tail, w.Frames, d.Warnings)
			}
		}
	}
	for _, bad := range []string{"92233720368547758070", "9223372036854775808", "12a4", "1 2", "--1", "1e5", ""} {
		row := "0,1000000000,1005000000," + bad + ",7,0,\n"
		d, _ := Parse([]byte(hdr + row + "---PROFILEDATA---\n"))
		if w := oneWindow(t, d); w.Rows != 0 || len(d.Warnings) == 0 {
			t.Errorf("%q accepted: %+v", bad, w.Frames)
		}
	}
}

func TestWarningsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("** Graphics info for pid 1 [a] **\n")
	for i := 0; i < 500; i++ {
		// distinct counter names of letters only ("Odd ab"): digits would make them damage
		fmt.Fprintf(&b, "Number Odd %c%c: 1\n", 'a'+i/26, 'a'+i%26)
	}
	d := mustParse(t, []byte(b.String()))
	if len(d.Warnings) != maxWarnings+1 || d.Warnings[maxWarnings] != "450× other warnings" {
		t.Errorf("%d warnings, last %q", len(d.Warnings), d.Warnings[len(d.Warnings)-1])
	}
}

func parseChunk(data []byte) *Dump { return new(Parser).parseChunk(data) }

// ParseAll reads one or several concatenated dumpsys gfxinfo outputs (each starting with
// "Applications Graphics Acceleration Info:"). It fails only when none is recognised.
func ParseAll(data []byte) ([]*Dump, error) {
	var out []*Dump
	ok := false
	for dr := newDumpReader(bytes.NewReader(data)); ; {
		c, err := dr.next()
		if err != nil {
			break
		}
		d := parseChunk(c)
		ok = ok || d.recognised()
		out = append(out, d)
	}
	if !ok {
		return out, fmt.Errorf("gfxinfo: no dumpsys gfxinfo output found")
	}
	return out, nil
}
