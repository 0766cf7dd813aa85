package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fpstop/fpstop/source"
	"github.com/klauspost/compress/gzip"
)

// maxLine bounds one line of a recording (an android_summary or notice is at most a few KiB;
// anything longer is damage, skipped with a warning).
const maxLine = 16 << 20

// errPending is returned by Reader.next in follow mode when the file has no complete line yet.
var errPending = errors.New("no complete line yet")

// Reader reads a recording: its Header, then its events one by one. Damage never panics it: a
// torn or unreadable line is skipped and reported as a *source.Notice (level warn) among the
// events, and a gzip stream cut mid-way yields every line up to its last complete flush and then
// a Notice.
type Reader struct {
	Header Header
	// HasHeader is false for a file of event lines without a header (the simulator's --truth
	// file may be one); Header is then zero.
	HasHeader bool

	path    string
	f       *os.File
	gz      *gzip.Reader
	lr      lineReader
	end     *End
	pending []source.Event
	lastAt  int64
	bad     int // unreadable lines
	dups    *dupFilter
	done    bool
	follow  bool
	// firstLine is an event line read while looking for the header, returned first.
	firstLine []byte
}

// lineReader splits a stream into lines. At the end of the input it keeps the bytes after the
// last newline (partial), and the next call reads on from them: a followed file that grows
// completes its last line.
type lineReader struct {
	br       *bufio.Reader
	line     []byte // the line being put together, or the last one returned
	complete bool   // line was returned whole: the next call starts a new one
}

var errLongLine = errors.New("line too long")

// next returns the next complete line without its '\n'. The slice is valid until the next
// call. At the end of the input it returns the stream's error (io.EOF when clean); partial then
// holds the bytes after the last newline. A line of maxLine bytes or more is dropped
// (errLongLine) and what follows it read as the next line.
func (l *lineReader) next() ([]byte, error) {
	if l.complete {
		l.line, l.complete = l.line[:0], false
	}
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.line = append(l.line, chunk...)
		switch {
		case err == nil:
			l.complete = true
			return l.line[:len(l.line)-1], nil
		case len(l.line) >= maxLine:
			l.line = l.line[:0]
			return nil, errLongLine
		case err != bufio.ErrBufferFull:
			return nil, err
		}
	}
}

func (l *lineReader) partial() []byte {
	if l.complete {
		return nil
	}
	return l.line
}

// Open opens a recording (gzip or plain, told by its content) and reads its header. A file
// without a header whose first line is an event is accepted (HasHeader false). Errors: the file
// cannot be read, is empty, is not a recording, or has a newer format than this fpstop reads.
func Open(path string) (*Reader, error) {
	return open(path, false)
}

// open opens a recording; follow keeps reading a plain file at its end (replay --follow).
func open(path string, follow bool) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening recording: %w", err)
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	r, err := readerFrom(path, f, size, follow)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, nil
}

// readerFrom reads a recording from in (size bytes, -1 unknown); path names it in messages.
// The caller closes what in reads from (Open: the file, through Close).
func readerFrom(path string, in0 io.Reader, size int64, follow bool) (*Reader, error) {
	r := &Reader{path: path, dups: newDupFilter()}
	// Buffers of 256 KiB, smaller for a small file (tests read thousands of cut files).
	bufSize := 256 << 10
	if size >= 0 && !follow && size < int64(bufSize) {
		bufSize = max(int(size)+64, 4096)
	}
	br := bufio.NewReaderSize(in0, bufSize)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("recording %s: bad gzip stream: %w", path, err)
		}
		r.gz = gz
		br = bufio.NewReaderSize(gz, bufSize)
	} else {
		r.follow = follow
	}
	r.lr = lineReader{br: br}
	if err := r.readHeader(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Reader) readHeader() error {
	for {
		line, err := r.lr.next()
		if err == errLongLine {
			return fmt.Errorf("recording %s: not an fpstop recording (first line too long)", r.path)
		}
		if err != nil {
			line = bytes.TrimSpace(r.lr.partial())
			if len(line) == 0 {
				if r.follow && err == io.EOF {
					// A recording just created: Next reads the header later, taking a header
					// line it meets first as the header.
					return nil
				}
				if err == io.EOF {
					return fmt.Errorf("recording %s is empty", r.path)
				}
				return fmt.Errorf("recording %s: cannot read its header: %w", r.path, err)
			}
			r.lr.complete = true // the last line, without its newline: read here
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if err != nil {
				return fmt.Errorf("recording %s is empty", r.path)
			}
			continue
		}
		typ, ev, perr := source.ParseLine(line)
		switch {
		case perr != nil:
			return fmt.Errorf("recording %s: not an fpstop recording (first line: %v)", r.path, perr)
		case typ == LineHeader:
			var h headerLine
			if err := json.Unmarshal(line, &h); err != nil {
				return fmt.Errorf("recording %s: bad header: %v", r.path, err)
			}
			if h.Format > FormatVersion {
				return fmt.Errorf("recording %s has format %d; this fpstop reads format %d or older: upgrade fpstop", r.path, h.Format, FormatVersion)
			}
			if h.Format < 1 {
				return fmt.Errorf("recording %s: bad header: format %d", r.path, h.Format)
			}
			r.Header, r.HasHeader = h.Header, true
		case ev != nil:
			r.firstLine = append([]byte(nil), line...)
		default:
			return fmt.Errorf("recording %s: not an fpstop recording (first line has type %q)", r.path, typ)
		}
		return nil
	}
}

