// Package perfetto reads Perfetto traces (the binary protobuf `Trace` that Android Studio, the
// Perfetto UI, record_android_trace and Macrobenchmark write): SurfaceFlinger's FrameTimeline
// (every frame of every layer, who missed its deadline), atrace sections (what the app's
// threads ran) and the process and thread names, turned into fpstop's source events.
//
// A trace is a stream of length-delimited packets, so it is read packet by packet from any
// io.Reader with memory bounded by the largest packet and the sort window, never by the trace:
// a 200 MB file and a file that is still growing (issue 33's live session) read the same way.
// Decoding is by field number with protowire: Perfetto serves no Go module of its protos.
//
// This package never imports metrics, ui or record (DESIGN §3).
package perfetto

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"

	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// Limits on what one packet may claim. A packet longer than maxPacket is not a trace Perfetto
// wrote (its own writer chunks packets well below it) and reading it would have to hold it
// whole: the reader refuses it rather than allocate what a corrupt length asks for.
const (
	maxPacket = 32 << 20
	// maxInflated bounds what one compressed_packets message may inflate to (Perfetto
	// compresses batches of at most a few hundred KB; a zip bomb stops here).
	maxInflated = 64 << 20
)

// ErrTruncated is returned (wrapped) when the input ends inside a packet: a trace cut off by a
// crash, a pull that stopped early, or a file still being written.
var ErrTruncated = errors.New("trace truncated inside a packet")

// ErrNotTrace is returned when the first bytes cannot start a Perfetto trace.
var ErrNotTrace = errors.New("not a Perfetto trace")

// ErrCorrupt is returned when a gzip'd trace's compressed stream is damaged.
var ErrCorrupt = errors.New("gzip'd trace is corrupt")

// Reader splits a trace into its TracePackets. It reads from an io.Reader incrementally and
// holds one packet at a time.
type Reader struct {
	br  *bufio.Reader
	buf []byte
	// Off is how many bytes of the (uncompressed) trace were consumed.
	Off int64
	// Skipped counts top-level fields that were not packets (unknown fields, skipped).
	Skipped int
}

// NewReader reads a trace from r, gunzipping it first when it starts with gzip's magic.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("gzip header cut short: %w", ErrTruncated)
			}
			return nil, fmt.Errorf("reading gzip'd trace: %v: %w", err, ErrCorrupt)
		}
		br = bufio.NewReaderSize(zr, 256<<10)
	}
	return &Reader{br: br}, nil
}

// Next returns the next packet's bytes (valid until the next call). At the end of the input it
// returns io.EOF; an input cut inside a packet returns an error wrapping ErrTruncated, and one
// whose framing is not a trace's an error saying why.
func (r *Reader) Next() ([]byte, error) {
	for {
		tag, err := r.uvarint()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		num, typ := protowire.DecodeTag(tag)
		if num == 1 && typ == protowire.BytesType {
			n, err := r.uvarint()
			if err != nil {
				return nil, truncatedOr(err)
			}
			if n > maxPacket {
				return nil, fmt.Errorf("packet at byte %d claims %d bytes (more than %d MB): %w", r.Off, n, maxPacket>>20, ErrNotTrace)
			}
			if err := r.readPacket(int(n)); err != nil {
				return nil, truncatedOr(err)
			}
			r.Off += int64(n)
			return r.buf, nil
		}
		if num <= 0 || !r.skip(typ) {
			return nil, fmt.Errorf("byte %d: field %d wire type %d is not a trace packet: %w", r.Off, num, typ, ErrNotTrace)
		}
		r.Skipped++
	}
}

// readPacket reads n bytes into r.buf. The buffer grows with the bytes that actually arrive,
// not with what the length claims: a cut or corrupt length of 30 MB in a 10-byte input costs
// 10 bytes, not a 30 MB allocation per attempt (the fuzzer slowed to a crawl on those).
func (r *Reader) readPacket(n int) error {
	const step = 1 << 20
	r.buf = r.buf[:0]
	for len(r.buf) < n {
		k := min(n-len(r.buf), step)
		if cap(r.buf)-len(r.buf) < k {
			nb := make([]byte, len(r.buf), min(n, max(2*cap(r.buf), len(r.buf)+k)))
			copy(nb, r.buf)
			r.buf = nb
		}
		m, err := io.ReadFull(r.br, r.buf[len(r.buf):len(r.buf)+k])
		r.buf = r.buf[:len(r.buf)+m]
		if err != nil {
			return err
		}
	}
	return nil
}

