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
// prevText[start:end], read with the layout prevLayouts[layout] as the values in the ring slot
// of seq (rowVals). (It holds no pointer, so recording one is a plain copy.)
type recRow struct {
	start, end int
	head, tail uint64 // the line's first and last 8 bytes, compared before the whole text
	layout     int
	seq        uint64
}

// maxRecRows bounds the rows a dump records (a full dump of every process holds a few
// thousand); rows past it are read as usual.
const maxRecRows = 8192

// The values of recorded rows are kept in a ring (Parser.vals), each under the sequence number
// it was written with: a row replayed from the dump before is recorded again under the same
// number, its values neither copied nor moved (copying each recorded row's 27 values was a
// quarter of recording it), and a new row is read straight into the next slot. A slot is
// written again len(vals) rows later, so a record whose row is older than that is no longer
// valid (rowVals) and its line is read as usual; a row replayed when half that has passed is
// copied to a new slot, and the ring grows with the rows a dump records (keepRows).
const (
	minVals = 512
	maxVals = 2 * maxRecRows
)

// claim returns the next ring slot and its sequence number, for a row read with layout cols:
// the columns cols lacks are 0 in it. (The number is taken before the slot is written: the
// row it held is no longer valid even when reading the new one fails.)
func (ps *Parser) claim(cols []int) (uint64, *[numCols]int64) {
	if !sameCols(ps.valsCols, cols) {
		ps.clearNext(cols)
	}
	s := ps.seq
	ps.seq++
	return s, &ps.vals[s&uint64(len(ps.vals)-1)]
}

// clearNext prepares the next slot for a row of layout cols when the ring's rows may have
// another: it is cleared (and, before the first row, the ring made). While every row has one
// layout, its other columns stay 0 in every slot: clearing them was 26 instructions a row.
func (ps *Parser) clearNext(cols []int) {
	if len(ps.vals) == 0 {
		size := minVals
		if ps.minVals > 0 {
			size = ps.minVals
		}
		ps.vals, ps.valsCols = make([][numCols]int64, size), cols
		return
	}
	ps.valsCols = nil
	ps.vals[ps.seq&uint64(len(ps.vals)-1)] = [numCols]int64{}
}

// rowVals returns the values recorded under seq, nil when their slot was written again.
func (ps *Parser) rowVals(seq uint64) *[numCols]int64 {
	if n := uint64(len(ps.vals)); n > 0 && ps.seq-seq <= n && seq >= ps.valsFrom {
		return &ps.vals[seq&(n-1)]
	}
	return nil
}

// recordable reports whether the current line, read as a row, is recorded for the next dump
// (stable mode only; the line must end with a newline, so a replayed line never runs on into
// text the recorded one did not have).
func (p *parser) recordable() bool {
	s, e := p.lineStart, p.lineEnd
	return p.ps.stable && p.inBlock && e-s >= 16 && p.chunk[e-1] == '\n' && len(p.ps.rec) < maxRecRows
}

// recordRow records the current line, read with the current layout into the ring slot of seq,
// for the next dump.
func (p *parser) recordRow(seq uint64) {
	s, e := p.lineStart, p.lineEnd
	line := p.chunk[s:e]
	lay := len(p.ps.recLayouts) - 1 // (recLayout, inlined by hand: 25 instructions a row)
	if lay < 0 || !sameCols(p.ps.recLayouts[lay], p.cols) {
		lay = p.addRecLayout()
	}
	r := p.ps.nextRec()
	r.start, r.end, r.layout, r.seq = s, e, lay, seq
	r.head, r.tail = binary.LittleEndian.Uint64(line), binary.LittleEndian.Uint64(line[len(line)-8:])
}

// claimRow returns the ring slot the next recorded row is read into, and its sequence number
// (small enough to be inlined: as a call it was 30 instructions a row).
func (ps *Parser) claimRow(cols []int) (*[numCols]int64, uint64) {
	if !sameCols(ps.valsCols, cols) {
		ps.clearNext(cols)
	}
	seq := ps.seq
	ps.seq++
	return &ps.vals[seq&uint64(len(ps.vals)-1)], seq
}

// nextRec returns a new record at the end of rec, to be written field by field (appending a
// composite literal measured 40 instructions a row).
func (ps *Parser) nextRec() *recRow {
	n := len(ps.rec)
	if n == cap(ps.rec) {
		ps.rec = append(ps.rec, recRow{})
	}
	ps.rec = ps.rec[:n+1]
	return &ps.rec[n]
}

// recLayout returns the index of the current layout in recLayouts, adding it when absent.
func (p *parser) recLayout() int {
	if lay := len(p.ps.recLayouts) - 1; lay >= 0 && sameCols(p.ps.recLayouts[lay], p.cols) {
		return lay
	}
	return p.addRecLayout()
}

