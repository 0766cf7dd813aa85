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

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
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

// TestSystraceOracle reproduces Perfetto's outputs for its systrace text cases: the same
// atrace lines as text, with a cpus= header, no gap after the irq flags, hex preempt counts,
// a missing TGID and garbage lines between events.
func TestSystraceOracle(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "atrace"))
	for _, c := range []struct {
		trace, csv string
		name       []string // the query's WHERE name IN (…); nil: every slice
		row        func(s *Slice) []string
		count      bool // SELECT name, COUNT(*) … GROUP BY name ORDER BY name (or one COUNT(*))
	}{
		{"bad_print.systrace", "test_bad_print_systrace_list_slices.csv", nil,
			func(s *Slice) []string { return []string{itoa(s.StartNs), itoa(s.DurNs()), s.Name} }, false},
		{"test_cpus_header_removal.systrace", "test_cpus_header_removal.csv", []string{"test_slice"},
			func(s *Slice) []string { return []string{itoa(s.StartNs), s.Name, itoa(s.DurNs())} }, false},
		{"test_hex_preempt_count.systrace", "test_hex_preempt_count.csv", []string{"hex_preempt"},
			func(s *Slice) []string { return []string{itoa(s.StartNs), s.Name} }, false},
		{"test_cpus_header_with_digits_only.systrace", "test_cpus_header_with_digits_only.csv", []string{"task_work"}, nil, true},
		{"test_regex_pattern_no_gap_after_irq_flags.systrace", "test_regex_pattern_no_gap_after_irq_flags.csv",
			[]string{"no_gap_after_dots", "space_after_dots", "no_gap_after_flags"}, nil, true},
	} {
		_, sl, p := readTrace(t, filepath.Join(dir, c.trace))
		if !p.Text {
			t.Errorf("%s: not read as systrace text", c.trace)
		}
		var got [][]string
		counts := map[string]int{}
		for _, s := range sl {
			if c.name != nil && !contains(c.name, s.Name) {
				continue
			}
			counts[s.Name]++
			if c.row != nil {
				got = append(got, c.row(s))
			}
		}
		if c.count {
			names := make([]string, 0, len(counts))
			for n := range counts {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if len(c.name) == 1 {
					got = append(got, []string{strconv.Itoa(counts[n])})
				} else {
					got = append(got, []string{n, strconv.Itoa(counts[n])})
				}
			}
		}
		compareRows(t, c.trace, got, readCSV(t, filepath.Join(dir, "expected", c.csv)))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestPresentOracle: each app frame's present is the end of the actual display frame it was
// shown in (its display_frame_token), as Perfetto's actual timeline lists them; a display
// frame that was dropped or never ended presents nothing.
func TestPresentOracle(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "ft_events"))
	rows := readCSV(t, filepath.Join(dir, "expected", "test_actual_frame_timeline_events.csv"))
	presents := map[string]int64{} // display token → present
	for _, r := range rows {
		ts, _ := strconv.ParseInt(r[0], 10, 64)
		dur, _ := strconv.ParseInt(r[1], 10, 64)
		if r[4] == "[NULL]" && dur >= 0 && r[6] != "Dropped Frame" {
			if _, ok := presents[r[3]]; !ok {
				presents[r[3]] = ts + dur
			}
		}
	}
	want := map[string]int64{} // surface token/layer → present (0: none)
	for _, r := range rows {
		if r[4] != "[NULL]" && r[6] != "Dropped Frame" {
			want[r[4]+"/"+r[5]] = presents[r[3]]
		}
	}
	f, err := os.Open(filepath.Join(dir, "trace.pftrace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames := framesOf(sourcetest.Events(t, FromReader(f, Options{Name: "ft_events"})))
	if len(frames) != len(want) {
		t.Errorf("%d frames, Perfetto lists %d app frames", len(frames), len(want))
	}
	for _, fr := range frames {
		k := itoa(fr.VsyncID) + "/" + fr.Timeline.Layer
		w, ok := want[k]
		if !ok {
			t.Errorf("frame %s not in Perfetto's list", k)
			continue
		}
		var got int64
		if fr.Phases != nil && fr.Phases.DisplayPresentTime != fr.PresentNs {
			t.Errorf("frame %s: DisplayPresentTime %d, PresentNs %d", k, fr.Phases.DisplayPresentTime, fr.PresentNs)
		}
		got = fr.PresentNs
		if got != w || w == 0 {
			t.Errorf("frame %s: present %d, Perfetto's display frame ends at %d", k, got, w)
		}
	}
}
