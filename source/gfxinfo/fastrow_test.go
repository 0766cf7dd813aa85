package gfxinfo

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// rowLines returns the indices of the lines that start with a digit and hold a comma (rows).
func rowLines(lines [][]byte) []int {
	var rows []int
	for i, l := range lines {
		if len(l) > 0 && l[0]-'0' <= 9 && bytes.IndexByte(l, ',') >= 0 {
			rows = append(rows, i)
		}
	}
	return rows
}

// fastRowEdits change a row line (newline included) into text fastRows must leave to the usual
// reading or read exactly as it does: most keep the line's length, so that the byte where the
// row before ended is still a newline.
var fastRowEdits = map[string]func(l []byte) []byte{
	"letter":        func(l []byte) []byte { l[len(l)/2] = 'x'; return l },
	"newline":       func(l []byte) []byte { l[len(l)/2] = '\n'; return l },
	"newline early": func(l []byte) []byte { l[3] = '\n'; return l },
	"minus": func(l []byte) []byte {
		i := bytes.IndexByte(l[2:], ',') + 2
		l[i+1] = '-'
		return l
	},
	"minus first":   func(l []byte) []byte { return append([]byte("-"), l[1:]...) },
	"space":         func(l []byte) []byte { l[len(l)-2] = ' '; return l },
	"leading space": func(l []byte) []byte { return append([]byte(" "), l[1:]...) },
	"cr":            func(l []byte) []byte { return append(l[:len(l)-1:len(l)-1], '\r', '\n') },
	"cr same len":   func(l []byte) []byte { l[len(l)-2] = '\r'; return l },
	"comma lost": func(l []byte) []byte {
		i := bytes.IndexByte(l[3:], ',') + 3
		copy(l[i:], l[i+1:])
		l[len(l)-2] = '7'
		return l
	},
	"comma doubled": func(l []byte) []byte { l[bytes.IndexByte(l, ',')+1] = ','; return l },
	"trailing comma": func(l []byte) []byte {
		return append(l[:len(l)-1:len(l)-1], ',', '\n')
	},
	"long field": func(l []byte) []byte { // 20 digits, same length
		i := bytes.IndexByte(l[2:], ',') + 2
		j := bytes.IndexByte(l[i+1:], ',') + i + 1
		l[i], l[j] = '9', '9'
		return l
	},
	"short": func(l []byte) []byte { return []byte("1,2,3\n") },
	"cut":   func(l []byte) []byte { return l[:len(l)/2] },
	"no newline": func(l []byte) []byte {
		return l[:len(l)-1]
	},
	"merged": func(l []byte) []byte { return append(l[:len(l)-1:len(l)-1], l...) },
	"empty":  func(l []byte) []byte { return []byte("\n") },
}

// TestFastRowEdges: rows fastRows may meet damaged in any way read as each dump read on its own
// with the row cache, and as with fastRows turned off.
func TestFastRowEdges(t *testing.T) {
	for name, edit := range fastRowEdits {
		for _, at := range []int{0, 1, 5, 12, -1} {
			for _, layout := range []int{14, 23, 25} {
				dumps := replayCapture(4, layout)
				var in [][]byte
				for i, d := range dumps {
					lines := bytes.SplitAfter(d, []byte("\n"))
					if i > 0 {
						rows := rowLines(lines)
						k := at
						if k < 0 {
							k += len(rows)
						}
						if k < len(rows) {
							lines[rows[k]] = edit(append([]byte(nil), lines[rows[k]]...))
						}
					}
					in = append(in, bytes.Join(lines, nil))
				}
				data := bytes.Join(in, nil)
				t.Run(fmt.Sprintf("%s/%d/%d", name, at, layout), func(t *testing.T) {
					checkReplay(t, data, false)
					checkReplayWith(t, data, false, 0, true)
					checkFastRowOff(t, in)
				})
			}
		}
	}
}

