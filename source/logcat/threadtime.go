package logcat

import "bytes"

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
	j, ok := h.ids(b, i)
	if !ok {
		return h, false
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

// threadtimeNs is TimeNs for the timestamp of a plain threadtime line ("MM-DD HH:MM:SS." and
// its digits, as scanThreadtime accepts it), without building a Line.
func (p *Parser) threadtimeNs(ts []byte) int64 {
	l := Line{ts: ts, tsKind: tsMonthDay}
	return p.TimeNs(&l)
}
