package logcat

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/source"
)

// realWant is what each real capture holds. The printer, pair, unpaired, Skipped and Slow
// columns are PROVENANCE.md's logcat oracle table ("Slow Looper" = the vendor family), checked
// by reading each file; Drained and DebugLooper counts and the per-line details below were
// counted by hand from the files.
type realWant struct {
	dispatching, finished, pairs, unpaired int64
	skipped, skippedFrames                 int64
	slowDispatch, slowDelivery, slowVendor int64
	slowTruncated                          int64
	drained, debugLooper                   int64
	timed                                  bool
}

var realWants = map[string]realWant{
	// Long Msg wall=9599ms, two "Activity … is Nms late", and a last line cut after
	// "Activity chat.delta.beta/org.thoughtcrime." (still a vendor line, counted as truncated:
	// its duration is unknown); "Slow Binder:" is not.
	"issue-deltachat2014-threadtime-vendor-slow-looper-long-msg.txt": {slowVendor: 5, slowTruncated: 1, timed: true}, // (four lines; one lists two messages)
	// Two "Slow delivery took 7319ms/7015ms", two "Drained", seven DebugLooper set-up lines.
	"issue-ehviewer1017-threadtime-looper-slow-delivery-drained-debuglooper.txt": {slowDelivery: 2, drained: 2, debugLooper: 7, timed: true},
	// Logcat Reader bracket layout: Skipped 7+14+4+2+1.
	"issue-esteem306-long-format-choreographer-skipped.txt": {skipped: 5, skippedFrames: 28, timed: true},
	// Six vendor lines; the last line is cut at "Slow Lo" and is not counted.
	"issue-florisboard2420-threadtime-vendor-slow-looper-doframe-late.txt": {slowVendor: 6, timed: true},
	// Tagless Android Studio copy: Skipped 272+272+153, no timestamps.
	"issue-justified5-as-notime-format-choreographer-skipped.txt":           {skipped: 3, skippedFrames: 697},
	"issue-mailcore1879-as-format-vendor-slow-looper-one-line.txt":          {slowVendor: 1},
	"issue-revanced1622-threadtime-vendor-slow-looper-motionevent-late.txt": {slowVendor: 2, timed: true},
	// A Finished then a Dispatching (app-prefixed "println : "): both unpaired.
	"snippet-seektest-as-format-prefixed-println-looper-lines.txt": {dispatching: 1, finished: 1, unpaired: 2, timed: true},
	"snippet-xesam-brief-format-looper-pair.txt":                   {dispatching: 1, finished: 1, pairs: 1},
	// A 4 s View$PerformClick with another thread's stack printed in between.
	"xfhy-allinone-android9-as-logcat-looper-dispatch-with-stack.txt":                  {dispatching: 1, finished: 1, pairs: 1},
	"yuvaupdate-oplus-threadtime-choreographer-skipped67-excerpt-L7240-7265.txt":       {skipped: 1, skippedFrames: 67, timed: true},
	"yuvaupdate-oplus-threadtime-looper-slow-dispatch-delivery-excerpt-L6220-6540.txt": {slowDispatch: 1, slowDelivery: 1, drained: 1, timed: true},
	"yuvaupdate-oplus-threadtime-looper-slow-dispatch-excerpt-L10220-10530.txt":        {slowDispatch: 2, timed: true},
}

func decodeAll(t testing.TB, data []byte) (*Decoder, []source.Event) {
	t.Helper()
	d := NewDecoder()
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		d.Line(bytes.TrimSuffix(line, []byte("\n")))
	}
	d.Finish()
	return d, d.Events()
}

func TestRealCaptures(t *testing.T) {
	files := realdata.Files(t, "logcat")
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := realWants[name]
			if !ok {
				t.Fatalf("no expected counts for %s: add it to realWants", name)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, evs := decodeAll(t, data)
			st := d.Stats()
			got := realWant{
				dispatching: st.Dispatching, finished: st.Finished, pairs: st.Pairs, unpaired: st.Unpaired,
				skipped: st.Skipped, skippedFrames: st.SkippedFrames,
				slowDispatch: st.SlowDispatch, slowDelivery: st.SlowDelivery, slowVendor: st.SlowVendor, slowTruncated: st.SlowTruncated,
				drained: st.Drained, debugLooper: st.DebugLooper, timed: d.NowNs() != 0,
			}
			if got != want {
				t.Errorf("counts:\n got %+v\nwant %+v", got, want)
			}
			if st.Dispatching+st.Finished != 2*st.Pairs+st.Unpaired {
				t.Errorf("printer lines %d+%d != 2×%d pairs + %d unpaired", st.Dispatching, st.Finished, st.Pairs, st.Unpaired)
			}
			// Events agree with the counters.
			var msgs, unp, skipped, slow int64
			for _, ev := range evs {
				switch e := ev.(type) {
				case *source.Message:
					msgs++
					if (e.EndNs != 0) != want.timed || e.EndNs < e.StartNs {
						t.Errorf("message times %d..%d (timed=%v)", e.StartNs, e.EndNs, want.timed)
					}
				case *source.UnpairedLine:
					unp++
				case *source.Skipped:
					skipped++
				case *source.SlowLooper:
					slow++
				}
			}
			if msgs != st.Pairs || unp != st.Unpaired || skipped != st.Skipped ||
				slow != st.SlowDispatch+st.SlowDelivery+st.SlowVendor+st.Drained+st.SlowOther {
				t.Errorf("events: %d messages, %d unpaired, %d skipped, %d slow; stats %+v", msgs, unp, skipped, slow, st)
			}
			// The Source over the same file (one byte at a time, to cross every chunk boundary)
			// decodes the same events.
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			all, _ := collect(t, FromReader(iotest.OneByteReader(f), Options{Name: name}))
			if got, want := summary(all), summary(evs); got != want {
				t.Errorf("FromReader decoded\n%s\nDecoder decoded\n%s", got, want)
			}
		})
	}
	for name := range realWants {
		if !seen[name] {
			t.Errorf("capture %s listed in realWants is missing", name)
		}
	}
}

