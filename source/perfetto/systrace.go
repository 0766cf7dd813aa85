package perfetto

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Systrace text is what `atrace`, `systrace.py` and old Android Studio captures wrote before
// Perfetto: ftrace's text output (`# tracer: nop`, then one event a line), plain or inside
// the HTML page systrace made. Its `tracing_mark_write: B|pid|name` lines are the same atrace
// sections a Perfetto trace carries in ftrace print events, so they go through the same
// sorter, slicer and joiner; systrace has no FrameTimeline, so its frames come from the
// doFrame/DrawFrames sections.

// systraceLine matches the head of an ftrace text line up to the event name, as
// trace_processor's tokenizer does: "TASK-PID (TGID) [CPU] FLAGS TIMESTAMP: EVENT:", where
// the TGID may be missing or "-----", the flags 0–5 characters (hex preempt counts too) that
// may touch the timestamp, and the task name anything (it ends where the match starts). Go's
// regexp is linear in the line, whatever the line holds. Compiled on first use: only a systrace
// input needs it.
var systraceLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-(\d+)\s+(?:\(\s*(\d+|-+)\)\s*)?\[(\d+)\]\s*[a-zA-Z0-9.]{0,5}?\s*(\d+)\.(\d+):\s+(\S+):`)
})

// traceDataSection opens a systrace HTML page's text data.
const traceDataSection = `<script class="trace-data" type="application/text">`

// maxTextLine bounds one line of a text trace; a longer one is skipped (counted), never held.
const maxTextLine = 1 << 20

// textLine is one tokenized ftrace text line.
type textLine struct {
	task      string
	tid, tgid int32 // tgid 0: not printed
	ts        int64
	event     string
	args      string
}

// parseTextLine tokenizes one ftrace text line; ok=false when it is not one.
func parseTextLine(s string) (textLine, bool) {
	m := systraceLine().FindStringSubmatchIndex(s)
	if m == nil {
		return textLine{}, false
	}
	tid, err := strconv.ParseInt(s[m[2]:m[3]], 10, 32)
	if err != nil {
		return textLine{}, false
	}
	var l textLine
	l.tid = int32(tid)
	if m[4] >= 0 {
		if v, err := strconv.ParseInt(s[m[4]:m[5]], 10, 32); err == nil {
			l.tgid = int32(v)
		}
	}
	ts, ok := textTimestamp(s[m[8]:m[9]], s[m[10]:m[11]])
	if !ok {
		return textLine{}, false
	}
	l.ts = ts
	l.task = strings.TrimSpace(s[:m[0]])
	l.event = s[m[12]:m[13]]
	l.args = strings.TrimSpace(s[m[1]:])
	return l, true
}

// textTimestamp turns "316" and "196720" (seconds and their fraction) into nanoseconds,
// exactly: a float would turn 10852.771242 s into …241999 ns.
func textTimestamp(sec, frac string) (int64, bool) {
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s > 1<<33 {
		return 0, false
	}
	if len(frac) > 9 {
		frac = frac[:9]
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, false
	}
	for i := len(frac); i < 9; i++ {
		f *= 10
	}
	return s*1_000_000_000 + f, true
}

// SniffText reports whether head (the first bytes of an input, not gzip'd) is systrace text:
// a systrace HTML page, or ftrace text whose lines (past its `#` comments, a `TRACE:` marker
// and a `cpus=N` line) tokenize as events — at least half of them, or any after a
// `# tracer:` header.
func SniffText(head []byte) bool {
	if startsHTML(head) {
		return isSystraceHTML(head)
	}
	if hasControlBytes(head[:min(len(head), 64)]) {
		return false
	}
	header, rows, lines := false, 0, 0
	for len(head) > 0 {
		line := head
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break // the last line may be cut: it is not evidence
		}
		line, head = head[:i], head[i+1:]
		s := strings.TrimSpace(string(line))
		switch {
		case s == "":
		case strings.HasPrefix(s, "# tracer:"):
			header = true
		case strings.HasPrefix(s, "#"), s == "TRACE:", isCPUsLine(s):
		default:
			lines++
			if _, ok := parseTextLine(s); ok {
				rows++
			}
		}
	}
	return rows > 0 && (header || 2*rows >= lines)
}

