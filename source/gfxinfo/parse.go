// Package gfxinfo reads `dumpsys gfxinfo <pkg> [framestats]` output: a hand-written parser for
// every layout Android has printed (Parse, ParseAll), a poller that turns a device's dumps into
// source events (NewPoller) and a source for captured dumps (FromFile, FromReader).
//
// The parser works on byte offsets: lines are found with bytes.IndexByte, CSV fields are split by
// hand and integers are parsed by hand, eight digits at a time; no regular expression and no
// strconv call runs per row (over 4 M rows a second on one core; see BENCHMARKS.md). PROFILEDATA columns are mapped by header NAME, never by position, except for
// rows printed without a header, whose layout is told by their column count.
//
// The parser never computes metrics: it reports what Android printed (summaries, rows) and
// counted warnings for anything it could not read. Numbers are computed in package metrics.
package gfxinfo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fpstop/fpstop/source"
)

// Dump is one `dumpsys gfxinfo` output.
type Dump struct {
	// UptimeNs is the "Uptime:" the dump printed (device CLOCK_MONOTONIC, printed in ms), in ns;
	// 0 when not printed.
	UptimeNs int64
	// Processes in printed order. Summaries or rows printed outside any "** Graphics info" block
	// (Google's documentation samples) land in a process with Pid 0 and an empty Name.
	Processes []Process
	// NotRunning is set when dumpsys said "No process found for: <pkg>".
	NotRunning bool
	// Failure is the text after "Failure while dumping the app:" (empty when absent).
	Failure string
	// Warnings are counted problems ("3× torn PROFILEDATA row ..."), in first-seen order.
	Warnings []string
}

// Process is one "** Graphics info for pid N [name] **" block.
type Process struct {
	Pid  int
	Name string
	// Summary is the process-wide summary Android printed (nil when none).
	Summary *source.AndroidSummary
	Windows []Window
}

// Window is one view root of a process: its summary and its framestats rows.
type Window struct {
	// Title is the window key: the "Window:" line when printed, else the view-root line's
	// title (usually pkg/Activity), without the "/android.view.ViewRootImpl@…" suffix.
	Title string
	// Visibility is the view root's View visibility (0 visible, 4 invisible, 8 gone; -1 unknown).
	Visibility int
	// Summary is the per-window summary Android printed (nil when none).
	Summary *source.AndroidSummary
	// Frames are the complete PROFILEDATA rows, in printed (ring buffer) order.
	Frames []source.Frame
	// Rows counts every PROFILEDATA data row that parsed, including Incomplete ones.
	Rows int
	// Incomplete counts rows of frames Android had not finished when it dumped (FrameCompleted
	// unset or not yet written: 0, before IntendedVsync, after the dump's uptime or absurdly
	// far off). Android does not count them yet either; they are not in Frames.
	Incomplete int
	// Columns is the number of columns of the PROFILEDATA layout (0 when no row was seen).
	Columns int
	// ProfileRows counts rows of the old "Draw Prepare Process Execute" profile table (recognised
	// and counted; they carry no timestamps, so they are never frames).
	ProfileRows int
	// TotalFrames is the window's "Total frames rendered" counter, -1 when not printed.
	TotalFrames int64

	named bool // the title came from a "Window:" line
}

// Column identifiers for PROFILEDATA.
const (
	colIgnore = iota
	colFlags
	colVsyncID
	colIntendedVsync
	colVsync
	colOldestInput
	colNewestInput
	colInputEventID
	colHandleInput
	colAnimation
	colTraversals
	colDrawStart
	colDeadline
	colFrameInterval // labelled FrameInterval: period or timestamp, decided by value
	colFrameStart    // labelled FrameStartTime: period or timestamp, decided by value
	colWorkload
	colSyncQueued
	colSyncStart
	colIssueDraw
	colSwapBuffers
	colFrameCompleted
	colDequeue
	colQueue
	colGpuCompleted
	colSwapCompleted
	colPresent
	colCommandSubmission
	numCols
)

var columnNames = map[string]int{
	"Flags":                      colFlags,
	"FrameTimelineVsyncId":       colVsyncID,
	"IntendedVsync":              colIntendedVsync,
	"Vsync":                      colVsync,
	"OldestInputEvent":           colOldestInput,
	"NewestInputEvent":           colNewestInput,
	"InputEventId":               colInputEventID,
	"HandleInputStart":           colHandleInput,
	"AnimationStart":             colAnimation,
	"PerformTraversalsStart":     colTraversals,
	"DrawStart":                  colDrawStart,
	"FrameDeadline":              colDeadline,
	"FrameInterval":              colFrameInterval,
	"FrameStartTime":             colFrameStart,
	"WorkloadTarget":             colWorkload,
	"SyncQueued":                 colSyncQueued,
	"SyncStart":                  colSyncStart,
	"IssueDrawCommandsStart":     colIssueDraw,
	"SwapBuffers":                colSwapBuffers,
	"FrameCompleted":             colFrameCompleted,
	"DequeueBufferDuration":      colDequeue,
	"QueueBufferDuration":        colQueue,
	"GpuCompleted":               colGpuCompleted,
	"SwapBuffersCompleted":       colSwapCompleted,
	"DisplayPresentTime":         colPresent,
	"CommandSubmissionCompleted": colCommandSubmission,
}

