// The byte-slice helpers and the integer reader the parser shares.

package gfxinfo

import (
	"bytes"
	"strconv"
)

var dumpHeader = []byte("Applications Graphics Acceleration Info:")

// blank reports whether b holds only blanks and line ends.
func blank(b []byte) bool { return len(bytes.TrimLeft(b, " \t\r\n")) == 0 }

// trimLeft and trimSpace cut the blanks Android indents and pads with (never line ends).
func trimLeft(b []byte) []byte  { return bytes.TrimLeft(b, " \t") }
func trimSpace(b []byte) []byte { return bytes.Trim(b, " \t") }

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
