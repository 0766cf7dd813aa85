package logcat

import (
	"bytes"
	"encoding/binary"
)

// The fast path for plain threadtime, the layout `adb logcat -v threadtime` prints.

// parseThreadtime is the fast path for the commonest layout, plain threadtime
// "MM-DD HH:MM:SS.mmm[uuu[nnn]]  pid  tid L tag     : msg". It reports false (leaving l to the
// general parser) for anything else.
func parseThreadtime(b []byte, l *Line) bool {
	h, ok := scanThreadtime(b)
	if !ok {
		return false
	}
	h.fill(b, l)
	return true
}

// ttHeader is where the parts of a plain threadtime line are: offsets into the line, so that
// a line that does not matter is classified without building a Line.
type ttHeader struct {
	pid, tid   int
	tagS, tagE int // the tag, right-trimmed
	msg        int // the message's first byte
	tsEnd      int // the timestamp is b[:tsEnd]
	lvl        byte
}

func (h *ttHeader) fill(b []byte, l *Line) {
	*l = Line{Pid: h.pid, Tid: h.tid, Level: h.lvl, Tag: b[h.tagS:h.tagE], Msg: b[h.msg:], ts: b[:h.tsEnd], tsKind: tsMonthDay}
}

// scanThreadtime recognises plain threadtime (see parseThreadtime) and returns its header.
func scanThreadtime(b []byte) (h ttHeader, ok bool) {
	if len(b) < 21 || b[2] != '-' || b[5] != ' ' || b[14] != '.' || !isDigit(b[0]) || !isDigit(b[1]) || !isDigit(b[3]) || !isDigit(b[4]) || !isDigit(b[6]) || !isDigit(b[7]) ||
		b[8] != ':' || !isDigit(b[9]) || !isDigit(b[10]) || b[11] != ':' || !isDigit(b[12]) || !isDigit(b[13]) {
		return h, false
	}
	n := len(b)
	i := 15
	for i < n && isDigit(b[i]) {
		i++
	}
	h.tsEnd = i
	j, ok := h.fixedIDs(b, i)
	if !ok {
		if j, ok = h.ids(b, i); !ok {
			return h, false
		}
	}
	i = j
	if i+3 >= n || b[i] != ' ' || !isLevel(b[i+1]) || b[i+2] != ' ' {
		return h, false
	}
	h.lvl = b[i+1]
	i += 3
	k := i
	for {
		j := bytes.IndexByte(b[k:], ':')
		if j < 0 {
			return h, false
		}
		k += j
		if k+1 == n || b[k+1] == ' ' {
			break
		}
		k++
	}
	e := k
	for e > i && (b[e-1] == ' ' || b[e-1] == '\t') {
		e--
	}
	h.tagS, h.tagE, h.msg = i, e, min(k+2, n)
	return h, true
}

// ids reads "  pid  tid" at b[i:] (any spacing, up to ten digits each) and returns the index
// after the tid.
func (h *ttHeader) ids(b []byte, i int) (int, bool) {
	n := len(b)
	for i < n && b[i] == ' ' {
		i++
	}
	s := i
	for i < n && isDigit(b[i]) && i-s < 10 {
		h.pid = h.pid*10 + int(b[i]-'0')
		i++
	}
	if i == s || i >= n || b[i] != ' ' {
		return 0, false
	}
	for i < n && b[i] == ' ' {
		i++
	}
	s = i
	for i < n && isDigit(b[i]) && i-s < 10 {
		h.tid = h.tid*10 + int(b[i]-'0')
		i++
	}
	return i, i > s
}

// fixedIDs reads pid and tid where logcat prints them (" %5d %5d " after the timestamp, at i):
// two right-aligned five-byte fields, each spaces then digits. Every line with ids below
// 100000 has them there, and reading them as words costs no mispredicted loop exits on ids of
// varying length. It returns the index of the space after the tid; false (nothing read) when
// the bytes are not laid out so — the general loops then decide.
func (h *ttHeader) fixedIDs(b []byte, i int) (int, bool) {
	if i+13 > len(b) || b[i] != ' ' || b[i+6] != ' ' || b[i+12] != ' ' {
		return 0, false
	}
	pid, ok1 := field5(b[i+1 : i+6])
	tid, ok2 := field5(b[i+7 : i+12])
	if !ok1 || !ok2 {
		return 0, false
	}
	h.pid, h.tid = pid, tid
	return i + 12, true
}

// field5 reads five bytes of spaces followed by at least one digit, without a branch per
// byte (field5OK, field5Value).
func field5(f []byte) (int, bool) {
	_ = f[4]
	x := uint64(f[0]) | uint64(f[1])<<8 | uint64(f[2])<<16 | uint64(f[3])<<24 | uint64(f[4])<<32
	return field5Value(x), field5OK(x)
}

// field5OK reports whether the five bytes of x (the first in the low byte) are spaces followed
// by at least one digit: the bytes as one word, spaces turned into '0' by setting bit 4, every
// byte checked to have been a digit or a leading space.
func field5OK(x uint64) bool {
	const lo5 = 0x0101010101
	z := x | 0x10*lo5 // ' ' (0x20) becomes '0' (0x30); digits keep bit 4
	digitsOK := z&(0xF0*lo5) == 0x30*lo5 && (z+6*lo5)&(0xF0*lo5) == 0x30*lo5
	sp := (x ^ z) >> 4 // 0x01 in the bytes that had bit 4 clear: they must have been ' '
	spacesOK := x&(sp*0x0F) == 0 && x&(sp*0xF0) == sp*0x20
	m := sp * 0xFF // the spaces must lead: low bytes all 0xFF, the rest 0
	leadOK := m&(m+1) == 0 && sp != lo5
	return digitsOK && spacesOK && leadOK
}

// field5Value is the number in a field field5OK accepted.
func field5Value(x uint64) int {
	const lo5 = 0x0101010101
	d := x | 0x10*lo5 - 0x30*lo5
	return int(d&0xFF)*10000 + int(d>>8&0xFF)*1000 + int(d>>16&0xFF)*100 + int(d>>24&0xFF)*10 + int(d>>32&0xFF)
}

// threadtimeNs is TimeNs for the timestamp of a plain threadtime line ("MM-DD HH:MM:SS." and
// its digits, as scanThreadtime and plainLine accept it), without building a Line: most lines
// that matter share their second with the previous one and print milliseconds, read here by a
// function small enough to be inlined; threadtimeNsSlow does the rest.
func (p *Parser) threadtimeNs(ts []byte) int64 {
	if len(ts) == 18 && p.secOK && binary.LittleEndian.Uint64(ts) == p.secKey0 && binary.LittleEndian.Uint64(ts[6:]) == p.secKey1 {
		return p.secNs + int64(ts[15]-'0')*1e8 + int64(ts[16]-'0')*1e7 + int64(ts[17]-'0')*1e6
	}
	return p.threadtimeNsSlow(ts)
}

func (p *Parser) threadtimeNsSlow(ts []byte) int64 {
	if len(ts) == 21 && p.secOK && binary.LittleEndian.Uint64(ts) == p.secKey0 && binary.LittleEndian.Uint64(ts[6:]) == p.secKey1 {
		f := ts[15:]
		return p.secNs + int64(f[0]-'0')*1e8 + int64(f[1]-'0')*1e7 + int64(f[2]-'0')*1e6 +
			int64(f[3]-'0')*1e5 + int64(f[4]-'0')*1e4 + int64(f[5]-'0')*1e3
	}
	l := Line{ts: ts, tsKind: tsMonthDay}
	return p.TimeNs(&l)
}
