package logcat

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Block decodes every complete line of block (each ending in '\n'), as Line would one by one,
// and returns the index just past the last '\n' (0 when there is none) and the last complete
// line. It is Line's fast path for a buffer of text: a plain threadtime line is read in one
// pass (plainLine), and a Line is built only for the few lines that may matter.
func (d *Decoder) Block(block []byte) (end int, last []byte) {
	pos, lastPos := 0, -1
	st := newBlockScan()
	for pos < len(block) {
		e := d.plainLine(block[pos:], &st)
		if e < 0 {
			i := bytes.IndexByte(block[pos:], '\n')
			if i < 0 {
				break
			}
			e = i
			d.fastLine(block[pos : pos+e])
		}
		lastPos = pos
		pos += e + 1
	}
	if lastPos >= 0 {
		last = block[lastPos : pos-1]
	}
	return pos, last
}

// blockScan is what plainLine keeps from line to line of a block.
type blockScan struct {
	// header words of lines plainLine accepted, which need no check when a line repeats them:
	// the last timestamp "MM-DD HH:MM:SS." (its 16th byte cleared), shared by consecutive
	// lines, and ids " %5d %5d" (two overlapping words) by a hash of the pair: a few threads
	// write most lines.
	time0, time1 uint64
	ids          [1 << idSlotsLog][2]uint64
}

const idSlotsLog = 5

// timeMask clears the 16th header byte (the fraction's first digit, checked apart).
const timeMask = 0x00FF_FFFF_FFFF_FFFF

func newBlockScan() blockScan {
	// words that pass the checks, so that a line equal to them is right to pass
	st := blockScan{time0: binary.LittleEndian.Uint64([]byte("00-00 00")),
		time1: binary.LittleEndian.Uint64([]byte(":00:00.0")) & timeMask}
	id := binary.LittleEndian.Uint64([]byte("     1  "))
	for i := range st.ids {
		st.ids[i] = [2]uint64{id, id}
	}
	return st
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

// plain decodes a line scanThreadtime (or plainLine) accepted: Parse's fast path, without
// building a Line for a line that does not matter.
// b[msg:] is the message, b[:tsEnd] the timestamp.
func (d *Decoder) plain(b []byte, msg, tsEnd, pid, tid int) {
	d.stats.Lines++
	d.stats.LogLines++
	d.p.longMode = false
	m := b[msg:]
	keep := d.keeps(pid, nil)
	// The printer's own lines, most of those that matter, are told by their first word
	// without classify (and a Finished line by the target it closes: see closes).
	if keep && len(m) >= dispatchMarkLen {
		w := binary.LittleEndian.Uint64(m)
		if w == dispatchWords[0] && startsWithMark(m, &dispatchWords, dispatchMarkLen) {
			at := d.p.threadtimeNs(b[:tsEnd])
			d.nowNs = max(d.nowNs, at)
			d.stats.Dispatching++
			d.dispatch(pid, tid, m[dispatchMarkLen:], at, true)
			return
		}
		if w == finishWords[0] && d.closes(m, b[:tsEnd], pid, tid) {
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

// SWAR constants: a byte repeated in every byte of a word.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// zeroBytes has the high bit set in the lowest zero byte of x (and maybe in higher bytes above
// it, never below): the lowest set bit marks the first zero byte exactly.
func zeroBytes(x uint64) uint64 { return (x - lo8) & ^x & hi8 }

// Word patterns of the fixed threadtime header "MM-DD HH:MM:SS.": for each of its two 8-byte
// words, which bytes must be digits and which must be exactly the separator shown.
var (
	hdrDig0, hdrSepMask0, hdrSep0 = wordPattern("dd-dd dd")
	hdrDig1, hdrSepMask1, hdrSep1 = wordPattern(":dd:dd.?")
	dispatchWord                  = binary.LittleEndian.Uint64(dispatchMark)
	finishWord                    = binary.LittleEndian.Uint64(finishMark)
)

// wordPattern turns an 8-byte pattern ('d' a digit, '?' any byte, else that byte) into a digit
// mask, a separator mask and the separators' values, little-endian like the loads.
func wordPattern(p string) (dig, sepMask, sep uint64) {
	for i := 0; i < 8; i++ {
		sh := uint(8 * i)
		switch p[i] {
		case 'd':
			dig |= 0xFF << sh
		case '?':
		default:
			sepMask |= 0xFF << sh
			sep |= uint64(p[i]) << sh
		}
	}
	return dig, sepMask, sep
}

// wordOK checks the digits and separators of one header word without a branch per byte.
func wordOK(x, dig, sepMask, sep uint64) bool {
	hi, three := dig&(0xF0*lo8), dig&(0x30*lo8)
	y := x & dig
	return x&sepMask == sep && y&hi == three && (y+dig&(0x06*lo8))&hi == three
}

// plainLine decodes the line at the start of b (the rest of a block) if it is plain threadtime
// with its ids where logcat prints them: the header by its fixed offsets (header words seen
// on an accepted line need no check: blockScan), then lineCues
// finds the line's end, the tag's ':' and whether the line holds a cue: a '!' (Choreographer's
// "Skipped N frames!") or what a Looper printer marker starts with. A line without cues whose
// message does not start with 'S' or 'D', most lines, is counted without more work; the others
// go through scanMsg and classify as before, so what is decoded cannot differ. It returns the
// index of the line's '\n', or -1 (nothing done) for anything else — the caller then decodes it
// with fastLine, which gives the same result for every line plainLine accepts.
func (d *Decoder) plainLine(b []byte, st *blockScan) int {
	if len(b) < 64 {
		return -1
	}
	if t0, t1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])&timeMask; t0 != st.time0 || t1 != st.time1 {
		if !wordOK(t0, hdrDig0, hdrSepMask0, hdrSep0) || !wordOK(t1, hdrDig1, hdrSepMask1, hdrSep1) {
			return -1
		}
		st.time0, st.time1 = t0, t1
	}
	i := 18 // the fraction's end: milliseconds, mostly
	if f := binary.LittleEndian.Uint32(b[15:]); f&0xFF_F0F0F0 != ' '<<24|0x30_3030 || (f+0x06_0606)&0xF0_F0F0 != 0x30_3030 {
		i = 15
		for i < 24 && isDigit(b[i]) {
			i++
		}
	}
	// " %5d %5d L " at i, and the tag's first byte.
	u0, u1 := binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+6:])
	if slot := &st.ids[(u0^u1)*0x9E37_79B9_7F4A_7C15>>(64-idSlotsLog)]; u0 != slot[0] || u1 != slot[1] {
		if !idWordOK(u0) || !idWordOK(u1) {
			return -1
		}
		*slot = [2]uint64{u0, u1}
	}
	if b[i+14] != ' ' || !isLevel(b[i+13]) {
		return -1
	}
	tag := i + 15
	e, k, cue := lineCues(b[tag:])
	if e < 0 || k < 0 {
		return -1
	}
	e += tag
	k += tag
	// the tag ends at the first ':' followed by a space or the line's end
	if c := b[k+1]; c != ' ' && c != '\n' && (c != '\r' || b[k+2] != '\n') {
		if k = scanTag(b, k+1); k < 0 {
			return -1
		}
	}
	msg := k + 1
	if b[msg] == ' ' {
		msg++
	}
	n := e // the line without its '\r'
	if b[n-1] == '\r' {
		n--
	}
	msg = min(msg, n)
	s := msg
	for b[s] == ' ' {
		s++
	}
	// a printer line's message mostly starts with its marker: then no scan is needed
	cand := cue && (cueMatters(b, msg) || scanMsgCue(b, msg))
	if !cand && b[s] != 'S' && b[s] != 'D' {
		d.stats.Lines++
		d.stats.LogLines++
		d.p.longMode = false
		return e
	}
	d.plain(b[:n], msg, i, field5Value(u0>>8&0xFF_FFFF_FFFF), field5Value(u1>>8&0xFF_FFFF_FFFF))
	return e
}

