// Rows a capture's dump repeats from the dump before, replayed in bulk.

package gfxinfo

import (
	"bytes"
	"encoding/binary"
)

// Android prints a window's whole frame ring (120 rows) at every poll, so a capture of polls
// repeats about half of each dump's rows from the dump before, byte for byte and in the same
// order. When the text of the dump before is still at hand (the file source keeps it: see
// dumpReader), a Parser records where each of its PROFILEDATA rows stood and what it read there;
// in the next dump, a row whose text equals a recorded one starts a run of rows replayed from
// the record, each compared with the text at hand and given the values read before, without
// splitting its line or reading its fields. (The row cache did the same row by row, copying
// every new row's text into it: a hash, a lookup and a copy per row.)
//
// A row's values depend only on its text and the column layout it was read with, and a line
// equal to a recorded row goes straight to the row reader whenever a layout is installed:
// replayed rows are what reading them would give, emitted the same way (emit), so damaged
// input reads exactly as before. Rows are only recorded when their line ends with a newline,
// so a replayed line never runs on into text the recorded one did not have.

// recRow is a PROFILEDATA row of the dump before: its line's text (newline included) is
// prevText[start:end], read as row with the layout prevLayouts[layout]. (It holds no pointer,
// so recording one is a plain copy.)
type recRow struct {
	start, end int
	head, tail uint64 // the line's first and last 8 bytes, compared before the whole text
	layout     int
	row        [numCols]int64
}

// maxRecRows bounds the rows a dump records (a full dump of every process holds a few
// thousand); rows past it are read as usual.
const maxRecRows = 8192

// recordRow records the current line, read as row with the current layout, for the next dump
// (stable mode only).
func (p *parser) recordRow(row *[numCols]int64) {
	ps := p.ps
	s, e := p.lineStart, p.lineEnd
	p.rowLine = true
	if !ps.stable || !p.inBlock || e-s < 16 || p.chunk[e-1] != '\n' || len(ps.rec) >= maxRecRows {
		return
	}
	lay := len(ps.recLayouts) - 1
	if lay < 0 || !sameCols(ps.recLayouts[lay], p.cols) {
		lay = layoutIndex(ps.recLayouts, p.cols)
		if lay < 0 {
			lay = len(ps.recLayouts)
			ps.recLayouts = append(ps.recLayouts, p.cols)
		}
	}
	n := len(ps.rec)
	if n == cap(ps.rec) {
		ps.rec = append(ps.rec, recRow{})
	}
	ps.rec = ps.rec[:n+1]
	rr := &ps.rec[n]
	rr.start, rr.end, rr.layout = s, e, lay
	rr.row = *row
	rr.head, rr.tail = binary.LittleEndian.Uint64(p.chunk[s:]), binary.LittleEndian.Uint64(p.chunk[e-8:])
}

// layoutIndex returns the index of layout cols (the same slice) in layouts, -1 when absent.
func layoutIndex(layouts [][]int, cols []int) int {
	for i, c := range layouts {
		if sameCols(c, cols) {
			return i
		}
	}
	return -1
}

// replay replays the rows of the dump before that the text at pos (a line start inside a
// block, a layout installed) repeats, and returns where the text they took ends (pos when it
// repeats none).
func (p *parser) replay(pos int) int {
	ps := p.ps
	text := p.chunk[pos:]
	if len(text) < 16 {
		return pos
	}
	lay := layoutIndex(ps.prevLayouts, p.cols)
	if lay < 0 {
		return pos // no row of the dump before was read with this layout
	}
	head := binary.LittleEndian.Uint64(text)
	// Search from the row after the last one replayed: the blocks of a dump come in the order
	// the dump before printed them.
	r, n := -1, len(ps.prevRec)
	for k, i := 0, p.hint; k < n; k, i = k+1, i+1 {
		if i == n {
			i = 0
		}
		rr := &ps.prevRec[i]
		if rr.head == head && rr.end-rr.start <= len(text) &&
			binary.LittleEndian.Uint64(text[rr.end-rr.start-8:]) == rr.tail &&
			rr.layout == lay && bytes.Equal(text[:rr.end-rr.start], ps.prevText[rr.start:rr.end]) {
			r = i
			break
		}
	}
	if r < 0 {
		// A new row: whole searches are bounded per dump (damaged text could ask for one at
		// every line).
		p.missed += n
		return pos
	}
	w := p.curWin()
	for {
		rr := &ps.prevRec[r]
		n := rr.end - rr.start
		if w.Columns == 0 {
			w.Columns = len(p.cols)
		}
		p.emitRow(w, &rr.row)
		p.lineStart, p.lineEnd = pos, pos+n
		p.recordRow(&rr.row)
		pos += n
		text = text[n:]
		r++
		p.hint = r
		if r == len(ps.prevRec) || ps.prevRec[r].start != rr.end {
			return pos // the next line was not a row in the dump before
		}
		nx := &ps.prevRec[r]
		if m := nx.end - nx.start; m > len(text) || nx.layout != lay || !bytes.Equal(text[:m], ps.prevText[nx.start:nx.end]) {
			return pos
		}
	}
}

// keepRows makes the rows this dump recorded the ones the next dump replays (chunk is the
// text they were recorded in).
func (ps *Parser) keepRows(chunk []byte) {
	ps.prevRec, ps.rec = ps.rec, ps.prevRec[:0]
	ps.prevLayouts, ps.recLayouts = ps.recLayouts, ps.prevLayouts[:0]
	ps.prevText = chunk
	if len(ps.prevRec) == 0 {
		ps.prevText = nil
	}
}

// forgetRows drops the recorded rows (their text is no longer at hand).
func (ps *Parser) forgetRows() {
	ps.prevRec, ps.rec, ps.prevText = ps.prevRec[:0], ps.rec[:0], nil
	ps.prevLayouts, ps.recLayouts = ps.prevLayouts[:0], ps.recLayouts[:0]
}
