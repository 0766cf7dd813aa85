// A block's rows read without looking for their line's end first.

package gfxinfo

// The rows of a PROFILEDATA block are nearly all as long as the row before them (fixed-width
// timestamps: 94 % of benchgen's rows). The row reader accepts a row only when every byte of it
// is a digit, a comma or a sign, so a line's end need not be searched for (bytes.IndexByte, then
// the line's checks in parseChunk and blockLine): when the byte as far from the line's start as
// the last row was long is a newline and the text up to it reads as a row, no newline comes
// before it, and that text is the line. Anything else (another length, a line that is not a
// plain row, a CRLF row, too little text after it for the reader's padding) is read as before.

// useFastRow selects fastRows (a test turns it off to compare with the lines read as before).
var useFastRow = true

// wantReplay reports whether the line at hand is first offered to replay (parseChunk).
func (p *parser) wantReplay() bool {
	return p.tryReplay && len(p.cols) > 0 && len(p.ps.prevRec) > 0 && p.missed <= 8*len(p.ps.prevRec)+1024
}

// fastRows reads the lines from pos on, inside a block with a layout installed and not offered
// to replay, as dataRow would while each is a recordable row of p.rowLen bytes followed by a
// newline, and returns where the text it read ends (pos when it read none; the next line is then
// read as usual). It is dataRow's stable path for that one case, every check that cannot fail on
// such a line left out.
//
// Measured with callgrind (GOMAXPROCS=1, self cost of the parse stage's functions): fs17-200k
// 199.3 M → 179.8 M instructions, fs23-200k 218.7 M → 198.0 M (indexbytebody 14.0 → 6.8 M,
// parseChunk 17.5 → 10.2 M, dataRow 9.0 → 0.2 M) as one call a row; as a loop over the rows,
// fastRows and parseChunk 27.6 → 23.4 M (fs17-200k) and 27.9 → 23.7 M (fs23-200k) more.
func (p *parser) fastRows(pos int) int {
	data, n, ps := p.chunk, p.rowLen, p.ps
	// (n ≥ 15: the line with its newline is recordable; the text after the row is its padding,
	// its first byte the newline.)
	if n < 15 || !ps.stable || p.win < 0 {
		return pos
	}
	w, cols := p.curWin(), p.cols
	for pos+n+rowPad <= len(data) && data[pos+n] == '\n' && data[pos]-'0' <= 9 && len(ps.rec) < maxRecRows {
		// The ring slot is claimed as dataRow claims it. (When the text is not a row after all,
		// the slot is lost: the row it held is no longer replayed but read, to the same values.)
		row, seq := ps.claimRow(cols)
		if rowFields(data[pos:pos+n+rowPad], n, cols, row) != rowOK {
			return pos
		}
		end := pos + n + 1
		p.lineStart, p.lineEnd = pos, end
		if w.Columns == 0 {
			w.Columns = len(cols)
		}
		p.recordRow(seq)
		p.emitRow(w, row)
		pos = end
	}
	return pos
}
