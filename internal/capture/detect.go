// Package capture reads what fpstop is given instead of a phone: a saved gfxinfo dump, logcat
// text, SurfaceFlinger text, a Perfetto trace or a recording, told apart by its content (never
// by its name). --input runs it as a source; report, replay, export and compare read it as a
// recording, converted once when it is not one.
package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fpstop/fpstop/source"
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

// ErrUnrecognised is what detection's error Is: no detector found enough evidence.
var ErrUnrecognised = errors.New("input not recognised")

// unrecognised says what an input is not and what was seen in it.
type unrecognised struct{ msg string }

func (u *unrecognised) Error() string        { return u.msg }
func (u *unrecognised) Is(target error) bool { return target == ErrUnrecognised }

// Detect opens FILE or "-" (stdin) and tells what it holds from its first bytes, without
// consuming them (detectKind). The detection error (wrapping ErrUnrecognised) comes with the
// reader, so that a --source that names the kind can still read the input.
func Detect(path string, stdin io.Reader) (*bufio.Reader, io.Closer, Kind, error) {
	br, c, err := openInput(path, stdin)
	if err != nil {
		return nil, nil, "", err
	}
	kind, err := detectKind(br, path)
	return br, c, kind, err
}

// openInput opens FILE or "-" (stdin) for reading: an input that cannot be read, or is empty,
// is an error.
func openInput(path string, stdin io.Reader) (*bufio.Reader, io.Closer, error) {
	var r io.Reader
	var c io.Closer = io.NopCloser(nil)
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read input: %w", err)
		}
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			f.Close()
			return nil, nil, fmt.Errorf("cannot read input: %s is a directory", path)
		}
		r, c = f, f
	}
	br := bufio.NewReaderSize(r, sampleMax)
	if _, err := br.Peek(1); err != nil {
		c.Close()
		if err == io.EOF {
			return nil, nil, fmt.Errorf("input %s is empty", path)
		}
		return nil, nil, fmt.Errorf("cannot read input %s: %w", path, err)
	}
	return br, c, nil
}

// detectKind tells what br (the input path) holds from its first bytes, without consuming
// them. For stdin it reads only until the evidence suffices, so a live pipe starts at once.
func detectKind(br *bufio.Reader, path string) (Kind, error) {
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
			return kind, derr
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