// Layouts of rows printed without a header, by column count (anchors-android §4.2).
var (
	layout14 = []int{colFlags, colIntendedVsync, colVsync, colOldestInput, colNewestInput,
		colHandleInput, colAnimation, colTraversals, colDrawStart, colSyncQueued, colSyncStart,
		colIssueDraw, colSwapBuffers, colFrameCompleted}
	layout16 = append(append([]int{}, layout14...), colDequeue, colQueue)
	layout17 = append(append([]int{}, layout16...), colGpuCompleted)
	layout20 = []int{colFlags, colVsyncID, colIntendedVsync, colVsync, colInputEventID,
		colHandleInput, colAnimation, colTraversals, colDrawStart, colDeadline, colSyncQueued,
		colSyncStart, colIssueDraw, colSwapBuffers, colFrameCompleted, colDequeue, colQueue,
		colGpuCompleted, colSwapCompleted, colPresent}
	layout22 = []int{colFlags, colVsyncID, colIntendedVsync, colVsync, colInputEventID,
		colHandleInput, colAnimation, colTraversals, colDrawStart, colDeadline, colFrameInterval,
		colFrameStart, colSyncQueued, colSyncStart, colIssueDraw, colSwapBuffers,
		colFrameCompleted, colDequeue, colQueue, colGpuCompleted, colSwapCompleted, colPresent}
	layout23 = append(append([]int{}, layout22...), colCommandSubmission)
	layout24 = []int{colFlags, colVsyncID, colIntendedVsync, colVsync, colInputEventID,
		colHandleInput, colAnimation, colTraversals, colDrawStart, colDeadline, colFrameStart,
		colFrameInterval, colWorkload, colSyncQueued, colSyncStart, colIssueDraw, colSwapBuffers,
		colFrameCompleted, colDequeue, colQueue, colGpuCompleted, colSwapCompleted, colPresent,
		colCommandSubmission}
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

// Parse reads one dumpsys gfxinfo output. It decodes UTF-16 (with BOM) and strips a UTF-8 BOM
// first, accepts CRLF, and returns an error only when the input holds nothing it recognises as
// gfxinfo output. When data holds several concatenated dumps, Parse reads the first and says
// so in a warning; ParseAll reads them all.
func Parse(data []byte) (*Dump, error) {
	data = Decode(data)
	chunks := Split(data)
	if len(chunks) == 0 {
		return nil, fmt.Errorf("gfxinfo: empty input")
	}
	d := parseChunk(chunks[0])
	if len(chunks) > 1 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("input holds %d dumps; only the first was read", len(chunks)))
	}
	if !d.recognised() {
		return d, fmt.Errorf("gfxinfo: no dumpsys gfxinfo output found")
	}
	return d, nil
}

// ParseAll reads one or several concatenated dumpsys gfxinfo outputs (each starting with
// "Applications Graphics Acceleration Info:"). It fails only when none is recognised.
func ParseAll(data []byte) ([]*Dump, error) {
	data = Decode(data)
	var out []*Dump
	ok := false
	for _, c := range Split(data) {
		d := parseChunk(c)
		ok = ok || d.recognised()
		out = append(out, d)
	}
	if !ok {
		return out, fmt.Errorf("gfxinfo: no dumpsys gfxinfo output found")
	}
	return out, nil
}

func (d *Dump) recognised() bool {
	return d.UptimeNs != 0 || len(d.Processes) > 0 || d.NotRunning || d.Failure != ""
}

var dumpHeader = []byte("Applications Graphics Acceleration Info:")