// TestRealCaptureDetails pins field values read from a few captures.
func TestRealCaptureDetails(t *testing.T) {
	dir := realdata.Dir(t, "logcat")
	read := func(name string) []source.Event {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, evs := decodeAll(t, data)
		return evs
	}
	t.Run("xfhy", func(t *testing.T) {
		evs := read("xfhy-allinone-android9-as-logcat-looper-dispatch-with-stack.txt")
		var m *source.Message
		for _, ev := range evs {
			if x, ok := ev.(*source.Message); ok {
				m = x
			}
		}
		want := source.Message{Pid: 17987, Tid: 17987, Thread: "main", Handler: "android.view.ViewRootImpl$ViewRootHandler",
			Callback: "android.view.View$PerformClick@13f525a", What: 0}
		if m == nil || *m != want {
			t.Fatalf("message %+v, want %+v", m, want)
		}
		var notice bool
		for _, ev := range evs {
			if n, ok := ev.(*source.Notice); ok && n.Text == UntimedNotice {
				notice = true
			}
		}
		if !notice {
			t.Error("no notice that durations are unknown")
		}
	})
	t.Run("yuva slow dispatch", func(t *testing.T) {
		evs := read("yuvaupdate-oplus-threadtime-looper-slow-dispatch-excerpt-L10220-10530.txt")
		var got []source.SlowLooper
		for _, ev := range evs {
			if s, ok := ev.(*source.SlowLooper); ok {
				got = append(got, *s)
			}
		}
		if len(got) != 2 {
			t.Fatalf("%d slow lines", len(got))
		}
		if g := got[1]; g.Kind != "dispatch" || g.Ms != 116 || g.Thread != "android.perm" || g.Handler != "android.os.Handler" ||
			g.Callback != "com.android.internal.infra.ServiceConnector$Impl$$ExternalSyntheticLambda2@9a2004d" || g.What == nil || *g.What != 0 {
			t.Errorf("second slow line %+v", g)
		}
		// "Slow dispatch took 110ms main h=android.os.Handler c=null m=1": no callback, not one
		// named "null".
		if g := got[0]; g.Kind != "dispatch" || g.Ms != 110 || g.Handler != "android.os.Handler" || g.Callback != "" ||
			g.What == nil || *g.What != 1 || g.Truncated {
			t.Errorf("first slow line %+v", g)
		}
		if got[1].AtNs-got[0].AtNs != 981_000_000 { // 17:57:30.510 → 17:57:31.491
			t.Errorf("times %d, %d", got[0].AtNs, got[1].AtNs)
		}
	})
	t.Run("deltachat cut-off line", func(t *testing.T) {
		// The last line is cut after "Activity chat.delta.beta/org.thoughtcrime.": truncated,
		// duration unknown; the complete lines before it are not.
		var got []*source.SlowLooper
		for _, ev := range read("issue-deltachat2014-threadtime-vendor-slow-looper-long-msg.txt") {
			if s, ok := ev.(*source.SlowLooper); ok {
				got = append(got, s)
			}
		}
		// Five entries from four lines: the third lists two messages, each its own entry (its
		// "took" and its w=), so the slowest is found: 9599 ms (w=110) and 801 ms (w=159).
		if len(got) != 5 {
			t.Fatalf("%d slow entries", len(got))
		}
		for i, g := range got[:4] {
			if g.Truncated || g.Ms == 0 || g.Handler != "android.app.ActivityThread$H" {
				t.Errorf("entry %d: %+v", i, g)
			}
		}
		if a, b := got[2], got[3]; a.Ms != 9599 || a.What == nil || *a.What != 110 || b.Ms != 801 || b.What == nil || *b.What != 159 ||
			a.Kind != "activity_late" || b.Kind != "activity_late" || a.Text != b.Text {
			t.Errorf("the two-message line: %+v %+v", a, b)
		}
		if g := got[4]; !g.Truncated || g.Ms != 0 || g.Kind != "activity_late" || g.Handler != "" {
			t.Errorf("cut-off line %+v", g)
		}
	})
	t.Run("florisboard", func(t *testing.T) {
		evs := read("issue-florisboard2420-threadtime-vendor-slow-looper-doframe-late.txt")
		var kinds []string
		var first *source.SlowLooper
		for _, ev := range evs {
			if s, ok := ev.(*source.SlowLooper); ok {
				kinds = append(kinds, s.Kind)
				if first == nil {
					first = s
				}
			}
		}
		want := []string{"doframe_late", "long_msg", "doframe_late", "doframe_late", "long_msg", "doframe_late"}
		if len(kinds) != len(want) {
			t.Fatalf("kinds %v", kinds)
		}
		for i := range want {
			if kinds[i] != want[i] {
				t.Fatalf("kinds %v, want %v", kinds, want)
			}
		}
		if first.Ms != 372 || first.Thread != "main" || first.Handler != "android.view.Choreographer$FrameHandler" ||
			first.Callback != "android.view.Choreographer$FrameDisplayEventReceiver" {
			t.Errorf("first %+v", first)
		}
	})
}
