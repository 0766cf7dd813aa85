package gfxinfo

import (
	"bytes"
	"context"
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
	// dumpPerBatch: every dump's events go out as a batch of their own (KeepProcess reads a
	// batch as one dump).
	dumpPerBatch bool
}

// fileBatch is about how many events a capture replay hands to the pipeline at a time: the
// events of several dumps, not a batch per dump, since every hand-off is a channel send and a
// goroutine wake-up on each of internal/session's hops. A live source is not slowed: the batch
// is also handed on before every read of the input (batcher.flush as dumpReader.beforeRead),
// so a dump that came through a pipe is never held back waiting for more input.
const fileBatch = 1024

// batcher gathers the events of consecutive dumps into one batch.
type batcher struct {
	ctx  context.Context
	out  chan<- []source.Event
	size int // hand on once this many events are gathered
	evs  []source.Event
	err  error // the first failed send (the context ended)
}

// flush hands on the events gathered so far.
func (b *batcher) flush() {
	if len(b.evs) > 0 && b.err == nil {
		b.err = send(b.ctx, b.out, b.evs)
	}
	b.evs = nil
}

// FromFile is a source for a captured `dumpsys gfxinfo [<pkg>] framestats` output (one dump or
// several concatenated). Every process in it is reported, each with its windows.
func FromFile(path string) source.Source {
	return &fileSource{path: path, name: path}
}

// FromReader is FromFile for text from r (the caller handles "-" as stdin); name is reported
// as the Session's Input.
func FromReader(r io.Reader, name string) source.Source {
	return &fileSource{r: r, name: name}
}

// Run emits a Session, then per dump the frames (deduplicated across dumps), polls, summaries
// and a tick, and a final "ended" notice. It fails when the input holds no gfxinfo output.
//
// The capture is read as a stream, one dump at a time (its text, its parse, its events), so
// memory stays bounded whatever the file's size: a line longer than maxLine is skipped with a
// counted warning, never held.
func (s *fileSource) Run(ctx context.Context, out chan<- []source.Event) error {
	r := s.r
	if r == nil {
		f, oerr := os.Open(s.path)
		if oerr != nil {
			return fmt.Errorf("gfxinfo: %w", oerr)
		}
		defer f.Close()
		r = f
	}
	dr := newDumpReader(r)
	b := &batcher{ctx: ctx, out: out, size: fileBatch}
	if s.dumpPerBatch {
		b.size = 1
	}
	dr.beforeRead = b.flush
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
		d := ps.parseChunk(c)
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
		t.final = dr.atEnd()
		if b.evs = t.applyDump(b.evs, d); len(b.evs) >= b.size {
			if b.flush(); b.err != nil {
				return b.err
			}
		}
	}
	if !found {
		return fmt.Errorf("gfxinfo: %s: no dumpsys gfxinfo output found (%s read)", s.name, source.ByteSize(dr.read))
	}
	end := append(b.evs, t.flush()...)
	if skipped > 0 {
		end = append(end, warning(t.lastNs, fmt.Sprintf("gfxinfo: %d pieces of %s were not gfxinfo output", skipped, s.name)))
	}
	if dr.longLines > 0 {
		end = append(end, warning(t.lastNs, fmt.Sprintf("gfxinfo: %d lines longer than %s skipped", dr.longLines, source.ByteSize(maxLine))))
	}
	if dr.overDumps > 0 {
		end = append(end, warning(t.lastNs, fmt.Sprintf("gfxinfo: %d dumps longer than %s: their first %s read, the %d lines after skipped",
			dr.overDumps, source.ByteSize(maxDump), source.ByteSize(maxDump), dr.overLines)))
	}
	b.evs = append(end, &source.Notice{AtNs: t.lastNs, Level: source.LevelInfo,
		State: source.StateEnded, Text: "end of " + s.name})
	b.flush()
	return b.err
}

const (
	// maxLine is the longest line a capture may hold; no dumpsys line comes near it.
	maxLine = 1 << 20
	// maxDump bounds one dump's text in memory (a full dump of every process is ~1 MB).
	maxDump = 32 << 20
)

// dumpReader cuts a capture into dumps as it reads it, decoding UTF-16 on the way: a dump
// starts at each line holding only blanks before "Applications Graphics Acceleration Info:"
// after text that is not blank. Text before the first such line (or all of it, when there is
// none) is a dump of its own when it is not blank.
// The input is read in large blocks; a dump's lines are gathered into a buffer of its own.
type dumpReader struct {
	r         io.Reader
	buf       []byte // buf[off:end] is read and not yet handed out
	off, end  int
	rerr      error  // the reader's error (io.EOF at the end), met once buf[off:end] is used up
	chunk     []byte // the text of the dump handed out last
	longLines int
	// overDumps counts dumps longer than maxDump; overLines the lines of theirs past it, which
	// are skipped up to the next dump (parsed as dumps of their own they were all damage).
	overDumps, overLines int64
	over                 bool // skipping the rest of a dump longer than maxDump
	read                 int64
	// beforeRead, when set, is called before every read of r (which may wait for input).
	beforeRead func()
}

// readBlock is the size the buffer (and a read) grows to once the input is longer than the
// first buffer: a few typical dumps' worth, and room for maxLine bytes past any point. (It
// starts small: a capture of one dump needs no more.)
const readBlock = 4 << 20

