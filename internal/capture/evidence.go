package capture

// How each kind of input is recognised: one evidence rule per kind, tried in the order of
// detectors (detect.go reads the input and asks them).

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fpstop/fpstop/source/logcat"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

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
