// PROFILEDATA blocks: column maps by header name, layouts of headerless rows, and the hot
// row decoder.

package gfxinfo

import (
	"bytes"
	"math"

	"github.com/fpstop/fpstop/source"
)

// Layouts of rows printed without a header, by column count (anchors-android §4.2).
var (
	layout14 = []int{source.ColFlags, source.ColIntendedVsync, source.ColVsync, source.ColOldestInput, source.ColNewestInput,
		source.ColHandleInput, source.ColAnimation, source.ColTraversals, source.ColDrawStart, source.ColSyncQueued, source.ColSyncStart,
		source.ColIssueDraw, source.ColSwapBuffers, source.ColFrameCompleted}
	layout16 = append(append([]int{}, layout14...), source.ColDequeue, source.ColQueue)
	layout17 = append(append([]int{}, layout16...), source.ColGpuCompleted)
	layout20 = []int{source.ColFlags, source.ColVsyncID, source.ColIntendedVsync, source.ColVsync, source.ColInputEventID,
		source.ColHandleInput, source.ColAnimation, source.ColTraversals, source.ColDrawStart, source.ColDeadline, source.ColSyncQueued,
		source.ColSyncStart, source.ColIssueDraw, source.ColSwapBuffers, source.ColFrameCompleted, source.ColDequeue, source.ColQueue,
		source.ColGpuCompleted, source.ColSwapCompleted, source.ColPresent}
	layout22 = []int{source.ColFlags, source.ColVsyncID, source.ColIntendedVsync, source.ColVsync, source.ColInputEventID,
		source.ColHandleInput, source.ColAnimation, source.ColTraversals, source.ColDrawStart, source.ColDeadline, source.ColFrameInterval,
		source.ColFrameStart, source.ColSyncQueued, source.ColSyncStart, source.ColIssueDraw, source.ColSwapBuffers,
		source.ColFrameCompleted, source.ColDequeue, source.ColQueue, source.ColGpuCompleted, source.ColSwapCompleted, source.ColPresent}
	layout23 = append(append([]int{}, layout22...), source.ColCommandSubmission)
	layout24 = []int{source.ColFlags, source.ColVsyncID, source.ColIntendedVsync, source.ColVsync, source.ColInputEventID,
		source.ColHandleInput, source.ColAnimation, source.ColTraversals, source.ColDrawStart, source.ColDeadline, source.ColFrameStart,
		source.ColFrameInterval, source.ColWorkload, source.ColSyncQueued, source.ColSyncStart, source.ColIssueDraw, source.ColSwapBuffers,
		source.ColFrameCompleted, source.ColDequeue, source.ColQueue, source.ColGpuCompleted, source.ColSwapCompleted, source.ColPresent,
		source.ColCommandSubmission}
	// current AOSP (libs/hwui/FrameInfo.cpp, 25 names): AnimationTime after WorkloadTarget
	layout25 = []int{source.ColFlags, source.ColVsyncID, source.ColIntendedVsync, source.ColVsync, source.ColInputEventID,
		source.ColHandleInput, source.ColAnimation, source.ColTraversals, source.ColDrawStart, source.ColDeadline, source.ColFrameStart,
		source.ColFrameInterval, source.ColWorkload, source.ColAnimationTime, source.ColSyncQueued, source.ColSyncStart, source.ColIssueDraw,
		source.ColSwapBuffers, source.ColFrameCompleted, source.ColDequeue, source.ColQueue, source.ColGpuCompleted, source.ColSwapCompleted,
		source.ColPresent, source.ColCommandSubmission}
)

func layoutFor(n int) []int {
	switch n {
	case 14:
		return layout14
	case 16:
		return layout16
	case 17:
		return layout17
	case 20:
		return layout20
	case 22:
		return layout22
	case 23:
		return layout23
	case 24:
		return layout24
	case 25:
		return layout25
	}
	return nil
}

const (
	int64Max = math.MaxInt64
	// A frame period is 1–100 ms (1000 Hz … 10 Hz); anything else in the FrameInterval /
	// FrameStartTime pair is the timestamp.
	minPeriodNs = 1_000_000
	maxPeriodNs = 100_000_000
	// A "complete" row whose FrameCompleted lies more than an hour after its IntendedVsync is
	// uninitialised memory, not a frame (seen in real Android 13 dumps for frames still waiting
	// for their GPU fence).
	maxFrameNs = 3600 * 1_000_000_000
)