// isSystraceHTML: systrace's HTML page names itself in its head (its trace data comes after
// megabytes of the trace viewer's script, past any detection sample), or a smaller page shows
// its trace-data section.
func isSystraceHTML(head []byte) bool {
	low := bytes.ToLower(head[:min(len(head), 4096)])
	if !bytes.Contains(low, []byte("<html")) && !bytes.Contains(low, []byte("<!doctype html")) {
		return false
	}
	for _, w := range []string{"android system trace", "systrace", "trace-data", "trace_viewer"} {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return bytes.Contains(head, []byte(traceDataSection))
}

// startsHTML: the input's first non-blank text is an HTML tag ("<!DOCTYPE html>", "<html>");
// ftrace lines may start with "<idle>-0" or "<...>-882".
func startsHTML(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(head[:min(len(head), 1024)], " \t\r\n\ufeff"))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}

// isCPUsLine: trace-cmd's "cpus=8" header line.
func isCPUsLine(s string) bool {
	return strings.HasPrefix(s, "cpus=") && isDigits(s[5:])
}

// textState is where a text reader is in a systrace HTML page or plain text.
type textState uint8

const (
	txPlain       textState = iota // plain ftrace text: every line is an event or a comment
	txHTMLOutside                  // HTML outside any trace-data section
	txHTMLData                     // in a trace-data section, before its ftrace header
	txHTMLTrace                    // in a trace-data section's ftrace lines
	txProcessDump                  // in a PROCESS DUMP section (process names)
)

// readText reads systrace text (plain or HTML) from br line by line, in bounded memory.
func (p *Parser) readText(ctx context.Context, br *bufio.Reader) error {
	defer p.Finish()
	p.Text = true
	head, _ := br.Peek(min(br.Buffered(), 1024))
	st := txPlain
	if startsHTML(head) {
		st = txHTMLOutside
	}
	for i := 0; ; i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := readTextLine(br)
		if errors.Is(err, errLongLine) {
			p.warn("text lines over 1 MB (skipped)")
			continue
		}
		if len(line) > 0 {
			st = p.textLine(st, strings.TrimRight(string(line), "\r\n"))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading systrace text: %w", truncatedOr(err))
		}
	}
	if p.Lines == 0 {
		return fmt.Errorf("no systrace events: %w", ErrNotTrace)
	}
	return nil
}

var errLongLine = errors.New("line too long")

// readTextLine reads one line (with its newline) of at most maxTextLine bytes; a longer one
// is read past and reported as errLongLine.
func readTextLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxTextLine {
			buf = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLongLine
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// textLine handles one line in state st and returns the next state.
func (p *Parser) textLine(st textState, s string) textState {
	switch st {
	case txHTMLOutside:
		if strings.Contains(s, traceDataSection) {
			return txHTMLData
		}
		return st
	case txHTMLData:
		switch {
		case strings.HasPrefix(s, "#") && strings.Contains(s, "TASK-PID"):
			return txHTMLTrace
		case strings.HasPrefix(s, "PROCESS DUMP"):
			return txProcessDump
		case strings.Contains(s, "</script>"):
			return txHTMLOutside
		}
		return st
	case txProcessDump:
		if strings.Contains(s, "</script>") {
			return txHTMLOutside
		}
		p.processDumpLine(s)
		return st
	case txHTMLTrace:
		if strings.Contains(s, "</script>") {
			return txHTMLOutside
		}
	}
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "#") || t == "TRACE:" || isCPUsLine(t) {
		return st
	}
	l, ok := parseTextLine(s)
	if !ok {
		p.warn("systrace lines that are not ftrace events")
		return st
	}
	p.Lines++
	p.textEvent(l)
	return st
}

// textEvent names the line's thread and hands an atrace line to the sorter as a print event.
func (p *Parser) textEvent(l textLine) {
	if l.tid > 0 {
		p.names.thread(l.tid, l.tgid, l.task)
		if l.tgid > 0 && l.tgid == l.tid {
			p.names.processIfUnknown(l.tgid, l.task)
		}
	}
	switch l.event {
	case "tracing_mark_write", "print", "0":
	default:
		return
	}
	args := l.args
	if l.event == "print" {
		// some kernels print the marker as "print: tracing_mark_write: B|…"
		args = strings.TrimPrefix(args, "tracing_mark_write: ")
	}
	if args != "" && isAtrace([]byte(args)) {
		p.sort.push(event{ts: l.ts, kind: evPrint, tid: l.tid, text: args})
	}
}

// processDumpLine reads a process name from systrace's PROCESS DUMP (`ps` output:
// "USER PID PPID VSZ RSS WCHAN PC S NAME …").
func (p *Parser) processDumpLine(s string) {
	f := strings.Fields(s)
	if len(f) < 10 || !isDigits(f[2]) || !isDigits(f[3]) {
		return // a header, or the short form (USER PID TID CMD)
	}
	pid, err := strconv.ParseInt(f[1], 10, 32)
	if err != nil {
		return
	}
	p.names.process(int32(pid), f[8])
}