// TestFastRowAtEnd: rows that end where the text ends, or too close to it for the reader's
// padding, read as before.
func TestFastRowAtEnd(t *testing.T) {
	dumps := replayCapture(3, 23)
	last := dumps[2]
	for cut := len(last) - 1; cut > len(last)-400 && cut > 0; cut-- {
		in := [][]byte{dumps[0], dumps[1], last[:cut]}
		checkReplay(t, bytes.Join(in, nil), false)
		checkFastRowOff(t, in)
	}
}

// checkFastRowOff fails when dumps read (as the file source does) differently with fastRows
// turned off, their records for the next dump included.
func checkFastRowOff(t *testing.T, dumps [][]byte) {
	t.Helper()
	var on, off Parser
	for i, d := range dumps {
		var prev []byte
		if i > 0 {
			prev = dumps[i-1]
		}
		got := on.parseNext(d, prev)
		useFastRow = false
		want := off.parseNext(d, prev)
		useFastRow = true
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("dump %d reads differently with fastRows:\n%+v\nwant\n%+v", i, got, want)
		}
		if len(on.prevRec) != len(off.prevRec) {
			t.Fatalf("dump %d: %d rows recorded with fastRows, %d without", i, len(on.prevRec), len(off.prevRec))
		}
		for k := range on.prevRec {
			a, b := on.prevRec[k], off.prevRec[k]
			if a.start != b.start || a.end != b.end || a.head != b.head || a.tail != b.tail ||
				*on.rowVals(a.seq) != *off.rowVals(b.seq) {
				t.Fatalf("dump %d: row %d recorded as %+v with fastRows, %+v without", i, k, a, b)
			}
		}
	}
}

// TestFastRowTable: fastRows, given the length of the row before, reads a clean row of that
// length followed by more text as the usual reading does, and leaves every other line (the
// edits of fastRowEdits) to it, having emitted nothing.
func TestFastRowTable(t *testing.T) {
	clean := lineOf(replayCapture(1, 23)[0], 0)
	after := bytes.Repeat([]byte("---PROFILEDATA---\n"), 8)
	read := func(line []byte, fast bool) (int, *Dump) {
		var ps Parser
		ps.stable = true
		text := append(append([]byte(nil), line...), after...)
		p := &parser{ps: &ps, d: &Dump{}, proc: -1, win: -1, chunk: text}
		p.newWindow("w", 0)
		p.inBlock = true
		p.setCols(layout23)
		p.rowLen = len(clean) - 1
		if fast {
			return p.fastRows(0), p.d
		}
		end := bytes.IndexByte(text, '\n') + 1
		p.lineStart, p.lineEnd = 0, end
		p.blockLine(bytes.TrimSuffix(text[:end-1], []byte("\r")), text[end:])
		return end, p.d
	}
	if end, d := read(clean, true); end != len(clean) {
		t.Fatalf("a clean row: fastRows returned %d, want %d", end, len(clean))
	} else if _, want := read(clean, false); !reflect.DeepEqual(d, want) {
		t.Fatalf("a clean row reads\n%+v\nwant\n%+v", d, want)
	}
	var taken []string
	defer func() { t.Logf("rows fastRows took: %q", taken) }()
	for name, edit := range fastRowEdits {
		line := edit(append([]byte(nil), clean...))
		end, d := read(line, true)
		switch {
		case end == 0:
			if n := len(d.Processes[0].Windows[0].Frames); n != 0 {
				t.Errorf("%s: fastRows refused the line but emitted %d frames", name, n)
			}
		case end != len(clean) || bytes.IndexByte(line[:end-1], '\n') >= 0 || line[end-1] != '\n':
			t.Errorf("%s: fastRows took %d bytes of %q", name, end, line)
		default:
			taken = append(taken, name)
			if _, want := read(line, false); !reflect.DeepEqual(d, want) {
				t.Errorf("%s: fastRows reads\n%+v\nwant\n%+v", name, d, want)
			}
		}
	}
}

// lineOf returns the k-th row line of dump d, newline included.
func lineOf(d []byte, k int) []byte {
	lines := bytes.SplitAfter(d, []byte("\n"))
	return lines[rowLines(lines)[k]]
}
