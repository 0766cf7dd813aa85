package gfxinfo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/fpstop/fpstop/source"
)

// fileSource replays captured dumps.
type fileSource struct {
	path string
	r    io.Reader
	name string
}

// FromFile is a source for a captured `dumpsys gfxinfo [<pkg>] framestats` output (one dump or
// several concatenated). Every process in it is reported, each with its windows.
func FromFile(path string) source.Source { return &fileSource{path: path, name: path} }

// FromReader is FromFile for text from r (the caller handles "-" as stdin); name is reported
// as the Session's Input.
func FromReader(r io.Reader, name string) source.Source { return &fileSource{r: r, name: name} }

// Run emits a Session, then per dump the frames (deduplicated across dumps), polls, summaries
// and a tick, and a final "ended" notice. It fails when the input holds no gfxinfo output.
//
// The capture is read as a stream, one dump at a time (its text, its parse, its events), so
// memory stays bounded whatever the file's size: a line longer than maxLine is skipped with a
// counted warning, never held.
func (s *fileSource) Run(ctx context.Context, out chan<- []source.Event) error {
	r := s.r
	if r == nil {
		f, err := os.Open(s.path)
		if err != nil {
			return fmt.Errorf("gfxinfo: %w", err)
		}
		defer f.Close()
		r = f
	}
	dr := newDumpReader(r)
	var ps Parser
	t := newTracker("", s.name)
	found, onlyOne, skipped := false, false, 0
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c, err := dr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("gfxinfo: reading %s: %w", s.name, err)
		}
		d := ps.ParseChunk(c)
		if !d.recognised() {
			skipped++
			continue
		}
		// A capture of one app follows its pid like a live poll; a full dump lists many. (A
		// first dump whose process line was damaged names no app: the next one does.)
		if (!found || (t.pkg == "" && onlyOne)) && len(d.Processes) == 1 && d.Processes[0].Name != "" {
			t.pkg = d.Processes[0].Name
		}
		if !found {
			found, onlyOne = true, len(d.Processes) == 1
		}
		if err := send(ctx, out, t.applyDump(nil, d)); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("gfxinfo: %s: no dumpsys gfxinfo output found (%s read)", s.name, source.ByteSize(dr.read))
	}
	end := t.flush()
	if skipped > 0 {
		end = append(end, &source.Notice{AtNs: t.lastNs, Level: source.LevelWarn,
			Text: fmt.Sprintf("gfxinfo: %d pieces of %s were not gfxinfo output", skipped, s.name)})
	}
	if dr.longLines > 0 {
		end = append(end, &source.Notice{AtNs: t.lastNs, Level: source.LevelWarn,
			Text: fmt.Sprintf("gfxinfo: %d lines longer than %s skipped", dr.longLines, source.ByteSize(maxLine))})
	}
	end = append(end, &source.Notice{AtNs: t.lastNs, Level: source.LevelInfo,
		State: source.StateEnded, Text: "end of " + s.name})
	return send(ctx, out, end)
}

const (
	// maxLine is the longest line a capture may hold; no dumpsys line comes near it.
	maxLine = 1 << 20
	// maxDump bounds one dump's text in memory (a full dump of every process is ~1 MB).
	maxDump = 32 << 20
)

// dumpReader cuts a capture into dumps (at each "Applications Graphics Acceleration Info:"
// line, as Split does) as it reads it, decoding UTF-16 on the way.
type dumpReader struct {
	br        *bufio.Reader
	chunk     []byte
	pending   []byte // the header line that starts the next dump
	longLines int
	read      int64
	eof       bool
}

func newDumpReader(r io.Reader) *dumpReader {
	br := bufio.NewReaderSize(r, 64<<10)
	if enc := sniffUTF16(br); enc != nil {
		r = transform.NewReader(br, enc.NewDecoder())
		br = bufio.NewReaderSize(r, maxLine)
	} else {
		br = bufio.NewReaderSize(br, maxLine)
	}
	if b, err := br.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		_, _ = br.Discard(3)
	}
	return &dumpReader{br: br}
}

// sniffUTF16 returns the UTF-16 decoding the input needs (source.SniffUTF16), nil for none.
func sniffUTF16(br *bufio.Reader) encoding.Encoding {
	b, _ := br.Peek(512)
	u16, be, bom := source.SniffUTF16(b)
	if !u16 {
		return nil
	}
	order, mark := unicode.LittleEndian, unicode.IgnoreBOM
	if be {
		order = unicode.BigEndian
	}
	if bom {
		mark = unicode.ExpectBOM
	}
	return unicode.UTF16(order, mark)
}

// next returns the next dump's text (valid until the next call), or io.EOF.
func (d *dumpReader) next() ([]byte, error) {
	d.chunk = append(d.chunk[:0], d.pending...)
	d.pending = d.pending[:0]
	for !d.eof {
		line, err := d.line()
		if err != nil && err != io.EOF {
			return nil, err
		}
		if err == io.EOF {
			d.eof = true
		}
		if line == nil {
			continue
		}
		if bytes.HasPrefix(trimLeft(line), dumpHeader) && !blank(d.chunk) {
			d.pending = append(d.pending, line...)
			return d.chunk, nil
		}
		if len(d.chunk)+len(line) > maxDump && !blank(d.chunk) {
			// One dump cannot be this large: what was read is parsed as one.
			d.pending = append(d.pending, line...)
			return d.chunk, nil
		}
		d.chunk = append(d.chunk, line...)
	}
	if blank(d.chunk) {
		return nil, io.EOF
	}
	return d.chunk, nil
}

// line reads one line with its newline (nil when it was too long and skipped). At the end of
// the input it returns the last line (nil when empty) and io.EOF.
func (d *dumpReader) line() ([]byte, error) {
	line, err := d.br.ReadSlice('\n')
	d.read += int64(len(line))
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) == 0 {
			line = nil
		}
		return line, err
	}
	d.longLines++
	for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the long line
		line, err = d.br.ReadSlice('\n')
		d.read += int64(len(line))
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	return nil, err
}