func (p *parser) addRecLayout() int {
	ps := p.ps
	lay := layoutIndex(ps.recLayouts, p.cols)
	if lay < 0 {
		lay = len(ps.recLayouts)
		ps.recLayouts = append(ps.recLayouts, p.cols)
	}
	return lay
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
	r := ps.findRec(text, lay, p.hint)
	if r < 0 {
		// A new row: whole searches are bounded per dump (damaged text could ask for one at
		// every line).
		p.missed += len(ps.prevRec)
		return pos
	}
	// The run of rows standing one after the other in the dump before from r on, read with
	// this layout: its text is compared with the text at pos at once, and its rows the text
	// repeats whole are replayed. (Row by row, the compares were as many calls to memequal.)
	prev := ps.prevRec
	e := r + 1
	for e < len(prev) && prev[e].start == prev[e-1].end && prev[e].layout == lay {
		e++
	}
	from := prev[r].start
	run := ps.prevText[from:prev[e-1].end]
	same := commonPrefix(text[:min(len(text), len(run))], run)
	w := p.curWin()
	recLay, shift, half, r0 := p.recLayout(), pos-from, uint64(len(ps.vals)/2), r
	for ; r < e && prev[r].end-from <= same; r++ {
		rr := &prev[r]
		row := ps.rowVals(rr.seq)
		if row == nil {
			break // (its values were written over: the line is read)
		}
		if w.Columns == 0 {
			w.Columns = len(p.cols)
		}
		p.emitRow(w, row)
		p.rowLine = true
		if len(ps.rec) == maxRecRows {
			continue
		}
		seq := rr.seq
		if ps.seq-seq > half {
			// A row replayed dump after dump while others are written: moved ahead of them.
			// (Copied out first: the slot claimed may be its own, and cleared.)
			v := *row
			var to *[numCols]int64
			seq, to = ps.claim(p.cols)
			*to = v
		}
		x := ps.nextRec()
		x.start, x.end, x.head, x.tail, x.layout, x.seq = rr.start+shift, rr.end+shift, rr.head, rr.tail, recLay, seq
	}
	p.hint = r
	if r == r0 {
		return pos
	}
	p.rowLen = prev[r-1].end - prev[r-1].start - 1
	return pos + prev[r-1].end - from
}

// findRec returns the index of the recorded row, read with layout lay, whose line text starts
// with, -1 when there is none. The search starts from the row after the last one replayed
// (hint): the blocks of a dump come in the order the dump before printed them. (Two plain
// loops over the records' first words, where one loop wrapped around with a test per record:
// callgrind, fs17-200k, half of whose blocks search every record in vain, the search took
// 6.2 M instructions in replay, 3.0 M so.)
func (ps *Parser) findRec(text []byte, lay, hint int) int {
	head := binary.LittleEndian.Uint64(text)
	prev := ps.prevRec
	hint = min(hint, len(prev))
	for i := hint; i < len(prev); i++ {
		if prev[i].head == head && ps.isRec(i, text, lay) {
			return i
		}
	}
	for i := 0; i < hint; i++ {
		if prev[i].head == head && ps.isRec(i, text, lay) {
			return i
		}
	}
	return -1
}

// isRec reports whether text starts with the line of record i, read with layout lay.
func (ps *Parser) isRec(i int, text []byte, lay int) bool {
	rr := &ps.prevRec[i]
	n := rr.end - rr.start
	return n <= len(text) && binary.LittleEndian.Uint64(text[n-8:]) == rr.tail &&
		rr.layout == lay && bytes.Equal(text[:n], ps.prevText[rr.start:rr.end])
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
	if n := len(ps.vals); n > 0 && n < maxVals && 4*len(ps.prevRec) > n {
		ps.growVals(4 * len(ps.prevRec))
	}
}

// growVals makes the ring hold at least n rows (a power of two, at most maxVals), moving the
// valid rows to their slots in it.
func (ps *Parser) growVals(n int) {
	old, size := ps.vals, len(ps.vals)
	for size < n && size < maxVals {
		size *= 2
	}
	ps.vals = make([][numCols]int64, size)
	// (Rows older than the old ring's are gone, though the new one would have kept them.)
	ps.valsFrom = ps.seq - min(ps.seq, uint64(len(old)))
	for s := ps.valsFrom; s < ps.seq; s++ {
		ps.vals[s&uint64(size-1)] = old[s&uint64(len(old)-1)]
	}
}

// forgetRows drops the recorded rows (their text is no longer at hand).
func (ps *Parser) forgetRows() {
	ps.prevRec, ps.rec, ps.prevText = ps.prevRec[:0], ps.rec[:0], nil
	ps.prevLayouts, ps.recLayouts = ps.prevLayouts[:0], ps.recLayouts[:0]
}

// wantReplay reports whether the line at hand is first offered to replay (parseChunk).
func (p *parser) wantReplay() bool {
	return p.tryReplay && len(p.cols) > 0 && len(p.ps.prevRec) > 0 && p.missed <= 8*len(p.ps.prevRec)+1024
}
