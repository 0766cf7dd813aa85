package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

func TestDropThresholdLabels(t *testing.T) {
	// 120 Hz: Matrix's 3/9/24/42 at 60 Hz become 6/18/48/84 dropped vsyncs.
	v := dashboard(t, testOpts(), 120, 40, fixture.Idle()).View()
	for _, want := range []string{"best   <6 ", "normal ≥6 ", "middle ≥18", "high   ≥48", "frozen ≥84", "vsyncs dropped at 120 Hz"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in the drop-level panel:\n%s", want, v)
		}
	}
	// Unknown thresholds (zero): the level names alone.
	s := fixture.Live(1)
	s.DropThresholds = [4]int64{}
	v = dashboard(t, testOpts(), 120, 40, s).View()
	if strings.Contains(v, "normal ≥") || strings.Contains(v, "vsyncs dropped") {
		t.Errorf("thresholds shown though the snapshot has none:\n%s", v)
	}
	if !strings.Contains(v, "│ normal ") {
		t.Errorf("level name without threshold missing:\n%s", v)
	}
}

func TestWorstFramesNameWhat(t *testing.T) {
	v := strings.Join(dashboard(t, testOpts(), 120, 40, fixture.Live(1)).worst.View(), "\n")
	if !strings.Contains(v, "EXECUTE_TRANSACTION") || strings.Contains(v, "(159)") {
		t.Errorf("worst frames do not name what 159:\n%s", v)
	}
	if !strings.Contains(v, "ImageLoader$MainHandler(2)") {
		t.Errorf("an unnamed what code is not shown as (2):\n%s", v)
	}
	cases := []struct {
		msg  metrics.FrameMessage
		w    int
		want string
	}{
		// Room: the full class names.
		{metrics.FrameMessage{Handler: "android.app.ActivityThread$H", Callback: "null", What: 159, WhatName: "EXECUTE_TRANSACTION"}, 60,
			"android.app.ActivityThread$H EXECUTE_TRANSACTION"},
		{metrics.FrameMessage{Handler: "android.app.ActivityThread$H", What: 159, WhatName: "EXECUTE_TRANSACTION"}, 36,
			"ActivityThread$H EXECUTE_TRANSACTION"},
		// Too long: the handler gives way first, from the left, its innermost class kept.
		{metrics.FrameMessage{Handler: "android.app.ActivityThread$H", What: 159, WhatName: "EXECUTE_TRANSACTION"}, 32,
			"ActivityT…$H EXECUTE_TRANSACTION"},
		{metrics.FrameMessage{Handler: "android.app.ActivityThread$H", What: 159, WhatName: "EXECUTE_TRANSACTION"}, 10,
			"Activ…$H EXECUTE_TRANSACTION"},
		{metrics.FrameMessage{Handler: "com.example.H", Callback: "com.example.Cb", What: 7}, 40, "com.example.H(7) com.example.Cb"},
		{metrics.FrameMessage{Handler: "com.example.H", Callback: "com.example.Cb", What: 7}, 12, "H(7) Cb"},
		// The callback gives way before the handler's simple name is cut.
		{metrics.FrameMessage{Handler: "com.example.feed.ImageLoader$MainHandler", Callback: "com.example.feed.FeedAdapter$$Lambda$3", What: 2}, 31,
			"ImageLoader$MainHandler(2)"},
		{metrics.FrameMessage{Handler: "com.example.feed.ui.adapter.FeedRecyclerAdapter$ViewHolderBinder$1", What: 3, WhatName: "MSG_BIND"}, 40,
			"FeedRecycle…$ViewHolderBinder$1 MSG_BIND"},
	}
	for _, c := range cases {
		if got := frameMessageLabel(c.msg, c.w); got != c.want {
			t.Errorf("frameMessageLabel(%+v, %d) = %q, want %q", c.msg, c.w, got, c.want)
		}
	}
}

func TestHistogramFollowsWindowFilter(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	all := strings.Join(m.hist.View(), "\n")
	m = update(t, m, keyMsg("w"), keyMsg("w")) // the popup
	popup := strings.Join(m.hist.View(), "\n")
	if !strings.Contains(popup, "Frame-time histogram · PopupWindow") {
		t.Fatalf("histogram title does not name the window:\n%s", popup)
	}
	if body(popup) == body(all) {
		t.Fatalf("histogram did not change with the window filter:\n%s", popup)
	}
	// The popup's fastest frames are in the 9 ms bucket.
	if !strings.Contains(popup, "≤9ms") {
		t.Fatalf("histogram does not start at the popup's first bucket:\n%s", popup)
	}
	m = update(t, m, keyMsg("w")) // back to all windows
	if got := strings.Join(m.hist.View(), "\n"); got != all {
		t.Fatalf("histogram not restored for all windows:\n%s", got)
	}
}

