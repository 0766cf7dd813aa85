package gfxinfo

import (
	"bytes"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

// replayCapture is a capture of n polls of two windows whose rings move by half their rows
// from one dump to the next (as Android prints them), in layout cols.
func replayCapture(n, layout int) [][]byte { return pollCapture(n, layout, 5) }

// pollCapture is n polls of two windows (16 and 4 rows, each dump sharing half its rows with
// the one before) in layout cols, every jankEach-th frame of the first janky (0: none).
func pollCapture(n, layout, jankEach int) [][]byte {
	const period = 16_666_667
	a := synthWin{title: pkg + "/.Main", rows: 16, start: 10e9, period: period, firstID: 1, total: 16, jankEach: jankEach}
	b := synthWin{title: pkg + "/.Popup", rows: 4, start: 10e9 + 5e6, period: period, firstID: 1000, total: 4}
	var dumps [][]byte
	for i := 0; i < n; i++ {
		a2, b2 := a, b
		a2.start += int64(i) * 8 * period
		a2.firstID += int64(i) * 8
		a2.total += int64(i) * 8
		b2.start += int64(i) * 2 * period
		b2.firstID += int64(i) * 2
		b2.total += int64(i) * 2
		dumps = append(dumps, synthDump(nil, layout, int64(10_300+150*i), 5, pkg, []synthWin{a2, b2}))
	}
	return dumps
}

// checkReplay reads data dump by dump as the file source does (rows the dump before printed
// replayed from it) and, beside it, each dump on its own with the row cache, and fails when a
// dump reads differently in any way: frames and their phases, counts, warnings, torn rows.
func checkReplay(t *testing.T, data []byte, oneByte bool) (replayed int) {
	t.Helper()
	return checkReplayRing(t, data, oneByte, 0)
}

// checkReplayRing is checkReplay with the recorded rows' values in a ring of ring slots at
// first (0: the default), so small that rows are written over before they are replayed.
func checkReplayRing(t *testing.T, data []byte, oneByte bool, ring int) (replayed int) {
	t.Helper()
	return checkReplayWith(t, data, oneByte, ring, false)
}

// checkReplayWith is checkReplayRing, reading as the file source does when upTo is set: the
// reader hands out text that may run on into the next dumps and the parser finds where the
// dump ends (nextUpTo, parseNextUpTo); each dump must read as on its own all the same.
func checkReplayWith(t *testing.T, data []byte, oneByte bool, ring int, upTo bool) (replayed int) {
	t.Helper()
	var r io.Reader = bytes.NewReader(data)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	dr := newDumpReader(r)
	var stable, cached Parser
	stable.minVals = ring
	var prevCopy []byte
	for i := 0; ; i++ {
		next := dr.next
		if upTo {
			next = dr.nextUpTo
		}
		c, err := next()
		if err == io.EOF {
			return replayed
		}
		if err != nil {
			t.Fatal(err)
		}
		if p := dr.prevText(); p != nil && !bytes.Equal(p, prevCopy) {
			t.Fatalf("dump %d: the text of the dump before was lost (%d bytes, want %d)", i, len(p), len(prevCopy))
		}
		got, n := stable.parseNextUpTo(c, dr.prevText(), upTo)
		dr.took(n)
		own := append([]byte(nil), c[:n]...)
		prevCopy = own
		replayed += len(stable.prevRec)
		want := cached.ParseChunk(own)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("dump %d reads differently with replayed rows:\n%+v\nwant\n%+v", i, got, want)
		}
	}
}

func TestReplayCleanCapture(t *testing.T) {
	for _, layout := range []int{14, 17, 20, 23, 24} {
		data := bytes.Join(replayCapture(6, layout), nil)
		if n := checkReplay(t, data, false); n == 0 {
			t.Errorf("layout %d: no row recorded for replay", layout)
		}
		checkReplay(t, data, true)
		checkReplayWith(t, data, false, 0, true)
	}
	// The replay is what makes the difference: the file source takes the row cache's place.
	var ps Parser
	dumps := replayCapture(3, 23)
	ps.parseNext(dumps[0], nil)
	ps.parseNext(dumps[1], dumps[0])
	if ps.rows != nil {
		t.Error("the row cache was used for a capture read with replay")
	}
}