// startBlock opens a PROFILEDATA block. rest is the text after the marker line, used to size
// the window's frame slice when no block was read before: later blocks are sized by the largest
// one read (counting each block's lines first was two more passes over most of a capture's
// text), and a block with more rows than that grows its slices as append does.
func (p *parser) startBlock(rest []byte) {
	p.inBlock, p.sawBlock, p.bare = true, true, false
	p.cols = nil
	p.oldTable = false
	w := p.curWin()
	if w == nil || w.Rows > 0 || w.Columns > 0 {
		w = p.newWindow("", -1)
	}
	n := p.ps.blockRows + p.ps.blockRows/8
	if n == 0 {
		// Size Frames and the Phases slab for the rows up to the closing marker.
		end := bytes.Index(rest, profileMarker)
		if end < 0 {
			end = len(rest)
		}
		n = max(1, bytes.Count(rest[:end], []byte{'\n'}))
	}
	f, ph := p.ps.frameSlice(n)
	if len(w.Frames) > 0 {
		f = append(f, w.Frames...)
	}
	w.Frames, p.slab = f, ph
}

func (p *parser) endBlock() {
	p.inBlock, p.bare = false, false
	p.cols = nil
	if w := p.curWin(); w != nil && len(w.Frames) > p.ps.blockRows {
		p.ps.blockRows = min(len(w.Frames), maxBlockRows)
	}
}

// maxBlockRows bounds the rows a block is sized for without counting them (a ring holds 120).
const maxBlockRows = 4096

func (p *parser) blockLine(line, rest []byte) {
	l := trimSpace(line)
	if len(l) == 0 {
		return
	}
	if (l[0] < '0' || l[0] > '9') && l[0] != '-' {
		if structural(l) || (p.bare && p.cols != nil) {
			// The closing marker was damaged: the block ends here, and this line is read as
			// what it is (a view root, a summary, the next process). (A block printed
			// without markers ends at the first line after its header that is not a row.)
			if !p.bare {
				p.warn("PROFILEDATA block not closed (damaged marker line)")
			}
			p.endBlock()
			p.line(line, rest)
			return
		}
		if p.cols == nil {
			p.header(l)
			return
		}
	}
	if p.cols == nil && len(p.ps.hdrCols) > 0 && countFields(l) == len(p.ps.hdrCols) {
		// The header line was lost: the last good header is the one Android printed again.
		p.warn("PROFILEDATA header line lost; the last good header's layout used")
		p.installHeader(p.ps.hdrCols)
	}
	if p.cols == nil {
		if lay := layoutFor(countFields(l)); lay != nil {
			p.setCols(lay)
			p.warn("PROFILEDATA rows without a header line (layout told by column count)")
		} else {
			p.warn("PROFILEDATA row without a header and of unknown width")
			p.tornAt(p.curWin(), 1)
			return
		}
	}
	p.dataRow(l)
}

// blockEnders start the lines that never belong inside a PROFILEDATA block, each with a first
// byte of its own; a line starting with none of those bytes ends the block when it is a view root.
var blockEnders = []string{"Window:", "** Graphics info", "View hierarchy:", "Stats since:",
	"Total frames rendered:", string(dumpHeader), "Uptime:"}

// structural reports whether l (not empty) is a line that never belongs inside a PROFILEDATA block.
func structural(l []byte) bool {
	for _, m := range blockEnders {
		if l[0] == m[0] {
			return hasPrefix(l, m)
		}
	}
	return bytes.Contains(l, viewRootMark)
}

// tornAt records n unreadable rows at the current end of w's frames (w may be nil).
func (p *parser) tornAt(w *Window, n int) {
	if w != nil && len(w.torn) < maxTorn {
		w.torn = append(w.torn, tornRow{pos: len(w.Frames), n: n})
	}
}

// maxTorn bounds the unreadable rows remembered per window (a ring holds 120 rows).
const maxTorn = 512

// identifier reports whether f can be a column name: a letter, then letters and digits.
func identifier(f []byte) bool {
	if len(f) == 0 || len(f) > 64 {
		return false
	}
	for i, c := range f {
		letter := c|0x20 >= 'a' && c|0x20 <= 'z'
		if !letter && (i == 0 || c-'0' > 9) && c != '_' {
			return false
		}
	}
	return true
}

// rowLike reports whether l starts like a PROFILEDATA row: a number and a comma.
func rowLike(l []byte) bool {
	i := 0
	if i < len(l) && l[i] == '-' {
		i++
	}
	s := i
	for i < len(l) && l[i]-'0' <= 9 {
		i++
	}
	return i > s && (i == len(l) || l[i] == ',')
}

// tornRowAt records the unreadable data line l (cols wide when read) and counts a warning.
func (p *parser) tornRowAt(l []byte, why string) {
	if !rowLike(l) {
		// A damaged marker or header, or garbage: not a row, nothing to expect back.
		p.warn("damaged line in a PROFILEDATA block skipped")
		return
	}
	p.warn(why)
	n := 1
	if c := len(p.cols); c > 0 {
		// A lost newline merges rows into one line: estimate how many it holds.
		n = max(1, (countFields(l)+c-1)/c)
	}
	p.tornAt(p.curWin(), n)
}