// Split cuts already-decoded text into dumps at each "Applications Graphics Acceleration
// Info:" line. Text before the first such line (or all of it, when there is none) is a dump of
// its own when it is not blank.
func Split(data []byte) [][]byte {
	var out [][]byte
	start := 0
	pos := 0
	for {
		i := bytes.Index(data[pos:], dumpHeader)
		if i < 0 {
			break
		}
		at := pos + i
		// Only at a line start (allowing leading blanks).
		ls := at
		for ls > 0 && (data[ls-1] == ' ' || data[ls-1] == '\t') {
			ls--
		}
		if ls == 0 || data[ls-1] == '\n' {
			if ls > start && !blank(data[start:ls]) {
				out = append(out, data[start:ls])
			}
			start = ls
		}
		pos = at + len(dumpHeader)
	}
	if start < len(data) && !blank(data[start:]) {
		out = append(out, data[start:])
	}
	return out
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// Decode returns data as UTF-8: UTF-16LE/BE with a byte-order mark (Windows PowerShell's `>`
// redirect writes those) is converted, a UTF-8 BOM is removed. Other input is returned as is.
func Decode(data []byte) []byte {
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		return data[3:]
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		return decodeUTF16(data[2:], false)
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		return decodeUTF16(data[2:], true)
	case len(data) >= 4 && data[1] == 0 && data[3] == 0 && data[0] != 0 && data[2] != 0:
		return decodeUTF16(data, false) // UTF-16LE without BOM
	}
	return data
}

func decodeUTF16(b []byte, bigEndian bool) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	runes := utf16.Decode(u)
	out := make([]byte, 0, len(runes))
	var buf [4]byte
	for _, r := range runes {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		out = append(out, buf[:n]...)
	}
	if len(out) >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF {
		out = out[3:]
	}
	return out
}

// Parser parses dumps reusing its memory: the Dump a call returns (its frames, phases and
// histograms) stays valid only until the next call on the same Parser. Use it where dumps are
// consumed one at a time (the poller, the file source, benchmarks); Parse and ParseAll
// allocate fresh storage. The zero value is ready; a Parser is not safe for concurrent use.
type Parser struct {
	frames  []source.Frame
	phases  []source.Phases
	buckets []source.Bucket
	fpos    int
	ppos    int
	bpos    int
	// The last PROFILEDATA header seen, its column map and its warnings.
	hdr     []byte
	hdrCols []int
	hdrWarn []string
}

// Parse is Parse, reusing p's storage.
func (ps *Parser) Parse(data []byte) (*Dump, error) {
	data = Decode(data)
	chunks := Split(data)
	if len(chunks) == 0 {
		return nil, fmt.Errorf("gfxinfo: empty input")
	}
	ps.reset()
	d := ps.parseChunk(chunks[0])
	if len(chunks) > 1 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("input holds %d dumps; only the first was read", len(chunks)))
	}
	if !d.recognised() {
		return d, fmt.Errorf("gfxinfo: no dumpsys gfxinfo output found")
	}
	return d, nil
}

// ParseChunk parses one dump (a piece of Split's output, already decoded), reusing p's
// storage. It never fails: text it does not recognise yields an empty Dump.
func (ps *Parser) ParseChunk(chunk []byte) *Dump {
	ps.reset()
	return ps.parseChunk(chunk)
}

func (ps *Parser) reset() { ps.fpos, ps.ppos, ps.bpos = 0, 0, 0 }

// frameSlice carves an empty slice of capacity n from the frame arena (appending past n
// reallocates, so windows never overlap).
func (ps *Parser) frameSlice(n int) ([]source.Frame, []source.Phases) {
	if ps.fpos+n > len(ps.frames) {
		size := 2 * len(ps.frames)
		if size < 256 {
			size = 256
		}
		for size < n {
			size *= 2
		}
		ps.frames, ps.fpos = make([]source.Frame, size), 0
	}
	if ps.ppos+n > len(ps.phases) {
		size := 2 * len(ps.phases)
		if size < 256 {
			size = 256
		}
		for size < n {
			size *= 2
		}
		ps.phases, ps.ppos = make([]source.Phases, size), 0
	}
	f := ps.frames[ps.fpos : ps.fpos : ps.fpos+n]
	ph := ps.phases[ps.ppos : ps.ppos : ps.ppos+n]
	ps.fpos += n
	ps.ppos += n
	return f, ph
}

func (ps *Parser) bucketSlice() []source.Bucket {
	const n = 160
	if ps.bpos+n > len(ps.buckets) {
		size := 2 * len(ps.buckets)
		if size < 64*n {
			size = 4 * n
		}
		ps.buckets, ps.bpos = make([]source.Bucket, size), 0
	}
	b := ps.buckets[ps.bpos : ps.bpos : ps.bpos+n]
	ps.bpos += n
	return b
}

// parser is the state of one dump's parse.
type parser struct {
	ps       *Parser
	d        *Dump
	proc     int // index in d.Processes, -1 none
	win      int // index in current process's Windows, -1 none
	inBlock  bool
	cols     []int // current PROFILEDATA column map, nil until a header or first row
	oldTable bool
	// inHierarchy: inside "View hierarchy:", whose view-root lines repeat the windows.
	inHierarchy bool
	warnIdx     map[string]int
	warnN       []int
	warnKeys    []string
	slab        []source.Phases
	row         [numCols]int64
	have        [numCols]bool
}

