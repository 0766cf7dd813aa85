// Package logcat reads Android logcat text — from a device stream, a captured file or stdin —
// and turns it into fpstop events: main-thread Looper messages (the app's Looper printer
// ">>>>> Dispatching to …" / "<<<<< Finished to …" lines paired per thread), unpaired printer
// lines, Choreographer "Skipped N frames!" lines, and the system's and vendors' slow-Looper
// warnings (DESIGN §5).
//
// The line parser is hand-written and works on byte offsets: no regular expression runs on the
// hot path, integers and timestamps are parsed by hand, and a timestamp is converted only for a
// line that turns out to matter. A line that is not a Looper or Choreographer line costs a header
// scan and a few byte searches, and allocates nothing.
//
// The package never imports metrics, ui, record or device: a Streamer (implemented by the device
// layer) hands it the text of a running `logcat` command.
package logcat

import (
	"bytes"
)

// tsKind says how a line's timestamp is written.
type tsKind uint8

const (
	tsNone     tsKind = iota
	tsMonthDay        // MM-DD HH:MM:SS[.frac] (threadtime, time, long, Android Studio without year)
	tsYear            // YYYY-MM-DD HH:MM:SS[.frac] (-v year, Android Studio copies)
	tsSeconds         // seconds.frac (-v monotonic: since boot; -v epoch: since 1970)
)

// Line is one parsed logcat entry. Its byte slices alias the input line (or the parser's copy
// of a long-format header) and are valid only until the next call to Parse.
type Line struct {
	// Pid and Tid are the process and thread ids, 0 when the format does not carry them.
	Pid, Tid int
	// Level is the priority letter (V, D, I, W, E, F, S, A), 0 when unknown.
	Level byte
	// Tag is the log tag (right-trimmed), empty when the format has none.
	Tag []byte
	// Pkg is the package name printed by Android Studio copies, empty otherwise.
	Pkg []byte
	// Msg is the message text.
	Msg []byte

	ts     []byte
	tsKind tsKind
}

// HasTime reports whether the line carries a timestamp.
func (l *Line) HasTime() bool { return l.tsKind != tsNone }

// Parser parses logcat lines in every common text format: threadtime, brief, time, tag,
// process, thread, long (a "[ time pid:tid L/tag ]" header line followed by message lines),
// raw, the -v year/usec/nsec/monotonic/epoch/zone/uid modifiers, Android Studio copies (old and
// new layouts, with and without date, the old "﹕" separator, tagless "V: …"), Eclipse/DDMS
// ("MM-DD HH:MM:SS.mmm: I/Tag(pid): msg") and the Logcat Reader app's bracket layout. It keeps
// the little state the formats need (the current long-format header, year roll-over of
// year-less dates). The zero value is ready to use.
type Parser struct {
	longMode bool
	longHdr  Line
	longBuf  []byte

	haveLast bool
	lastDays int64 // day number (with roll-overs added) of the last converted year-less date
	yearAdd  int64 // days added to year-less dates for year roll-overs

	// The last year-less "MM-DD HH:MM:SS" converted (its 14 bytes)
	// and its ns without the fraction: consecutive lines mostly share their second.
	secKey [14]byte
	secNs  int64
	secOK  bool
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLevel(c byte) bool {
	switch c {
	case 'V', 'D', 'I', 'W', 'E', 'F', 'S', 'A':
		return true
	}
	return false
}

// Parse parses one line (without its '\n'; a trailing '\r' and a UTF-8 byte-order mark are
// dropped). It returns false for lines that carry no log message: blank lines, long-format
// headers (their message follows on the next lines) and "--------- beginning of …" dividers.
// A line in no known format is returned whole as the message, with no time, pid or tag.
func (p *Parser) Parse(b []byte, l *Line) bool {
	b = trimLine(b)
	var h ttHeader
	if scanThreadtime(b, &h) {
		p.longMode = false
		h.fill(b, l)
		return true
	}
	return p.parseOther(b, l)
}

// trimLine drops a trailing '\r' and a leading UTF-8 byte-order mark.
func trimLine(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		b = b[3:]
	}
	return b
}

