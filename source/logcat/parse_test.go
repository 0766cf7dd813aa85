package logcat

import (
	"testing"
)

// day is the year-less day number of 06-23 (leap-year table: Jan 31 + Feb 29 + … + 22).
const day0623 = 31 + 29 + 31 + 30 + 31 + 22

func hms(h, m, s, ns int64) int64 { return ((h*60+m)*60+s)*1e9 + ns }

func TestParseFormats(t *testing.T) {
	msg := ">>>>> Dispatching to Handler (android.view.Choreographer$FrameHandler) {3bdcbab2} android.view.Choreographer$FrameDisplayEventReceiver@1589ea03: 0"
	cases := []struct {
		name     string
		line     string
		pid, tid int
		level    byte
		tag, pkg string
		msg      string
		ns       int64 // -1: no timestamp
	}{
		{"threadtime", "06-23 14:06:07.808  1863  1914 D Looper  : " + msg, 1863, 1914, 'D', "Looper", "", msg,
			day0623*nsPerDay + hms(14, 6, 7, 808e6)},
		{"threadtime usec", "06-23 14:06:07.808123  1863  1863 I Choreographer: Skipped 3 frames!  x", 1863, 1863, 'I', "Choreographer", "",
			"Skipped 3 frames!  x", day0623*nsPerDay + hms(14, 6, 7, 808123e3)},
		{"threadtime nsec year zone", "2020-06-23 14:06:07.808123456 +0800  1863  1863 W Looper: Drained", 1863, 1863, 'W', "Looper", "",
			"Drained", daysFromCivil(2020, 6, 23)*nsPerDay + hms(14, 6, 7, 808123456)},
		{"monotonic usec", "  6065.146399  1234  1240 D Looper  : " + msg, 1234, 1240, 'D', "Looper", "", msg, 6065146399000},
		{"epoch", "1592921167.808  1234  1234 D Looper  : x", 1234, 1234, 'D', "Looper", "", "x", 1592921167808000000},
		{"uid", "06-23 14:06:07.808 u0_a123  1863  1914 D Looper  : x", 1863, 1914, 'D', "Looper", "", "x",
			day0623*nsPerDay + hms(14, 6, 7, 808e6)},
		{"tag with colon", "08-27 17:57:09.806 12064 12064 E Finsky:background: \tat android.os.Looper.loop(Looper.java:387)", 12064, 12064, 'E',
			"Finsky:background", "", "\tat android.os.Looper.loop(Looper.java:387)", (31+29+31+30+31+30+31+26)*nsPerDay + hms(17, 57, 9, 806e6)},
		{"empty message", "06-23 14:06:07.808  1863  1914 D Looper  : ", 1863, 1914, 'D', "Looper", "", "",
			day0623*nsPerDay + hms(14, 6, 7, 808e6)},
		{"brief", "D/xesam: " + msg, 0, 0, 'D', "xesam", "", msg, -1},
		{"brief pid", "D/Looper  ( 1863): " + msg, 1863, 0, 'D', "Looper", "", msg, -1},
		{"time", "06-23 14:06:07.808 D/Looper  ( 1863): x", 1863, 0, 'D', "Looper", "", "x", day0623*nsPerDay + hms(14, 6, 7, 808e6)},
		{"tag", "W/Looper: Slow Looper main: x", 0, 0, 'W', "Looper", "", "Slow Looper main: x", -1},
		{"process", "D( 1863) x y  (Looper)", 1863, 0, 'D', "", "", "x y  (Looper)", -1},
		{"thread", "D( 1863: 1914) x", 1863, 1914, 'D', "", "", "x", -1},
		{"studio with date", "2020-06-23 14:06:07.808 25962-25962/com.example E/tag: x: y", 25962, 25962, 'E', "tag", "com.example", "x: y",
			daysFromCivil(2020, 6, 23)*nsPerDay + hms(14, 6, 7, 808e6)},
		{"studio short date", "08-09 12:46:47.902 31777-31777/com.seek.test E/UILooperObserver: println : " + msg, 31777, 31777, 'E',
			"UILooperObserver", "com.seek.test", "println : " + msg, (31+29+31+30+31+30+31+8)*nsPerDay + hms(12, 46, 47, 902e6)},
		{"studio no date", "17987-18042/com.xfhy.allinone D/looper_monitor: java.lang.Thread.sleep(Native Method)", 17987, 18042, 'D',
			"looper_monitor", "com.xfhy.allinone", "java.lang.Thread.sleep(Native Method)", -1},
		{"studio small colon", "06-23 14:06:07.808 1863-1863/com.x D/Looper\uFE55 " + msg, 1863, 1863, 'D', "Looper", "com.x", msg,
			day0623*nsPerDay + hms(14, 6, 7, 808e6)},
		{"studio tagless", "V: " + msg, 0, 0, 'V', "", "", msg, -1},
		{"studio new layout", "2022-10-19 13:25:37.364 10391-10391 Choreographer           com.example.app                      I  Skipped 31 frames!  x",
			10391, 10391, 'I', "Choreographer", "com.example.app", "Skipped 31 frames!  x", daysFromCivil(2022, 10, 19)*nsPerDay + hms(13, 25, 37, 364e6)},
		{"ddms", "09-25 23:08:36.101: I/Choreographer(10853): Skipped 2 frames!", 10853, 0, 'I', "Choreographer", "", "Skipped 2 frames!",
			(31+29+31+30+31+30+31+31+24)*nsPerDay + hms(23, 8, 36, 101e6)},
		{"raw", msg, 0, 0, 0, "", "", msg, -1},
		{"crlf bom", "\xEF\xBB\xBF06-23 14:06:07.808  1863  1914 D Looper  : x\r", 1863, 1914, 'D', "Looper", "", "x",
			day0623*nsPerDay + hms(14, 6, 7, 808e6)},
		{"stack line", "    java.lang.Thread.sleep(Thread.java:373)", 0, 0, 0, "", "", "    java.lang.Thread.sleep(Thread.java:373)", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p Parser
			var l Line
			if !p.Parse([]byte(c.line), &l) {
				t.Fatal("no message")
			}
			if l.Pid != c.pid || l.Tid != c.tid || l.Level != c.level || string(l.Tag) != c.tag || string(l.Pkg) != c.pkg || string(l.Msg) != c.msg {
				t.Errorf("got pid %d tid %d level %q tag %q pkg %q msg %q", l.Pid, l.Tid, l.Level, l.Tag, l.Pkg, l.Msg)
			}
			ns := int64(-1)
			if l.HasTime() {
				ns = p.TimeNs(&l)
			}
			if ns != c.ns {
				t.Errorf("time %d, want %d", ns, c.ns)
			}
		})
	}
}

