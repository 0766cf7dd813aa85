package perfetto

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// TracePacket field numbers (protos/perfetto/trace/trace_packet.proto; frame_timeline_event
// is declared as an extension since mid-2026, same number on the wire).
const (
	pkFtrace       = 1
	pkProcessTree  = 2
	pkClock        = 6
	pkTimestamp    = 8
	pkSequence     = 10
	pkTrackEvent   = 11
	pkInterned     = 12
	pkSeqFlags     = 13
	pkCompressed   = 50
	pkTrackDesc    = 60
	pkFrameTimline = 76
)

// Builtin clock ids (protos/perfetto/common/builtin_clock.proto).
const (
	clockMonotonic = 3
	clockBoottime  = 6
)

// evKind is what a sorted event is.
type evKind uint8

const (
	evFTStart evKind = iota + 1 // a FrameTimeline slice starts (ft set)
	evFTEnd                     // a FrameTimeline slice ends (cookie)
	evPrint                     // an ftrace print: an atrace line (buf)
	evBegin                     // a track event slice begins (track, name)
	evEnd                       // a track event slice ends (track)
)

// event is one timestamped thing the sorter orders before anything is paired.
type event struct {
	ts     int64
	seq    uint64 // arrival order: ties keep file order, as trace_processor's sorter does
	kind   evKind
	tid    int32 // ftrace: the thread that printed; track events: the track's thread (0 none)
	pid    int32 // track events: the track's process
	cookie int64
	track  uint64
	text   string // print buffer or slice name
	ft     *ftStart
}

// decoder turns packets into events for the sorter and keeps what is not time-ordered
// (names, clocks, interned strings, track descriptors) up to date as packets arrive.
type decoder struct {
	names *names
	push  func(event)
	warn  func(kind string)

	// bootToMono is MONOTONIC − BOOTTIME from the latest clock snapshot (0 before one).
	bootToMono int64
	haveClock  bool
	// maxTs is the latest packet timestamp seen (trace clock): how far a live trace has got.
	maxTs int64
	// interned event names per packet sequence (TrackEvent.name_iid), cleared with the
	// sequence's incremental state.
	interned map[uint64]map[uint64]string
	tracks   map[uint64]trackInfo
	depth    int // compressed_packets nesting
}

type trackInfo struct{ pid, tid int32 }

func newDecoder(n *names, push func(event), warn func(string)) *decoder {
	return &decoder{names: n, push: push, warn: warn, interned: map[uint64]map[uint64]string{},
		tracks: map[uint64]trackInfo{}}
}

// packet decodes one TracePacket.
func (d *decoder) packet(b []byte) {
	var ts int64
	var haveTS bool
	var seq uint64
	// first pass: the scalars every payload needs (timestamp, sequence), wherever they sit
	for rest := b; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			d.warn("malformed packet")
			return
		}
		rest = rest[n:]
		switch {
		case num == pkTimestamp && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(rest)
			if m < 0 {
				d.warn("malformed packet")
				return
			}
			ts, haveTS = int64(v), true
		case num == pkSequence && typ == protowire.VarintType:
			v, _ := protowire.ConsumeVarint(rest)
			seq = v
		case num == pkSeqFlags && typ == protowire.VarintType:
			v, _ := protowire.ConsumeVarint(rest)
			if v&1 != 0 { // SEQ_INCREMENTAL_STATE_CLEARED
				delete(d.interned, seq)
			}
		}
		m := protowire.ConsumeFieldValue(num, typ, rest)
		if m < 0 {
			d.warn("malformed packet")
			return
		}
		rest = rest[m:]
	}
	if haveTS && ts > d.maxTs {
		d.maxTs = ts
	}
	forEach(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) {
		if typ != protowire.BytesType {
			return
		}
		switch num {
		case pkFtrace:
			d.ftrace(v)
		case pkProcessTree:
			d.processTree(v)
		case pkClock:
			d.clock(v)
		case pkInterned:
			d.internedData(seq, v)
		case pkTrackDesc:
			d.trackDescriptor(v)
		case pkTrackEvent:
			if haveTS {
				d.trackEvent(ts, seq, v)
			}
		case pkFrameTimline:
			if !haveTS {
				d.warn("FrameTimeline event without a timestamp")
				return
			}
			d.frameTimeline(ts, v)
		case pkCompressed:
			d.compressed(v)
		}
	})
}

// forEach calls fn for every well-formed field of msg (v is the bytes of a length-delimited
// field, x the value of a varint or fixed field) and reports whether the whole message parsed.
func forEach(msg []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64)) bool {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return false
		}
		msg = msg[n:]
		switch typ {
		case protowire.VarintType:
			x, m := protowire.ConsumeVarint(msg)
			if m < 0 {
				return false
			}
			fn(num, typ, nil, x)
			msg = msg[m:]
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(msg)
			if m < 0 {
				return false
			}
			fn(num, typ, v, 0)
			msg = msg[m:]
		case protowire.Fixed64Type:
			x, m := protowire.ConsumeFixed64(msg)
			if m < 0 {
				return false
			}
			fn(num, typ, nil, x)
			msg = msg[m:]
		case protowire.Fixed32Type:
			x, m := protowire.ConsumeFixed32(msg)
			if m < 0 {
				return false
			}
			fn(num, typ, nil, uint64(x))
			msg = msg[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, msg)
			if m < 0 {
				return false
			}
			msg = msg[m:]
		}
	}
	return true
}