// parseOther is Parse for a line (trimmed) that is not plain threadtime.
func (p *Parser) parseOther(b []byte, l *Line) bool {
	*l = Line{}
	if len(b) == 0 {
		return false
	}
	c := b[0]
	switch {
	case isDigit(c) || c == ' ':
		if p.parseTimed(b, l) {
			return true
		}
		*l = Line{}
	case c == '[':
		if p.parseLongHeader(b) {
			return false
		}
	case c == '-':
		if bytes.HasPrefix(b, []byte("--------- ")) {
			return false
		}
	}
	if p.longMode {
		*l = p.longHdr
		l.Msg = b
		return true
	}
	if isLevel(c) && len(b) >= 2 && parseLevelFirst(b, 0, l) {
		return true
	}
	*l = Line{Msg: b}
	return true
}

// scanTS recognises a timestamp starting at b[i] (leading spaces allowed for seconds.frac) and
// returns its kind, its first byte and the index just past it.
func scanTS(b []byte, i int) (kind tsKind, start, end int) {
	i0 := i
	for i < len(b) && b[i] == ' ' {
		i++
	}
	start = i
	j := i
	for j < len(b) && isDigit(b[j]) {
		j++
	}
	nd := j - i
	if nd == 0 || j >= len(b) {
		return tsNone, 0, 0
	}
	switch b[j] {
	case '.':
		k := j + 1
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k == j+1 || nd > 12 || (k < len(b) && b[k] != ' ') {
			return tsNone, 0, 0
		}
		return tsSeconds, start, k
	case '-':
		var t int // index of HH
		switch {
		case nd == 2 && start == i0:
			// MM-DD HH...
			if j+3 >= len(b) || !isDigit(b[j+1]) || !isDigit(b[j+2]) || b[j+3] != ' ' {
				return tsNone, 0, 0
			}
			kind, t = tsMonthDay, j+4
		case nd == 4 && start == i0:
			// YYYY-MM-DD HH...
			if j+6 >= len(b) || !isDigit(b[j+1]) || !isDigit(b[j+2]) || b[j+3] != '-' ||
				!isDigit(b[j+4]) || !isDigit(b[j+5]) || b[j+6] != ' ' {
				return tsNone, 0, 0
			}
			kind, t = tsYear, j+7
		default:
			return tsNone, 0, 0
		}
		if t+8 > len(b) || !isDigit(b[t]) || !isDigit(b[t+1]) || b[t+2] != ':' ||
			!isDigit(b[t+3]) || !isDigit(b[t+4]) || b[t+5] != ':' || !isDigit(b[t+6]) || !isDigit(b[t+7]) {
			return tsNone, 0, 0
		}
		end = t + 8
		if end < len(b) && b[end] == '.' {
			k := end + 1
			for k < len(b) && isDigit(b[k]) {
				k++
			}
			end = k
		}
		return kind, start, end
	}
	return tsNone, 0, 0
}

// parseTimed parses lines that start with a timestamp, or with Android Studio's "pid-tid/pkg".
func (p *Parser) parseTimed(b []byte, l *Line) bool {
	kind, start, end := scanTS(b, 0)
	pos := 0
	if kind == tsNone {
		// Android Studio without date: "17987-17987/com.pkg D/tag: msg".
		j := 0
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j == 0 || j+1 >= len(b) || b[j] != '-' || !isDigit(b[j+1]) {
			return false
		}
	} else {
		l.ts, l.tsKind = b[start:end], kind
		pos = end
		// -v zone: " +0800".
		if pos+6 <= len(b) && b[pos] == ' ' && (b[pos+1] == '+' || b[pos+1] == '-') &&
			isDigit(b[pos+2]) && isDigit(b[pos+3]) && isDigit(b[pos+4]) && isDigit(b[pos+5]) {
			pos += 6
		}
		// Eclipse/DDMS: "MM-DD HH:MM:SS.mmm: I/Tag(pid): msg".
		if pos < len(b) && b[pos] == ':' {
			pos++
		}
	}
	if !parseRest(b, pos, l) {
		if kind == tsNone {
			return false
		}
		// A timestamp followed by something we do not know: keep the time, the rest is the message.
		for pos < len(b) && b[pos] == ' ' {
			pos++
		}
		l.Msg = b[pos:]
	}
	if p.longMode {
		p.longMode = false
	}
	return true
}

