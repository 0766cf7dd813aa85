// Decoding of captured text and the hand-written integer readers the parser shares.

package gfxinfo

import (
	"bytes"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

var dumpHeader = []byte("Applications Graphics Acceleration Info:")

// Split cuts already-decoded text into dumps at each "Applications Graphics Acceleration
// Info:" line. Text before the first such line (or all of it, when there is none) is a dump of
// its own when it is not blank.
func Split(data []byte) [][]byte {
	var out [][]byte
	start := 0
	pos := 0
	for {
		i := bytes.Index(data[pos:], dumpHeader)
		if i < 0 {
			break
		}
		at := pos + i
		// Only at a line start (allowing leading blanks).
		ls := at
		for ls > 0 && (data[ls-1] == ' ' || data[ls-1] == '\t') {
			ls--
		}
		if ls == 0 || data[ls-1] == '\n' {
			if ls > start && !blank(data[start:ls]) {
				out = append(out, data[start:ls])
			}
			start = ls
		}
		pos = at + len(dumpHeader)
	}
	if start < len(data) && !blank(data[start:]) {
		out = append(out, data[start:])
	}
	return out
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// Decode returns data as UTF-8: UTF-16LE/BE with a byte-order mark (Windows PowerShell's `>`
// redirect writes those) is converted, a UTF-8 BOM is removed. Other input is returned as is.
func Decode(data []byte) []byte {
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		return data[3:]
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		return decodeUTF16(data[2:], false)
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		return decodeUTF16(data[2:], true)
	case len(data) >= 4 && data[1] == 0 && data[3] == 0 && data[0] != 0 && data[2] != 0:
		return decodeUTF16(data, false) // UTF-16LE without BOM
	}
	return data
}

func decodeUTF16(b []byte, bigEndian bool) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	runes := utf16.Decode(u)
	out := make([]byte, 0, len(runes))
	var buf [4]byte
	for _, r := range runes {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		out = append(out, buf[:n]...)
	}
	if len(out) >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF {
		out = out[3:]
	}
	return out
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