// lineCues reads a line from its tag (b, the rest of a block): nl is the
// index of the first '\n' (-1: none), colon that of the first ':' before it (-1: none), and cue
// is true when a byte before nl is a '!' or a Looper printer marker may start there — false
// when the line cannot matter but for a message starting with 'S' or 'D'.
func lineCues(b []byte) (nl, colon int, cue bool) {
	nl = bytes.IndexByte(b, '\n')
	if nl < 0 {
		return -1, -1, false
	}
	colon = bytes.IndexByte(b[:nl], ':')
	cue = bytes.IndexByte(b[:nl], '!') >= 0 || markPairs(b, nl) != 0
	return nl, colon, cue
}

// markPairs is nonzero when b[:e] may hold a Looper printer marker, ">>>>> Di" or "<<<<< Fi"
// (e is the index of the line's '\n'). Every marker starts with five equal bytes, so it fills
// at least one of the 2-byte lanes counted from b's start: a lane of two bytes each '<' or '>' is all
// it looks for, 8 bytes a word, without a branch until the line's end (a lone '<' or '>',
// which most log lines hold, is no hit). Lanes past e are read too (a hit there only costs the
// exact scan); near the block's end, where a word cannot be read, it reports a hit.
func markPairs(b []byte, e int) uint64 {
	if e+8 > len(b) {
		return 1
	}
	// The constants are read from a variable: as constants, the compiler rebuilt each one (a
	// 10-byte move) in every round of the loop.
	bits2, gt2, lo16, hi16 := pairWords[0], pairWords[1], pairWords[2], pairWords[3]
	var acc uint64
	m := b[:e+7] // whole words until one holds e-1
	for len(m) >= 16 {
		x := binary.LittleEndian.Uint64(m) | bits2 ^ gt2 // '<' and '>' differ only in bit 1
		y := binary.LittleEndian.Uint64(m[8:]) | bits2 ^ gt2
		acc |= ((x-lo16)&^x | (y-lo16)&^y) & hi16
		m = m[16:]
	}
	if len(m) >= 8 {
		x := binary.LittleEndian.Uint64(m) | bits2 ^ gt2
		acc |= (x - lo16) & ^x & hi16
	}
	return acc
}