// parseRest parses what follows the timestamp: up to three header tokens (pid, tid, uid, or
// Android Studio's "pid-tid/pkg", tag and package), then the priority letter and the tag and
// message in the layout the tokens imply.
func parseRest(b []byte, pos int, l *Line) bool {
	var toks [3][]byte
	nt := 0
	for {
		for pos < len(b) && b[pos] == ' ' {
			pos++
		}
		if pos >= len(b) {
			return false
		}
		c := b[pos]
		if isLevel(c) && (pos+1 == len(b) || b[pos+1] == ' ') {
			l.Level = c
			assignTokens(toks[:nt], l)
			pos++
			if nt > 0 && isPidTid(toks[0]) && nt >= 2 {
				// New Android Studio layout: "pid-tid tag pkg L  msg".
				l.Tag = toks[1]
				if nt == 3 {
					l.Pkg = toks[2]
				}
				for pos < len(b) && b[pos] == ' ' {
					pos++
				}
				l.Msg = b[pos:]
				return true
			}
			// threadtime: "L tag     : msg".
			if pos < len(b) {
				pos++
			}
			k := bytes.Index(b[pos:], []byte(": "))
			if k < 0 {
				if n := len(b); n > pos && b[n-1] == ':' {
					l.Tag = trimRight(b[pos : n-1])
					l.Msg = b[n:]
					return true
				}
				l.Msg = b[pos:]
				return true
			}
			l.Tag = trimRight(b[pos : pos+k])
			l.Msg = b[pos+k+2:]
			return true
		}
		if isLevel(c) && pos+1 < len(b) && (b[pos+1] == '/' || b[pos+1] == '(' || b[pos+1] == ':') {
			if parseLevelFirst(b, pos, l) {
				assignTokens(toks[:nt], l)
				return true
			}
		}
		if nt == len(toks) {
			return false
		}
		e := pos
		for e < len(b) && b[e] != ' ' {
			e++
		}
		toks[nt] = b[pos:e]
		nt++
		pos = e
	}
}

// isPidTid reports whether tok is Android Studio's "pid-tid" or "pid-tid/pkg".
func isPidTid(tok []byte) bool {
	i := 0
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	return i > 0 && i+1 < len(tok) && tok[i] == '-' && isDigit(tok[i+1])
}

// assignTokens sets pid, tid and package from the header tokens before the priority letter.
func assignTokens(toks [][]byte, l *Line) {
	if len(toks) == 0 {
		return
	}
	if isPidTid(toks[0]) {
		t := toks[0]
		pid, i := atoi(t, 0)
		tid, j := atoi(t, i+1)
		l.Pid, l.Tid = pid, tid
		if j < len(t) && t[j] == '/' {
			l.Pkg = t[j+1:]
		}
		return
	}
	// threadtime "pid tid", -v uid "uid pid tid": the last two numbers are pid and tid.
	n := len(toks)
	if n >= 2 && allDigits(toks[n-2]) && allDigits(toks[n-1]) {
		l.Pid, _ = atoi(toks[n-2], 0)
		l.Tid, _ = atoi(toks[n-1], 0)
		return
	}
	if allDigits(toks[n-1]) {
		l.Pid, _ = atoi(toks[n-1], 0)
	}
}

