package logcat

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

const (
	vsyncTarget = "Handler (android.view.Choreographer$FrameHandler) {3bdcbab2} android.view.Choreographer$FrameDisplayEventReceiver@1589ea03"
	hTarget     = "Handler (android.app.ActivityThread$H) {a1b2c3} null"
)

func decodeLines(lines ...string) (*Decoder, []source.Event) {
	d := NewDecoder()
	for _, l := range lines {
		d.Line([]byte(l))
	}
	d.Finish()
	return d, d.Events()
}

func ofType[T any](evs []source.Event) []T {
	var out []T
	for _, e := range evs {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func TestPairing(t *testing.T) {
	d, evs := decodeLines(
		"01-01 00:00:01.000  100  100 D Looper  : >>>>> Dispatching to "+vsyncTarget+": 0",
		// Another Looper thread of the same process, interleaved.
		"01-01 00:00:01.001  100  200 D Looper  : >>>>> Dispatching to Handler (android.os.Handler) {1} com.x.Y$$ExternalSyntheticLambda0@2: 7",
		"01-01 00:00:01.002  100  200 D Looper  : <<<<< Finished to Handler (android.os.Handler) {1} com.x.Y$$ExternalSyntheticLambda0@2",
		"01-01 00:00:01.004  100  100 D Looper  : <<<<< Finished to "+vsyncTarget,
		// Another process's main thread.
		"01-01 00:00:01.010  300  300 D Looper  : >>>>> Dispatching to "+hTarget+": 159",
		"01-01 00:00:01.030  300  300 D Looper  : <<<<< Finished to "+hTarget+"  ",
		// A handler overriding toString.
		"01-01 00:00:01.040  100  100 D Looper  : >>>>> Dispatching to MyHandler: busy com.x.Cb@9: -3",
		"01-01 00:00:01.041  100  100 D Looper  : <<<<< Finished to MyHandler: busy com.x.Cb@9",
	)
	msgs := ofType[*source.Message](evs)
	want := []source.Message{
		{Pid: 100, Tid: 200, Handler: "android.os.Handler", Callback: "com.x.Y$$ExternalSyntheticLambda0@2", What: 7},
		{Pid: 100, Tid: 100, Thread: "main", Handler: "android.view.Choreographer$FrameHandler",
			Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1589ea03", What: 0},
		{Pid: 300, Tid: 300, Thread: "main", Handler: "android.app.ActivityThread$H", Callback: "null", What: 159},
		{Pid: 100, Tid: 100, Thread: "main", Handler: "MyHandler: busy", Callback: "com.x.Cb@9", What: -3},
	}
	durMs := []int64{1, 4, 20, 1}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages: %+v", len(msgs), msgs)
	}
	for i, m := range msgs {
		got := *m
		got.StartNs, got.EndNs = 0, 0
		if got != want[i] {
			t.Errorf("message %d: %+v, want %+v", i, got, want[i])
		}
		if m.EndNs-m.StartNs != durMs[i]*1e6 {
			t.Errorf("message %d: duration %d ns, want %d ms", i, m.EndNs-m.StartNs, durMs[i])
		}
	}
	if !msgs[1].IsVsync() || msgs[0].IsVsync() {
		t.Error("IsVsync")
	}
	if st := d.Stats(); st.Pairs != 4 || st.Unpaired != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestUnpaired(t *testing.T) {
	d, evs := decodeLines(
		// Finished with none open.
		"01-01 00:00:01.000  1  1 D L: <<<<< Finished to "+hTarget,
		// Dispatching while one is open: the first is unpaired, the second pairs.
		"01-01 00:00:01.010  1  1 D L: >>>>> Dispatching to "+hTarget+": 159",
		"01-01 00:00:01.020  1  1 D L: >>>>> Dispatching to "+vsyncTarget+": 0",
		"01-01 00:00:01.030  1  1 D L: <<<<< Finished to "+vsyncTarget,
		// A Finished that does not match: both lines unpaired.
		"01-01 00:00:01.040  1  1 D L: >>>>> Dispatching to "+hTarget+": 159",
		"01-01 00:00:01.050  1  1 D L: <<<<< Finished to "+vsyncTarget,
		// Malformed (cut) Dispatching.
		"01-01 00:00:01.060  1  1 D L: >>>>> Dispatching to Handler (android.view.Chore",
		// Open at the end of the input.
		"01-01 00:00:01.070  1  1 D L: >>>>> Dispatching to "+hTarget+": 159",
	)
	var reasons []string
	for _, u := range ofType[*source.UnpairedLine](evs) {
		reasons = append(reasons, u.Reason)
	}
	want := []string{ReasonNoDispatching, ReasonNoFinished, ReasonClosedByOther, ReasonMismatch, ReasonMalformed, ReasonEndOfInput}
	if strings.Join(reasons, "|") != strings.Join(want, "|") {
		t.Errorf("reasons\n got %q\nwant %q", reasons, want)
	}
	st := d.Stats()
	if st.Pairs != 1 || st.Unpaired != 6 || st.Dispatching != 5 || st.Finished != 3 {
		t.Errorf("stats %+v", st)
	}
	if st.Dispatching+st.Finished != 2*st.Pairs+st.Unpaired {
		t.Error("printer lines not accounted for")
	}
}

func TestUntimedNotice(t *testing.T) {
	_, evs := decodeLines(
		"D/xesam: >>>>> Dispatching to "+hTarget+": 1",
		"D/xesam: <<<<< Finished to "+hTarget,
		"D/xesam: >>>>> Dispatching to "+hTarget+": 1",
		"D/xesam: <<<<< Finished to "+hTarget,
	)
	notices := ofType[*source.Notice](evs)
	if len(notices) != 1 || notices[0].Text != UntimedNotice {
		t.Fatalf("notices %+v", notices)
	}
	for _, m := range ofType[*source.Message](evs) {
		if m.EndNs != 0 || m.StartNs != 0 {
			t.Errorf("untimed message with times %+v", m)
		}
	}
}

func TestPidFilter(t *testing.T) {
	d := NewDecoder()
	d.SetPid(300)
	for _, l := range []string{
		"01-01 00:00:01.000  100  100 I Choreographer: Skipped 31 frames!  x",
		"01-01 00:00:01.000  300  300 I Choreographer: Skipped 32 frames!  x",
		"I/Choreographer: Skipped 33 frames!  x", // no pid: kept
	} {
		d.Line([]byte(l))
	}
	sk := ofType[*source.Skipped](d.Events())
	if len(sk) != 2 || sk[0].Frames != 32 || sk[0].Pid != 300 || sk[1].Frames != 33 {
		t.Errorf("skipped %+v", sk)
	}
}

// TestSkippedAnyFormat: every "Skipped N frames!" line counts, whatever precedes it — any
// logcat layout, no tag, the pid in parentheses or brackets, no space after the tag's colon —
// with the pid and time the layout carries, so that -p filtering still applies to it.
func TestSkippedAnyFormat(t *testing.T) {
	const sec = int64(1_000_000_000)
	cases := []struct {
		line   string
		frames int
		pid    int
		atNs   int64
	}{
		{"01-01 00:00:01.000  100  100 I Choreographer:Skipped 173 frames!  The application may be doing too much work on its main thread.", 173, 100, sec},
		{"I/Choreographer:Skipped 174 frames!", 174, 0, 0},
		{"I/Choreographer(1234):Skipped 5 frames!", 5, 1234, 0},
		{"I/Choreographer( 1234): Skipped 6 frames!", 6, 1234, 0},
		{"I/Choreographer[1234]: Skipped 7 frames!", 7, 1234, 0},
		{"01-01 00:00:02.000 I/Choreographer[1234]: Skipped 8 frames!", 8, 1234, 2 * sec},
		{"01-01 00:00:01.000  100  100 I : Skipped 9 frames!", 9, 100, sec},
		{"Choreographer:Skipped 10 frames!", 10, 0, 0},
		{"Choreographer: Skipped 11 frames!", 11, 0, 0},
		{"I/Choreographer(1234): [main] Skipped 12 frames!", 12, 1234, 0},
		{"12:00:01.123 Skipped 13 frames!", 13, 0, 0},
		{"Skipped 14 frames!", 14, 0, 0},
	}
	for _, c := range cases {
		d, evs := decodeLines(c.line)
		sk := ofType[*source.Skipped](evs)
		if len(sk) != 1 || d.Stats().Skipped != 1 {
			t.Errorf("%q: %d skipped events, stats %+v", c.line, len(sk), d.Stats())
			continue
		}
		if got := *sk[0]; got != (source.Skipped{AtNs: c.atNs, Pid: c.pid, Frames: c.frames}) {
			t.Errorf("%q: %+v, want %d frames pid %d at %d", c.line, got, c.frames, c.pid, c.atNs)
		}
	}
	// Not Choreographer's line: the word inside another word, no count, no "frames!".
	for _, l := range []string{
		"I/App: unSkipped 3 frames!",
		"I/App: Skipped three frames!",
		"I/App: Skipped 3 frames",
	} {
		if d, evs := decodeLines(l); len(evs) != 0 || d.Stats().Skipped != 0 {
			t.Errorf("%q counted as skipped frames", l)
		}
	}
	// A bracketed pid is filtered like any other.
	d := NewDecoder()
	d.SetPid(300)
	d.Line([]byte("I/Choreographer[100]:Skipped 31 frames!"))
	d.Line([]byte("I/Choreographer[300]:Skipped 32 frames!"))
	if sk := ofType[*source.Skipped](d.Events()); len(sk) != 1 || sk[0].Frames != 32 {
		t.Errorf("pid filter kept %+v", sk)
	}
}

func intp(v int) *int { return &v }

func TestSlowLines(t *testing.T) {
	cases := []struct {
		msg  string
		want source.SlowLooper
	}{
		{"Slow dispatch took 292ms main h=android.app.ActivityThread$H c=android.app.LoadedApk$ReceiverDispatcher$Args$$ExternalSyntheticLambda0@ca0863c m=0",
			source.SlowLooper{Kind: "dispatch", Ms: 292, Thread: "main", Handler: "android.app.ActivityThread$H",
				Callback: "android.app.LoadedApk$ReceiverDispatcher$Args$$ExternalSyntheticLambda0@ca0863c", What: intp(0)}},
		{"Slow delivery took 7319ms main h=android.view.Choreographer$FrameHandler c=android.view.Choreographer$FrameDisplayEventReceiver@ffd9dfb m=0",
			source.SlowLooper{Kind: "delivery", Ms: 7319, Thread: "main", Handler: "android.view.Choreographer$FrameHandler",
				Callback: "android.view.Choreographer$FrameDisplayEventReceiver@ffd9dfb", What: intp(0)}},
		{"Drained", source.SlowLooper{Kind: "drained"}},
		{"Slow dispatch took 150ms main app=com.example main=true group=TOP_APP h=android.os.Handler c=com.x.R@1 m=5",
			source.SlowLooper{Kind: "dispatch", Ms: 150, Thread: "main", Handler: "android.os.Handler", Callback: "com.x.R@1", What: intp(5)}},
		{"Dispatch took 120ms on main, h=Handler (android.app.ActivityThread$H) {5e1c0b4} cb=null msg=159",
			source.SlowLooper{Kind: "dispatch", Ms: 120, Thread: "main", Handler: "android.app.ActivityThread$H", What: intp(159)}},
		// c=null is a message without a callback, not a callback named "null".
		{"Slow dispatch took 110ms main h=android.os.Handler c=null m=1",
			source.SlowLooper{Kind: "dispatch", Ms: 110, Thread: "main", Handler: "android.os.Handler", What: intp(1)}},
		{"Slow Looper main: doFrame is 40ms late because of 1 msg, msg 1 took 45ms (h=android.os.Handler c=null)",
			source.SlowLooper{Kind: "doframe_late", Ms: 45, Thread: "main", Handler: "android.os.Handler"}},
		{"Slow Looper main: doFrame is 691ms late because of 1 msg, msg 1 took 697ms (h=android.os.Handler c=com.libmailcore.MainThreadUtils$2)",
			source.SlowLooper{Kind: "doframe_late", Ms: 697, Thread: "main", Handler: "android.os.Handler", Callback: "com.libmailcore.MainThreadUtils$2"}},
		{"Slow Looper main: Long Msg: seq=2 plan=08:36:22.124  late=3ms wall=9599ms running=0ms h=android.app.ActivityThread$H w=110",
			source.SlowLooper{Kind: "long_msg", Ms: 9599, Thread: "main", Handler: "android.app.ActivityThread$H", What: intp(110)}},
		{"Slow Looper main: Activity chat.delta.beta/org.thoughtcrime.securesms.RoutingActivity is 9503ms late (wall=801ms running=0ms ClientTransaction{ callbacks=[x] }) because of 1 msg, msg 1 took 9599ms (seq=2 late=3ms h=android.app.ActivityThread$H w=110)",
			source.SlowLooper{Kind: "activity_late", Ms: 9599, Thread: "main", Handler: "android.app.ActivityThread$H", What: intp(110)}},
		{"Slow Looper main: MotionEvent is 691ms late (event_seq=0, action=ACTION_DOWN) because of 1 msg, msg 1 took 1448ms (seq=180 running=137ms runnable=10ms late=42ms h=android.os.Handler c=io.flutter.X$$ExternalSyntheticLambda0)",
			source.SlowLooper{Kind: "motion_event_late", Ms: 1448, Thread: "main", Handler: "android.os.Handler", Callback: "io.flutter.X$$ExternalSyntheticLambda0"}},
		// Cut off before the duration (a real line of the deltachat capture): truncated, its
		// duration unknown — not a 0 ms message.
		{"Slow Looper main: Activity chat.delta.beta/org.thoughtcrime.", source.SlowLooper{Kind: "activity_late", Thread: "main", Truncated: true}},
		{"Slow Looper main: doFrame is 34", source.SlowLooper{Kind: "doframe_late", Thread: "main", Truncated: true}},
		{"Slow Looper main: Long Msg: seq=2 plan=08:36:22.124  late=3ms wa", source.SlowLooper{Kind: "long_msg", Thread: "main", Truncated: true}},
		{"Slow Looper main: MotionEv", source.SlowLooper{Kind: "other", Thread: "main", Truncated: true}},
		// Cut inside the details: the duration is known, the handler that ran into the cut is not.
		// (A "late because of" line is one entry per message it lists, each its own "took".)
		{"Slow Looper main: doFrame is 340ms late because of 7 msg, msg 1 took 372ms (seq=29305 late=180ms h=android.view.Chore",
			source.SlowLooper{Kind: "doframe_late", Ms: 372, Thread: "main", Truncated: true}},
		{"Slow Looper main: doFrame is 340ms late because of 7 msg, msg 1 took 372ms (seq=29305 late=180ms h=android.os.Handler c=com.x.Y",
			source.SlowLooper{Kind: "doframe_late", Ms: 372, Thread: "main", Handler: "android.os.Handler", Truncated: true}},
	}
	for _, c := range cases {
		d, evs := decodeLines("04-05 10:46:40.702 31411 31411 W Looper  : " + c.msg)
		sl := ofType[*source.SlowLooper](evs)
		if len(sl) != 1 {
			t.Errorf("%q: %d slow events", c.msg, len(sl))
			continue
		}
		got := *sl[0]
		if got.Text != c.msg || got.AtNs == 0 {
			t.Errorf("%q: text %q at %d", c.msg, got.Text, got.AtNs)
		}
		got.Text, got.AtNs = "", 0
		gw, ww := -1, -1
		if got.What != nil {
			gw = *got.What
		}
		if c.want.What != nil {
			ww = *c.want.What
		}
		got.What, c.want.What = nil, nil
		if got != c.want || gw != ww {
			t.Errorf("%q:\n got %+v what %d\nwant %+v what %d", c.msg, got, gw, c.want, ww)
		}
		if st := d.Stats(); st.SlowDispatch+st.SlowDelivery+st.Drained+st.SlowVendor+st.SlowOther != 1 ||
			(st.SlowTruncated == 1) != c.want.Truncated {
			t.Errorf("%q: stats %+v", c.msg, st)
		}
	}
	// Not Looper lines.
	for _, m := range []string{
		"Slow Binder: BpBinder transact took 5067ms, interface=x",
		"Slow operation: 232ms so far, now at startProcess",
		"Skipped frames are fine",
		"DrainedAll",
		"Dispatching to nothing",
	} {
		d, evs := decodeLines("04-05 10:46:40.702 31411 31411 W Looper  : " + m)
		if len(evs) != 0 || d.Stats().Lines != 1 {
			t.Errorf("%q: %d events", m, len(evs))
		}
	}
	// DebugLooper set-up lines are recognised and ignored.
	d, evs := decodeLines("04-05 10:46:48.705  1621  1621 D Looper  : DebugLooper: set default mSlowDispatchThresholdMs = 0, mSlowDeliveryThresholdMs = 2000")
	if len(evs) != 0 || d.Stats().DebugLooper != 1 {
		t.Errorf("DebugLooper: %d events, stats %+v", len(evs), d.Stats())
	}
}

// TestNoAllocNonLooper: lines that are not Looper/Choreographer lines allocate nothing.
func TestNoAllocNonLooper(t *testing.T) {
	d := NewDecoder()
	lines := [][]byte{
		[]byte("08-27 17:57:11.172   608   608 E lowmemorykiller: device has enough memory 2824628Kib, and freeMemory 375132Kib"),
		[]byte("08-27 17:57:11.164 13110 15663 W System.err: \tat android.os.Looper.loopOnce(Looper.java:282) -> <init>"),
		[]byte("D/xesam: a > b < c"),
		[]byte("[ 05-18 00:42:29.500  10387: 10390 I/Choreographer ]"),
		[]byte("Skipped frames are fine"),
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, l := range lines {
			d.Line(l)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run of non-Looper lines", allocs)
	}
	if len(d.Events()) != 0 {
		t.Error("events from non-Looper lines")
	}
}

// TestNoAllocPairs: Dispatching lines and matching Finished lines allocate only the Message
// and the callback printed with an object hash (the handler is interned).
func TestNoAllocPairs(t *testing.T) {
	d := NewDecoder()
	disp := []byte("01-01 00:00:01.000  100  100 D Looper  : >>>>> Dispatching to " + vsyncTarget + ": 0")
	fin := []byte("01-01 00:00:01.004  100  100 D Looper  : <<<<< Finished to " + vsyncTarget)
	d.Line(disp)
	d.Line(fin)
	d.events = make([]source.Event, 0, 1000)
	allocs := testing.AllocsPerRun(100, func() {
		d.Line(disp)
		d.Line(fin)
	})
	if allocs > 2 {
		t.Errorf("%v allocations per pair, want ≤ 2 (the Message and its callback)", allocs)
	}
}

// TestOpenDispatches: a main-thread message open for 100 ms or more is announced before its
// Finished line, with its names, its start and when it was seen open, and again whenever the
// log time moved on (so metrics can tell how long it has run); other threads and short
// messages are not, and once it finished it is not.
func TestOpenDispatches(t *testing.T) {
	d := NewDecoder()
	d.Line([]byte("01-01 00:00:01.000  100  100 D Looper  : >>>>> Dispatching to Handler (android.os.Handler) {1} com.example.feed.FeedActivity$3@2: 0"))
	d.Line([]byte("01-01 00:00:01.000  100  200 D Looper  : >>>>> Dispatching to Handler (android.os.Handler) {1} com.x.Worker@3: 0"))
	d.Events()
	start := d.NowNs()
	if got := d.OpenDispatches(nil, start+50e6, 100e6); len(got) != 0 {
		t.Fatalf("a 50 ms message announced: %v", got)
	}
	got := d.OpenDispatches(nil, start+150e6, 100e6)
	if len(got) != 1 {
		t.Fatalf("%d dispatches announced, want the main thread's one", len(got))
	}
	dp := got[0].(*source.Dispatch)
	if dp.Pid != 100 || dp.Tid != 100 || dp.Callback != "com.example.feed.FeedActivity$3@2" || dp.StartNs != start || dp.SeenNs != start+150e6 {
		t.Errorf("dispatch %+v", dp)
	}
	if same := d.OpenDispatches(nil, start+150e6, 100e6); len(same) != 0 {
		t.Errorf("announced again at the same time: %v", same)
	}
	again := d.OpenDispatches(nil, start+300e6, 100e6)
	if len(again) != 1 || again[0].(*source.Dispatch).SeenNs != start+300e6 || again[0].(*source.Dispatch).StartNs != start {
		t.Errorf("announced again 150 ms later: %v", again)
	}
	d.Line([]byte("01-01 00:00:02.900  100  100 D Looper  : <<<<< Finished to Handler (android.os.Handler) {1} com.example.feed.FeedActivity$3@2"))
	if ms := ofType[*source.Message](d.Events()); len(ms) != 1 || ms[0].StartNs != start || ms[0].EndNs != start+1900e6 {
		t.Errorf("the message after its announcement: %+v", ms)
	}
	if after := d.OpenDispatches(nil, start+2000e6, 100e6); len(after) != 0 {
		t.Errorf("announced after its Finished line: %v", after)
	}
}

// TestMessagesNamedByTheirOwnTarget: a thread's messages cycle through targets — classes
// whose targets differ only in their object hashes (fresh per message), targets that differ
// only before their last eight bytes, a long one, a Finished that does not match — and every
// message gets the names of its own text.
func TestMessagesNamedByTheirOwnTarget(t *testing.T) {
	type msg struct{ target, handler, callback string }
	long := "com.example." + strings.Repeat("very.", 60) + "Long$1@7f"
	cycle := []msg{
		{vsyncTarget, "android.view.Choreographer$FrameHandler", "android.view.Choreographer$FrameDisplayEventReceiver@1589ea03"},
		{"Handler (android.view.ViewRootImpl$ViewRootHandler) {ab209b8} android.view.View$PerformClick@%x", "android.view.ViewRootImpl$ViewRootHandler", "android.view.View$PerformClick@%x"},
		{"Handler (androidx.recyclerview.widget.GapWorker) {8343033} null", "androidx.recyclerview.widget.GapWorker", "null"},
		{"Handler (androidx.recyclerview.widget.GapWorkeR) {8343033} null", "androidx.recyclerview.widget.GapWorkeR", "null"},
		{"Handler (android.os.Handler) {%x} com.example.feed.ImageLoader$1@%x", "android.os.Handler", "com.example.feed.ImageLoader$1@%x"},
		{"Handler (android.os.Handler) {1f2e3d} " + long, "android.os.Handler", long},
		{"com.example.CustomHandler@1 com.example.Task@%x", "com.example.CustomHandler@1", "com.example.Task@%x"},
	}
	fill := func(s string, i int) string {
		n := strings.Count(s, "%x")
		args := make([]any, n)
		for k := range args {
			args[k] = 0x5105464 + 977*i
		}
		return fmt.Sprintf(s, args...)
	}
	d := NewDecoder()
	var want []msg
	for i := 0; i < 200; i++ {
		m := cycle[(i*i+i/3)%len(cycle)]
		target := fill(m.target, i)
		ts := fmt.Sprintf("01-01 00:00:%02d.%03d", i/100, i%100*10)
		d.Line([]byte(ts + "  100  100 D Looper  : >>>>> Dispatching to " + target + ": 0"))
		if i%17 == 5 {
			d.Line([]byte(ts + "  100  100 D Looper  : <<<<< Finished to " + target + "1"))
			continue
		}
		d.Line([]byte(ts + "  100  100 D Looper  : <<<<< Finished to " + target + "  "))
		want = append(want, msg{target, m.handler, fill(m.callback, i)})
	}
	got := ofType[*source.Message](d.Events())
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d", len(got), len(want))
	}
	for i, m := range got {
		if w := want[i]; m.Handler != w.handler || m.Callback != w.callback {
			t.Errorf("message %d (%q): handler %q callback %q, want %q %q", i, w.target, m.Handler, m.Callback, w.handler, w.callback)
		}
	}
	if st := d.Stats(); st.Unpaired != 2*int64(200-len(want)) {
		t.Errorf("stats %+v: want %d unpaired lines", st, 2*(200-len(want)))
	}
}

// TestFinishedWithArrowsMatchesLine: Finished lines whose targets hold '>' (and ">>>>>
// Dispatching to " inside, which makes a line a Dispatching) decode in blocks as line by line.
func TestFinishedWithArrowsMatchesLine(t *testing.T) {
	const h = "06-23 14:06:07.808  1863  1863 D Looper  : "
	var sb strings.Builder
	for _, target := range []string{hTarget, "a>b c", "x >>>>> Dispatching to y", "x >>>>> Dispatching to y: 4", "p<q> r", vsyncTarget} {
		for _, fin := range []string{target, target + "  ", target + " >>>>> Dispatching to " + hTarget + ": 2", target + ">", "other"} {
			sb.WriteString(h + ">>>>> Dispatching to " + target + ": 1\n")
			sb.WriteString(h + "<<<<< Finished to " + fin + "\n")
			sb.WriteString(h + "<<<<< Finished to " + fin + "\n")
		}
	}
	text := []byte(sb.String())
	lw, bw := decodeBoth(text, 1<<20)
	if !reflect.DeepEqual(lw, bw) {
		t.Fatalf("Block and Line differ\nLine:\n%s\nBlock:\n%s", show(lw), show(bw))
	}
	if lw.Stats.Pairs < 8 || lw.Stats.Unpaired == 0 {
		t.Errorf("stats %+v: the text should pair some lines and leave others", lw.Stats)
	}
}

// TestThreadtimeFractionsMatchLine: Block's timestamp fast path (a second already converted;
// 3 or 6 fraction digits) gives the times Line gives, for every fraction length, within one
// second and across seconds.
func TestThreadtimeFractionsMatchLine(t *testing.T) {
	var sb strings.Builder
	for i, frac := range []string{"123", "123456", "123456789", "1", "12", "1234", "", "999", "000001", "5"} {
		for j, sec := range []string{"07", "07", "08"} {
			ts := "06-23 14:06:" + sec + "." + frac
			fmt.Fprintf(&sb, "%s  1863  1863 D Looper  : >>>>> Dispatching to %s: %d\n", ts, hTarget, i)
			fmt.Fprintf(&sb, "%s  1863  1863 D Looper  : <<<<< Finished to %s\n", ts+strings.Repeat("7", j), hTarget)
		}
	}
	lw, bw := decodeBoth([]byte(sb.String()), 1<<20)
	if !reflect.DeepEqual(lw, bw) {
		t.Fatalf("Block and Line differ\nLine:\n%s\nBlock:\n%s", show(lw), show(bw))
	}
	if lw.Stats.Pairs != 30 {
		t.Errorf("stats %+v: want every pair", lw.Stats)
	}
}

// TestSplitTargetFindsTheHashEnd: splitTarget's word search for the '}' that ends a handler's
// hash gives what a byte search gives, for hashes shorter and longer than a word, near the
// target's end and missing.
func TestSplitTargetFindsTheHashEnd(t *testing.T) {
	ref := func(s string) (int, int, int) {
		const pre = "Handler ("
		if strings.HasPrefix(s, pre) && len(s) > len(pre) {
			if e := strings.IndexByte(s[len(pre):], ')'); e >= 0 {
				e += len(pre)
				if e+2 < len(s) && s[e+1] == ' ' && s[e+2] == '{' {
					if c := strings.IndexByte(s[e+3:], '}'); c >= 0 && e+3+c+1 < len(s) && s[e+3+c+1] == ' ' {
						return len(pre), e, e + 3 + c + 2
					}
				}
			}
		}
		sp := strings.LastIndexByte(s, ' ')
		if sp < 0 {
			return 0, len(s), len(s)
		}
		return 0, sp, sp + 1
	}
	for _, hash := range []string{"", "1", "8e2b5c1", "8e2b5c12", "8e2b5c123", "8e2b5c1234567", "a}b", "}"} {
		for _, tail := range []string{"} cb", "}", "} ", "}x cb", " cb", "", "} a} b"} {
			s := "Handler (a.B) {" + hash + tail
			hs, he, cs := splitTarget([]byte(s))
			if rh, re, rc := ref(s); hs != rh || he != re || cs != rc {
				t.Errorf("splitTarget(%q) = %d %d %d, want %d %d %d", s, hs, he, cs, rh, re, rc)
			}
		}
	}
}

// TestEndsInHash: a callback names an object by its hash only when it ends in '@' and hex
// digits, whatever comes before.
func TestEndsInHash(t *testing.T) {
	for s, want := range map[string]bool{
		"com.x.Task@9b915e1": true, "a@F0": true, "@1": true, "a@b@c": true, "x@b@": false,
		"com.x.Task@9g": false, "com.x.Task@": false, "@": false, "": false, "null": false, "ab12": false,
		"a@1 b": false, "a@-1": false,
	} {
		if got := endsInHash([]byte(s)); got != want {
			t.Errorf("endsInHash(%q) = %v, want %v", s, got, want)
		}
	}
}