// countFields counts comma-separated fields, ignoring one trailing comma.
func countFields(l []byte) int {
	if len(l) == 0 {
		return 0
	}
	n := bytes.Count(l, []byte{','}) + 1
	if l[len(l)-1] == ',' {
		n--
	}
	return n
}

func (p *parser) header(l []byte) {
	// Successive dumps repeat the same header: reuse the last mapping (and its warnings).
	ps := p.ps
	if ps.hdrCols != nil && bytes.Equal(l, ps.hdr) {
		for _, w := range ps.hdrWarn {
			p.warn(w)
		}
		p.installHeader(ps.hdrCols)
		return
	}
	cols, warns, fields, damaged := mapHeader(l)
	if damaged || (len(ps.hdr) > len(l) && bytes.HasPrefix(ps.hdr, l)) {
		// A header merged with a row, with garbage in a name, or cut short: when the last
		// good header is known, its layout is the one Android printed again.
		if len(ps.hdrCols) > 0 {
			p.warn("damaged PROFILEDATA header; the last good header's layout used")
			if n := len(ps.hdrCols); fields > n {
				p.tornAt(p.curWin(), (fields-1)/n) // the row it swallowed
			}
			p.installHeader(ps.hdrCols)
			return
		}
		if damaged {
			p.warn("damaged PROFILEDATA header; block skipped")
			p.installHeader([]int{})
			return
		}
	}
	ps.hdr = append(ps.hdr[:0], l...)
	ps.hdrWarn, ps.hdrCols = warns, cols
	for _, w := range warns {
		p.warn(w)
	}
	p.installHeader(cols)
}

// mapHeader maps a PROFILEDATA header's column names; damaged is set when a field cannot be a
// column name (a merged row, garbage). An unusable header yields no columns ([]).
func mapHeader(l []byte) (cols []int, warns []string, fields int, damaged bool) {
	cols = make([]int, 0, 24)
	for len(l) > 0 {
		i := bytes.IndexByte(l, ',')
		var f []byte
		if i < 0 {
			f, l = l, nil
		} else {
			f, l = l[:i], l[i+1:]
		}
		f = trimSpace(f)
		if len(f) == 0 && len(l) == 0 {
			break // trailing comma
		}
		fields++
		c, ok := source.FrameInfoColumns[string(f)]
		if !ok && !identifier(f) {
			damaged = true
			continue
		}
		if !ok {
			warns = append(warns, "ignored unknown PROFILEDATA column \""+string(f)+"\"")
		}
		cols = append(cols, c)
	}
	if damaged {
		return []int{}, nil, fields, true
	}
	var seen [source.NumCols]bool
	for _, c := range cols {
		if c != source.ColIgnore && seen[c] {
			return []int{}, append(warns, "PROFILEDATA header repeats a column; block skipped"), fields, false
		}
		seen[c] = true
	}
	if len(cols) > 0 && (!seen[source.ColIntendedVsync] || !seen[source.ColFrameCompleted]) {
		return []int{}, append(warns, "PROFILEDATA header without IntendedVsync/FrameCompleted; block skipped"), fields, false
	}
	return cols, warns, fields, false
}

// installHeader makes cols the current block's layout ([] = unreadable block).
func (p *parser) installHeader(cols []int) {
	if len(cols) == 0 {
		p.cols = []int{}
		return
	}
	p.setCols(cols)
	if w := p.curWin(); w != nil {
		w.Columns = len(cols)
	}
}

// dataRow parses one CSV row by hand into a Frame.
func (p *parser) dataRow(l []byte) {
	w := p.curWin()
	if len(p.cols) == 0 {
		p.tornRowAt(l, "row in an unreadable PROFILEDATA block skipped")
		return
	}
	row := &p.row
	switch rowFields(l, p.cols, row) {
	case rowMoreFields:
		p.tornRowAt(l, "torn PROFILEDATA row (more fields than the header) skipped")
		return
	case rowNonInteger:
		p.tornRowAt(l, "torn PROFILEDATA row (non-integer field) skipped")
		return
	case rowFewerFields:
		p.tornRowAt(l, "torn PROFILEDATA row (fewer fields than the header) skipped")
		return
	}
	if w.Columns == 0 {
		w.Columns = len(p.cols)
	}
	p.emitRow(w, row)
}

// rowFields results.
const (
	rowOK = iota
	rowMoreFields
	rowNonInteger
	rowFewerFields
)

