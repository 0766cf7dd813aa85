package logcat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fpstop/fpstop/source"
)

// Options configure FromReader.
type Options struct {
	// Name is the input's name (file path, "-" for stdin), reported in the Session.
	Name string
	// Package is the app the text is about (-p). Lines are kept only for it where the text says
	// which process it is (Decoder.SetPackage); where it does not, a warning says that every
	// process's lines were counted.
	Package string
	// Pid keeps only this process's lines (0: every process).
	Pid int
	// Raw also emits the text read, as *source.Raw events (Stream "logcat").
	Raw bool
	// FlushEvery is the longest a decoded event waits before it is sent while text is flowing
	// (default 100 ms).
	FlushEvery time.Duration
}

const (
	// extrapolateLag is how far behind the host clock an extrapolated Tick stays, so that lines
	// logcat delivers late are still newer than the Ticks already sent.
	extrapolateLag = time.Second
	chunkSize      = 256 << 10
	maxBatch       = 4096
	maxLine        = 1 << 20 // longer lines are cut (a torn or binary input must not grow memory)
)

// PackageIgnoredText is the warning when -p could not select a process in logcat text.
func PackageIgnoredText(pkg string) string {
	return "-p " + pkg + ": -p was ignored — the logcat text does not say which process is " + pkg +
		" (its lines name processes by pid only), so every process's lines were counted"
}

// FromReader returns a Source that reads logcat text from r — a captured file, or stdin fed by
// a running `adb logcat -v threadtime` — in any format the Parser knows (UTF-8, with or without
// BOM; UTF-16 with BOM is converted). Events are sent in batches as lines arrive: at least
// every Options.FlushEvery while text flows, each batch closed by a Tick carrying the newest
// line timestamp. At the end of the input still-open Dispatchings become UnpairedLines, and a
// Notice explains how to enable printer lines when there were none. Run returns nil at the end
// of r; it does not close r (a Read blocked on a silent stdin ends with the process).
func FromReader(r io.Reader, opts Options) source.Source {
	return &readerSource{r: r, opts: opts}
}

type readerSource struct {
	r    io.Reader
	opts Options
}

// Run implements source.Source.
func (s *readerSource) Run(ctx context.Context, out chan<- []source.Event) error {
	p := newPump(out, s.opts.Raw, s.opts.FlushEvery)
	p.d.SetPid(s.opts.Pid)
	p.d.SetPackage(s.opts.Package)
	p.add(&source.Session{Source: source.KindLogcat, Package: s.opts.Package, Pid: s.opts.Pid,
		CostBasis: source.CostMainThread, Input: s.opts.Name})
	cr := &countingReader{r: s.r}
	if _, err := p.stream(ctx, cr, nil); err != nil {
		return err
	}
	p.end()
	st := p.d.Stats()
	if st.LogLines == 0 && st.Dispatching+st.Finished+st.Skipped == 0 {
		// Nothing in the input is logcat (nor was it gfxinfo, or it would not be read here):
		// an empty report would look like a clean run.
		return fmt.Errorf("no logcat or gfxinfo lines recognised in %s (%d lines)", source.ByteSize(cr.n), st.Lines)
	}
	if st.Dispatching+st.Finished == 0 {
		p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelInfo, Text: NoPrinterHelp})
	}
	if s.opts.Package != "" && s.opts.Pid == 0 && !p.d.PackageSeen() {
		p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelWarn, Text: PackageIgnoredText(s.opts.Package)})
	}
	p.add(&source.Notice{AtNs: p.d.NowNs(), Level: source.LevelInfo, State: source.StateEnded, Text: "end of logcat input"})
	return p.flush(ctx)
}

// pump moves text from a reader through a Decoder to the event channel.
type pump struct {
	d          *Decoder
	out        chan<- []source.Event
	raw        bool
	rawBuf     []byte
	flushEvery time.Duration
	carry      []byte
	lastLine   []byte
	lastTick   int64
	// extrapolate, while a live device stream is followed, keeps Ticks going when no line
	// arrives (an idle app logs nothing): the last line time plus the host time since, less lag.
	extrapolate bool
	lag         time.Duration
	lineNs      int64     // the newest line time seen by the extrapolation
	lineAt      time.Time // host time when lineNs last advanced
	flushedAt   time.Time // host time of the previous flush
	clock       lineClock // live: the device's time now, from the promptest lines
	now         func() time.Time
	// hook, when set, runs on the stream's goroutine after each chunk and each flush period.
	hook func()
}

