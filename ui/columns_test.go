package ui

import (
	"strings"
	"testing"
)

// TestClassFit: a long class name is shortened from the left at name boundaries, and its
// innermost class stays whole while it has room; never wider than asked.
func TestClassFit(t *testing.T) {
	const long = "com.example.feed.ui.adapter.FeedRecyclerAdapter$ViewHolderBinder$1"
	cases := []struct {
		s    string
		w    int
		want string
	}{
		{long, 80, long},
		{long, 66, long},
		{long, 65, "…example.feed.ui.adapter.FeedRecyclerAdapter$ViewHolderBinder$1"},
		{long, 50, "…ui.adapter.FeedRecyclerAdapter$ViewHolderBinder$1"},
		{long, 47, "…adapter.FeedRecyclerAdapter$ViewHolderBinder$1"},
		{long, 46, "FeedRecyclerAdapter$ViewHolderBinder$1"},
		{long, 38, "FeedRecyclerAdapter$ViewHolderBinder$1"},
		{long, 30, "FeedRecycl…$ViewHolderBinder$1"},
		{long, 21, "F…$ViewHolderBinder$1"},
		{long, 20, "ViewHolderBinder$1"},
		{long, 10, "ViewHolde…"}, // no room for the innermost class: its start
		{"android.view.Choreographer$FrameDisplayEventReceiver", 6, "Frame…"},
		{"com.example.feed.FeedAdapter$$Lambda$3", 6, "FeedA…"},
		{"android.app.ActivityThread$H", 11, "Activity…$H"},
		{"android.app.ActivityThread$H", 16, "ActivityThread$H"},
		{"android.app.ActivityThread$H", 20, "ActivityThread$H"},
		{"android.app.ActivityThread$H", 21, "…app.ActivityThread$H"},
		{"com.example.feed.FeedAdapter$$Lambda$3", 16, "FeedA…$$Lambda$3"},
		{"com.example.feed.analytics.Tracker$flush$1", 12, "Tra…$flush$1"},
		{"androidx.recyclerview.widget.GapWorker", 8, "GapWork…"},
		{"MSG_DO_FRAME (vsync frame)", 12, "MSG_DO_FRAM…"},
	}
	for _, c := range cases {
		got := classFit(c.s, c.w)
		if got != c.want {
			t.Errorf("classFit(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
		if width(got) > c.w {
			t.Errorf("classFit(%q, %d) = %q is %d cells wide", c.s, c.w, got, width(got))
		}
	}
	for w := 1; w <= len(long)+2; w++ {
		got := classFit(long, w)
		if width(got) > w {
			t.Fatalf("classFit(long, %d) = %q is %d wide", w, got, width(got))
		}
		if w >= width("$ViewHolderBinder$1")+2 && !strings.HasSuffix(got, "ViewHolderBinder$1") {
			t.Errorf("classFit(long, %d) = %q cuts the innermost class", w, got)
		}
	}
}

// TestClassWidths: class columns get their short names first and grow to the full names, the
// first column first, with the room left; with no room for the short names they share as plain
// columns do.
func TestClassWidths(t *testing.T) {
	short, full := []int{16, 6, 20}, []int{28, 6, 20}
	mins, wts := []int{8, 6, 8}, []float64{1, 0.6, 2}
	if got := classWidths(short, full, mins, wts, 60); got[0] != 28 || got[1] != 6 || got[2] != 26 {
		t.Errorf("room for the full names: %v, want [28 6 26] (the rest to the last column)", got)
	}
	if got := classWidths(short, full, mins, wts, 46); got[0] != 20 || got[1] != 6 || got[2] != 20 {
		t.Errorf("room for the short names and 4 more: %v, want [20 6 20] (the first column grows)", got)
	}
	if got := classWidths(short, full, mins, wts, 30); got[0]+got[1]+got[2] != 30 || got[0] >= 16 {
		t.Errorf("no room for the short names: %v", got)
	}
}
