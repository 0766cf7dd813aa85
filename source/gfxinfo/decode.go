// The byte-slice helpers and the hand-written integer reader the parser shares.

package gfxinfo

import "math"

var dumpHeader = []byte("Applications Graphics Acceleration Info:")

// blank reports whether b holds only blanks and line ends.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func trimSpace(b []byte) []byte {
	b = trimLeft(b)
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

// firstInt parses the first (optionally signed) decimal integer in b, skipping leading blanks.
func firstInt(b []byte) (int64, bool) {
	b = trimLeft(b)
	v, n, ok := parseInt(b)
	return v, ok && n > 0
}

// parseInt parses a signed decimal integer at the start of b by hand, returning the value, the
// bytes consumed, and false on overflow or no digits.
func parseInt(b []byte) (int64, int, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	start := i
	var v uint64
	for i < len(b) {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, i, false
		}
		v = v*10 + uint64(c)
		i++
	}
	if i == start {
		return 0, i, false
	}
	if neg {
		if v > 1<<63 {
			return 0, i, false
		}
		return -int64(v), i, true
	}
	if v > math.MaxInt64 {
		return 0, i, false
	}
	return int64(v), i, true
}