func newPump(out chan<- []source.Event, raw bool, every time.Duration) *pump {
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	return &pump{d: NewDecoder(), out: out, raw: raw, flushEvery: every, lag: extrapolateLag, now: time.Now}
}

// feedLive feeds a chunk of a live stream and notes when its newest line arrived, for the
// stream's latency and the extrapolation's base.
func (p *pump) feedLive(chunk []byte) {
	p.feed(chunk)
	if p.extrapolate && len(p.lastLine) > 0 {
		p.d.NoteTime(p.lastLine)
		p.lastLine = p.lastLine[:0]
		at := p.now()
		p.clock.note(at, p.d.NowNs())
		p.advance(at)
	}
}

// advance moves the extrapolation's base to the newest line time when it moved. The base is
// the line time and when it was read, never an extrapolated Tick: extrapolating from a Tick
// that was already ahead of late lines added the host time twice, and the clock ran at twice
// wall time.
func (p *pump) advance(at time.Time) {
	if now := p.d.NowNs(); now > p.lineNs {
		p.lineNs, p.lineAt = now, at
	}
}

// add queues an event of the source itself, in order with the decoded ones.
func (p *pump) add(ev source.Event) { p.d.events = append(p.d.events, ev) }

// feed decodes the complete lines of chunk and keeps a torn last line for the next chunk.
func (p *pump) feed(chunk []byte) {
	if p.raw {
		p.rawBuf = append(p.rawBuf, chunk...)
	}
	if len(p.carry) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if len(p.carry) < maxLine {
				p.carry = append(p.carry, chunk[:min(len(chunk), maxLine-len(p.carry))]...)
			}
			return
		}
		if len(p.carry) < maxLine {
			p.carry = append(p.carry, chunk[:min(i, maxLine-len(p.carry))]...)
		}
		p.d.Line(p.carry)
		p.lastLine = append(p.lastLine[:0], p.carry...)
		p.carry = p.carry[:0]
		chunk = chunk[i+1:]
	}
	end, last := p.d.Block(chunk)
	chunk = chunk[end:]
	if last != nil {
		p.lastLine = append(p.lastLine[:0], last...)
	}
	if len(chunk) > 0 {
		p.carry = append(p.carry, chunk[:min(len(chunk), maxLine)]...)
	}
}

// end decodes a last line without '\n' and closes open Dispatchings.
func (p *pump) end() {
	if len(p.carry) > 0 {
		p.d.Line(p.carry)
		p.lastLine = append(p.lastLine[:0], p.carry...)
		p.carry = p.carry[:0]
	}
	p.d.Finish()
}

// openDispatchAfterNs: a live main-thread message open this long is reported as a Dispatch, so
// the screen can show FROZEN (from 250 ms) while the app is stuck.
const openDispatchAfterNs = 100_000_000

