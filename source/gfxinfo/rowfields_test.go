package gfxinfo

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// refRowFields is rowFields written plainly (strconv, one field at a time): the definition the
// parser must match, result for result and value for value.
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