// TestReplayAroundLongDump: a dump too long to be handed out whole is cut line by line, moving
// the buffer's text many times; the dumps around it must not replay from lost text.
func TestReplayAroundLongDump(t *testing.T) {
	dumps := replayCapture(4, 23)
	long := synthWin{title: pkg + "/.Main", rows: 40000, start: 10e9, period: 16_666_667, firstID: 1, total: 6000}
	big := synthDump(nil, 23, 10_300, 5, pkg, []synthWin{long})
	if len(big) <= 2*readBlock { // (longer than the buffer, twice)
		t.Fatalf("the long dump is %d bytes", len(big))
	}
	data := bytes.Join([][]byte{dumps[0], dumps[1], big, dumps[2], dumps[3], big, dumps[0]}, nil)
	checkReplay(t, data, false)
}

// FuzzReplay: whatever lines of a capture are damaged (cut, garbage, newline lost, printed
// twice), replaying the rows a dump repeats from the one before reads it exactly as reading
// each of its rows does.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{}, false)
	f.Add([]byte{1, 2, 4, 1, 7, 3, 10, 0}, false)
	f.Add([]byte{2, 2, 5, 3, 8, 1}, true)
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4}, 32), false)
	dumps := replayCapture(3, 23)
	f.Fuzz(func(t *testing.T, ops []byte, oneByte bool) {
		var in [][]byte
		for i, d := range dumps {
			dd, _ := damageLines(d, ops, i, 0)
			in = append(in, dd)
		}
		in = append(in, dumps[2]) // a clean dump after damaged ones
		checkReplay(t, bytes.Join(in, nil), oneByte)
		checkReplayRing(t, bytes.Join(in, nil), oneByte, 4)
		checkReplayWith(t, bytes.Join(in, nil), oneByte, 0, true)
	})
}

// TestReplayRing: rows whose values were written over in the ring before their next dump are
// read again, and rows replayed dump after dump beside moving ones (a window that does not
// draw) stay replayed: every dump reads as on its own, whatever the ring's first size.
func TestReplayRing(t *testing.T) {
	const period = 16_666_667
	still := synthWin{title: pkg + "/.Still", rows: 12, start: 9e9, period: period, firstID: 500, total: 12}
	var dumps [][]byte
	for i := 0; i < 40; i++ {
		moving := synthWin{title: pkg + "/.Main", rows: 16, start: 10e9 + int64(i)*8*period, period: period,
			firstID: 1 + int64(i)*8, total: 16 + int64(i)*8}
		dumps = append(dumps, synthDump(nil, 23, int64(10_300+150*i), 5, pkg, []synthWin{still, moving}))
	}
	data := bytes.Join(dumps, nil)
	for _, ring := range []int{0, 1, 2, 4, 8, 16, 32, 64} {
		n := checkReplayRing(t, data, false, ring)
		if ring == 0 || ring >= 32 {
			if n < 40*20 {
				t.Errorf("ring of %d: %d rows recorded over 40 dumps", ring, n)
			}
		}
	}
	// Rows of one layout written over rows of another: the columns it lacks must read 0.
	mixed := bytes.Join([][]byte{bytes.Join(replayCapture(12, 23), nil), bytes.Join(replayCapture(12, 17), nil),
		bytes.Join(replayCapture(12, 25), nil), bytes.Join(replayCapture(12, 14), nil)}, nil)
	for _, ring := range []int{0, 4, 64} {
		checkReplayRing(t, mixed, false, ring)
	}
	var ps Parser
	ps.minVals = 8
	for i, d := range dumps[:20] {
		var prev []byte
		if i > 0 {
			prev = dumps[i-1]
		}
		ps.parseNext(d, prev)
	}
	if len(ps.vals) < 4*len(ps.prevRec) {
		t.Errorf("the ring holds %d rows for dumps of %d", len(ps.vals), len(ps.prevRec))
	}
}
