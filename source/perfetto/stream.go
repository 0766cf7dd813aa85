package perfetto

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Stream feeds a Parser from a trace that arrives in pieces (a file still being written on the
// phone, read from the offset already read): each Write decodes the whole packets it completes
// and keeps the partial one for the next. It holds at most one partial packet (bounded by
// maxPacket), so memory does not grow with the trace.
type Stream struct {
	p   *Parser
	buf []byte
	// Off is how many bytes of the trace were decoded (whole top-level fields).
	Off int64
	// Skipped counts top-level fields that were not packets.
	Skipped int
	err     error
}

// NewStream makes a Stream feeding p.
func NewStream(p *Parser) *Stream { return &Stream{p: p} }

// Write takes the next bytes of the trace. Its error (wrapping ErrNotTrace) means the bytes
// cannot be a trace; the stream then takes nothing more.
func (s *Stream) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.buf = append(s.buf, b...)
	rest := s.buf
	for len(rest) > 0 {
		n, err := s.field(rest)
		if err != nil {
			s.err = err
			return len(b), err
		}
		if n == 0 {
			break
		}
		rest = rest[n:]
		s.Off += int64(n)
	}
	s.buf = append(s.buf[:0], rest...)
	if cap(s.buf) > 4<<20 && len(s.buf) < 1<<20 {
		// a huge packet passed: let its buffer go
		s.buf = append([]byte(nil), s.buf...)
	}
	return len(b), nil
}

// field decodes the first top-level field of b: its length, or 0 when b holds only part of it.
func (s *Stream) field(b []byte) (int, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		if len(b) < 10 {
			return 0, nil // the tag is cut
		}
		return 0, fmt.Errorf("byte %d: no field tag: %w", s.Off, ErrNotTrace)
	}
	if num <= 0 {
		return 0, fmt.Errorf("byte %d: field %d is not a trace packet: %w", s.Off, num, ErrNotTrace)
	}
	if typ == protowire.BytesType {
		l, m := protowire.ConsumeVarint(b[n:])
		if m < 0 {
			if len(b)-n < 10 {
				return 0, nil
			}
			return 0, fmt.Errorf("byte %d: bad field length: %w", s.Off, ErrNotTrace)
		}
		if l > maxPacket {
			return 0, fmt.Errorf("packet at byte %d claims %d bytes (more than %d MB): %w", s.Off, l, maxPacket>>20, ErrNotTrace)
		}
		end := n + m + int(l)
		if len(b) < end {
			return 0, nil
		}
		if num == 1 {
			s.p.Packet(b[n+m : end])
		} else {
			s.Skipped++
		}
		return end, nil
	}
	if typ != protowire.VarintType && typ != protowire.Fixed32Type && typ != protowire.Fixed64Type {
		return 0, fmt.Errorf("byte %d: field %d wire type %d is not a trace packet: %w", s.Off, num, typ, ErrNotTrace)
	}
	v := protowire.ConsumeFieldValue(num, typ, b[n:])
	if v < 0 {
		return 0, nil // cut; skipped once whole
	}
	s.Skipped++
	return n + v, nil
}

// Pending is how many bytes of a partial packet the stream holds.
func (s *Stream) Pending() int { return len(s.buf) }
