package logcat

import "bytes"

// Block decodes every complete line of block (each ending in '\n'), as Line would one by one,
// and returns the index just past the last '\n' (0 when there is none) and the last complete
// line. It is Line's fast path for a buffer of text: a plain threadtime line is classified
// from its header's offsets, and a Line is built only for the few lines that matter.
func (d *Decoder) Block(block []byte) (end int, last []byte) {
	pos := 0
	for {
		i := bytes.IndexByte(block[pos:], '\n')
		if i < 0 {
			return pos, last
		}
		last = block[pos : pos+i]
		d.fastLine(last)
		pos += i + 1
	}
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
	// Parse's fast path, without building a Line for a line that does not matter.
	d.stats.Lines++
	d.stats.LogLines++
	d.p.longMode = false
	kind, rest := classify(b[t.msg:])
	if kind == kindNone {
		return
	}
	l := &d.line
	t.fill(b, l)
	d.handle(l, kind, rest)
}
