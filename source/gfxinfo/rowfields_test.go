package gfxinfo

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/source"
)

// refRowFields is rowFields written plainly (strconv, one field at a time): the definition the
// SWAR loop must match, result for result and value for value.
func refRowFields(l string, ncols int) ([]int64, int) {
	var vals []int64
	i, col := 0, 0
	for i < len(l) {
		if col >= ncols {
			return vals, rowMoreFields
		}
		f := l[i:]
		if j := strings.IndexByte(f, ','); j >= 0 {
			f = f[:j]
		}
		digits := strings.TrimPrefix(f, "-")
		if len(digits) == 0 || len(digits) > 19 || strings.Trim(digits, "0123456789") != "" {
			return vals, rowNonInteger
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return vals, rowNonInteger
		}
		vals = append(vals, v)
		col++
		i += len(f) + 1
	}
	if col != ncols {
		return vals, rowFewerFields
	}
	return vals, rowOK
}

// checkRowFields runs rowFields on l against refRowFields.
func checkRowFields(t *testing.T, l string, ncols int) {
	t.Helper()
	cols := make([]int, ncols)
	for i := range cols {
		cols[i] = source.ColFlags + i%(source.NumCols-1)
	}
	want, wantRes := refRowFields(l, ncols)
	var row [source.NumCols]int64
	res := rowFields([]byte(l), cols, &row)
	if res != wantRes {
		t.Fatalf("rowFields(%q, %d cols) = %d, want %d", l, ncols, res, wantRes)
	}
	if res == rowOK {
		for k, v := range want {
			if row[cols[k]] != v {
				t.Fatalf("rowFields(%q): field %d = %d, want %d", l, k, row[cols[k]], v)
			}
		}
	}
}

func TestRowFieldsEdges(t *testing.T) {
	for _, c := range []struct {
		l     string
		ncols int
	}{
		{"", 1}, {"0", 1}, {"0,", 1}, {"0,,", 1}, {"1,2", 2}, {"1,2,", 2}, {"1,2,3", 2}, {"1,2", 3},
		{"-1,-0,-", 3}, {"-,1", 2}, {"+1,2", 2}, {"1,+2", 2}, {" 1,2", 2}, {"1 ,2", 2}, {"1,,2", 3},
		{"12345678", 1}, {"123456789", 1}, {"1234567890123456", 1}, {"12345678901234567", 1},
		{"1234567890123456789", 1}, {"12345678901234567890", 1}, {"00000000000000000001", 1},
		{"0000000000000000001", 1}, {"9223372036854775807", 1}, {"9223372036854775808", 1},
		{"-9223372036854775808", 1}, {"-9223372036854775809", 1}, {"18446744073709551615", 1},
		{"99999999999999999999", 1}, {"9999999999999999999", 1}, {"-9999999999999999999", 1},
		{"12345678a", 1}, {"1234567890123456a", 1}, {"123456789012345a", 1}, {"1234567\xff", 1},
		{"123\xfa1", 1}, {"123456789012345,12345678,1", 3}, {"-123456,-1", 2}, {"\x00", 1}, {"1a", 1}, {"a1", 1}, {"1,2\x00", 2},
		{"0,100003000000,100003000000,9223372036854775807,0,100003500000,", 6},
	} {
		checkRowFields(t, c.l, c.ncols)
	}
	// Fewer fields than columns: the row's last field ends at the end or at a trailing comma.
	for _, l := range []string{strings.Repeat("1234567,", 8), strings.Repeat("1234567,", 7) + "12345678",
		strings.Repeat("1234567,", 16), strings.Repeat("1234567,", 15) + "12345678",
		strings.Repeat("1234567,", 8) + "1", strings.Repeat("1234567,", 7) + "1234567"} {
		for ncols := 7; ncols <= 18; ncols++ {
			checkRowFields(t, l, ncols)
		}
	}
}

// TestRowFieldsRandom compares rowFields with its plain definition on rows of random fields:
// every length from 0 to 21 digits, signs, stray bytes, empty and extra fields.
func TestRowFieldsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const alphabet = "0123456789-,+ a:\t/"
	for n := 0; n < 20000; n++ {
		ncols := 1 + rng.Intn(source.NumCols-1)
		var b strings.Builder
		fields := ncols - 1 + rng.Intn(3)
		for f := 0; f < fields; f++ {
			if f > 0 {
				b.WriteByte(',')
			}
			if rng.Intn(4) == 0 {
				b.WriteByte('-')
			}
			for d := rng.Intn(22); d > 0; d-- {
				b.WriteByte('0' + byte(rng.Intn(10)))
			}
			if rng.Intn(40) == 0 {
				b.WriteByte(alphabet[rng.Intn(len(alphabet))])
			}
		}
		if rng.Intn(2) == 0 {
			b.WriteByte(',')
		}
		checkRowFields(t, b.String(), ncols)
	}
}

func FuzzRowFields(f *testing.F) {
	f.Add("0,100003000000,100003000000,9223372036854775807,0,100003500000,", 6)
	f.Add("-9223372036854775808,12345678901234567,", 2)
	f.Add("0,5000000,100003000000,100003000000,0,100003500000,100003600000,100003700000,"+
		"100004000000,100036333334,100003400000,16666667,100005000000,100005100000,100005300000,"+
		"100007000000,100009000000,30000,200000,100009000000,100007500000,0,100007200000,", 23)
	f.Fuzz(func(t *testing.T, l string, ncols int) {
		if ncols < 1 || ncols >= source.NumCols { // (a column per field: none written twice)
			return
		}
		checkRowFields(t, l, ncols)
	})
}

