// Package record writes and reads fpstop recordings (DESIGN §7): JSON Lines, gzip-compressed
// when the name ends in ".gz", one header line, one line per source event (the shapes of
// source.AppendLine, shared with the simulator's --truth file) and a final "end" line.
//
// A recording read back is a source (Replay, with speed, pause and seek) or a stream of event
// batches (ReadBatches) for what is computed from it: reports, traces and comparisons live in
// report/… and compare/, which import record, never the other way. The format is documented in
// docs/recording-format.md.
//
// record imports source only: a recording holds events, not what they mean (DESIGN §3).
package record

import (
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/fpstop/fpstop/source"
)

// FormatVersion is the recording format this package writes and the newest it reads.
const FormatVersion = 1

// Line types of a recording besides the event types of package source.
const (
	LineHeader = "header"
	LineEnd    = "end"
	// LineRaw is the line type of the raw-text file written beside a recording (--record-raw).
	LineRaw = "raw"
)

// Header is a recording's first line: what the run was. StartUTC is written as RFC 3339 with
// nanoseconds; StartMonoNs is the device CLOCK_MONOTONIC time of the start (0 unknown).
type Header struct {
	Format        int           `json:"format"`
	FpstopVersion string        `json:"fpstop_version"`
	Source        source.Kind   `json:"source"`
	Device        source.Device `json:"device"`
	Package       string        `json:"package"`
	Pid           int           `json:"pid,omitempty"`
	RefreshHz     float64       `json:"refresh_hz"`
	CostBasis     string        `json:"cost_basis,omitempty"`
	StartUTC      time.Time     `json:"start_utc"`
	StartMonoNs   int64         `json:"start_mono_ns"`
	Scenario      string        `json:"scenario,omitempty"`
	Seed          int64         `json:"seed,omitempty"`
	WorkScale     float64       `json:"work_scale,omitempty"`
	Input         string        `json:"input,omitempty"`
}

// HeaderFromSession fills a Header from a source's Session, the fpstop version and the wall
// clock time the recording started.
func HeaderFromSession(s *source.Session, version string, start time.Time) Header {
	h := Header{Format: FormatVersion, FpstopVersion: version, StartUTC: start.UTC()}
	if s != nil {
		h.Source, h.Device, h.Package, h.Pid = s.Source, s.Device, s.Package, s.Pid
		h.RefreshHz, h.CostBasis, h.StartMonoNs = s.RefreshHz, s.CostBasis, s.StartMonoNs
		h.Scenario, h.Seed, h.Input, h.WorkScale = s.Scenario, s.Seed, s.Input, s.WorkScale
	}
	return h
}

// Session returns the Session a replay of this recording starts with. An empty cost basis
// becomes "frame".
func (h Header) Session() *source.Session {
	cb := h.CostBasis
	if cb == "" {
		cb = source.CostFrame
	}
	return &source.Session{Source: h.Source, Device: h.Device, Package: h.Package, Pid: h.Pid,
		RefreshHz: h.RefreshHz, CostBasis: cb, StartMonoNs: h.StartMonoNs, Scenario: h.Scenario,
		Seed: h.Seed, WorkScale: h.WorkScale, Input: h.Input}
}

// End is a recording's last line, written by Close: when it ended and what it holds. Its
// presence tells a reader the recording is complete.
type End struct {
	EndUTC time.Time `json:"end_utc"`
	// Events counts the event lines written (all types); Counts splits them by line type.
	Events int64            `json:"events"`
	Counts map[string]int64 `json:"counts"`
	// FirstNs and LastNs are the smallest and largest device time of the events (0 when none);
	// DurationNs is LastNs − FirstNs.
	FirstNs    int64 `json:"first_ns"`
	LastNs     int64 `json:"last_ns"`
	DurationNs int64 `json:"duration_ns"`
	// RawChunks counts the pieces of raw text written to the raw file (--record-raw).
	RawChunks int64 `json:"raw_chunks,omitempty"`
	// WallNs is the live run's wall-clock duration, which its report's duration_s states
	// (the events' span is up to seconds shorter); 0 when not known (older recordings, a
	// replay or input file recorded), and a report then uses the span.
	WallNs int64 `json:"wall_ns,omitempty"`
}

// DefaultName is the file name of a recording started at t for package pkg:
// fpstop-<app>-<yyyymmdd-hhmmss>.jsonl.gz, in t's location. The app part is pkg with every
// character outside [A-Za-z0-9._-] replaced by '_' (so a hostile name cannot leave the
// directory), "session" when empty.
func DefaultName(pkg string, t time.Time) string {
	var b strings.Builder
	for _, r := range pkg {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)), r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	app := strings.Trim(b.String(), ".")
	app = app[:min(len(app), 100)]
	if app == "" {
		app = "session"
	}
	return "fpstop-" + app + "-" + t.Format("20060102-150405") + ".jsonl.gz"
}

// RawPath is the raw-text file beside a recording: NAME.raw.gz, where NAME is the recording's
// path without ".jsonl.gz", ".jsonl" or ".gz" (run.jsonl.gz → run.raw.gz).
func RawPath(path string) string {
	dir, base := filepath.Split(path)
	for _, ext := range []string{".jsonl.gz", ".jsonl", ".gz"} {
		if strings.HasSuffix(base, ext) && len(base) > len(ext) {
			base = strings.TrimSuffix(base, ext)
			break
		}
	}
	return dir + base + ".raw.gz"
}