// parseLevelFirst parses layouts that start with the priority letter at b[pos]: brief/tag/time
// "L/Tag(pid): msg" and "L/Tag: msg" (also with Android Studio's "﹕"), process/thread
// "L( pid) msg" / "L( pid: tid) msg", and tagless Android Studio copies "L: msg".
func parseLevelFirst(b []byte, pos int, l *Line) bool {
	if pos+1 >= len(b) {
		return false
	}
	c := b[pos]
	switch b[pos+1] {
	case '/':
		s := pos + 2
		k, sepLen := -1, 0
		// The tag ends at its first colon, with or without a space after it
		// ("I/Choreographer:Skipped 173 frames!" is a real line).
		for i := s; i < len(b); i++ {
			if b[i] == ':' {
				k, sepLen = i, 1
				break
			}
			if b[i] == 0xEF && i+2 < len(b) && b[i+1] == 0xB9 && b[i+2] == 0x95 {
				k, sepLen = i, 3
				break
			}
		}
		if k < 0 {
			return false
		}
		tag := b[s:k]
		// The pid in parentheses or (Logcat Reader and others) in brackets: "Tag(123)", "Tag[123]".
		if n := len(tag); n > 0 && (tag[n-1] == ')' || tag[n-1] == ']') {
			open := byte('(')
			if tag[n-1] == ']' {
				open = '['
			}
			if o := bytes.LastIndexByte(tag, open); o >= 0 {
				inner := bytes.TrimSpace(tag[o+1 : n-1])
				if allDigits(inner) {
					l.Pid, _ = atoi(inner, 0)
					tag = tag[:o]
				}
			}
		}
		l.Level = c
		l.Tag = trimRight(tag)
		m := k + sepLen
		if m < len(b) && b[m] == ' ' {
			m++
		}
		l.Msg = b[m:]
		return true
	case '(':
		i := pos + 2
		for i < len(b) && b[i] == ' ' {
			i++
		}
		pid, j := atoi(b, i)
		if j == i {
			return false
		}
		tid := 0
		if j < len(b) && b[j] == ':' {
			k := j + 1
			for k < len(b) && b[k] == ' ' {
				k++
			}
			var e int
			tid, e = atoi(b, k)
			if e == k {
				return false
			}
			j = e
		}
		if j >= len(b) || b[j] != ')' {
			return false
		}
		j++
		if j < len(b) && b[j] == ' ' {
			j++
		}
		l.Level, l.Pid, l.Tid = c, pid, tid
		l.Msg = b[j:]
		return true
	case ':':
		if pos+2 < len(b) && b[pos+2] != ' ' {
			return false
		}
		l.Level = c
		m := pos + 2
		if m < len(b) {
			m++
		}
		l.Msg = b[m:]
		return true
	}
	return false
}

// parseLongHeader parses "[ MM-DD HH:MM:SS.mmm  pid: tid L/Tag ]" (logcat -v long, also with
// the year/usec/monotonic/uid modifiers) and the Logcat Reader app's
// "[MM-DD HH:MM:SS.mmm pid:tid L/Tag]". On success the header applies to the following lines.
func (p *Parser) parseLongHeader(b []byte) bool {
	n := len(b)
	for n > 0 && b[n-1] == ' ' {
		n--
	}
	if n < 2 || b[n-1] != ']' {
		return false
	}
	i := 1
	for i < n && b[i] == ' ' {
		i++
	}
	kind, start, end := scanTS(b, i)
	if kind == tsNone {
		return false
	}
	var nums [3]int
	nn := 0
	pos := end
	for {
		for pos < n && (b[pos] == ' ' || b[pos] == ':') {
			pos++
		}
		if pos >= n {
			return false
		}
		if isDigit(b[pos]) {
			v, e := atoi(b, pos)
			if nn == len(nums) {
				return false
			}
			nums[nn] = v
			nn++
			pos = e
			continue
		}
		break
	}
	if !isLevel(b[pos]) || pos+1 >= n || b[pos+1] != '/' {
		return false
	}
	// Copy the header: its slices must outlive this line.
	p.longBuf = append(p.longBuf[:0], b[:n]...)
	h := Line{Level: b[pos], ts: p.longBuf[start:end], tsKind: kind}
	h.Tag = bytes.TrimSpace(p.longBuf[pos+2 : n-1])
	switch {
	case nn >= 2:
		h.Pid, h.Tid = nums[nn-2], nums[nn-1]
	case nn == 1:
		h.Pid = nums[0]
	}
	p.longHdr = h
	p.longMode = true
	return true
}

