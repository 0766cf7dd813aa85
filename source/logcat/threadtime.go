package logcat

import "bytes"

// parseThreadtime reads the commonest layout, plain threadtime
// "MM-DD HH:MM:SS.mmm[uuu[nnn]]  pid  tid L tag     : msg", by its fixed offsets. It reports
// false (leaving l to the general parser) for anything else.
func parseThreadtime(b []byte, l *Line) bool {
	if len(b) < 21 || b[2] != '-' || b[5] != ' ' || b[14] != '.' || !isDigit(b[0]) || !isDigit(b[1]) || !isDigit(b[3]) || !isDigit(b[4]) || !isDigit(b[6]) || !isDigit(b[7]) ||
		b[8] != ':' || !isDigit(b[9]) || !isDigit(b[10]) || b[11] != ':' || !isDigit(b[12]) || !isDigit(b[13]) {
		return false
	}
	n := len(b)
	i := 15
	for i < n && isDigit(b[i]) {
		i++
	}
	tsEnd := i
	pid, tid, i, ok := ids(b, i)
	if !ok || i+3 >= n || b[i] != ' ' || !isLevel(b[i+1]) || b[i+2] != ' ' {
		return false
	}
	lvl := b[i+1]
	i += 3
	k := i
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
	*l = Line{Pid: pid, Tid: tid, Level: lvl, Tag: trimRight(b[i:k]), Msg: b[min(k+2, n):], ts: b[:tsEnd], tsKind: tsMonthDay}
	return true
}

// ids reads "  pid  tid" at b[i:] (any spacing, up to ten digits each) and returns them and the
// index after the tid.
func ids(b []byte, i int) (pid, tid, end int, ok bool) {
	n := len(b)
	for i < n && b[i] == ' ' {
		i++
	}
	s := i
	for i < n && isDigit(b[i]) && i-s < 10 {
		pid = pid*10 + int(b[i]-'0')
		i++
	}
	if i == s || i >= n || b[i] != ' ' {
		return 0, 0, 0, false
	}
	for i < n && b[i] == ' ' {
		i++
	}
	s = i
	for i < n && isDigit(b[i]) && i-s < 10 {
		tid = tid*10 + int(b[i]-'0')
		i++
	}
	return pid, tid, i, i > s
}