// skip passes over one top-level field that is not a packet; false when it cannot be skipped.
func (r *Reader) skip(typ protowire.Type) bool {
	switch typ {
	case protowire.VarintType:
		_, err := r.uvarint()
		return err == nil
	case protowire.Fixed32Type, protowire.Fixed64Type:
		n := 4
		if typ == protowire.Fixed64Type {
			n = 8
		}
		d, err := r.br.Discard(n)
		r.Off += int64(d)
		return err == nil
	case protowire.BytesType:
		n, err := r.uvarint()
		if err != nil || n > maxPacket {
			return false
		}
		d, err := r.br.Discard(int(n))
		r.Off += int64(d)
		return err == nil
	}
	return false
}

// uvarint reads one varint; io.EOF only when no byte at all was left.
func (r *Reader) uvarint() (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		b, err := r.br.ReadByte()
		if err != nil {
			if i == 0 && err == io.EOF {
				return 0, io.EOF
			}
			return 0, truncatedOr(err)
		}
		r.Off++
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("byte %d: varint longer than 10 bytes: %w", r.Off, ErrNotTrace)
}

func truncatedOr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	var c kflate.CorruptInputError
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &c) {
		return fmt.Errorf("reading trace: %v: %w", err, ErrCorrupt)
	}
	return fmt.Errorf("reading trace: %w", err)
}

// Sniff reports whether head (the first bytes of an input, not gzip'd; final when it is the
// whole input) holds a Perfetto trace: packets (field 1) one after another from the first
// byte, every field of every whole packet parsing, and the control bytes that protobuf tags
// and lengths are made of (text never has them). Two whole packets, or one that fills the
// input or runs past the head, are enough.
func Sniff(head []byte, final bool) bool {
	if !hasControlBytes(head[:min(len(head), 64)]) {
		return false
	}
	packets := 0
	for b := head; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			return false
		}
		l, m := protowire.ConsumeVarint(b[n:])
		if m < 0 || l > maxPacket {
			return false
		}
		body := b[n+m:]
		whole := uint64(len(body)) >= l
		if whole {
			body = body[:l]
		}
		if !fieldsParse(body, whole) {
			return false
		}
		if !whole {
			return packets > 0 || len(head) >= 4096
		}
		packets++
		b = b[n+m+int(l):]
		if packets >= 2 {
			return true
		}
	}
	return packets == 1 && final
}

// fieldsParse reports whether msg is a run of well-formed protobuf fields (its last one may be
// cut when the message is not whole).
func fieldsParse(msg []byte, whole bool) bool {
	for len(msg) > 0 {
		num, typ, k := protowire.ConsumeTag(msg)
		if k < 0 {
			return !whole && len(msg) < 10
		}
		v := protowire.ConsumeFieldValue(num, typ, msg[k:])
		if v < 0 {
			return !whole
		}
		msg = msg[k+v:]
	}
	return true
}

func hasControlBytes(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return true
		}
	}
	return false
}

// SniffGzip reports whether gz, the first bytes of a gzip'd input, holds a Perfetto trace or
// systrace text.
func SniffGzip(gz []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return false
	}
	head := make([]byte, 8192)
	n, err := io.ReadFull(zr, head)
	return n > 0 && (Sniff(head[:n], err == io.EOF || err == io.ErrUnexpectedEOF) || SniffText(head[:n]))
}

// inflate opens a compressed_packets payload: zlib as Perfetto writes it, raw deflate or gzip
// as other writers might, bounded by maxInflated.
func inflate(b []byte) ([]byte, error) {
	var rc io.Reader
	switch {
	case len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		rc = zr
	case len(b) >= 2 && b[0]&0x0f == 8 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0:
		zr, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		rc = zr
	default:
		rc = flate.NewReader(bytes.NewReader(b))
	}
	out, err := io.ReadAll(io.LimitReader(rc, maxInflated+1))
	if err != nil {
		return out, err
	}
	if len(out) > maxInflated {
		return nil, fmt.Errorf("compressed packets inflate past %d MB", maxInflated>>20)
	}
	return out, nil
}