func parseChunk(data []byte) *Dump { return new(Parser).parseChunk(data) }

func (ps *Parser) parseChunk(data []byte) *Dump {
	p := &parser{ps: ps, d: &Dump{}, proc: -1, win: -1}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if p.inBlock {
			if bytes.HasPrefix(line, profileMarker) {
				p.endBlock()
				continue
			}
			p.blockLine(line, data)
			continue
		}
		p.line(line, data)
	}
	if p.inBlock {
		p.warn("PROFILEDATA block not closed (input cut)")
		p.endBlock()
	}
	p.finish()
	return p.d
}

// maxWarnings bounds the distinct warnings a dump keeps; further kinds are counted together.
const maxWarnings = 50

var (
	profileMarker = []byte("---PROFILEDATA---")
	viewRootMark  = []byte("/android.view.ViewRootImpl@")
)

func (p *parser) warn(key string) {
	if p.warnIdx == nil {
		p.warnIdx = map[string]int{}
	}
	if i, ok := p.warnIdx[key]; ok {
		p.warnN[i]++
		return
	}
	if len(p.warnKeys) >= maxWarnings {
		key = "other warnings"
		if i, ok := p.warnIdx[key]; ok {
			p.warnN[i]++
			return
		}
	}
	p.warnIdx[key] = len(p.warnKeys)
	p.warnKeys = append(p.warnKeys, key)
	p.warnN = append(p.warnN, 1)
}

func (p *parser) finish() {
	for i, k := range p.warnKeys {
		if p.warnN[i] > 1 {
			k = fmt.Sprintf("%d× %s", p.warnN[i], k)
		}
		p.d.Warnings = append(p.d.Warnings, k)
	}
	for pi := range p.d.Processes {
		pr := &p.d.Processes[pi]
		if pr.Summary != nil {
			pr.Summary.Pid, pr.Summary.Process = pr.Pid, pr.Name
		}
		for wi := range pr.Windows {
			w := &pr.Windows[wi]
			if w.Summary != nil {
				w.Summary.Pid, w.Summary.Process, w.Summary.Window = pr.Pid, pr.Name, w.Title
				if w.Summary.TotalFrames != nil {
					w.TotalFrames = *w.Summary.TotalFrames
				}
			}
			for fi := range w.Frames {
				w.Frames[fi].Window, w.Frames[fi].Process = w.Title, pr.Name
			}
		}
	}
}

func (p *parser) curProc() *Process {
	if p.proc < 0 {
		p.d.Processes = append(p.d.Processes, Process{})
		p.proc = len(p.d.Processes) - 1
		p.win = -1
	}
	return &p.d.Processes[p.proc]
}

func (p *parser) curWin() *Window {
	if p.win < 0 {
		return nil
	}
	return &p.d.Processes[p.proc].Windows[p.win]
}

func (p *parser) newWindow(title string, vis int) *Window {
	pr := p.curProc()
	pr.Windows = append(pr.Windows, Window{Title: title, Visibility: vis, TotalFrames: -1})
	p.win = len(pr.Windows) - 1
	return &pr.Windows[p.win]
}

