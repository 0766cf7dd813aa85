// Package capture reads what fpstop is given instead of a phone: a saved gfxinfo dump, logcat
// text, SurfaceFlinger text, a Perfetto trace or a recording, told apart by its content (never
// by its name). --input runs it as a source; report, replay, export and compare read it as a
// recording, converted once when it is not one.
package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/logcat"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

// Kind is what a captured input holds.
type Kind string

const (
	Gfxinfo   Kind = "gfxinfo"
	Logcat    Kind = "logcat"
	Recording Kind = "recording"
	// SurfaceFlinger is saved `dumpsys SurfaceFlinger` text: `--latency` dumps and
	// `--timestats -dump` (read), `--list` and plain dumps (refused, saying why).
	SurfaceFlinger Kind = "surfaceflinger"
	// Perfetto is a binary Perfetto trace (.perfetto-trace, .pftrace, .pb), gzip'd or not,
	// or systrace text (.systrace, .txt, systrace's .html).
	Perfetto Kind = "perfetto"
)

// sampleMax is how much of an input detection looks at: enough lines to judge a dump that
// starts with chatter, bounded so that any input, of any size, is judged in bounded memory.
const sampleMax = 256 << 10

// sample is the head of an input as the detectors see it.
type sample struct {
	// raw is the bytes as read (binary formats are recognised here).
	raw []byte
	// lines are raw's complete non-blank lines as text (UTF-16 and byte-order marks decoded,
	// trailing blanks and '\r' trimmed, leading ones kept); the last line counts only when final.
	lines []string
	// final says raw is the whole input: no more evidence will come.
	final bool
}

// evidence is one detector's finding on a sample.
type evidence struct {
	// ok: enough of the sample parses as this kind (a recognised header plus at least one
	// row, or at least half of the non-blank lines).
	ok bool
	// seen says what was found, for the error when no detector is sure.
	seen string
}

// detector recognises one kind of input. Detectors are tried in order, the first sure one
// wins: a new input kind is one more entry here (and its reader in inputSource).
type detector struct {
	kind  Kind
	name  string // "a recording", as the error lists it
	check func(*sample) evidence
}

var detectors = []detector{
	{Recording, "a recording", recordingEvidence},
	{Gfxinfo, "a gfxinfo dump", gfxinfoEvidence},
	{Logcat, "logcat text", logcatEvidence},
	{SurfaceFlinger, "SurfaceFlinger text", sfEvidence},
	{Perfetto, "a Perfetto trace", perfettoEvidence},
}

// ErrUnrecognised is what detection's error Is: no detector found enough evidence.
var ErrUnrecognised = errors.New("input not recognised")

// unrecognised says what an input is not and what was seen in it.
type unrecognised struct{ msg string }

func (u *unrecognised) Error() string        { return u.msg }
func (u *unrecognised) Is(target error) bool { return target == ErrUnrecognised }

// Detect opens FILE or "-" (stdin) and tells what it holds from its first bytes, without
// consuming them. For stdin it reads only until the evidence suffices, so a live pipe starts at
// once. The detection error (wrapping ErrUnrecognised) comes with the reader, so that a
// --source that names the kind can still read the input.
func Detect(path string, stdin io.Reader) (*bufio.Reader, io.Closer, Kind, error) {
	var r io.Reader
	var c io.Closer = io.NopCloser(nil)
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, "", fmt.Errorf("cannot read input: %w", err)
		}
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			f.Close()
			return nil, nil, "", fmt.Errorf("cannot read input: %s is a directory", path)
		}
		r, c = f, f
	}
	br := bufio.NewReaderSize(r, sampleMax)
	if _, err := br.Peek(1); err != nil {
		c.Close()
		if err == io.EOF {
			return nil, nil, "", fmt.Errorf("input %s is empty", path)
		}
		return nil, nil, "", fmt.Errorf("cannot read input %s: %w", path, err)
	}
	want := br.Buffered()
	if path != "-" {
		want = sampleMax // a file: look as far as detection may (dumps can start with chatter)
	}
	for {
		head, err := br.Peek(want)
		final := err != nil // EOF, or as far as detection looks
		if len(head) >= sampleMax {
			final = true
		}
		s := newSample(head, final && err != nil)
		kind, derr := detect(s, final)
		if kind != "" || final {
			if derr != nil {
				derr = fmt.Errorf("input %s %w", path, derr)
			}
			return br, c, kind, derr
		}
		want = len(head) + 1 // stdin: wait for the next chunk
	}
}