func trimRight(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t') {
		n--
	}
	return b[:n]
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// atoi parses the decimal digits at b[i:] (at most 18) and returns the value and the index
// after the last digit (i when there is none).
func atoi(b []byte, i int) (int, int) {
	v := 0
	j := i
	for j < len(b) && isDigit(b[j]) && j-i < 18 {
		v = v*10 + int(b[j]-'0')
		j++
	}
	return v, j
}

// cumDays is the day of a leap year each month starts on, so that "02-29" is a valid year-less
// date.
var cumDays = [12]int64{0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335}

const (
	nsPerSec = int64(1e9)
	nsPerDay = 86400 * nsPerSec
)

// TimeNs converts the line's timestamp to nanoseconds (0 when it has none):
//   - seconds.frac (-v monotonic, -v epoch): the value itself (CLOCK_MONOTONIC for monotonic);
//   - dates with a year: nanoseconds since 1970-01-01 in the log's own time zone;
//   - year-less dates (threadtime, time, long): nanoseconds since an arbitrary epoch, monotonic
//     within a file: a date more than half a year before the previous one is taken as the next
//     year (a log running over New Year).
func (p *Parser) TimeNs(l *Line) int64 { return p.stampNs(l.tsKind, l.ts) }

// stampNs is TimeNs of a timestamp b written as kind.
func (p *Parser) stampNs(kind tsKind, b []byte) int64 {
	switch kind {
	case tsSeconds:
		secs, i := atoi(b, 0)
		return int64(secs)*nsPerSec + frac(b, i)
	case tsMonthDay:
		if len(b) < 14 {
			return 0
		}
		if p.secOK && [14]byte(b) == p.secKey {
			// the same second as the last conversion: the same days, no roll-over to check
			return p.secNs + frac(b, 14)
		}
		mo, _ := atoi(b[0:2], 0)
		d, _ := atoi(b[3:5], 0)
		if mo < 1 || mo > 12 || d < 1 || d > 31 {
			return 0
		}
		days := cumDays[mo-1] + int64(d-1) + p.yearAdd
		if p.haveLast && days < p.lastDays-183 {
			p.yearAdd += 366
			days += 366
		}
		p.haveLast, p.lastDays = true, days
		copy(p.secKey[:], b)
		p.secOK = true
		p.secNs = days*nsPerDay + clock(b[:14], 6)
		return p.secNs + frac(b, 14)
	case tsYear:
		y, _ := atoi(b[0:4], 0)
		mo, _ := atoi(b[5:7], 0)
		d, _ := atoi(b[8:10], 0)
		if mo < 1 || mo > 12 || d < 1 || d > 31 {
			return 0
		}
		return daysFromCivil(int64(y), int64(mo), int64(d))*nsPerDay + clock(b, 11)
	}
	return 0
}

// clock converts "HH:MM:SS[.frac]" at b[i:] to ns since midnight.
func clock(b []byte, i int) int64 {
	h := int64(b[i]-'0')*10 + int64(b[i+1]-'0')
	m := int64(b[i+3]-'0')*10 + int64(b[i+4]-'0')
	s := int64(b[i+6]-'0')*10 + int64(b[i+7]-'0')
	return (h*3600+m*60+s)*nsPerSec + frac(b, i+8)
}

// frac converts ".ddd…" at b[i:] (any number of digits, extra ones beyond ns ignored) to ns.
func frac(b []byte, i int) int64 {
	if i >= len(b) || b[i] != '.' {
		return 0
	}
	var v int64
	for j, k := i+1, 0; j < len(b) && isDigit(b[j]); j, k = j+1, k+1 {
		if k < len(fracScale) {
			v += int64(b[j]-'0') * fracScale[k]
		}
	}
	return v
}

// fracScale is what each digit after the point is worth in ns.
var fracScale = [...]int64{1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 1}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