// summary returns the summary the current summary line belongs to: the current window's, else
// the current process's.
func (p *parser) summary() *source.AndroidSummary {
	if w := p.curWin(); w != nil {
		if w.Summary == nil {
			w.Summary = &source.AndroidSummary{AtNs: p.d.UptimeNs}
		}
		return w.Summary
	}
	pr := p.curProc()
	if pr.Summary == nil {
		pr.Summary = &source.AndroidSummary{AtNs: p.d.UptimeNs}
	}
	return pr.Summary
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func trimSpace(b []byte) []byte {
	b = trimLeft(b)
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

// line handles a line outside PROFILEDATA blocks.
func (p *parser) line(raw, rest []byte) {
	l := trimLeft(raw)
	if len(l) == 0 {
		return
	}
	if p.oldTable {
		if isProfileTableRow(l) {
			if w := p.curWin(); w != nil {
				w.ProfileRows++
			}
			return
		}
		p.oldTable = false
	}
	switch l[0] {
	case '-':
		if bytes.HasPrefix(l, profileMarker) {
			p.startBlock(rest)
			return
		}
	case '*':
		if hasPrefix(l, "** Graphics info for pid ") {
			p.process(l[len("** Graphics info for pid "):])
			return
		}
	case 'A':
		if bytes.HasPrefix(l, dumpHeader) {
			return
		}
	case 'U':
		if hasPrefix(l, "Uptime:") {
			v, ok := firstInt(l[len("Uptime:"):])
			if ok && v > 0 && v < int64Max/1_000_000 {
				p.d.UptimeNs = v * 1_000_000
			} else {
				p.warn("unreadable Uptime line")
			}
			return
		}
	case 'N':
		if hasPrefix(l, "No process found for:") {
			p.d.NotRunning = true
			return
		}
		if hasPrefix(l, "Number ") {
			p.number(l[len("Number "):])
			return
		}
		if hasPrefix(l, "Note: Data has been filtered") {
			p.warn("Android says its data has been filtered (test-overhead filtering is on)")
			return
		}
	case 'F':
		if hasPrefix(l, "Failure while dumping the app:") {
			p.d.Failure = string(trimSpace(l[len("Failure while dumping the app:"):]))
			if p.d.Failure == "" {
				p.d.Failure = "unknown failure"
			}
			return
		}
	case 'P':
		if hasPrefix(l, "Profile data in ms:") {
			p.curProc()
			p.win = -1
			p.inHierarchy = false
			return
		}
	case 'V':
		if hasPrefix(l, "View hierarchy:") {
			p.win = -1
			p.inHierarchy = true
			return
		}
	case 'W':
		if hasPrefix(l, "Window:") {
			p.windowLine(string(trimSpace(l[len("Window:"):])))
			return
		}
	case 'S':
		if hasPrefix(l, "Stats since:") {
			s := p.summary()
			_ = s // the start time is not part of AndroidSummary; the line opens the summary
			return
		}
	case 'T':
		if hasPrefix(l, "Total frames rendered:") {
			if v, ok := firstInt(l[len("Total frames rendered:"):]); ok {
				p.summary().TotalFrames = ptr(v)
			} else {
				p.warn("unreadable Total frames rendered line")
			}
			return
		}
	case 'J':
		if hasPrefix(l, "Janky frames (legacy):") {
			if v, ok := firstInt(l[len("Janky frames (legacy):"):]); ok {
				p.summary().JankyLegacy = ptr(v)
			} else {
				p.warn("unreadable Janky frames (legacy) line")
			}
			return
		}
		if hasPrefix(l, "Janky frames:") {
			if v, ok := firstInt(l[len("Janky frames:"):]); ok {
				p.summary().JankyFrames = ptr(v)
			} else {
				p.warn("unreadable Janky frames line")
			}
			return
		}
	case 'H':
		if hasPrefix(l, "HISTOGRAM:") {
			p.histogram(l[len("HISTOGRAM:"):])
			return
		}
	case 'G':
		if hasPrefix(l, "GPU HISTOGRAM:") {
			return
		}
	case 'D':
		if isProfileTableHeader(l) {
			p.oldTable = true
			if p.curWin() == nil {
				p.newWindow("", -1)
			}
			return
		}
	case '5', '9':
		if p.percentile(l) {
			return
		}
	}
	if bytes.Contains(l, viewRootMark) {
		if !p.inHierarchy {
			p.viewRoot(l)
		}
		return
	}
	if l[0] >= '0' && l[0] <= '9' || l[0] == '-' {
		// Rows printed without a header and outside PROFILEDATA markers (Google's doc sample).
		if bytes.IndexByte(l, ',') > 0 && bytes.Count(l, []byte{','}) >= 13 {
			p.headerlessRow(l)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// firstInt parses the first (optionally signed) decimal integer in b, skipping leading blanks.
func firstInt(b []byte) (int64, bool) {
	b = trimLeft(b)
	v, n, ok := parseInt(b)
	return v, ok && n > 0
}

// parseInt parses a signed decimal integer at the start of b by hand, returning the value, the
// bytes consumed, and false on overflow or no digits.
func parseInt(b []byte) (int64, int, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	start := i
	var v uint64
	for i < len(b) {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, i, false
		}
		v = v*10 + uint64(c)
		i++
	}
	if i == start {
		return 0, i, false
	}
	if neg {
		if v > 1<<63 {
			return 0, i, false
		}
		return -int64(v), i, true
	}
	if v > math.MaxInt64 {
		return 0, i, false
	}
	return int64(v), i, true
}

func (p *parser) process(b []byte) {
	// "<pid> [<name>] **" (some captures pad the pid with spaces).
	pid, n, ok := parseInt(b)
	name := ""
	if lb := bytes.IndexByte(b, '['); lb >= 0 {
		if rb := bytes.LastIndexByte(b, ']'); rb > lb {
			name = string(b[lb+1 : rb])
		}
	}
	if !ok || n == 0 || pid < 0 || pid > math.MaxInt32 {
		p.warn("unreadable pid in a Graphics info line")
		pid = 0
	}
	p.d.Processes = append(p.d.Processes, Process{Pid: int(pid), Name: name})
	p.proc = len(p.d.Processes) - 1
	p.win = -1
	p.inHierarchy = false
}

func (p *parser) viewRoot(l []byte) {
	i := bytes.Index(l, viewRootMark)
	title := string(trimSpace(l[:i]))
	vis := -1
	if j := bytes.Index(l, []byte("(visibility=")); j >= 0 {
		if v, n, ok := parseInt(l[j+len("(visibility="):]); ok && n > 0 && v >= -1 && v < 1<<16 {
			vis = int(v)
		}
	}
	p.newWindow(title, vis)
	p.oldTable = false
}

func (p *parser) windowLine(title string) {
	// The "Window:" line names the view root printed just before it (framestats output).
	if w := p.curWin(); w != nil && !w.named && w.Rows == 0 && w.Summary == nil {
		w.Title = title
		w.named = true
		return
	}
	vis := -1
	w := p.newWindow(title, vis)
	w.named = true
}

// number reads a "Number <cause>: N" line.
func (p *parser) number(b []byte) {
	c := bytes.LastIndexByte(b, ':')
	if c < 0 {
		p.warn("unreadable Number line")
		return
	}
	name := string(trimSpace(b[:c]))
	v, ok := firstInt(b[c+1:])
	if !ok {
		p.warn("unreadable Number line")
		return
	}
	s := p.summary()
	switch name {
	case "Missed Vsync":
		s.MissedVsync = ptr(v)
	case "High input latency":
		s.HighInput = ptr(v)
	case "Slow UI thread":
		s.SlowUIThread = ptr(v)
	case "Slow bitmap uploads":
		s.SlowBitmap = ptr(v)
	case "Slow issue draw commands", "Slow draw":
		s.SlowIssue = ptr(v)
	case "Frame deadline missed":
		s.DeadlineMiss = ptr(v)
	case "Frame deadline missed (legacy)":
		// Android 12+'s legacy counter; AndroidSummary has no field for it (Android 9–11 printed
		// the same counter as "Frame deadline missed", which is kept).
	default:
		p.warn("unknown counter \"Number " + name + "\"")
	}
}

// percentile reads "50th percentile: 11ms" (gpu percentiles are skipped). It reports whether
// the line was a percentile line.
func (p *parser) percentile(l []byte) bool {
	var which int
	switch {
	case hasPrefix(l, "50th "):
		which = 50
	case hasPrefix(l, "90th "):
		which = 90
	case hasPrefix(l, "95th "):
		which = 95
	case hasPrefix(l, "99th "):
		which = 99
	default:
		return false
	}
	r := l[5:]
	if hasPrefix(r, "gpu percentile:") {
		return true
	}
	if !hasPrefix(r, "percentile:") {
		return false
	}
	v, ok := firstInt(r[len("percentile:"):])
	if !ok || v < 0 {
		p.warn("unreadable percentile line")
		return true
	}
	f := float64(v)
	s := p.summary()
	switch which {
	case 50:
		s.P50Ms = &f
	case 90:
		s.P90Ms = &f
	case 95:
		s.P95Ms = &f
	case 99:
		s.P99Ms = &f
	}
	return true
}

// histogram reads " 5ms=0 6ms=3 …". A histogram with an unreadable entry (a cut line) is
// dropped entirely, with a warning: a partial histogram would present wrong numbers as right.
func (p *parser) histogram(b []byte) {
	hist := p.ps.bucketSlice()
	i, n := 0, len(b)
	for {
		for i < n && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == n {
			break
		}
		// "<ms>ms=<count>", both small non-negative integers (at most 12 digits).
		var ms, c uint64
		s := i
		for i < n && b[i]-'0' <= 9 {
			ms = ms*10 + uint64(b[i]-'0')
			i++
		}
		if i == s || i-s > 12 || i+3 > n || b[i] != 'm' || b[i+1] != 's' || b[i+2] != '=' {
			p.warn("unreadable HISTOGRAM line dropped")
			return
		}
		i += 3
		s = i
		for i < n && b[i]-'0' <= 9 {
			c = c*10 + uint64(b[i]-'0')
			i++
		}
		if i == s || i-s > 12 || (i < n && b[i] != ' ' && b[i] != '\t') {
			p.warn("unreadable HISTOGRAM line dropped")
			return
		}
		hist = append(hist, source.Bucket{Ms: int(ms), Count: int64(c)})
	}
	p.summary().Histogram = hist
}

func isProfileTableHeader(l []byte) bool {
	s := string(trimSpace(l))
	return s == "Draw\tPrepare\tProcess\tExecute" || s == "Draw\tProcess\tExecute"
}

// isProfileTableRow reports whether l is a row of the old profile table: 3 or 4 tab-separated
// decimal numbers.
func isProfileTableRow(l []byte) bool {
	fields := 0
	for _, f := range bytes.Split(trimSpace(l), []byte{'\t'}) {
		if len(f) == 0 {
			return false
		}
		for _, c := range f {
			if (c < '0' || c > '9') && c != '.' && c != ',' {
				return false
			}
		}
		fields++
	}
	return fields == 3 || fields == 4
}

// startBlock opens a PROFILEDATA block. rest is the text after the marker line, used to size
// the window's frame slice.
func (p *parser) startBlock(rest []byte) {
	p.inBlock = true
	p.cols = nil
	p.oldTable = false
	w := p.curWin()
	if w == nil || w.Rows > 0 || w.Columns > 0 {
		w = p.newWindow("", -1)
	}
	// Size Frames and the Phases slab for the rows up to the closing marker.
	end := bytes.Index(rest, profileMarker)
	if end < 0 {
		end = len(rest)
	}
	n := bytes.Count(rest[:end], []byte{'\n'})
	if n < 1 {
		n = 1
	}
	f, ph := p.ps.frameSlice(n)
	if len(w.Frames) > 0 {
		f = append(f, w.Frames...)
	}
	w.Frames, p.slab = f, ph
}

func (p *parser) endBlock() {
	p.inBlock = false
	p.cols = nil
}

func (p *parser) blockLine(line, rest []byte) {
	l := trimSpace(line)
	if len(l) == 0 {
		return
	}
	if p.cols == nil && (l[0] < '0' || l[0] > '9') && l[0] != '-' {
		p.header(l)
		return
	}
	if p.cols == nil {
		if lay := layoutFor(countFields(l)); lay != nil {
			p.setCols(lay)
			p.warn("PROFILEDATA rows without a header line (layout told by column count)")
		} else {
			p.warn("PROFILEDATA row without a header and of unknown width")
			return
		}
	}
	p.dataRow(l)
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
	ps.hdr = append(ps.hdr[:0], l...)
	ps.hdrWarn = ps.hdrWarn[:0]
	cols := make([]int, 0, 24)
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
		c, ok := columnNames[string(f)]
		if !ok {
			ps.hdrWarn = append(ps.hdrWarn, "ignored unknown PROFILEDATA column \""+string(f)+"\"")
		}
		cols = append(cols, c)
	}
	var seen [numCols]bool
	for _, c := range cols {
		if c != colIgnore && seen[c] {
			ps.hdrWarn = append(ps.hdrWarn, "PROFILEDATA header repeats a column; block skipped")
			cols = []int{}
			break
		}
		seen[c] = true
	}
	if len(cols) > 0 && (!seen[colIntendedVsync] || !seen[colFrameCompleted]) {
		ps.hdrWarn = append(ps.hdrWarn, "PROFILEDATA header without IntendedVsync/FrameCompleted; block skipped")
		cols = []int{}
	}
	ps.hdrCols = cols
	for _, w := range ps.hdrWarn {
		p.warn(w)
	}
	p.installHeader(cols)
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
		p.warn("row in an unreadable PROFILEDATA block skipped")
		return
	}
	// The hot loop: fields are parsed in place, without a call per field. A field is an
	// optional '-' and 1–19 digits, followed by ',' or the end of the line.
	cols := p.cols
	i, col, n := 0, 0, len(l)
	for i < n {
		if col >= len(cols) {
			p.warn("torn PROFILEDATA row (more fields than the header) skipped")
			return
		}
		neg := l[i] == '-'
		if neg {
			i++
		}
		start := i
		var v uint64
		// Eight bytes at a time (SWAR): the digits at the front of each 8-byte word are
		// converted together; the first non-digit ends the field. Near the line's end (fewer
		// than 8 bytes left) digits are taken one by one.
		for i+8 <= n && i-start <= 16 {
			x := binary.LittleEndian.Uint64(l[i:])
			m := nonDigits(x)
			if m == 0 {
				v = v*100_000_000 + parseEight(x)
				i += 8
				continue
			}
			if k := bits.TrailingZeros64(m) >> 3; k > 0 {
				x = x<<(64-8*k) | 0x3030303030303030>>(8*k)
				v = v*pow10[k] + parseEight(x)
				i += k
			}
			goto done
		}
		for i < n {
			c := l[i] - '0'
			if c > 9 {
				break
			}
			v = v*10 + uint64(c)
			i++
		}
	done:
		nd := i - start
		if nd == 0 || nd > 19 || (i < n && l[i] != ',') || (!neg && v > math.MaxInt64) || (neg && v > 1<<63) {
			p.warn("torn PROFILEDATA row (non-integer field) skipped")
			return
		}
		i++ // the comma (or past the end)
		if neg {
			p.row[cols[col]] = -int64(v)
		} else {
			p.row[cols[col]] = int64(v)
		}
		col++
	}
	if col != len(cols) {
		p.warn("torn PROFILEDATA row (fewer fields than the header) skipped")
		return
	}
	if w.Columns == 0 {
		w.Columns = len(cols)
	}
	p.emit(w)
}

var pow10 = [9]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// nonDigits returns x (8 bytes, little-endian) with a non-zero byte wherever x's byte is not an
// ASCII digit. (A carry out of a byte ≥ 0xFA can only mark later bytes, so the lowest marked
// byte is always the first non-digit.)
func nonDigits(x uint64) uint64 {
	return (x&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030) | ((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030)
}

// eightDigits reports whether the 8 bytes of x (little-endian) are all ASCII digits.
func eightDigits(x uint64) bool {
	return (x&0xF0F0F0F0F0F0F0F0)|(((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) == 0x3333333333333333
}

// parseEight converts 8 ASCII digits (little-endian in x, first digit in the low byte) to
// their value with three multiplications (SWAR).
func parseEight(x uint64) uint64 {
	x -= 0x3030303030303030
	x = x*10 + x>>8
	x = ((x&0x000000FF000000FF)*(100+(1000000<<32)) + ((x>>16)&0x000000FF000000FF)*(1+(10000<<32))) >> 32
	return x
}

// setCols installs a column map and records which columns it has.
func (p *parser) setCols(cols []int) {
	p.cols = cols
	p.have = [numCols]bool{}
	for _, c := range cols {
		p.have[c] = true
	}
	p.have[colIgnore] = false
}

func (p *parser) headerlessRow(l []byte) {
	lay := layoutFor(countFields(l))
	if lay == nil {
		p.warn("CSV-like line of unknown width outside PROFILEDATA ignored")
		return
	}
	w := p.curWin()
	if w == nil || (w.Columns != 0 && w.Columns != len(lay)) {
		w = p.newWindow("", -1)
	}
	p.setCols(lay)
	p.warn("PROFILEDATA rows without a header line (layout told by column count)")
	p.dataRow(l)
	p.cols = nil
}

// get returns column c's value, 0 when the layout lacks it.
func (p *parser) get(c int) int64 {
	if p.have[c] {
		return p.row[c]
	}
	return 0
}

func (p *parser) emit(w *Window) {
	w.Rows++
	vs := p.get(colIntendedVsync)
	done := p.get(colFrameCompleted)
	if vs <= 0 {
		p.warn("PROFILEDATA row without an IntendedVsync skipped")
		w.Incomplete++
		return
	}
	if done <= vs || done-vs >= maxFrameNs || (p.d.UptimeNs > 0 && done > p.d.UptimeNs+10_000_000_000) {
		w.Incomplete++
		return
	}
	// FrameInterval / FrameStartTime: decide by value which is the period (real Android 12+
	// output prints the labels swapped relative to the values).
	var period, start int64
	a, b := p.get(colFrameInterval), p.get(colFrameStart)
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
	deadline := p.get(colDeadline)
	if deadline == int64Max || deadline <= 0 {
		deadline = 0
	}
	if len(p.slab) == cap(p.slab) {
		_, p.slab = p.ps.frameSlice(64) // more rows than the block was sized for
	}
	p.slab = append(p.slab, source.Phases{
		Vsync:                      p.get(colVsync),
		HandleInputStart:           p.get(colHandleInput),
		AnimationStart:             p.get(colAnimation),
		PerformTraversalsStart:     p.get(colTraversals),
		DrawStart:                  p.get(colDrawStart),
		SyncQueued:                 p.get(colSyncQueued),
		SyncStart:                  p.get(colSyncStart),
		IssueDrawCommandsStart:     p.get(colIssueDraw),
		SwapBuffers:                p.get(colSwapBuffers),
		FrameCompleted:             done,
		DequeueBufferDuration:      p.get(colDequeue),
		QueueBufferDuration:        p.get(colQueue),
		GpuCompleted:               p.get(colGpuCompleted),
		SwapBuffersCompleted:       p.get(colSwapCompleted),
		DisplayPresentTime:         p.get(colPresent),
		CommandSubmissionCompleted: p.get(colCommandSubmission),
		FrameStartTime:             start,
		WorkloadTarget:             p.get(colWorkload),
	})
	ph := &p.slab[len(p.slab)-1]
	w.Frames = append(w.Frames, source.Frame{
		VsyncNs:    vs,
		DoneNs:     done,
		UIDoneNs:   ph.SyncStart,
		IntervalNs: period,
		Flags:      p.get(colFlags),
		DeadlineNs: deadline,
		VsyncID:    p.get(colVsyncID),
		Phases:     ph,
	})
}