// Close closes the file.
// End returns the recording's end line once Next has read it (nil for a recording that was not
// closed, or before the end is reached).
func (r *Reader) End() *End { return r.end }

func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

func (r *Reader) warn(format string, args ...any) {
	r.pending = append(r.pending, source.Notef(r.lastAt, source.LevelWarn, format, args...))
}

// Next returns the next event, io.EOF at the end of the recording. Events are returned in file
// order and never modified afterwards; each call may return a warning Notice the reader made.
// Errors other than io.EOF are I/O errors of the file itself.
func (r *Reader) Next() (source.Event, error) {
	ev, err := r.next()
	if err == errPending {
		return nil, io.EOF
	}
	return ev, err
}

// next is Next, with errPending in follow mode when the file may still grow.
func (r *Reader) next() (source.Event, error) {
	for {
		if len(r.pending) > 0 {
			ev := r.pending[0]
			r.pending = r.pending[1:]
			return ev, nil
		}
		if r.done {
			return nil, io.EOF
		}
		if r.firstLine != nil {
			line := r.firstLine
			r.firstLine = nil
			if ev := r.decodeLine(line); ev != nil {
				return ev, nil
			}
			continue
		}
		line, err := r.lr.next()
		if err == errLongLine {
			r.bad++
			r.warn("recording %s: skipped a line longer than %d MiB", r.path, maxLine>>20)
			continue
		}
		if err != nil {
			if r.follow && err == io.EOF && r.end == nil {
				return nil, errPending
			}
			r.finish(err)
			continue
		}
		if ev := r.decodeLine(line); ev != nil {
			return ev, nil
		}
	}
}

// finish handles the end of the input: a torn last line and a cut gzip stream.
func (r *Reader) finish(err error) {
	r.done = true
	tail := bytes.TrimSpace(r.lr.partial())
	torn := false
	if len(tail) > 0 {
		// A last line without its newline is complete only if it parses; else it was torn.
		if typ, ev, perr := r.decode(tail); perr == nil && (ev != nil || typ == LineEnd) {
			if ev != nil {
				r.pending = append(r.pending, ev)
			}
		} else {
			r.bad++
			torn = true
			r.warn("recording %s: skipped its torn last line (%s): the recording was cut off while being written", r.path, plural(int64(len(tail)), "byte"))
		}
	}
	switch {
	case err == io.EOF:
		if r.end == nil && r.HasHeader && !torn {
			r.warn("recording %s has no end line: it was not closed (fpstop killed or still recording)", r.path)
		}
	case errors.Is(err, io.ErrUnexpectedEOF):
		r.warn("recording %s: compressed stream cut off: read up to its last complete flush", r.path)
	default:
		r.warn("recording %s: read error after the last complete line: %v", r.path, err)
	}
	if r.bad > 1 {
		r.warn("recording %s: %d unreadable lines skipped in all", r.path, r.bad)
	}
	if n := r.dups.dropped; n > 0 {
		r.warn("recording %s: %s (the same frame or message written again) counted once", r.path, plural(n, "repeated event line"))
	}
}

// decodeLine turns one line into an event, handling the recording's own line types and
// damage; nil means "nothing to return for this line".
func (r *Reader) decodeLine(line []byte) source.Event {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	typ, ev, err := r.decode(line)
	if err != nil {
		r.bad++
		if r.bad <= 10 {
			r.warn("recording %s: skipped an unreadable line: %v", r.path, err)
		}
		return nil
	}
	if ev != nil && r.dups.repeated(ev, line) {
		return nil // counted once; finish says how many repeats were dropped
	}
	if ev == nil {
		if typ != LineEnd && typ != LineHeader {
			r.bad++
			if r.bad <= 10 {
				r.warn("recording %s: skipped a line of unknown type %q (written by a newer fpstop?)", r.path, typ)
			}
		}
		return nil
	}
	r.lastAt = max(r.lastAt, ev.At())
	if len(r.pending) > 0 {
		r.pending = append(r.pending, ev)
		return nil
	}
	return ev
}

// decode parses a line with source.ParseLine; header and end lines are handled here (ev nil).
func (r *Reader) decode(line []byte) (string, source.Event, error) {
	typ, ev, err := source.ParseLine(line)
	if err != nil || ev != nil {
		return typ, ev, err
	}
	switch typ {
	case LineEnd:
		var e endLine
		if err := json.Unmarshal(line, &e); err != nil {
			return typ, nil, fmt.Errorf("decoding end line: %w", err)
		}
		r.end = &e.End
	case LineHeader:
		if !r.HasHeader {
			var h headerLine
			if err := json.Unmarshal(line, &h); err != nil {
				return typ, nil, fmt.Errorf("decoding header line: %w", err)
			}
			r.Header, r.HasHeader = h.Header, true
		}
	}
	return typ, nil, nil
}

// plural counts a noun in a warning: "1 byte", "2 bytes".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
