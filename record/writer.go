package record

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/source"
	"github.com/klauspost/compress/gzip"
)

// FlushInterval is the longest a written event waits in memory before it reaches the file.
const FlushInterval = time.Second

// Options control Create.
type Options struct {
	// Force overwrites an existing file; without it Create refuses.
	Force bool
	// Raw writes *source.Raw events to RawPath(path) beside the recording (--record-raw).
	Raw bool
}

// Writer writes one recording. Write, Flush and Close may be called from different goroutines
// (the Runner's tap writes; a signal handler closes). After a write error the Writer stops
// writing: the error is returned once, by the Write or Flush that met it, and again by Close.
type Writer struct {
	mu     sync.Mutex
	path   string
	out    *sink
	raw    *sink
	closed bool
	err    error // first write error; writing stopped
	told   bool  // err was returned by Write or Flush
	line   []byte
	end    End
	stop   chan struct{}
	done   chan struct{}
	now    func() time.Time
}

// sink is one output file: a buffered, possibly gzip-compressed stream.
type sink struct {
	c     io.Closer // the file (nil in tests)
	gz    *gzip.Writer
	bw    *bufio.Writer
	dirty bool
	last  time.Time // last flush
}

func newSink(w io.Writer, c io.Closer, gz bool) *sink {
	s := &sink{c: c}
	if gz {
		s.gz, _ = gzip.NewWriterLevel(w, gzip.DefaultCompression)
		w = s.gz
	}
	s.bw = bufio.NewWriterSize(w, 64<<10)
	return s
}

func (s *sink) flush() error {
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if s.gz != nil {
		// A sync flush ends a deflate block on a byte boundary: a reader of the file decodes
		// every line written before it even if the process dies right after.
		if err := s.gz.Flush(); err != nil {
			return err
		}
	}
	s.dirty = false
	return nil
}

func (s *sink) close() error {
	err := s.bw.Flush()
	if s.gz != nil {
		if e := s.gz.Close(); err == nil {
			err = e
		}
	}
	if s.c != nil {
		if e := s.c.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Create starts a recording at path with header hdr (Format and StartUTC are filled when
// zero). The file is created with mode 0644 and never replaces an existing file unless
// opts.Force (the error then wraps outfile.ErrExists). It is gzip-compressed when path ends in
// ".gz". A goroutine flushes it at least once a second until Close.
func Create(path string, hdr Header, opts Options) (*Writer, error) {
	f, err := outfile.Create(path, opts.Force)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	var rawf *os.File
	if opts.Raw {
		if rawf, err = outfile.Create(RawPath(path), opts.Force); err != nil {
			f.Close()
			os.Remove(path)
			return nil, fmt.Errorf("recording: %w", err)
		}
	}
	w := &Writer{path: path, out: newSink(f, f, strings.HasSuffix(path, ".gz")), now: time.Now}
	if rawf != nil {
		w.raw = newSink(rawf, rawf, true)
	}
	if err := w.start(hdr); err != nil {
		w.out.close()
		if w.raw != nil {
			w.raw.close()
		}
		return nil, err
	}
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go w.flusher()
	return w, nil
}

type headerLine struct {
	Type string `json:"type"`
	Header
}

func (w *Writer) start(hdr Header) error {
	if hdr.Format == 0 {
		hdr.Format = FormatVersion
	}
	if hdr.StartUTC.IsZero() {
		hdr.StartUTC = w.now()
	}
	hdr.StartUTC = hdr.StartUTC.UTC()
	w.end.Counts = map[string]int64{}
	w.out.last = w.now()
	b, err := json.Marshal(headerLine{Type: LineHeader, Header: hdr})
	if err != nil {
		return fmt.Errorf("recording %s: encoding header: %w", w.path, err)
	}
	if err := w.writeLine(w.out, append(b, '\n')); err != nil {
		return w.err
	}
	if w.raw != nil {
		w.raw.last = w.out.last
		if err := w.writeLine(w.raw, append(b, '\n')); err != nil {
			return w.err
		}
	}
	// The header reaches the file at once: a reader (replay --follow) can open it right away.
	if err := w.flushLocked(); err != nil {
		return err
	}
	w.told = false
	return nil
}

// writeLine writes b to s, recording the first failure.
func (w *Writer) writeLine(s *sink, b []byte) error {
	if _, err := s.bw.Write(b); err != nil {
		w.fail(err)
		return w.err
	}
	s.dirty = true
	return nil
}

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = fmt.Errorf("recording %s: write failed, recording stopped: %w", w.path, err)
	}
}

// report returns w.err the first time it is asked, nil after (the error is returned once).
func (w *Writer) report() error {
	if w.err == nil || w.told {
		return nil
	}
	w.told = true
	return w.err
}

// Path is the recording's file name.
func (w *Writer) Path() string { return w.path }

// Written is what the recording holds so far: event lines, frame lines among them, and the
// device time they span — for the one-line summary shown when it is saved.
func (w *Writer) Written() (events, frames int64, span time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.end.Events, w.end.Counts[source.LineFrame], time.Duration(max(0, w.end.LastNs-w.end.FirstNs))
}

// Write appends events to the recording: each as one line (source.AppendLine), *source.Raw to
// the raw file when Options.Raw (dropped otherwise). It flushes when a second has passed since
// the last flush. It can be used as a metrics.Runner tap. After Close, or once a write error has
// been returned, Write does nothing and returns nil.
func (w *Writer) Write(evs []source.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return w.report()
	}
	for _, ev := range evs {
		if raw, ok := ev.(*source.Raw); ok {
			if w.raw != nil {
				w.writeRaw(raw)
			}
			continue
		}
		line, err := source.AppendLine(w.line[:0], ev)
		if err != nil {
			// An event type with no line form (a programming error elsewhere): skip it rather
			// than lose the recording.
			continue
		}
		w.line = append(line, '\n')
		if w.writeLine(w.out, w.line) != nil {
			return w.report()
		}
		w.count(source.LineType(ev), ev.At())
	}
	if w.now().Sub(w.out.last) >= FlushInterval {
		w.flushLocked()
	}
	return w.report()
}

