package logcat

import "bytes"

// Block decodes every complete line of block (each ending in '\n'), as Line would one by one,
// and returns the index just past the last '\n' (0 when there is none) and the last complete
// line. A plain threadtime line is read by its header's offsets (scanThreadtime), and a Line
// is built only for the lines that are not plain threadtime.
func (d *Decoder) Block(block []byte) (end int, last []byte) {
	pos, lastPos := 0, -1
	for {
		i := bytes.IndexByte(block[pos:], '\n')
		if i < 0 {
			break
		}
		d.fastLine(block[pos : pos+i])
		lastPos = pos
		pos += i + 1
	}
	if lastPos >= 0 {
		last = block[lastPos : pos-1]
	}
	return pos, last
}

// fastLine decodes one line exactly as Line does.
func (d *Decoder) fastLine(line []byte) {
	b := line
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) <= 20 || b[2] != '-' {
		d.Line(line)
		return
	}
	t, ok := scanThreadtime(b)
	if !ok {
		d.Line(line)
		return
	}
	d.plain(b, t.msg, t.tsEnd, t.pid, t.tid)
}

// plain decodes a line scanThreadtime accepted, without building a Line for a line that does
// not matter.
// b[msg:] is the message, b[:tsEnd] the timestamp.
func (d *Decoder) plain(b []byte, msg, tsEnd, pid, tid int) {
	d.stats.Lines++
	d.stats.LogLines++
	d.p.longMode = false
	m := b[msg:]
	keep := d.keeps(pid, nil)
	// The printer's own lines, most of those that matter, are told by their first word
	// without classify (and a Finished line by the target it closes: see closes).
	if keep {
		if bytes.HasPrefix(m, dispatchMark) {
			at := d.p.threadtimeNs(b[:tsEnd])
			d.nowNs = max(d.nowNs, at)
			d.stats.Dispatching++
			d.dispatch(pid, tid, m[dispatchMarkLen:], at, true)
			return
		}
		if d.closes(m, b[:tsEnd], pid, tid) {
			return
		}
	}
	kind, rest := classify(m)
	if kind == kindNone || !keep {
		return
	}
	// no Line is built: the header's offsets give all a kept line needs
	d.act(kind, rest, pid, tid, d.p.threadtimeNs(b[:tsEnd]), true)
}