// sniffLen is how much of the input tells whether it is UTF-16 (source.SniffUTF16).
const sniffLen = 512

func newDumpReader(r io.Reader) *dumpReader {
	d := &dumpReader{r: r}
	d.buf = make([]byte, 64<<10)
	// The encoding is told by the first sniffLen bytes only, however many the first reads
	// brought: a pipe's small reads and a file's large one must decode the same text alike.
	d.fill(sniffLen)
	if enc := sniffUTF16(d.buf[d.off:min(d.end, d.off+sniffLen)]); enc != nil {
		head := append([]byte(nil), d.buf[d.off:d.end]...)
		d.r = transform.NewReader(io.MultiReader(bytes.NewReader(head), d.unread(r)), enc.NewDecoder())
		d.off, d.end, d.rerr = 0, 0, nil
		d.fill(3)
	}
	if b := d.buf[d.off:d.end]; len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		d.off += 3
	}
	return d
}

// unread returns r, or (when reading r already failed) a reader that fails the same way.
func (d *dumpReader) unread(r io.Reader) io.Reader {
	if d.rerr != nil {
		return errReader{d.rerr}
	}
	return r
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// sniffUTF16 returns the UTF-16 decoding the input needs (source.SniffUTF16), nil for none.
func sniffUTF16(b []byte) encoding.Encoding {
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

// fill reads until at least n bytes are buffered or the input ends (or fails).
func (d *dumpReader) fill(n int) {
	for d.end-d.off < n && d.rerr == nil {
		d.more()
	}
}

// more reads once more input into the buffer, moving what is unread to its front first (and
// growing it when that is full, or to readBlock once as much as it holds was read).
func (d *dumpReader) more() {
	if from := d.off; from > 0 {
		d.end = copy(d.buf, d.buf[from:d.end])
		d.off -= from
	}
	if long := len(d.buf) < readBlock && d.read >= int64(len(d.buf)); long || d.end == len(d.buf) {
		// Straight to readBlock once the input is long (not doubling through 128 KB..2 MB), and
		// with make+copy of the unread text, not append(buf, make(...)...): that form clears
		// the new half and copies the old one whole, touching every page of each new buffer.
		n := 2 * len(d.buf)
		if long {
			n = max(n, readBlock)
		}
		buf := make([]byte, n)
		copy(buf, d.buf[:d.end])
		d.buf = buf
	}
	if d.beforeRead != nil {
		d.beforeRead()
	}
	for tries := 0; tries < 100; tries++ {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	d.rerr = io.ErrNoProgress
}

// atEnd reports whether the input ended after the dump handed out last (nothing but blanks
// follows it): no dump follows to print again what this one lost.
func (d *dumpReader) atEnd() bool {
	return d.rerr == io.EOF && blank(d.buf[d.off:d.end])
}

// next returns the next dump's text (valid until the next call), or io.EOF. It is cut line by
// line: lines longer than maxLine are skipped and counted, and a dump is cut at maxDump bytes.
// The line that starts the next dump is left unread.
func (d *dumpReader) next() ([]byte, error) {
	d.chunk = d.chunk[:0]
	for {
		line, err := d.line()
		if err != nil && err != io.EOF {
			return nil, err
		}
		if line != nil {
			header := bytes.HasPrefix(trimLeft(line), dumpHeader)
			if d.over && !header {
				d.overLines++ // the rest of a dump past maxDump
				if err == io.EOF {
					break
				}
				continue
			}
			d.over = false
			if (header || len(d.chunk)+len(line) > maxDump) && !blank(d.chunk) {
				// The next dump; or, past maxDump, what was read is parsed as the dump and its
				// rest is skipped up to the next one (and counted).
				if !header {
					d.over = true
					d.overDumps++
				}
				d.off -= len(line)
				d.read -= int64(len(line))
				return d.chunk, nil
			}
			d.chunk = append(d.chunk, line...)
		}
		if err == io.EOF {
			break
		}
	}
	if blank(d.chunk) {
		return nil, io.EOF
	}
	return d.chunk, nil
}

// line reads one line with its newline (nil when it was too long and skipped), a slice of the
// buffer valid until the next read. At the end of the input it returns the last line (nil when
// empty) and io.EOF.
func (d *dumpReader) line() ([]byte, error) {
	scanned := 0
	for {
		b := d.buf[d.off:d.end]
		// (no further than maxLine: a longer line is skipped)
		if i := bytes.IndexByte(b[scanned:min(len(b), maxLine)], '\n'); i >= 0 {
			d.off += scanned + i + 1
			d.read += int64(scanned + i + 1)
			return b[:scanned+i+1], nil
		}
		if len(b) >= maxLine {
			return nil, d.skipLine()
		}
		if d.rerr != nil {
			d.off, d.read = d.end, d.read+int64(len(b))
			if len(b) == 0 {
				b = nil
			}
			return b, d.rerr
		}
		scanned = len(b)
		d.more()
	}
}

// skipLine discards the rest of a line longer than maxLine and counts it.
func (d *dumpReader) skipLine() error {
	d.longLines++
	for {
		if i := bytes.IndexByte(d.buf[d.off:d.end], '\n'); i >= 0 {
			d.off += i + 1
			d.read += int64(i + 1)
			return nil
		}
		d.read += int64(d.end - d.off)
		d.off = d.end
		if d.rerr != nil {
			return d.rerr
		}
		d.more()
	}
}
