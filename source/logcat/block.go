package logcat

import "bytes"

// Block decodes every complete line of block (each ending in '\n') with Line and returns the
// index just past the last '\n' (0 when there is none) and the last complete line.
func (d *Decoder) Block(block []byte) (end int, last []byte) {
	pos, lastPos := 0, -1
	for {
		i := bytes.IndexByte(block[pos:], '\n')
		if i < 0 {
			break
		}
		d.Line(block[pos : pos+i])
		lastPos = pos
		pos += i + 1
	}
	if lastPos >= 0 {
		last = block[lastPos : pos-1]
	}
	return pos, last
}
