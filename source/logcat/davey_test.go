package logcat

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// The line shapes below are those real devices print (threadtime and Android Studio formats,
// the Android 12+ FrameInfo with FrameInterval and FrameStartTime printed under each other's
// names, the Android 7–11 one with OldestInputEvent); the numbers are our own.

// davey12 is an Android 12+ Davey line: a frame whose intended vsync is at 5 s, started on
// time, done 1.2 s later (GPU 1 ms after), with a 20 ms deadline.
const davey12 = "01-09 14:31:21.648 32042 32084 I OpenGLRenderer: Davey! duration=1201ms; Flags=0, " +
	"FrameTimelineVsyncId=3029587, IntendedVsync=5000000000, Vsync=5000000000, InputEventId=0, " +
	"HandleInputStart=5000600000, AnimationStart=5000700000, PerformTraversalsStart=5000800000, " +
	"DrawStart=5100000000, FrameDeadline=5020000000, FrameInterval=5000500000, FrameStartTime=16666667, " +
	"SyncQueued=5150000000, SyncStart=5160000000, IssueDrawCommandsStart=5170000000, SwapBuffers=5180000000, " +
	"FrameCompleted=6200000000, DequeueBufferDuration=642187, QueueBufferDuration=1217709, " +
	"GpuCompleted=6201000000, SwapBuffersCompleted=5190000000, DisplayPresentTime=0, " +
	"CommandSubmissionCompleted=5180000000, "

// TestDaveyLines: Davey lines become frames with their phases; Android's INT64 overflow
// (FrameCompleted left at INT64_MAX, "duration=9223360591227ms") is ignored with a warning
// counted per line.
func TestDaveyLines(t *testing.T) {
	old := "I/OpenGLRenderer(25720): Davey! duration=2218ms; Flags=0, IntendedVsync=134205124061315, " +
		"Vsync=134207307394561, OldestInputEvent=9223372036854775807, NewestInputEvent=0, " +
		"HandleInputStart=134207316096884, AnimationStart=134207316257718, PerformTraversalsStart=134207318123186, " +
		"DrawStart=134207338785009, SyncQueued=134207340104957, SyncStart=134207340602405, " +
		"IssueDrawCommandsStart=134207340645843, SwapBuffers=134207342094801, FrameCompleted=134207342583811, " +
		"DequeueBufferDuration=932000, QueueBufferDuration=304000, "
	overflow := "05-15 17:47:56.330  4077  5637 I OpenGLRenderer: Davey! duration=9223360591227ms; Flags=0, " +
		"FrameTimelineVsyncId=108107, IntendedVsync=11445623256857, Vsync=11445623256857, InputEventId=0, " +
		"HandleInputStart=11445625608475, FrameDeadline=11445660590191, FrameInterval=11445625602016, " +
		"FrameStartTime=16666667, SyncQueued=11445626871652, SyncStart=11445630661340, " +
		"FrameCompleted=9223372036854775807, GpuCompleted=9223372036854775807, DisplayPresentTime=0,"
	d, evs := decodeLines(davey12, old, overflow, overflow)
	frames := ofType[*source.Frame](evs)
	if len(frames) != 2 {
		t.Fatalf("%d frames, want 2", len(frames))
	}
	// On the log's clock: the line was logged (14:31:21.648) as the GPU finished.
	_, mark := decodeLines("01-09 14:31:21.648 32042 32084 I Choreographer: Skipped 1 frames!")
	at := ofType[*source.Skipped](mark)[0].AtNs
	f := frames[0]
	iv := at - 1_201_000_000 // its intended vsync, 1.201 s before the GPU finished
	if f.Phases == nil || f.Phases.GpuCompleted != at || f.VsyncNs != iv || f.DoneNs != iv+1.2e9 ||
		f.DeadlineNs != iv+20e6 || f.IntervalNs != 16666667 || f.VsyncID != 3029587 || !f.Logged ||
		f.UIDoneNs != iv+160e6 || f.StartVsyncNs != 0 || f.Phases.DrawStart != iv+100e6 ||
		f.Phases.FrameStartTime != iv+500_000 || f.Phases.DequeueBufferDuration != 642187 {
		t.Errorf("Android 12+ Davey frame %+v %+v", *f, f.Phases)
	}
	f = frames[1] // started 2.18 s late (Vsync after IntendedVsync); no deadline, no period printed
	if f.VsyncNs != 134205124061315 || f.StartVsyncNs != 134207307394561 || f.DoneNs != 134207342583811 ||
		f.DeadlineNs != 0 || f.IntervalNs != 0 || !f.Logged || f.Phases.SyncQueued != 134207340104957 {
		t.Errorf("Android 7–11 Davey frame %+v %+v", *f, f.Phases)
	}
	var warned int
	for _, n := range ofType[*source.Notice](evs) {
		if n.Text == DaveyOverflowNotice {
			warned++
		}
	}
	if st := d.Stats(); warned != 2 || st.Davey != 2 || st.DaveyIgnored != 2 {
		t.Errorf("overflow warnings %d, stats %+v", warned, st)
	}
}

// TestSkippedTwiceOnOneLine: two Choreographer messages run together on one line (a lost
// newline) count as two.
func TestSkippedTwiceOnOneLine(t *testing.T) {
	d, evs := decodeLines("03-01 10:00:00.000  100  100 I Choreographer: Skipped 31 frames!  The application may be doing too much work on its main thread.I/Choreographer(  100): Skipped 67 frames!  The application may be doing too much work on its main thread.")
	sk := ofType[*source.Skipped](evs)
	if len(sk) != 2 || sk[0].Frames != 31 || sk[1].Frames != 67 {
		t.Fatalf("skipped %+v", sk)
	}
	if st := d.Stats(); st.Skipped != 2 || st.SkippedFrames != 98 {
		t.Errorf("stats %+v", st)
	}
}

// TestVendorLateListsEachMessage: a vendor "… is 720ms late … because of 3 msg" line that lists
// its messages 2 and 3 gives one slow_looper entry each, its "took" as ms and its w= as what:
// the slowest (561 ms, w=159) is found, not only the first listed.
func TestVendorLateListsEachMessage(t *testing.T) {
	line := "08-06 08:36:32.551 26306 26306 W Looper  : Slow Looper main: Activity com.example.app/.Main is 720ms late " +
		"(wall=5ms running=0ms ClientTransaction{ callbacks=[android.app.servertransaction.TopResumedActivityChangeItem] }) " +
		"because of 3 msg, msg 2 took 146ms (seq=7 late=2ms h=android.app.ActivityThread$H w=110), " +
		"msg 3 took 561ms (seq=8 late=148ms h=android.app.ActivityThread$H w=159)"
	d, evs := decodeLines(line)
	sl := ofType[*source.SlowLooper](evs)
	if len(sl) != 2 {
		t.Fatalf("%d entries, want 2", len(sl))
	}
	for i, want := range []struct {
		ms   int64
		what int
	}{{146, 110}, {561, 159}} {
		s := sl[i]
		if s.Ms != want.ms || s.What == nil || *s.What != want.what || s.Kind != "activity_late" || s.Thread != "main" ||
			s.Handler != "android.app.ActivityThread$H" || s.Truncated || s.AtNs == 0 || !strings.Contains(s.Text, "because of 3 msg") {
			t.Errorf("entry %d: %+v, want ms %d what %d", i, *s, want.ms, want.what)
		}
	}
	if st := d.Stats(); st.SlowVendor != 2 {
		t.Errorf("stats %+v", st)
	}
}