// flush sends what is pending: the decoded events and the source's own, the raw text and
// a Tick at the newest line time.
func (p *pump) flush(ctx context.Context) error {
	if len(p.lastLine) > 0 {
		p.d.NoteTime(p.lastLine)
		p.lastLine = p.lastLine[:0]
	}
	batch := p.d.Events()
	now := p.d.NowNs()
	host := now // the newest line time plus the host time since it arrived, without the Ticks' lag
	if p.extrapolate && now > 0 {
		at := p.now()
		p.advance(at)
		since := at.Sub(p.lineAt)
		host = p.lineNs + int64(since)
		if e := since - p.lag; e > 0 && !p.lineAt.After(p.flushedAt) {
			now = p.lineNs + int64(e) // no line since the last flush: extrapolate
		}
		p.flushedAt = at
		// live: a main-thread message open this long is announced before its Finished line —
		// measured without the Ticks' lag, else a freeze would be named a second late, and
		// from the stream's usual latency, not the newest line's (a late line is late)
		if est, ok := p.clock.now(at); ok && est > host {
			host = min(est, host+lineClockMaxGain)
		}
		batch = p.d.OpenDispatches(batch, host, openDispatchAfterNs)
	}
	if p.raw && len(p.rawBuf) > 0 {
		batch = append(batch, &source.Raw{AtNs: now, Stream: "logcat", Text: p.rawBuf})
		p.rawBuf = nil
	}
	if now > p.lastTick {
		p.lastTick = now
		batch = append(batch, &source.Tick{NowNs: now})
	}
	if len(batch) == 0 {
		return nil
	}
	select {
	case p.out <- batch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type chunk struct {
	b   []byte
	err error
}

// stream decodes r until its end (returns io.EOF-free nil error and ended=true), until stop is
// closed (ended=false), or until ctx ends (ctx.Err()). Batches are flushed as they fill and at
// least every flushEvery.
func (p *pump) stream(ctx context.Context, r io.Reader, stop <-chan struct{}) (ended bool, err error) {
	chunks := make(chan chunk, 2)
	free := make(chan []byte, 4)
	done := make(chan struct{})
	defer close(done)
	go readChunks(r, chunks, free, done)
	t := time.NewTicker(p.flushEvery)
	defer t.Stop()
	for {
		select {
		case c := <-chunks:
			if len(c.b) > 0 {
				p.feedLive(c.b)
				if p.hook != nil {
					p.hook()
				}
				select {
				case free <- c.b[:cap(c.b)]:
				default:
				}
			}
			if c.err != nil {
				if errors.Is(c.err, io.EOF) {
					return true, nil
				}
				return true, c.err
			}
			if p.d.Pending() >= maxBatch {
				if err := p.flush(ctx); err != nil {
					return false, err
				}
			}
		case <-t.C:
			if p.hook != nil {
				p.hook()
			}
			if err := p.flush(ctx); err != nil {
				return false, err
			}
		case <-stop:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// readChunks reads r into recycled buffers until an error (io.EOF at the end), converting
// UTF-16 text (by its byte-order mark, or NUL every other byte) to UTF-8.
func readChunks(r io.Reader, chunks chan<- chunk, free chan []byte, done <-chan struct{}) {
	var conv *utf16Conv
	first := true
	for {
		var buf []byte
		select {
		case buf = <-free:
		default:
			buf = make([]byte, chunkSize)
		}
		n, err := io.ReadAtLeast(r, buf[:cap(buf)], 1)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		b := buf[:n]
		if first && n >= 2 {
			first = false
			// UTF-16 with a byte-order mark, or without one (NUL every other byte).
			if u16, be, _ := source.SniffUTF16(b); u16 {
				conv = &utf16Conv{be: be}
			}
		}
		if conv != nil && n > 0 {
			b = conv.convert(make([]byte, 0, n*3/2+4), b)
		}
		select {
		case chunks <- chunk{b: b, err: err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

// utf16Conv converts a UTF-16 byte stream to UTF-8, chunk by chunk.
type utf16Conv struct {
	be   bool
	odd  bool
	oddB byte
	high rune
}

func (c *utf16Conv) convert(dst, src []byte) []byte {
	if c.odd {
		src = append([]byte{c.oddB}, src...)
		c.odd = false
	}
	for i := 0; i+1 < len(src); i += 2 {
		var u rune
		if c.be {
			u = rune(src[i])<<8 | rune(src[i+1])
		} else {
			u = rune(src[i]) | rune(src[i+1])<<8
		}
		if c.high != 0 {
			h := c.high
			c.high = 0
			if u >= 0xDC00 && u < 0xE000 {
				dst = utf8.AppendRune(dst, utf16.DecodeRune(h, u))
				continue
			}
			dst = utf8.AppendRune(dst, utf8.RuneError)
		}
		if u >= 0xD800 && u < 0xDC00 {
			c.high = u
			continue
		}
		dst = utf8.AppendRune(dst, u)
	}
	if len(src)%2 == 1 {
		c.odd, c.oddB = true, src[len(src)-1]
	}
	return dst
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