func (w *Writer) count(typ string, at int64) {
	w.end.Events++
	w.end.Counts[typ]++
	if at > 0 {
		if w.end.FirstNs == 0 || at < w.end.FirstNs {
			w.end.FirstNs = at
		}
		w.end.LastNs = max(w.end.LastNs, at)
	}
}

// RawLine is one line of the raw-text file beside a recording (RawPath, --record-raw): a chunk
// of a source's text as it came, base64-encoded in B64 when it is not valid UTF-8.
type RawLine struct {
	Type   string `json:"type"`
	AtNs   int64  `json:"at_ns"`
	Stream string `json:"stream"`
	Text   string `json:"text,omitempty"`
	B64    string `json:"b64,omitempty"`
}

// writeRaw writes one raw chunk as {"type":"raw","at_ns":…,"stream":…,"text":…}; text that is
// not valid UTF-8 (a UTF-16 capture) goes base64-encoded in "b64" so it survives byte for byte.
func (w *Writer) writeRaw(r *source.Raw) {
	l := RawLine{Type: LineRaw, AtNs: r.AtNs, Stream: r.Stream}
	if utf8.Valid(r.Text) {
		l.Text = string(r.Text)
	} else {
		l.B64 = base64.StdEncoding.EncodeToString(r.Text)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	if w.writeLine(w.raw, append(b, '\n')) == nil {
		w.end.RawChunks++
	}
}

// Flush pushes everything written so far to the file (for .gz, a gzip sync flush, so a reader
// decodes every line before it).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return w.report()
	}
	w.flushLocked()
	return w.report()
}

func (w *Writer) flushLocked() error {
	t := w.now()
	for _, s := range []*sink{w.out, w.raw} {
		if s == nil || w.err != nil {
			continue
		}
		if err := s.flush(); err != nil {
			w.fail(err)
		}
		s.last = t
	}
	return w.err
}

func (w *Writer) flusher() {
	defer close(w.done)
	t := time.NewTicker(FlushInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			if !w.closed && w.err == nil && (w.out.dirty || (w.raw != nil && w.raw.dirty)) &&
				w.now().Sub(w.out.last) >= FlushInterval/2 {
				w.flushLocked()
			}
			w.mu.Unlock()
		}
	}
}

type endLine struct {
	Type string `json:"type"`
	End
}

// SetWall sets the live run's wall-clock duration the end line states (End.WallNs).
func (w *Writer) SetWall(ns int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.end.WallNs = max(ns, 0)
}

// Close writes the end line, flushes and closes the file(s). It is idempotent and safe to call
// from another goroutine than Write (a SIGINT handler). It returns the write error that stopped
// the recording, if any (also when Write already returned it), or the error of closing.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.err
	}
	w.closed = true
	if w.err == nil {
		w.end.EndUTC = w.now().UTC()
		w.end.DurationNs = max(w.end.LastNs-w.end.FirstNs, 0)
		if b, err := json.Marshal(endLine{Type: LineEnd, End: w.end}); err == nil {
			w.writeLine(w.out, append(b, '\n'))
		}
		if w.raw != nil {
			w.writeLine(w.raw, []byte(`{"type":"end"}`+"\n"))
		}
	}
	for _, s := range []*sink{w.out, w.raw} {
		if s == nil {
			continue
		}
		if err := s.close(); err != nil && w.err == nil {
			w.fail(err)
		}
	}
	w.told = true
	stop := w.stop
	w.mu.Unlock()
	if stop != nil {
		close(stop)
		<-w.done
	}
	return w.err
}

// Err returns the error that stopped the recording, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