// body drops a panel's title line.
func body(panel string) string {
	_, b, _ := strings.Cut(panel, "\n")
	return b
}

// TestSparseHistogram checks the snapshot's list of non-empty buckets is drawn on Android's
// bucket scale: the same picture as the full list with its empty buckets, gaps included.
func TestSparseHistogram(t *testing.T) {
	sparse := fixture.Live(1)
	full := fixture.Live(1)
	full.Histogram = nil
	for i := 0; i < hwui.NumBuckets; i++ {
		b := metrics.HistogramBucket{Ms: hwui.BucketMs(i)}
		for _, s := range sparse.Histogram {
			if s.Ms == b.Ms {
				b.Count = s.Count
			}
		}
		full.Histogram = append(full.Histogram, b)
	}
	a := strings.Join(dashboard(t, testOpts(), 120, 40, sparse).hist.View(), "\n")
	b := strings.Join(dashboard(t, testOpts(), 120, 40, full).hist.View(), "\n")
	if a != b {
		t.Fatalf("sparse buckets drawn differently from the full list:\n%s\nwant:\n%s", a, b)
	}
	// Two buckets far apart leave a gap between their bars.
	two := fixture.Live(1)
	two.Histogram = []metrics.HistogramBucket{{Ms: 5, Count: 10}, {Ms: 12, Count: 10}}
	rows := dashboard(t, testOpts(), 120, 40, two).hist.View()
	bars := []rune(rows[len(rows)-3]) // the bottom bar row
	var cols []int
	for i, r := range bars {
		if r == '█' {
			cols = append(cols, i)
		}
	}
	// 8 buckets (5…12 ms) in 44 cells: 3 cells a bucket, bars 2 wide.
	if want := []int{2, 3, 23, 24}; fmt.Sprint(cols) != fmt.Sprint(want) {
		t.Fatalf("buckets 5 and 12 ms not drawn 7 buckets apart: bars at %v, want %v: %q", cols, want, string(bars))
	}
}

func TestSliceLengthFromSnapshot(t *testing.T) {
	for _, c := range []struct {
		sliceNs int64
		want    string
	}{{1e9, "-64s"}, {5e8, "-32s"}, {2e9, "-128s"}} {
		s := fixture.Live(1)
		s.SliceNs = c.sliceNs
		// Series spacing says nothing: the first slices are missing.
		s.Series = s.Series[len(s.Series)-70:]
		s.Series[0].StartNs -= 10e9
		v := strings.Join(dashboard(t, testOpts(), 120, 40, s).fps.View(), "\n")
		if !strings.Contains(v, " "+c.want+" ") {
			t.Errorf("SliceNs %d: no axis label %q:\n%s", c.sliceNs, c.want, v)
		}
	}
}

// TestFilteredWindowMissing: when the filtered window is not in the snapshot (just after `c`),
// the panels titled with it show it empty ("waiting" for its frames), never the whole run's
// numbers under its name.
func TestFilteredWindowMissing(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	m = update(t, m, keyMsg("w"))
	s := fixture.Live(2)
	s.Windows = nil
	m = update(t, m, SnapshotMsg{s})
	fps := strings.Join(m.fps.View(), "\n")
	if !strings.Contains(fps, "FPS · MainActivity") || strings.Contains(fps, "fps 57.3") || !strings.Contains(fps, "waiting") {
		t.Errorf("FPS panel for a missing window:\n%s", fps)
	}
	drops := strings.Join(m.drops.View(), "\n")
	if !strings.Contains(drops, "Drop levels · MainActivity") || !strings.Contains(drops, "frames 0 ·") {
		t.Errorf("drop levels for a missing window:\n%s", drops)
	}
	hist := strings.Join(m.hist.View(), "\n")
	if !strings.Contains(hist, "histogram · MainActivity") || !strings.Contains(hist, "no frames yet") {
		t.Errorf("histogram for a missing window:\n%s", hist)
	}
	// w then goes back to all windows.
	m = update(t, m, keyMsg("w"))
	if f := m.wins.Filter(); f != "" {
		t.Errorf("w from a missing window: filter %q, want all", f)
	}
}