// standardLine prints a HISTOGRAM line's text after "HISTOGRAM:" as Android does.
func standardLine(counts []int64) string {
	var b strings.Builder
	for i, c := range counts {
		b.WriteString(" " + strconv.Itoa(hwui.BucketMs(i)) + "ms=" + strconv.FormatInt(c, 10))
	}
	return b.String()
}

// checkHistogram compares standardHistogram with anyHistogram on l: a line the first accepts
// must read the same with the second.
func checkHistogram(t *testing.T, l string) {
	t.Helper()
	got, ok := standardHistogram([]byte(l), nil)
	if !ok {
		return
	}
	want, wok := anyHistogram([]byte(l), nil)
	if !wok || !slices.Equal(got, want) {
		t.Fatalf("%q: standardHistogram read %v, anyHistogram %v (ok %v)", l, got, want, wok)
	}
}

// plainStandardHistogram is standardHistogram label by label, without skipping runs of zero
// buckets (zeroRun): the reading the fast path must match, result for result.
func plainStandardHistogram(b []byte) ([]source.Bucket, bool) {
	var out []source.Bucket
	i, n, k := 0, len(b), 0
	for ; k < len(histogramLabels) && i+8 <= n; k++ {
		lab := &histogramLabels[k]
		if binary.LittleEndian.Uint64(b[i:i+8])&lab.mask != lab.word {
			break
		}
		i += lab.n
		var c int64
		s := i
		for i < n && b[i]-'0' <= 9 {
			c = c*10 + int64(b[i]-'0')
			i++
		}
		if i == s || i-s > 12 {
			return nil, false
		}
		out = append(out, source.Bucket{Ms: lab.ms, Count: c})
	}
	for i < n && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return out, i == n && k > 0
}

// checkZeroRuns compares standardHistogram with plainStandardHistogram on l.
func checkZeroRuns(t *testing.T, l []byte) {
	t.Helper()
	got, ok := standardHistogram(l, nil)
	want, wok := plainStandardHistogram(l)
	if ok != wok || ok && !slices.Equal(got, want) {
		t.Fatalf("%q: standardHistogram read %v (ok %v), label by label %v (ok %v)", l, got, ok, want, wok)
	}
}

// TestZeroRuns: mostly-zero lines (as real histograms are), whole and damaged at every byte,
// read as label by label.
func TestZeroRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < 100; n++ {
		counts := make([]int64, hwui.NumBuckets)
		for i := range counts {
			if rng.Intn(12) == 0 {
				counts[i] = rng.Int63n(1 << uint(rng.Intn(20)))
			}
		}
		b := []byte(standardLine(counts))
		checkZeroRuns(t, b)
		for at := 0; at < len(b); at += 1 + rng.Intn(5) {
			for _, d := range [][]byte{
				append(append(append([]byte{}, b[:at]...), "x01 :-\t"[rng.Intn(7)]), b[at+1:]...),
				append(append([]byte{}, b[:at]...), b[at+1:]...),
				append(append([]byte{}, b[:at+1]...), b[at:]...),
				b[:at], append(append([]byte{}, b[:at]...), " \t "...),
			} {
				checkZeroRuns(t, d)
			}
		}
	}
}

func TestStandardHistogram(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for n := 0; n < 2000; n++ {
		counts := make([]int64, hwui.NumBuckets)
		for i := range counts {
			if rng.Intn(3) == 0 {
				counts[i] = rng.Int63n(1 << uint(rng.Intn(40)))
			}
		}
		l := standardLine(counts)
		got, ok := standardHistogram([]byte(l), nil)
		if !ok || len(got) != hwui.NumBuckets {
			t.Fatalf("standard line not read: %q", l)
		}
		checkHistogram(t, l)
		// Damage it: a byte changed, dropped or doubled; the line cut; blanks after it.
		b := []byte(l)
		at := rng.Intn(len(b))
		for _, d := range [][]byte{
			append(append(append([]byte{}, b[:at]...), "x0 :-\t"[rng.Intn(6)]), b[at+1:]...),
			append(append([]byte{}, b[:at]...), b[at+1:]...),
			append(append([]byte{}, b[:at+1]...), b[at:]...),
			b[:at], append(append([]byte{}, b...), " \t "...),
		} {
			checkHistogram(t, string(d))
		}
	}
	if _, ok := standardHistogram([]byte(" 5ms=0 6ms=1 7ms="), nil); ok {
		t.Error("a bucket without a count read as standard")
	}
	if h, ok := standardHistogram([]byte(" 5ms=0 6ms=1  "), nil); !ok || len(h) != 2 || h[1] != (source.Bucket{Ms: 6, Count: 1}) {
		t.Errorf("a short standard line read %v, %v", h, ok)
	}
}

func FuzzStandardHistogram(f *testing.F) {
	f.Add(standardLine(make([]int64, hwui.NumBuckets)))
	f.Add(" 5ms=12 6ms=0 7ms=3 9ms=1")
	f.Fuzz(func(t *testing.T, l string) {
		checkHistogram(t, l)
		checkZeroRuns(t, []byte(l))
	})
}