func TestParseLong(t *testing.T) {
	text := []string{
		"--------- beginning of main",
		"[ 05-18 00:42:29.500  10387: 10390 I/Choreographer ]",
		"Skipped 7 frames!  The application may be doing too much work on its main thread.",
		"",
		"[05-18 00:42:29.853 10387:10404 D/OpenGLRenderer]",
		"endAllStagingAnimators on 0x7f6b4fc800 (RippleDrawable) with handle 0x7f6bfbf620",
		"second line",
		"",
		"[   123.456789  1000:  4242:  4243 W/Looper ]",
		"Drained",
	}
	var p Parser
	type got struct {
		pid, tid int
		tag, msg string
		ns       int64
	}
	var out []got
	for _, s := range text {
		var l Line
		if p.Parse([]byte(s), &l) {
			out = append(out, got{l.Pid, l.Tid, string(l.Tag), string(l.Msg), p.TimeNs(&l)})
		}
	}
	d := int64(31+29+31+30+17) * nsPerDay
	want := []got{
		{10387, 10390, "Choreographer", "Skipped 7 frames!  The application may be doing too much work on its main thread.", d + hms(0, 42, 29, 500e6)},
		{10387, 10404, "OpenGLRenderer", "endAllStagingAnimators on 0x7f6b4fc800 (RippleDrawable) with handle 0x7f6bfbf620", d + hms(0, 42, 29, 853e6)},
		{10387, 10404, "OpenGLRenderer", "second line", d + hms(0, 42, 29, 853e6)},
		{4242, 4243, "Looper", "Drained", 123456789000},
	}
	if len(out) != len(want) {
		t.Fatalf("got %d messages: %+v", len(out), out)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("message %d: %+v, want %+v", i, out[i], want[i])
		}
	}
}

func TestYearRollover(t *testing.T) {
	var p Parser
	var times []int64
	for _, s := range []string{
		"12-31 23:59:59.900  1  1 I T: a",
		"01-01 00:00:00.100  1  1 I T: b",
		"01-01 00:00:00.050  1  1 I T: c", // a small step back stays a step back
	} {
		var l Line
		p.Parse([]byte(s), &l)
		times = append(times, p.TimeNs(&l))
	}
	// With the 366-day table 12-31 is day 365 and the next 01-01 day 366: 0.2 s later.
	if d := times[1] - times[0]; d != 200e6 {
		t.Errorf("roll-over step %d ns", d)
	}
	if times[2]-times[1] != -50e6 {
		t.Errorf("step back %d", times[2]-times[1])
	}
}