// pairWords are markPairs' constants: bit 1 in every byte, "">>"" in every 2-byte lane, and the
// lowest and highest bit of every lane.
var pairWords = [4]uint64{2 * lo8, ('>'<<8 | '>') * 0x0001_0001_0001_0001, 0x0001_0001_0001_0001, 0x8000_8000_8000_8000}

// idWordOK reports whether the word x is " %5d " and one more byte: a space, five bytes of
// spaces followed by at least one digit, a space (what field5 accepts, for a whole word in a
// few operations): bytes that are digits and bytes that are spaces are found exactly, then
// every field byte must be one or the other, the last a digit, and no digit followed by a space.
func idWordOK(x uint64) bool {
	const low7 = 0x7F * lo8
	t := x ^ '0'*lo8 // digits become 0..9
	dig := (0x89*lo8 - t&low7) & ^t & hi8
	u := x ^ ' '*lo8
	spc := (hi8 - u&low7) & ^u & hi8
	const field = 0x80_8080_8080 << 8 // bytes 1-5
	const ends = 0x80 | 0x80<<48      // bytes 0 and 6
	return spc&ends == ends && (dig|spc)&field == field && dig&(0x80<<40) != 0 && (dig<<8)&spc&field == 0
}

// scanTag finds the ':' that ends the tag, from b[i:]: the first one followed by a space or by
// the line's end ("\n", "\r\n"). It returns -1 when the line has none.
func scanTag(b []byte, i int) int {
	for {
		var c byte
		if i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			m := zeroBytes(x^':'*lo8) | zeroBytes(x^'\n'*lo8)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			c = b[i]
		} else {
			if i >= len(b) {
				return -1
			}
			c = b[i]
			if c != ':' && c != '\n' {
				i++
				continue
			}
		}
		if c == '\n' || i+1 >= len(b) {
			return -1
		}
		if n := b[i+1]; n == ' ' || n == '\n' || n == '\r' && i+2 < len(b) && b[i+2] == '\n' {
			return i
		}
		i++
	}
}

// scanMsg finds the end of the message that starts at b[s] — the index of the line's '\n', -1
// when b has none — and whether the message holds something a line that matters needs: ">>>>> Di"
// or "<<<<< Fi" anywhere (Looper printer lines), or a '!' (Choreographer's "Skipped N frames!").
// It reads 16 bytes a round, and stops looking at the first such cue. (Finding the cues with
// bytes.IndexByte over the whole block instead, each '>' and '<' one search step, cost 15 %
// more CPU on benchgen text: most log lines hold a '<' or '>', and every step is a branch the
// CPU cannot predict.)
func scanMsg(b []byte, s int) (e int, cand bool) {
	const nl = '\n' * lo8
	for s+16 <= len(b) {
		x, y := binary.LittleEndian.Uint64(b[s:s+8]), binary.LittleEndian.Uint64(b[s+8:s+16])
		m := cues(x) | zeroBytes(x^nl)
		if m == 0 {
			m = cues(y) | zeroBytes(y^nl)
			if m == 0 {
				s += 16
				continue
			}
			s += 8
		}
		s += bits.TrailingZeros64(m) >> 3
		if b[s] == '\n' {
			return s, false
		}
		if cueMatters(b, s) {
			if i := bytes.IndexByte(b[s:], '\n'); i >= 0 {
				return s + i, true
			}
			return -1, true
		}
		s++
	}
	for ; s < len(b); s++ {
		if c := b[s]; c == '\n' {
			return s, cand
		} else if (c == '!' || c|2 == '>') && cueMatters(b, s) {
			cand = true
		}
	}
	return -1, cand
}

// scanMsgCue is scanMsg's cue answer.
func scanMsgCue(b []byte, s int) bool {
	_, cand := scanMsg(b, s)
	return cand
}

// cues marks the first '<', '>' or '!' of x exactly (see zeroBytes). '<' (0x3C) and '>' (0x3E)
// differ only in bit 1: one test finds both.
func cues(x uint64) uint64 {
	return zeroBytes((x|2*lo8)^'>'*lo8) | zeroBytes(x^'!'*lo8)
}

// cueMatters: b[s] is a cue; a '!', or the start of ">>>>> Di" or "<<<<< Fi".
func cueMatters(b []byte, s int) bool {
	if b[s] == '!' {
		return true
	}
	if s+8 > len(b) {
		return false
	}
	w := binary.LittleEndian.Uint64(b[s:])
	return w == dispatchWord || w == finishWord
}
