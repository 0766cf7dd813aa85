package perfetto

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/realdata"
)

// readTrace parses a whole trace file and returns its FrameTimeline slices and sections in
// time order (ties in start order), as trace_processor's tables list them.
func readTrace(t *testing.T, path string) ([]*TimelineSlice, []*Slice, *Parser) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := NewParser()
	var tl []*TimelineSlice
	var sl []*Slice
	p.OnTimeline = func(s *TimelineSlice) { tl = append(tl, s) }
	p.OnSlice = func(s *Slice) { sl = append(sl, s) }
	if err := p.ReadAll(context.Background(), f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sort.SliceStable(tl, func(i, j int) bool {
		if tl[i].Ts != tl[j].Ts {
			return tl[i].Ts < tl[j].Ts
		}
		return tl[i].order < tl[j].order
	})
	sort.SliceStable(sl, func(i, j int) bool { return sl[i].StartNs < sl[j].StartNs })
	return tl, sl, p
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows[1:]
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// tokens gives the display and surface token columns ("[NULL]" where a display frame has no
// surface token).
func tokens(s *TimelineSlice) (string, string, string) {
	if s.Surface() {
		return itoa(s.DisplayToken), itoa(s.Token), s.Layer
	}
	return itoa(s.Token), "[NULL]", "[NULL]"
}

func expectedRow(s *TimelineSlice) []string {
	d, sf, layer := tokens(s)
	return []string{itoa(s.Ts), itoa(s.Dur), itoa(int64(s.Pid)), d, sf, layer}
}

func actualRow(s *TimelineSlice) []string {
	d, sf, layer := tokens(s)
	return []string{itoa(s.Ts), itoa(s.Dur), itoa(int64(s.Pid)), d, sf, layer,
		PresentTypeString(s.PresentType), b01(s.OnTimeFinish), b01(s.GpuComposition),
		JankTypeString(s.JankType), PredictionTypeString(s.PredictionType), s.JankTag(), s.SeverityString()}
}

func compareRows(t *testing.T, name string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, Perfetto expects %d", name, len(got), len(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if strings.Join(got[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("%s row %d:\n got %q\nwant %q", name, i+1, got[i], want[i])
		}
	}
}

// TestFrameTimelineOracle reproduces Perfetto's expected_frame_timeline_slice and
// actual_frame_timeline_slice outputs row by row (tokens, layers, times, durations including
// unfinished frames, present and jank types, jank tags and severities).
func TestFrameTimelineOracle(t *testing.T) {
	for _, c := range []struct{ dir, expected, actual string }{
		{"ft_events", "test_expected_frame_timeline_events.csv", "test_actual_frame_timeline_events.csv"},
		{"ft_power_mode", "", "test_display_power_mode_change.csv"},
	} {
		dir := realdata.Dir(t, filepath.Join("perfetto", c.dir))
		tl, _, _ := readTrace(t, filepath.Join(dir, "trace.pftrace"))
		var exp, act [][]string
		for _, s := range tl {
			if s.Expected() {
				exp = append(exp, expectedRow(s))
			} else {
				act = append(act, actualRow(s))
			}
		}
		if c.expected != "" {
			compareRows(t, c.dir+" expected", exp, readCSV(t, filepath.Join(dir, "expected", c.expected)))
		}
		compareRows(t, c.dir+" actual", act, readCSV(t, filepath.Join(dir, "expected", c.actual)))
	}
}

// TestAtraceOracle reproduces the slices Perfetto lists for its atrace print edge cases.
func TestAtraceOracle(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "atrace"))
	for _, c := range []struct{ trace, csv string }{
		{"android_b2b_async_begin.pftrace", "test_android_b2b_async_begin_list_slices.csv"},
		{"bad_print.pftrace", "test_bad_print_textproto_list_slices.csv"},
	} {
		_, sl, _ := readTrace(t, filepath.Join(dir, c.trace))
		var got [][]string
		for _, s := range sl {
			got = append(got, []string{itoa(s.StartNs), itoa(s.DurNs()), s.Name})
		}
		compareRows(t, c.trace, got, readCSV(t, filepath.Join(dir, "expected", c.csv)))
	}
	_, sl, _ := readTrace(t, filepath.Join(dir, "test_process_track_slices_android_async_slice.pftrace"))
	var got [][]string
	for _, s := range sl {
		got = append(got, []string{itoa(s.StartNs), itoa(s.DurNs()), itoa(int64(s.Pid)), s.Name, s.Name})
	}
	compareRows(t, "async slice", got, readCSV(t, filepath.Join(dir, "expected", "test_process_track_slices_android_async_slice.csv")))
}

// TestDoFrameDepthOracle: Choreographer#doFrame found at any nesting depth, and the "resynced
// to" slice is not a frame of its own.
func TestDoFrameDepthOracle(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "doframe_depth"))
	_, sl, _ := readTrace(t, filepath.Join(dir, "trace.pftrace"))
	var got [][]string
	for _, s := range sl {
		if tok, ok := FrameToken(s.Name, "Choreographer#doFrame "); ok {
			got = append(got, []string{itoa(tok), s.Name, strconv.Itoa(s.Depth)})
		}
	}
	compareRows(t, "doFrame", got, readCSV(t, filepath.Join(dir, "expected", "test_android_frames_get_frame_table_with_id.csv")))
}
