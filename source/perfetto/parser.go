package perfetto

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Parser turns packets into FrameTimeline slices and atrace sections, in time order, calling
// its handlers as each one closes. It keeps no more than its bounded sort window, the open
// slices and the names: feed it packets from a file of any size or from a growing stream.
type Parser struct {
	// OnTimeline receives every FrameTimeline slice when it ends (or is left unfinished).
	OnTimeline func(*TimelineSlice)
	// OnSlice receives every atrace section when it ends (or at Finish, unfinished).
	OnSlice func(*Slice)
	// OnTime is told the time (trace clock) the sorted stream has reached, after each event.
	OnTime func(ts int64)

	names  *names
	dec    *decoder
	sort   *sorter
	pair   *pairer
	slices *slicer

	warnings map[string]int
	Packets  int64
	// SawFrameTimeline and SawAtrace say what the trace holds so far.
	SawFrameTimeline, SawAtrace bool
	// Text says the input was systrace text (ftrace's text output, plain or in systrace's
	// HTML), Lines how many of its event lines were read.
	Text  bool
	Lines int64
}

// NewParser makes a Parser; set its handlers before the first packet.
func NewParser() *Parser {
	p := &Parser{names: newNames(), warnings: map[string]int{}}
	p.sort = newSorter(p.sorted)
	p.dec = newDecoder(p.names, p.sort.push, p.warn)
	p.pair = newPairer(func(s *TimelineSlice) {
		if p.OnTimeline != nil {
			p.OnTimeline(s)
		}
	})
	p.slices = newSlicer(p.names, func(s *Slice) {
		if p.OnSlice != nil {
			p.OnSlice(s)
		}
	})
	return p
}

func (p *Parser) warn(kind string) { p.warnings[kind]++ }

// Packet decodes one TracePacket.
func (p *Parser) Packet(b []byte) {
	p.Packets++
	p.dec.packet(b)
}

func (p *Parser) sorted(e *event) {
	switch e.kind {
	case evFTStart:
		p.SawFrameTimeline = true
		p.pair.start(e.ts, e.ft)
	case evFTEnd:
		p.pair.end(e.ts, e.cookie)
	case evPrint:
		p.SawAtrace = true
		p.slices.print(e.ts, e.tid, e.text)
	case evBegin:
		p.SawAtrace = true
		p.slices.begin(e.ts, trackSpace|e.track, e.pid, e.tid, e.text)
	case evEnd:
		p.slices.end(e.ts, trackSpace|e.track)
	}
	if p.OnTime != nil {
		p.OnTime(e.ts)
	}
}

// Finish hands on everything still in the sort window and every slice still open.
func (p *Parser) Finish() {
	p.sort.flush()
	p.pair.finish()
	p.slices.finish()
}

// SetWindow sets how far (trace time) events may arrive out of order: a live trace settles
// sooner with a short window, a file reads best with the default.
func (p *Parser) SetWindow(ns int64) { p.sort.windowNs, p.sort.fit = ns, nil }

// FitWindow makes the sort window follow the disorder the stream shows (see windowFit): at
// least lo, at most hi, starting from prior.
func (p *Parser) FitWindow(lo, hi, prior int64) {
	p.sort.fit = newWindowFit(lo, hi, prior)
	p.sort.windowNs = p.sort.fit.window()
}

// Window is the sort window now (trace time).
func (p *Parser) Window() int64 { return p.sort.windowNs }

// Settle hands on every event before ts (trace clock) and tells OnTime that time has come: a
// live trace that went quiet (an idle app) still releases the frames it holds.
func (p *Parser) Settle(ts int64) {
	for len(p.sort.h) > 0 && p.sort.h[0].ts < ts {
		p.sort.pop()
	}
	if p.OnTime != nil {
		p.OnTime(ts)
	}
}

// Latest is the latest packet timestamp seen (trace clock; 0 before one).
func (p *Parser) Latest() int64 { return max(p.dec.maxTs, p.sort.maxTs) }

// ToMono converts a trace (BOOTTIME) timestamp to CLOCK_MONOTONIC with the latest clock
// snapshot; unchanged when the trace has none (synthetic traces).
func (p *Parser) ToMono(ts int64) int64 { return ts + p.dec.bootToMono }

// HasClock reports whether a clock snapshot gave the BOOTTIME → MONOTONIC offset.
func (p *Parser) HasClock() bool { return p.dec.haveClock }

// ProcessName names a process ("pid N" when the trace does not).
func (p *Parser) ProcessName(pid int32) string { return p.names.processName(pid) }

// ThreadName names a thread ("main" for the main thread).
func (p *Parser) ThreadName(pid, tid int32) string { return p.names.threadName(pid, tid) }

// Warnings lists what was wrong with the input, each with its count, sorted.
func (p *Parser) Warnings() []string {
	w := map[string]int{}
	for k, v := range p.warnings {
		w[k] = v
	}
	add := func(n int, what string) {
		if n > 0 {
			w[what] += n
		}
	}
	add(p.sort.Late, "events later than the sort window (used out of order)")
	add(p.pair.Unpaired, "FrameTimeline frame ends without a start")
	add(p.pair.Evicted, "FrameTimeline frames left open too long (let go)")
	add(p.slices.Unpaired, "atrace section ends without a begin")
	add(p.slices.Malformed, "malformed atrace lines")
	add(p.slices.Dropped, "atrace sections too deep or on too many threads (skipped)")
	out := make([]string, 0, len(w))
	for k, v := range w {
		out = append(out, fmt.Sprintf("%s (%d)", k, v))
	}
	sort.Strings(out)
	return out
}

// sniffText is how much of an input ReadAll looks at to tell systrace text from a binary trace.
const sniffText = 64 << 10

// isText looks at what br holds already (a file: its first 256 kB; a pipe: what has arrived,
// never waiting for more) and reports whether it is systrace text rather than a binary trace.
func (p *Parser) isText(br *bufio.Reader) bool {
	if _, err := br.Peek(1); err != nil {
		return false
	}
	head, _ := br.Peek(min(br.Buffered(), sniffText))
	return !Sniff(head, false) && SniffText(head)
}

// ReadAll reads a whole trace from r into p (then Finish); systrace text (plain or HTML) is
// read too. A trace cut inside a packet is read
// up to the cut and reported with an error wrapping ErrTruncated; input that is not a trace is
// an error wrapping ErrNotTrace.
func (p *Parser) ReadAll(ctx context.Context, r io.Reader) error {
	rd, err := NewReader(r)
	if err != nil {
		return err
	}
	if p.isText(rd.br) {
		return p.readText(ctx, rd.br)
	}
	defer p.Finish()
	for i := 0; ; i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if p.Packets == 0 {
				return fmt.Errorf("no packets: %w", ErrNotTrace)
			}
			return nil
		}
		if err != nil {
			if p.Packets == 0 && !errors.Is(err, ErrTruncated) {
				return err
			}
			return fmt.Errorf("after %d packets (byte %d): %w", p.Packets, rd.Off, err)
		}
		p.Packet(b)
	}
}