// sub parses a nested message, warning once per malformed one.
func (d *decoder) sub(msg []byte, what string, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64)) {
	if !forEach(msg, fn) {
		d.warn("malformed " + what)
	}
}

// compressed opens a compressed_packets payload: a deflated Trace, whose packets are decoded
// as if they had been written one by one.
func (d *decoder) compressed(v []byte) {
	if d.depth > 0 {
		d.warn("nested compressed packets")
		return
	}
	raw, err := inflate(v)
	if err != nil {
		d.warn("compressed packets that do not inflate")
		return
	}
	d.depth++
	defer func() { d.depth-- }()
	d.sub(raw, "compressed packets", func(num protowire.Number, typ protowire.Type, p []byte, _ uint64) {
		if num == 1 && typ == protowire.BytesType {
			d.packet(p)
		}
	})
}

// clock reads a ClockSnapshot: the offset from BOOTTIME (the trace clock of Android traces)
// to MONOTONIC (gfxinfo's and logcat's clock).
func (d *decoder) clock(v []byte) {
	var boot, mono int64
	var haveBoot, haveMono bool
	d.sub(v, "clock snapshot", func(num protowire.Number, typ protowire.Type, c []byte, _ uint64) {
		if num != 1 || typ != protowire.BytesType {
			return
		}
		var id, t uint64
		d.sub(c, "clock", func(n protowire.Number, _ protowire.Type, _ []byte, x uint64) {
			switch n {
			case 1:
				id = x
			case 2:
				t = x
			}
		})
		switch id {
		case clockBoottime:
			boot, haveBoot = int64(t), true
		case clockMonotonic:
			mono, haveMono = int64(t), true
		}
	})
	if haveBoot && haveMono {
		d.bootToMono, d.haveClock = mono-boot, true
	}
}

// processTree reads process and thread names (linux.process_stats).
func (d *decoder) processTree(v []byte) {
	d.sub(v, "process tree", func(num protowire.Number, typ protowire.Type, m []byte, _ uint64) {
		if typ != protowire.BytesType {
			return
		}
		switch num {
		case 1: // Process
			var pid int32
			var cmd string
			d.sub(m, "process", func(n protowire.Number, t protowire.Type, b []byte, x uint64) {
				switch {
				case n == 1 && t == protowire.VarintType:
					pid = int32(x)
				case n == 3 && t == protowire.BytesType && cmd == "":
					cmd = string(b)
				}
			})
			d.names.process(pid, cmd)
		case 2: // Thread
			var tid, tgid int32
			var name string
			d.sub(m, "thread", func(n protowire.Number, t protowire.Type, b []byte, x uint64) {
				switch {
				case n == 1 && t == protowire.VarintType:
					tid = int32(x)
				case n == 2 && t == protowire.BytesType:
					name = string(b)
				case n == 3 && t == protowire.VarintType:
					tgid = int32(x)
				}
			})
			d.names.thread(tid, tgid, name)
		}
	})
}

// ftrace reads an FtraceEventBundle's print events (atrace lines); other ftrace events are
// not needed and skipped.
func (d *decoder) ftrace(v []byte) {
	d.sub(v, "ftrace bundle", func(num protowire.Number, typ protowire.Type, e []byte, _ uint64) {
		if num != 2 || typ != protowire.BytesType {
			return
		}
		var ts int64
		var tid int32
		var buf []byte
		var isPrint bool
		d.sub(e, "ftrace event", func(n protowire.Number, t protowire.Type, b []byte, x uint64) {
			switch {
			case n == 1 && t == protowire.VarintType:
				ts = int64(x)
			case n == 2 && t == protowire.VarintType:
				tid = int32(x)
			case n == 3 && t == protowire.BytesType:
				isPrint = true
				d.sub(b, "print event", func(pn protowire.Number, pt protowire.Type, pb []byte, _ uint64) {
					if pn == 2 && pt == protowire.BytesType {
						buf = pb
					}
				})
			}
		})
		if isPrint && len(buf) > 0 && isAtrace(buf) {
			d.push(event{ts: ts, kind: evPrint, tid: tid, text: string(buf)})
		}
	})
}

// isAtrace: only B|, E, C|, S|, F|, I|, N|, G|, H|, T|, U| lines are atrace; other prints are
// kernel chatter (trace_processor ignores them too).
func isAtrace(b []byte) bool {
	switch b[0] {
	case 'B', 'E', 'C', 'S', 'F', 'I', 'N', 'G', 'H', 'T', 'U':
		return len(b) == 1 || b[1] == '|' || b[1] == '\n'
	}
	return false
}