// detect runs the detectors over s. With final (no more input will be looked at) and no sure
// detector, it says what was seen.
func detect(s *sample, final bool) (Kind, error) {
	var seen []string
	var names []string
	for _, d := range detectors {
		ev := d.check(s)
		if ev.ok {
			return d.kind, nil
		}
		names = append(names, d.name)
		if ev.seen != "" {
			seen = append(seen, ev.seen)
		}
	}
	if !final {
		return "", nil
	}
	what := fmt.Sprintf("%d non-blank lines", len(s.lines))
	if s.final {
		what = fmt.Sprintf("its %s hold %s", source.ByteSize(int64(len(s.raw))), what)
	} else {
		what = fmt.Sprintf("its first %s hold %s", source.ByteSize(int64(len(s.raw))), what)
	}
	if len(s.lines) == 0 && !s.final {
		what += " (a line longer than that)"
	}
	if p := unprintable(s.raw); p >= 0.1 {
		what += fmt.Sprintf(", %.0f %% of its bytes are not text", 100*p)
	}
	if len(seen) > 0 {
		what += "; " + strings.Join(seen, "; ")
	}
	return "", &unrecognised{msg: fmt.Sprintf("is not %s: %s", orList(names), what)}
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newSample splits head into its complete non-blank lines (the last one too when final).
func newSample(head []byte, final bool) *sample {
	s := &sample{raw: head, final: final}
	text := decodeHead(head)
	for len(text) > 0 {
		line, rest, found := strings.Cut(text, "\n")
		if !found && !final {
			break // a torn line: more may come
		}
		text = rest
		if line = strings.TrimRight(line, " \t\r"); strings.TrimSpace(line) != "" {
			s.lines = append(s.lines, line)
		}
	}
	return s
}

// unprintable is the share of b's bytes that no text holds (controls other than tab, CR, LF;
// invalid UTF-8), over its first 64 kB. UTF-16 text is counted as text.
func unprintable(b []byte) float64 {
	b = b[:min(len(b), 64<<10)]
	if len(b) == 0 {
		return 0
	}
	if u16, _, _ := source.SniffUTF16(b); u16 {
		return 0
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || r < 0x20 && r != '\t' && r != '\r' && r != '\n' {
			bad += n
		}
		i += n
	}
	return float64(bad) / float64(len(b))
}

// enough is the evidence rule: a recognised header and at least one row, or rows in at least
// half of the non-blank lines.
func enough(header bool, rows, lines int) bool {
	return rows > 0 && (header || 2*rows >= lines)
}

// perfettoEvidence: packets from the first byte, each parsing as protobuf (gzip'd: the same
// inside), where recordings and text cannot parse; or systrace text (ftrace lines, plain or in
// systrace's HTML page), which the same reader reads.
func perfettoEvidence(s *sample) evidence {
	if len(s.raw) >= 2 && s.raw[0] == 0x1f && s.raw[1] == 0x8b {
		return evidence{ok: perfetto.SniffGzip(s.raw)}
	}
	return evidence{ok: perfetto.Sniff(s.raw, s.final) || perfetto.SniffText(s.raw)}
}

// recordingEvidence: gzip (only recordings are compressed; their reader checks the header), or
// a JSON Lines header line and events.
func recordingEvidence(s *sample) evidence {
	if len(s.raw) >= 2 && s.raw[0] == 0x1f && s.raw[1] == 0x8b {
		return evidence{ok: !perfetto.SniffGzip(s.raw)} // a gzip'd trace is the trace detector's
	}
	header, rows := false, 0
	for i, l := range s.lines {
		var ev struct {
			Type   string `json:"type"`
			Format *int   `json:"format"`
		}
		if !strings.HasPrefix(l, "{") || json.Unmarshal([]byte(l), &ev) != nil || ev.Type == "" {
			continue
		}
		if i == 0 && ev.Type == "header" && ev.Format != nil {
			header = true
			continue
		}
		rows++
	}
	ev := evidence{ok: enough(header, rows, len(s.lines))}
	switch {
	case header && rows == 0:
		ev.seen = "a recording header with no events"
	case rows > 0:
		ev.seen = fmt.Sprintf("%d recording events", rows)
	}
	return ev
}

// gfxinfoHeaders start the lines that open a `dumpsys gfxinfo` reply or one of its sections.
var gfxinfoHeaders = []string{"Applications Graphics Acceleration Info", "** Graphics info for pid",
	"Graphics info for pid", "---PROFILEDATA---", "Flags,IntendedVsync", "Profile data in ms",
	"Stats since:", "Window:"}

// gfxinfoRows start gfxinfo's own data lines (statistics and messages that are a whole reply).
var gfxinfoRows = []string{"Total frames rendered:", "Janky frames", "50th percentile:", "90th percentile:",
	"95th percentile:", "99th percentile:", "Number Missed Vsync:", "Number High input latency:",
	"Number Slow UI thread:", "Number Slow bitmap uploads:", "Number Slow issue draw commands:",
	"Number Slow draw:", "Number Frame deadline missed:", "HISTOGRAM:", "Uptime:",
	"No process found for:", "Failure while dumping the app", "Caches:", "Total ViewRootImpl:", "Total Views:",
	"Total DisplayList:"}

func gfxinfoEvidence(s *sample) evidence {
	header, rows := false, 0
	for _, l := range s.lines {
		l = strings.TrimSpace(l)
		switch {
		case hasAnyPrefix(l, gfxinfoHeaders):
			header = true
		case hasAnyPrefix(l, gfxinfoRows) || strings.Count(l, ",") >= 13 && isNumericCSV(l) || isNumberRow(l):
			rows++
		}
	}
	ev := evidence{ok: enough(header, rows, len(s.lines))}
	if header || rows > 0 {
		ev.seen = fmt.Sprintf("%d gfxinfo rows", rows)
		if header {
			ev.seen += " under a gfxinfo header"
		}
	}
	return ev
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isNumericCSV(s string) bool {
	for _, f := range strings.Split(strings.TrimRight(strings.TrimSpace(s), ","), ",") {
		if f == "" {
			return false
		}
		for _, c := range f {
			if (c < '0' || c > '9') && c != '-' {
				return false
			}
		}
	}
	return true
}

// isNumberRow recognises the legacy "Profile data in ms" rows: three or four decimal numbers
// (Draw, Prepare, Process, Execute) separated by blanks.
func isNumberRow(s string) bool {
	f := strings.Fields(s)
	if len(f) < 3 || len(f) > 4 {
		return false
	}
	for _, x := range f {
		dot := false
		for i, c := range x {
			switch {
			case c == '.' && !dot && i > 0:
				dot = true
			case c < '0' || c > '9':
				return false
			}
		}
		if !dot {
			return false // integers: SurfaceFlinger's --latency rows, not these
		}
	}
	return true
}

// sfEvidence recognises saved `dumpsys SurfaceFlinger` text by its shape (surfaceflinger.Detect):
// `--latency` dumps (a period line, then rows of three integers), `--timestats -dump`, `--list`
// and plain dumps.
func sfEvidence(s *sample) evidence {
	text := strings.Join(s.lines, "\n")
	shape := surfaceflinger.Detect([]byte(text))
	ev := evidence{ok: shape != surfaceflinger.ShapeNone}
	if !ev.ok {
		rows := 0
		for _, l := range s.lines {
			if f := strings.Fields(l); len(f) == 3 && allDigits(f[0]) && allDigits(f[1]) && allDigits(f[2]) {
				rows++
			}
		}
		if rows > 0 {
			ev.seen = fmt.Sprintf("%d rows like SurfaceFlinger --latency records (no period line before them)", rows)
		}
	}
	return ev
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// logcatEvidence parses the lines with the logcat reader's own parser: a line counts when it
// has a time or a level (any format the parser knows); dividers and long-format headers are
// the headers; an indented line after a row continues its message (a stack trace) and is not
// counted either way.
func logcatEvidence(s *sample) evidence {
	var p logcat.Parser
	var l logcat.Line
	header, rows, lines := false, 0, 0
	afterRow := false
	for _, text := range s.lines {
		if !p.Parse([]byte(text), &l) {
			header, afterRow = true, false
			continue
		}
		switch {
		case l.HasTime() || l.Level != 0:
			rows++
			lines++
			afterRow = true
		case afterRow && (text[0] == ' ' || text[0] == '\t'):
		default:
			lines++
			afterRow = false
		}
	}
	ev := evidence{ok: enough(header, rows, lines)}
	if rows > 0 {
		ev.seen = fmt.Sprintf("%d lines parse as logcat", rows)
	}
	return ev
}

// decodeHead turns the head of a file into text for detection (UTF-8 with or without BOM,
// UTF-16 with a BOM, as Windows PowerShell redirects write, or without one).
func decodeHead(b []byte) string {
	u16, be, bom := source.SniffUTF16(b)
	switch {
	case u16:
		le := !be
		if bom {
			b = b[2:]
		}
		u := make([]uint16, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			if le {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i+1])|uint16(b[i])<<8)
			}
		}
		return string(utf16.Decode(u))
	case bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}):
		return string(b[3:])
	}
	return string(b)
}
