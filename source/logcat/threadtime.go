package logcat

import "bytes"

// ttHeader is where the fields of a plain threadtime line are: offsets into the line. Finding
// them reads the line once; the numbers are read only for a line whose message matters (ids;
// the Decoder builds no Line), so an ordinary line costs a scan and no conversion.
type ttHeader struct {
	tsEnd      int // the timestamp is b[:tsEnd]
	pid0, pid1 int // the pid's digits are b[pid0:pid1]
	tid0, tid1 int // the tid's digits; the priority letter is b[tid1+1], the tag starts at tid1+3
	colon      int // the ':' that ends the tag
}

// msg is the index where the message starts.
func (h *ttHeader) msg(n int) int { return min(h.colon+2, n) }

// scanThreadtime reads the commonest layout, plain threadtime
// "MM-DD HH:MM:SS.mmm[uuu[nnn]]  pid  tid L tag     : msg", by its fixed offsets, into h. It
// reports false (leaving the line to the general parser) for anything else. h is the caller's,
// not a result, so that a line costs no copy of it.
func scanThreadtime(b []byte, h *ttHeader) bool {
	n := len(b)
	if n < 21 || b[2] != '-' || b[5] != ' ' || b[8] != ':' || b[11] != ':' || b[14] != '.' ||
		!isDigit(b[0]) || !isDigit(b[1]) || !isDigit(b[3]) || !isDigit(b[4]) || !isDigit(b[6]) || !isDigit(b[7]) ||
		!isDigit(b[9]) || !isDigit(b[10]) || !isDigit(b[12]) || !isDigit(b[13]) {
		return false
	}
	i := skipDigits(b, 15)
	h.tsEnd = i
	// "  pid  tid": any spacing, one to ten digits each
	h.pid0 = skipSpaces(b, i)
	h.pid1 = skipDigits(b, h.pid0)
	if h.pid1 == h.pid0 || h.pid1-h.pid0 > 10 || h.pid1 >= n || b[h.pid1] != ' ' {
		return false
	}
	h.tid0 = skipSpaces(b, h.pid1)
	h.tid1 = skipDigits(b, h.tid0)
	i = h.tid1
	if i == h.tid0 || i-h.tid0 > 10 || i+3 >= n || b[i] != ' ' || !isLevel(b[i+1]) || b[i+2] != ' ' {
		return false
	}
	// the tag ends at the first ':' followed by a space or the end of the line
	k := i + 3
	for {
		j := bytes.IndexByte(b[k:], ':')
		if j < 0 {
			return false
		}
		k += j
		if k+1 == n || b[k+1] == ' ' {
			break
		}
		k++
	}
	h.colon = k
	return true
}

// fill sets l to the line b whose header is h.
func (h *ttHeader) fill(b []byte, l *Line) {
	pid, tid := h.ids(b)
	*l = Line{Pid: pid, Tid: tid, Level: b[h.tid1+1], Tag: trimRight(b[h.tid1+3 : h.colon]), Msg: b[h.msg(len(b)):],
		ts: b[:h.tsEnd], tsKind: tsMonthDay}
}

// ids returns the pid and the tid of the line b whose header is h.
func (h *ttHeader) ids(b []byte) (pid, tid int) {
	return digitsValue(b[h.pid0:h.pid1]), digitsValue(b[h.tid0:h.tid1])
}

// digitsValue is the value of b, decimal digits (at most 18).
func digitsValue(b []byte) int {
	v := 0
	for _, c := range b {
		v = v*10 + int(c-'0')
	}
	return v
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}
