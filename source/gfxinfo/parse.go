// Package gfxinfo reads `dumpsys gfxinfo <pkg> [framestats]` output: a hand-written parser for
// every layout Android has printed (Parser), a poller that turns a device's dumps into
// source events (NewPoller) and a source for captured dumps (FromFile, FromReader).
//
// The parser works on byte offsets: lines are found with bytes.IndexByte and a row's fields are
// read in one pass, since a capture holds millions of rows. PROFILEDATA columns are mapped by
// header NAME, never by position, except for rows printed without a header, whose layout is
// told by their column count.
//
// The parser never computes metrics: it reports what Android printed (summaries, rows) and
// counted warnings for anything it could not read. Numbers are computed in package metrics.
package gfxinfo

import (
	"bytes"
	"fmt"

	"github.com/fpstop/fpstop/source"
)

// Dump is one `dumpsys gfxinfo` output.
type Dump struct {
	// UptimeNs is the "Uptime:" the dump printed (device CLOCK_MONOTONIC, printed in ms), in ns;
	// 0 when not printed.
	UptimeNs int64
	// RealtimeNs is the "Realtime:" printed beside it (elapsed time, deep sleep included), in
	// ns; 0 when not printed. Uptime never advances more than it: a damaged Uptime that jumps
	// ahead is told by it.
	RealtimeNs int64
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
	// SinceNs is the process's "Stats since" (device monotonic ns; 0 when not printed): a
	// restarted process has a new one, a damaged pid line does not.
	SinceNs int64

	hier map[string]string // the view hierarchy's ViewRootImpl id → title
	// hierarchy: a "View hierarchy:" line was printed (its entries may all be damaged).
	hierarchy bool
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
	// Root is the view root's identity, the hex id of "…/android.view.ViewRootImpl@1720d3b"
	// ("" when no view-root line was read). It stays the same across dumps of one window.
	Root string
	// TitleSuspect is set when the window's view-root line, its "Window:" line and the view
	// hierarchy disagree about its title and no two of them agree (damaged text): the title
	// cannot be trusted. A title two of them agree on is used (repaired, with a warning).
	TitleSuspect bool

	named       bool   // the title came from a "Window:" line
	rootTitle   string // the title the view-root line printed
	rootDamaged bool   // the view-root line had text after its id other than "(visibility=…)"
	// torn records where rows that could not be read (torn, impossible, outside their block)
	// stood: the poller credits them and expects them back in the next dump.
	torn []tornRow
}

// tornRow is an unreadable PROFILEDATA line: pos is the number of Frames before it, n the
// number of rows it is estimated to hold (a lost newline merges two rows into one line).
type tornRow struct{ pos, n int }

func (d *Dump) recognised() bool {
	return d.UptimeNs != 0 || len(d.Processes) > 0 || d.NotRunning || d.Failure != ""
}

// Parser parses dumps reusing its memory: the Dump a call returns (its frames and phases)
// stays valid only until the next call on the same Parser (a new Parser for a Dump that must
// last). A summary's histogram is its own: the events that carry it need no copy. The zero
// value is ready; a Parser is not safe for concurrent use.
type Parser struct {
	frames []source.Frame
	phases []source.Phases
	fpos   int
	ppos   int
	// The last PROFILEDATA header seen, its column map and its warnings.
	hdr     []byte
	hdrCols []int
	hdrWarn []string
	// blockRows is the most frames a PROFILEDATA block held (startBlock sizes blocks by it).
	blockRows int
	// markers: a ---PROFILEDATA--- marker line was seen (a header without one is then a
	// damaged marker line, not a capture that prints none)
	markers bool
}

// Parse reads one dumpsys gfxinfo output. It decodes UTF-16 (with BOM) and strips a UTF-8 BOM
// first, accepts CRLF, and returns an error only when the input holds nothing it recognises as
// gfxinfo output. When data holds several concatenated dumps, Parse reads the first and says
// so in a warning.
func (ps *Parser) Parse(data []byte) (*Dump, error) {
	dr := newDumpReader(bytes.NewReader(data)) // (it cuts and decodes as a capture is read)
	chunk, err := dr.next()
	if err != nil {
		return nil, fmt.Errorf("gfxinfo: empty input")
	}
	d := ps.parseChunk(chunk)
	dumps := 1
	for ; err == nil; dumps++ {
		_, err = dr.next()
	}
	if dumps -= 1; dumps > 1 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("input holds %d dumps; only the first was read", dumps))
	}
	if !d.recognised() {
		return d, fmt.Errorf("gfxinfo: no dumpsys gfxinfo output found")
	}
	return d, nil
}

// frameSlice carves empty slices of capacity n for a block's frames and their phases from the
// arenas (appending past n reallocates, so windows never overlap).
func (ps *Parser) frameSlice(n int) ([]source.Frame, []source.Phases) {
	return carve(&ps.frames, &ps.fpos, n), carve(&ps.phases, &ps.ppos, n)
}

// carve returns an empty slice of capacity n from arena at *pos, replacing a full arena by a
// larger one.
func carve[T any](arena *[]T, pos *int, n int) []T {
	if *pos+n > len(*arena) {
		*arena, *pos = make([]T, max(256, 2*len(*arena), n)), 0
	}
	s := (*arena)[*pos : *pos : *pos+n]
	*pos += n
	return s
}

// parser is the state of one dump's parse.
type parser struct {
	ps *Parser
	d  *Dump
	// doneCut is emitRow's bound on FrameCompleted, from d.UptimeNs (setUptime), XORed with
	// 1<<63 so that a parser's zero value has none.
	doneCut  uint64
	proc     int // index in d.Processes, -1 none
	win      int // index in current process's Windows, -1 none
	inBlock  bool
	cols     []int // current PROFILEDATA column map, nil until a header or first row
	oldTable bool
	// inHierarchy: inside "View hierarchy:", whose view-root lines repeat the windows.
	inHierarchy bool
	sawBlock    bool // a PROFILEDATA marker was seen: rows outside blocks are damage
	bare        bool // the open block had no opening marker (a capture that prints none)
	warnIdx     map[string]int
	warnN       []int
	warnKeys    []string
	slab        []source.Phases
	row         [source.NumCols]int64
}

// parseChunk parses one dump (as dumpReader cuts it, decoded), reusing the Parser's storage.
func (ps *Parser) parseChunk(data []byte) *Dump {
	ps.fpos, ps.ppos = 0, 0
	p := &parser{ps: ps, d: &Dump{}, proc: -1, win: -1}
	for pos := 0; pos < len(data); {
		var line []byte
		end := pos
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			line, end = data[pos:pos+i], pos+i+1
		} else {
			line, end = data[pos:], len(data)
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		switch {
		case !p.inBlock:
			p.line(line, data[end:])
		case len(line) > 0 && line[0] == '-' && bytes.HasPrefix(line, profileMarker):
			p.endBlock()
		default:
			p.blockLine(line, data[end:])
		}
		pos = end
	}
	if p.inBlock {
		if !p.bare {
			p.warn("PROFILEDATA block not closed (input cut)")
		}
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
	for pi := range p.d.Processes {
		p.checkTitles(&p.d.Processes[pi])
	}
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
