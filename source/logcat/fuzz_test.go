package logcat

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/fpstop/fpstop/source"
)

var fuzzSeeds = []string{
	"06-23 14:06:07.808  1863  1914 D Looper  : >>>>> Dispatching to " + vsyncTarget + ": 0",
	"06-23 14:06:07.812  1863  1914 D Looper  : <<<<< Finished to " + vsyncTarget,
	"  6065.146399  1234  1240 D Looper  : println : >>>>> Dispatching to " + hTarget + ": 159",
	"2020-06-23 14:06:07.808123456 +0800  1863  1863 W Looper: Slow dispatch took 292ms main h=a c=b m=0",
	"D/xesam: >>>>> Dispatching to MyHandler: x: -1",
	"17987-17987/com.x D/looper_monitor: <<<<< Finished to MyHandler: x",
	"06-23 14:06:07.808 1863-1863/com.x D/Looper\uFE55 Skipped 3 frames!",
	"[ 05-18 00:42:29.500  10387: 10390 I/Choreographer ]",
	"[05-18 00:42:29.500 10387:10387 I/Choreographer]",
	"V: Slow Looper main: doFrame is 691ms late because of 1 msg, msg 1 took 697ms (h=android.os.Handler c=x)",
	"09-25 23:08:36.101: I/Choreographer(10853): Skipped 2 frames!",
	"D( 1863: 1914) Dispatch took 120ms on main, h=Handler (x) {1} cb=null msg=159",
	"2022-10-19 13:25:37.364 10391-10391 Choreographer  com.example.app  I  Skipped 31 frames!",
	"\xEF\xBB\xBF12-31 23:59:59.999  1  1 W Looper  : Drained\r",
	"99-99 99:99:99.999 1 1 D x: y",
	"Slow Looper main: Long Msg: seq=1 wall=",
	">>>>> Dispatching to : ",
}

// FuzzParseLine: any line parses without panicking; the parts are pieces of the line, and a
// line's events are well formed.
func FuzzParseLine(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Parser
		var l Line
		in := bytes.Clone(b)
		if p.Parse(b, &l) {
			for _, part := range [][]byte{l.Msg, l.Tag, l.Pkg} {
				if len(part) > 0 && !bytes.Contains(in, part) {
					t.Fatalf("part %q not in line %q", part, in)
				}
			}
			if l.HasTime() {
				_ = p.TimeNs(&l)
			}
		}
		// The threadtime fast path agrees with the general parser wherever it applies.
		var fast Line
		if c := bytes.TrimSuffix(in, []byte("\r")); len(c) > 20 {
			var h ttHeader
			if !scanThreadtime(c, &h) {
				goto decode
			}
			h.fill(c, &fast)
			var gen Line
			var q Parser
			if !q.parseTimed(c, &gen) || gen.Pid != fast.Pid || gen.Tid != fast.Tid || gen.Level != fast.Level ||
				!bytes.Equal(gen.Tag, fast.Tag) || !bytes.Equal(gen.Msg, fast.Msg) || !bytes.Equal(gen.ts, fast.ts) {
				t.Fatalf("fast path %+v, general %+v", fast, gen)
			}
		}
	decode:
		d := NewDecoder()
		d.Line(b)
		d.Finish()
		// The decoder classifies a threadtime line's message before it reads the rest of the
		// line: the same events and counts as parsing the line whole first.
		ref := NewDecoder()
		ref.stats.Lines++
		var rl Line
		if ref.p.Parse(bytes.Clone(in), &rl) {
			if rl.HasTime() || rl.Level != 0 {
				ref.stats.LogLines++
			}
			kind, rest := classify(rl.Msg)
			ref.handle(kind, rest, rl.Pid, rl.Tid, rl.Pkg, rl.tsKind, rl.ts)
		}
		ref.Finish()
		evs := d.Events()
		if d.Stats() != ref.Stats() || !reflect.DeepEqual(evs, ref.Events()) {
			t.Fatalf("decoder %+v, whole-line parse %+v", d.Stats(), ref.Stats())
		}
		for _, ev := range evs {
			switch e := ev.(type) {
			case *source.SlowLooper:
				if e.Ms < 0 || e.Kind == "" {
					t.Fatalf("slow %+v", e)
				}
			case *source.Skipped:
				if e.Frames < 0 {
					t.Fatalf("skipped %+v", e)
				}
			}
		}
	})
}

// FuzzPairing: any sequence of lines keeps the books balanced and never invents a duration.
func FuzzPairing(f *testing.F) {
	f.Add([]byte(fuzzSeeds[0] + "\n" + fuzzSeeds[1] + "\n" + fuzzSeeds[2]))
	f.Add([]byte(fuzzSeeds[4] + "\n" + fuzzSeeds[5] + "\n" + fuzzSeeds[4] + "\n" + fuzzSeeds[4]))
	f.Add([]byte(fuzzSeeds[1] + "\n" + fuzzSeeds[0] + "\n" + fuzzSeeds[0] + "\n" + fuzzSeeds[1] + "\n" + fuzzSeeds[1]))
	f.Add([]byte(fuzzSeeds[7] + "\n>>>>> Dispatching to " + hTarget + ": 1\n\n" + fuzzSeeds[8] + "\n<<<<< Finished to " + hTarget + "\n"))
	// Davey lines (a frame, an overflow), two Skipped run together, a vendor line listing two
	// messages (issue 25)
	f.Add([]byte(davey12 + "\nI OpenGLRenderer: Davey! duration=9223360591227ms; Flags=0, IntendedVsync=5, FrameCompleted=9223372036854775807,\n" +
		"I Choreographer: Skipped 31 frames!  x.I/Choreographer(1): Skipped 67 frames!  y\n" +
		"W Looper  : Slow Looper main: Activity a/.M is 720ms late because of 3 msg, msg 2 took 146ms (h=a.H w=110), msg 3 took 561ms (h=a.H w=1"))
	f.Fuzz(func(t *testing.T, text []byte) {
		d := NewDecoder()
		for _, line := range bytes.Split(text, []byte("\n")) {
			d.Line(line)
		}
		d.Finish()
		st := d.Stats()
		if st.Dispatching+st.Finished != 2*st.Pairs+st.Unpaired {
			t.Fatalf("unbalanced: %+v", st)
		}
		var msgs, unp int64
		for _, ev := range d.Events() {
			switch e := ev.(type) {
			case *source.Message:
				msgs++
				if e.EndNs != 0 && e.EndNs < e.StartNs {
					t.Fatalf("negative duration %+v", e)
				}
			case *source.UnpairedLine:
				unp++
				if e.Reason == "" {
					t.Fatal("unpaired without a reason")
				}
			}
		}
		if msgs != st.Pairs || unp != st.Unpaired {
			t.Fatalf("events %d/%d vs stats %+v", msgs, unp, st)
		}
	})
}
