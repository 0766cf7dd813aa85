package perfetto

import (
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestDocsFrameTimeline: Perfetto's docs show trace_processor's expected and actual
// FrameTimeline tables of a real phone (a Pixel launcher, SystemUI and SurfaceFlinger; the
// trace is not published). A trace written from those rows, as SurfaceFlinger writes them
// (starts and ends by cookie, out of time order, names from a process tree), reads back to the
// same rows; the app frames carry the present of the display frame they were shown in, and
// token 3139, drawn by two apps, is two frames of two windows.
func TestDocsFrameTimeline(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "real", "perfetto-docs-frametimeline"))
	exp := readCSV(t, filepath.Join(dir, "expected_frame_timeline_slice.csv"))
	act := readCSV(t, filepath.Join(dir, "actual_frame_timeline_slice.csv"))
	pids := map[string]uint64{"/system/bin/surfaceflinger": 600, "com.google.android.apps.nexuslauncher": 2000, "com.android.systemui": 1500}
	layers := map[string]string{} // app → layer, from the actual rows
	for _, r := range act {
		if r[2] != "0" {
			layers[r[8]] = r[7]
		}
	}
	var packets [][]byte
	cookie := uint64(1)
	add := func(ts, dur int64, ev []byte) {
		packets = append(packets, pbMsg(pbInt(nil, pkTimestamp, uint64(ts)), pkFrameTimline, ev))
		end := pbMsg(nil, ftFrameEnd, pbInt(nil, 1, cookie))
		// ends first: file order is not time order
		packets = append([][]byte{pbMsg(pbInt(nil, pkTimestamp, uint64(ts+dur)), pkFrameTimline, end)}, packets...)
		cookie++
	}
	num := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	for _, r := range exp {
		m := pbInt(nil, 1, cookie)
		if r[2] == "0" {
			m = pbInt(pbInt(m, 2, uint64(num(r[3]))), 3, pids[r[4]])
			add(num(r[0]), num(r[1]), pbMsg(nil, protowire.Number(ExpectedDisplay), m))
			continue
		}
		m = pbStr(pbInt(pbInt(pbInt(m, 2, uint64(num(r[2]))), 3, uint64(num(r[3]))), 4, pids[r[4]]), 5, layers[r[4]])
		add(num(r[0]), num(r[1]), pbMsg(nil, protowire.Number(ExpectedSurface), m))
	}
	for _, r := range act {
		jank, present := jankBits(t, r[4]), presentType(t, r[6])
		m := pbInt(nil, 1, cookie)
		if r[2] == "0" {
			m = pbInt(pbInt(pbInt(pbInt(pbInt(m, 2, uint64(num(r[3]))), 3, pids[r[8]]), 4, present), 5, uint64(num(r[5]))), 7, uint64(jank))
			add(num(r[0]), num(r[1]), pbMsg(nil, protowire.Number(ActualDisplay), m))
			continue
		}
		m = pbStr(pbInt(pbInt(pbInt(m, 2, uint64(num(r[2]))), 3, uint64(num(r[3]))), 4, pids[r[8]]), 5, r[7])
		m = pbInt(pbInt(pbInt(m, 6, present), 7, uint64(num(r[5]))), 9, uint64(jank))
		add(num(r[0]), num(r[1]), pbMsg(nil, protowire.Number(ActualSurface), m))
	}
	var tree []byte
	for name, pid := range pids {
		tree = pbMsg(tree, 1, pbStr(pbInt(nil, 1, pid), 3, name))
	}
	var trace []byte
	trace = pbMsg(trace, 1, pbMsg(nil, pkProcessTree, tree))
	for _, p := range packets {
		trace = pbMsg(trace, 1, p)
	}

	p := NewParser()
	var tl []*TimelineSlice
	p.OnTimeline = func(s *TimelineSlice) { tl = append(tl, s) }
	if err := p.ReadAll(context.Background(), bytes.NewReader(trace)); err != nil {
		t.Fatal(err)
	}
	var gotExp, gotAct []string
	for _, s := range tl {
		app, sf := "0", itoa(s.Token)
		if s.Surface() {
			app, sf = itoa(s.Token), itoa(s.DisplayToken)
		}
		name := p.ProcessName(s.Pid)
		if s.Expected() {
			gotExp = append(gotExp, strings.Join([]string{itoa(s.Ts), itoa(s.Dur), app, sf, name}, ","))
			continue
		}
		layer := "[NULL]"
		if s.Surface() {
			layer = s.Layer
		}
		gotAct = append(gotAct, strings.Join([]string{itoa(s.Ts), itoa(s.Dur), app, sf, JankTypeString(s.JankType),
			b01(s.OnTimeFinish), PresentTypeString(s.PresentType), layer, name}, ","))
	}
	sameRows(t, "expected", gotExp, exp)
	sameRows(t, "actual", gotAct, act)

	frames := framesOf(sourcetest.Events(t, FromReader(bytes.NewReader(trace), Options{Name: "docs"})))
	windows := map[string]int{}
	presents := 0
	for _, f := range frames {
		if f.VsyncID == 3139 {
			windows[f.Window]++
		}
		if f.PresentNs > 0 {
			presents++
			if f.VsyncID == 3137 && f.PresentNs != 60284808190+10318230 {
				t.Errorf("frame 3137 presented at %d, want the end of display frame 3144", f.PresentNs)
			}
		}
	}
	if len(frames) != 6 || len(windows) != 2 {
		t.Errorf("%d frames (want the 6 app frames), token 3139 in windows %v (want 2)", len(frames), windows)
	}
	// display frames 3144, 3146 and 3150 are in the excerpt: frames 3137, 3139 (launcher), 3147
	if presents != 3 {
		t.Errorf("%d frames with a present, want 3", presents)
	}
}

// sameRows compares rows as sets (the docs' excerpt lists them in its own order).
func sameRows(t *testing.T, what string, got []string, want [][]string) {
	t.Helper()
	var w []string
	for _, r := range want {
		w = append(w, strings.Join(r, ","))
	}
	sort.Strings(got)
	sort.Strings(w)
	if strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Errorf("%s rows:\n got %q\nwant %q", what, got, w)
	}
}

func jankBits(t *testing.T, s string) int64 {
	if s == "None" {
		return JankNone
	}
	var j int64
	for _, part := range strings.Split(s, ", ") {
		found := false
		for _, n := range jankNames {
			if n.name == part {
				j |= n.bit
				found = true
			}
		}
		if !found {
			t.Fatalf("jank type %q unknown", part)
		}
	}
	return j
}

func presentType(t *testing.T, s string) uint64 {
	for v := int32(1); v <= 5; v++ {
		if PresentTypeString(v) == s {
			return uint64(v)
		}
	}
	t.Fatalf("present type %q unknown", s)
	return 0
}
