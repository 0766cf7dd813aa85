package gfxinfo

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// rowWidths are the column counts the readers are checked at: every headerless layout's, and
// a few more (a header may name any number of columns).
var rowWidths = []int{1, 2, 3, 5, 14, 16, 17, 20, 22, 23, 24, 25, 27}

// randDigits returns l random digits; 19 of them often lie next to MaxInt64 (...807 reads,
// ...808 does not).
func randDigits(rng *rand.Rand, l int) string {
	if l == 19 && rng.Intn(3) == 0 {
		return []string{"9223372036854775807", "9223372036854775808", "9999999999999999999",
			"0000000000000000000", "1000000000000000000"}[rng.Intn(5)]
	}
	b := make([]byte, l)
	for i := range b {
		b[i] = '0' + byte(rng.Intn(10))
		if rng.Intn(8) == 0 {
			b[i] = "09"[rng.Intn(2)]
		}
	}
	return string(b)
}

// plainRow returns w fields of 1–19 digits, mostly a capture's 1, 5–6 and 12–14 digits.
func plainRow(rng *rand.Rand, w int) []string {
	f := make([]string, w)
	for i := range f {
		l := []int{1, 5, 6, 12, 13, 14, 16, 19}[rng.Intn(8)]
		if rng.Intn(4) == 0 {
			l = 1 + rng.Intn(19)
		}
		f[i] = randDigits(rng, l)
	}
	return f
}

// TestRowFieldsLayouts: at every width, every field in turn of every length 0–20 digits,
// signed or not, in a row of plain fields, with and without a trailing comma, one field short
// and one too many.
func TestRowFieldsLayouts(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, w := range rowWidths {
		for k := 0; k < w; k++ {
			for l := 0; l <= 20; l++ {
				f := plainRow(rng, w)
				f[k] = randDigits(rng, l)
				if rng.Intn(6) == 0 {
					f[k] = "-" + f[k]
				}
				row := strings.Join(f, ",")
				if rng.Intn(2) == 0 {
					row += ","
				}
				checkRowFields(t, row, w)
				checkRowFields(t, row, w+1)
				if w > 1 {
					checkRowFields(t, row, w-1)
				}
			}
		}
	}
}

// TestRowFieldsJunk: a plain row with a byte replaced, inserted or dropped at every position.
func TestRowFieldsJunk(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	junk := []byte{0, '\t', ' ', '+', ',', '-', '.', '/', ':', 'a', '0' - 1, '9' + 1, '\n', '\r',
		0x7f, 0x80, 0xb0, 0xfa, 0xff}
	for _, w := range rowWidths {
		for round := 0; round < 3; round++ {
			row := strings.Join(plainRow(rng, w), ",")
			if round == 1 {
				row += ","
			}
			for i := 0; i <= len(row); i++ {
				c := junk[rng.Intn(len(junk))]
				if i < len(row) {
					checkRowFields(t, row[:i]+string(c)+row[i+1:], w)
					checkRowFields(t, row[:i]+row[i+1:], w)
				}
				checkRowFields(t, row[:i]+string(c)+row[i:], w)
				checkRowFields(t, row[:i], w) // cut short
			}
		}
	}
}

// TestRowFieldsWindows: rows of plain fields of every alignment against the AVX2 reader's
// 64-byte windows (a field, its comma or the row's end at each offset), many windows long.
func TestRowFieldsWindows(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for lead := 1; lead <= 19; lead++ {
		for n := 0; n < 200; n++ {
			w := 1 + rng.Intn(numCols-1) // (a column per field: none written twice)
			f := plainRow(rng, w)
			f[0] = randDigits(rng, lead)
			row := strings.Join(f, ",")
			if rng.Intn(2) == 0 {
				row += ","
			}
			checkRowFields(t, row, w)
		}
	}
}

// BenchmarkRowFields reads benchgen's 17- and 23-column rows (rowFields alone).
func BenchmarkRowFields(b *testing.B) {
	rows := []string{
		"0,100019666667,100019666667,9223372036854775807,0,100020174586,100020274586,100020374586,100020674586,100021674586,100021774586,100021974586,100023674586,100025706262,30791,201979,100025706262,",
		"0,5000001,100019666667,100019666667,0,100020174586,100020274586,100020374586,100020674586,100053000001,100020074586,16666667,100021674586,100021774586,100021974586,100023674586,100025706262,30791,201979,100025706262,100024174586,0,100023874586,",
	}
	for _, r := range rows {
		w := countFields([]byte(r))
		b.Run(strconv.Itoa(w), func(b *testing.B) {
			buf := []byte(r + "\n" + strings.Repeat(r+"\n", 2))
			l := buf[:len(r)]
			p := &parser{ps: &Parser{}}
			var row [numCols]int64
			cols := layoutFor(w)
			for i := 0; i < b.N; i++ {
				rowFields(p.padded(l), len(l), cols, &row)
			}
		})
	}
}