// rowFields parses the comma-separated fields of row text b into row, field k into
// row[cols[k]], in one pass. A field is an optional '-' and 1–19 ASCII digits that fit an int64
// (strconv.ParseInt would also take a '+' and any number of leading zeros, which no row has);
// one trailing comma is allowed. On a row it does not accept, the fields before the bad one
// may have been written.
func rowFields(b []byte, cols []int, row *[source.NumCols]int64) int {
	col, i := 0, 0
	for i < len(b) {
		if col >= len(cols) {
			return rowMoreFields
		}
		neg := b[i] == '-'
		if neg {
			i++
		}
		s := i
		var v uint64 // (19 digits never overflow a uint64)
		// Four digits a step while there are: a timestamp's twelve digits one at a time are a
		// chain of twelve multiply-adds, each waiting on the one before.
		for ; i+4 <= len(b); i += 4 {
			d0, d1, d2, d3 := b[i]-'0', b[i+1]-'0', b[i+2]-'0', b[i+3]-'0'
			if d0 > 9 || d1 > 9 || d2 > 9 || d3 > 9 {
				break
			}
			v = v*10000 + uint64(d0)*1000 + uint64(d1)*100 + uint64(d2)*10 + uint64(d3)
		}
		for ; i < len(b); i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
		}
		if n := i - s; n == 0 || n > 19 || (i < len(b) && b[i] != ',') || v > 1<<63 || (!neg && v > math.MaxInt64) {
			return rowNonInteger
		}
		if neg {
			row[cols[col]] = -int64(v)
		} else {
			row[cols[col]] = int64(v)
		}
		col++
		i++ // the comma
	}
	if col != len(cols) {
		return rowFewerFields
	}
	return rowOK
}

// setCols installs a column map.
func (p *parser) setCols(cols []int) {
	p.cols = cols
	// Columns the layout lacks read as 0 (get): they are never written while it is installed.
	p.row = [source.NumCols]int64{}
}

func (p *parser) headerlessRow(l []byte) {
	lay := layoutFor(countFields(l))
	if lay == nil {
		p.warn("CSV-like line of unknown width outside PROFILEDATA ignored")
		return
	}
	if w := p.curWin(); w == nil || (w.Columns != 0 && w.Columns != len(lay)) {
		p.newWindow("", -1)
	}
	p.setCols(lay)
	p.warn("PROFILEDATA rows without a header line (layout told by column count)")
	p.dataRow(l)
	p.cols = nil
}

// emitRow reads row r (values by column; 0 for the columns the layout lacks, setCols) as a
// frame of w.
func (p *parser) emitRow(w *Window, r *[source.NumCols]int64) {
	if len(p.slab) == cap(p.slab) {
		_, p.slab = p.ps.frameSlice(64) // more rows than the block was sized for
	}
	w.Rows++
	vs := r[source.ColIntendedVsync]
	done := r[source.ColFrameCompleted]
	if vs <= 0 || uint64(done) >= p.doneCut^(1<<63) { // (impossibleDone: setUptime)
		// Values no frame can have (damaged text): counted, and expected back readable.
		if vs <= 0 {
			p.warn("PROFILEDATA row without an IntendedVsync skipped")
		} else {
			p.warn("PROFILEDATA row with an impossible FrameCompleted (negative, or after the dump's Uptime) skipped")
		}
		w.Incomplete++
		p.tornAt(w, 1)
		return
	}
	if done <= vs || done-vs >= maxFrameNs {
		w.Incomplete++ // not finished when Android dumped it
		return
	}
	// FrameInterval / FrameStartTime: decide by value which is the period (real Android 12+
	// output prints the labels swapped relative to the values).
	var period, start int64
	a, b := r[source.ColFrameInterval], r[source.ColFrameStart]
	switch {
	case a >= minPeriodNs && a <= maxPeriodNs:
		period, start = a, b
	case b >= minPeriodNs && b <= maxPeriodNs:
		period, start = b, a
	default:
		// Neither is a period (-1 = unknown interval). Keep the timestamp-like one as start.
		if a > maxPeriodNs {
			start = a
		} else if b > maxPeriodNs {
			start = b
		}
	}
	deadline := r[source.ColDeadline]
	if deadline == int64Max || deadline <= 0 {
		deadline = 0
	}
	p.slab = append(p.slab, source.PhasesOf(r)) // (in place: room was made above)
	ph := &p.slab[len(p.slab)-1]
	ph.FrameStartTime = start
	w.Frames = append(w.Frames, source.Frame{VsyncNs: vs, DoneNs: done, UIDoneNs: ph.SyncStart, IntervalNs: period,
		Flags: r[source.ColFlags], DeadlineNs: deadline, VsyncID: r[source.ColVsyncID], Phases: ph})
}
