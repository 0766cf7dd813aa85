package gfxinfo

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// refRow reads a PROFILEDATA row the slow, obvious way: comma-separated fields (one trailing
// comma allowed), each an optional '-' and 1–19 digits that fit an int64.
func refRow(l []byte, width int) ([]int64, bool) {
	if len(l) > 0 && l[len(l)-1] == ',' {
		l = l[:len(l)-1]
	}
	fields := bytes.Split(l, []byte{','})
	if len(fields) != width {
		return nil, false
	}
	var out []int64
	for _, f := range fields {
		d := bytes.TrimPrefix(f, []byte{'-'})
		if len(d) == 0 || len(d) > 19 || bytes.IndexFunc(d, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return nil, false
		}
		v, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// FuzzDataRow: the hand-written field reader (a field's first word at once, its other digits
// one by one, over the padded line) reads every row as refRow does: the same values, and torn
// exactly when refRow refuses it.
func FuzzDataRow(f *testing.F) {
	f.Add([]byte("0,116541055308094,116541553391314,9223372036854775807,0,116541554380407,1,22,333,4444,55555,666666,7777777,88888888,999999999,1234567890123456,12345678901234567,"))
	f.Add([]byte("-1,-9223372036854775808,9223372036854775807,0,0,0,0,0,0,0,0,0,0,0,0,0,0"))
	f.Add([]byte("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18"))
	f.Add([]byte("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,9223372036854775808,"))
	f.Add([]byte("12345678,123456789012345,1234567812345678,,5,6,7,8,9,10,11,12,13,14,15,16,17"))
	f.Add([]byte("1a,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"))
	f.Fuzz(func(t *testing.T, l []byte) {
		p := &parser{ps: &Parser{}, d: &Dump{}, proc: -1, win: -1}
		w := p.newWindow("w", 0)
		p.setCols(layout17)
		var cols [source.NumCols]int64
		want, ok := refRow(l, len(layout17))
		p.dataRow(l)
		torn := w.Rows == 0 // a row read to its end is emitted (counted, even when unfinished)
		if ok == torn {
			t.Fatalf("%q: reference ok=%v, parser torn=%v", l, ok, torn)
		}
		if !ok {
			return
		}
		for i, c := range layout17 {
			cols[c] = want[i]
		}
		for _, c := range layout17 {
			if p.row[c] != cols[c] {
				t.Fatalf("%q: column %d = %d, want %d", l, c, p.row[c], cols[c])
			}
		}
		// The same text again reads the same values; under another layout it is torn (the
		// width differs).
		p.row = [source.NumCols]int64{}
		p.dataRow(append([]byte(nil), l...))
		for _, c := range layout17 {
			if p.row[c] != cols[c] || w.Rows != 2 {
				t.Fatalf("%q again: column %d = %d, want %d (rows %d)", l, c, p.row[c], cols[c], w.Rows)
			}
		}
		p.setCols(layout16)
		p.dataRow(l)
		if w.Rows != 2 {
			t.Fatalf("%q read as a 16-column row", l)
		}
	})
}

// refHistogram reads a HISTOGRAM line's buckets the obvious way (ok is false when a token is
// not "<1–12 digits>ms=<1–12 digits>").
func refHistogram(b []byte) (out []source.Bucket, ok bool) {
	for _, tok := range bytes.FieldsFunc(b, func(r rune) bool { return r == ' ' || r == '\t' }) {
		ms, c, ok := bytes.Cut(tok, []byte("ms="))
		if !ok || !digits12(ms) || !digits12(c) {
			return nil, false
		}
		m, _ := strconv.ParseInt(string(ms), 10, 64)
		n, _ := strconv.ParseInt(string(c), 10, 64)
		out = append(out, source.Bucket{Ms: int(m), Count: n})
	}
	return out, true
}

func digits12(b []byte) bool {
	return len(b) >= 1 && len(b) <= 12 && bytes.IndexFunc(b, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// FuzzHistogram: the HISTOGRAM reader (standard lines label by label, others field by field)
// reads every line as refHistogram does, or drops it exactly when refHistogram refuses it.
func FuzzHistogram(f *testing.F) {
	var b []byte
	b = appendSummary(b, 1, 1234567, true)
	if i := bytes.Index(b, []byte("HISTOGRAM:")); i >= 0 {
		line := b[i+len("HISTOGRAM:"):]
		f.Add(line[:bytes.IndexByte(line, '\n')])
	}
	f.Add([]byte(" 5ms=0 6ms=12345678 7ms=1234567 12345678ms=1 8ms=2\t9ms=3  4950ms=99999999999"))
	f.Add([]byte(" 5ms=0 6ms=1x 7ms=1 8ms=2 9ms=3 10ms=4 11ms=5"))
	f.Add([]byte(" 5ms=0 6ms= 7ms=1 8ms=2 9ms=3 10ms=4 11ms=5"))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &parser{ps: &Parser{}, d: &Dump{}, proc: -1, win: -1}
		p.newWindow("w", 0)
		s := p.summary()
		p.histogram(line)
		want, ok := refHistogram(line)
		got := s.Histogram
		if ok != (got != nil) || len(want) != len(got) {
			t.Fatalf("%q: got %v, want %v", line, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%q: bucket %d = %v, want %v", line, i, got[i], want[i])
			}
		}
	})
}
