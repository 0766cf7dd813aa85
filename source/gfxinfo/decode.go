// The byte-slice helpers and the integer reader the parser shares.

package gfxinfo

import "strconv"

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
	v, _, ok := parseInt(trimLeft(b))
	return v, ok
}

// parseInt parses the (optionally signed) decimal integer at the start of b: its value, its
// length, and false when there is none or it overflows an int64.
func parseInt(b []byte) (int64, int, bool) {
	n := 0
	if n < len(b) && (b[n] == '-' || b[n] == '+') {
		n++
	}
	for n < len(b) && b[n]-'0' <= 9 {
		n++
	}
	v, err := strconv.ParseInt(string(b[:n]), 10, 64)
	return v, n, err == nil
}
