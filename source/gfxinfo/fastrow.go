// A block's rows read without looking for their line's end first.

package gfxinfo

import "encoding/binary"

// The rows of a PROFILEDATA block are nearly all as long as the row before them (fixed-width
// timestamps: 94 % of benchgen's rows). The row reader accepts a row only when every byte of it
// is a digit, a comma or a sign, so a line's end need not be searched for (bytes.IndexByte, then
// the line's checks in parseChunk and blockLine): when the byte as far from the line's start as
// the last row was long is a newline and the text up to it reads as a row, no newline comes
// before it, and that text is the line. Anything else (another length, a line that is not a
// plain row, a CRLF row, too little text after it for the reader's padding) is read as before.

// useFastRow selects fastRow (a test turns it off to compare with the lines read as before).
var useFastRow = true

// wantReplay reports whether the line at hand is first offered to replay (parseChunk).
func (p *parser) wantReplay() bool {
	return p.tryReplay && len(p.cols) > 0 && len(p.ps.prevRec) > 0 && p.missed <= 8*len(p.ps.prevRec)+1024
}

// fastRow reads the line at pos, inside a block with a layout installed and not offered to
// replay, as dataRow would when it is a recordable row of p.rowLen bytes followed by a newline,
// and returns where the next line starts; 0 when it is not such a row (then the line is read as
// usual). It is dataRow's stable path for that one case, every check that cannot fail on such a
// line left out.
//
// Measured with callgrind (GOMAXPROCS=1, self cost of the parse stage's functions): fs17-200k
// 199.3 M → 179.8 M instructions, fs23-200k 218.7 M → 198.0 M (indexbytebody 14.0 → 6.8 M,
// parseChunk 17.5 → 10.2 M, dataRow 9.0 → 0.2 M; fastRow itself 9.0 M, ~85 a row).
func (p *parser) fastRow(pos int) int {
	data, n, ps := p.chunk, p.rowLen, p.ps
	// (n ≥ 15: the line with its newline is recordable; the text after the row is its padding,
	// its first byte the newline.)
	if n < 15 || pos+n+rowPad > len(data) || data[pos+n] != '\n' || data[pos]-'0' > 9 ||
		!ps.stable || len(ps.rec) >= maxRecRows || p.win < 0 {
		return 0
	}
	// The ring slot is claimed as dataRow claims it. (When the text is not a row after all, the
	// slot is lost: the row it held is no longer replayed but read, to the same values.)
	if !sameCols(ps.valsCols, p.cols) {
		ps.clearNext(p.cols)
	}
	seq := ps.seq
	ps.seq++
	row := &ps.vals[seq&uint64(len(ps.vals)-1)]
	// (rowFields and recordRow inlined by hand: fastRow, recordRow and rowFields took 21.3 M
	// instructions on fs17-200k and on fs23-200k as calls, 17.1 M so.)
	b := data[pos : pos+n+rowPad]
	if !(useRowAVX2 && rowFieldsAVX2(b, n, p.cols, row)) && rowFieldsGo(b, n, p.cols, row) != rowOK {
		return 0
	}
	end := pos + n + 1
	p.lineStart, p.lineEnd = pos, end
	w := p.curWin()
	if w.Columns == 0 {
		w.Columns = len(p.cols)
	}
	lay := len(ps.recLayouts) - 1
	if lay < 0 || !sameCols(ps.recLayouts[lay], p.cols) {
		lay = p.addRecLayout()
	}
	x := ps.nextRec()
	x.start, x.end, x.layout, x.seq = pos, end, lay, seq
	x.head, x.tail = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(data[end-8:])
	p.emitRow(w, row)
	return end
}
