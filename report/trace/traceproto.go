package trace

import (
	"bufio"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Perfetto's native trace format (a Trace message: TracePackets carrying TrackDescriptors and
// TrackEvents), written with protowire: the same tracks, slices, instants and counters as the
// JSON export, several times smaller, and read by Perfetto UI and trace_processor without
// their JSON importer. Field numbers are those of perfetto/protos/perfetto/trace
// (trace.proto, trace_packet.proto, track_event/track_event.proto, track_descriptor.proto,
// debug_annotation.proto, process_descriptor.proto, thread_descriptor.proto,
// counter_descriptor.proto).
const (
	pbTracePacket = 1 // Trace.packet

	pbTimestamp     = 8  // TracePacket.timestamp (ns)
	pbSequenceID    = 10 // TracePacket.trusted_packet_sequence_id
	pbTrackEvent    = 11 // TracePacket.track_event
	pbInterned      = 12 // TracePacket.interned_data
	pbSequenceFlags = 13 // TracePacket.sequence_flags
	pbTrackDesc     = 60 // TracePacket.track_descriptor

	pbTDUuid    = 1 // TrackDescriptor.uuid
	pbTDName    = 2 // TrackDescriptor.name
	pbTDProcess = 3 // TrackDescriptor.process
	pbTDThread  = 4 // TrackDescriptor.thread
	pbTDParent  = 5 // TrackDescriptor.parent_uuid
	pbTDCounter = 8 // TrackDescriptor.counter

	pbPDPid  = 1 // ProcessDescriptor.pid
	pbPDName = 6 // ProcessDescriptor.process_name

	pbThPid  = 1 // ThreadDescriptor.pid
	pbThTid  = 2 // ThreadDescriptor.tid
	pbThName = 5 // ThreadDescriptor.thread_name

	pbTEDebug    = 4  // TrackEvent.debug_annotations
	pbTECategory = 3  // TrackEvent.category_iids
	pbTEType     = 9  // TrackEvent.type
	pbTENameIid  = 10 // TrackEvent.name_iid
	pbTETrack    = 11 // TrackEvent.track_uuid
	pbTEDouble   = 44 // TrackEvent.double_counter_value

	pbIDCategories = 1 // InternedData.event_categories (EventCategory)
	pbIDNames      = 2 // InternedData.event_names (EventName)
	pbIDArgNames   = 3 // InternedData.debug_annotation_names (DebugAnnotationName)
	pbInternIid    = 1 // EventCategory/EventName/DebugAnnotationName.iid
	pbInternName   = 2 // … .name

	pbDANameIid = 1 // DebugAnnotation.name_iid
	pbDABool    = 2 // DebugAnnotation.bool_value
	pbDAInt     = 4 // DebugAnnotation.int_value
	pbDADouble  = 5 // DebugAnnotation.double_value
	pbDAString  = 6 // DebugAnnotation.string_value

	teSliceBegin = 1 // TrackEvent.Type
	teSliceEnd   = 2
	teInstant    = 3
	teCounter    = 4

	seqIncrementalCleared = 1 // TracePacket.SequenceFlags
	seqNeedsIncremental   = 2
	traceSequence         = 1

	processUUID = 1
)

// protoSink writes TracePackets as traceWriter produces events. Event names, categories and
// argument names are interned (sent once, in the packet that first uses them, then referred to
// by number), which is most of what makes the format smaller than JSON.
type protoSink struct {
	bw       *bufio.Writer
	pkt, sub []byte // scratch: the packet, and a nested message being built
	arg      []byte
	sorted   []traceArg        // scratch: an event's args by name
	interned []byte            // InternedData for the packet being built
	counters map[string]uint64 // counter track uuid by name
	iids     [4]map[string]uint64
	first    bool
}

func newProtoSink(bw *bufio.Writer, process string) *protoSink {
	s := &protoSink{bw: bw, counters: map[string]uint64{}, first: true}
	for i := range s.iids {
		s.iids[i] = map[string]uint64{}
	}
	pd := appendVarintField(nil, pbPDPid, tracePid)
	pd = appendStringField(pd, pbPDName, process)
	td := appendVarintField(nil, pbTDUuid, processUUID)
	s.descriptor(appendBytesField(td, pbTDProcess, pd))
	return s
}

func threadUUID(tid int) uint64 { return 1000 + uint64(tid) }

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendStringField(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// intern returns the number of name in table (an InternedData field), adding it to the
// packet's InternedData when it is new.
func (s *protoSink) intern(table protowire.Number, name string) uint64 {
	m := s.iids[table]
	if iid, ok := m[name]; ok {
		return iid
	}
	iid := uint64(len(m) + 1)
	m[name] = iid
	e := appendVarintField(nil, pbInternIid, iid)
	e = appendStringField(e, pbInternName, name)
	s.interned = appendBytesField(s.interned, table, e)
	return iid
}

// packet writes one TracePacket whose fields (other than the sequence and interned data) are
// body; events say they need the sequence's interned data.
func (s *protoSink) packet(body []byte, event bool) {
	p := s.pkt[:0]
	p = appendVarintField(p, pbSequenceID, traceSequence)
	switch {
	case s.first:
		p = appendVarintField(p, pbSequenceFlags, seqIncrementalCleared)
		s.first = false
	case event:
		p = appendVarintField(p, pbSequenceFlags, seqNeedsIncremental)
	}
	if len(s.interned) > 0 {
		p = appendBytesField(p, pbInterned, s.interned)
		s.interned = s.interned[:0]
	}
	p = append(p, body...)
	var head [16]byte
	h := protowire.AppendTag(head[:0], pbTracePacket, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(len(p)))
	s.bw.Write(h)
	s.bw.Write(p)
	s.pkt = p
}

func (s *protoSink) descriptor(td []byte) {
	s.packet(appendBytesField(nil, pbTrackDesc, td), false)
}

// thread describes the track of tid (a thread of the app's process) named name.
func (s *protoSink) thread(tid int, name string) {
	th := appendVarintField(nil, pbThPid, tracePid)
	th = appendVarintField(th, pbThTid, uint64(tid))
	th = appendStringField(th, pbThName, name)
	td := appendVarintField(nil, pbTDUuid, threadUUID(tid))
	td = appendVarintField(td, pbTDParent, processUUID)
	s.descriptor(appendBytesField(td, pbTDThread, th))
}

// event writes a TrackEvent at ns on track. args is the JSON export's argument object body.
func (s *protoSink) event(typ uint64, track uint64, ns int64, cat, name string, args []traceArg, value float64) {
	e := s.sub[:0]
	e = appendVarintField(e, pbTEType, typ)
	e = appendVarintField(e, pbTETrack, track)
	if cat != "" {
		e = appendVarintField(e, pbTECategory, s.intern(pbIDCategories, cat))
	}
	if name != "" {
		e = appendVarintField(e, pbTENameIid, s.intern(pbIDNames, name))
	}
	if typ == teCounter {
		e = protowire.AppendTag(e, pbTEDouble, protowire.Fixed64Type)
		e = protowire.AppendFixed64(e, math.Float64bits(value))
	}
	e = s.annotations(e, args)
	b := appendVarintField(nil, pbTimestamp, uint64(max(ns, 0)))
	s.packet(appendBytesField(b, pbTrackEvent, e), true)
	s.sub = e
}

// annotations appends args as debug annotations, sorted by name, each typed as the JSON export
// writes it: a whole number as an int, another number as a double.
func (s *protoSink) annotations(e []byte, args []traceArg) []byte {
	s.sorted = append(s.sorted[:0], args...)
	sort.SliceStable(s.sorted, func(i, j int) bool { return s.sorted[i].key < s.sorted[j].key })
	for i, arg := range s.sorted {
		if i+1 < len(s.sorted) && s.sorted[i+1].key == arg.key {
			continue // the last of a repeated name, as a JSON reader keeps
		}
		a := appendVarintField(s.arg[:0], pbDANameIid, s.intern(pbIDArgNames, arg.key))
		a = appendAnnotationValue(a, arg.v)
		e = appendBytesField(e, pbTEDebug, a)
		s.arg = a
	}
	clear(s.sorted)
	return e
}

// appendAnnotationValue appends v as a DebugAnnotation value, typed as the JSON export writes
// it. Besides numbers, strings and booleans the trace's arguments hold levels and states
// (source.Level, source.State): named strings, written as their text.
func appendAnnotationValue(a []byte, v any) []byte {
	switch x := v.(type) {
	case int:
		return appendVarintField(a, pbDAInt, uint64(int64(x)))
	case int64:
		return appendVarintField(a, pbDAInt, uint64(x))
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return appendVarintField(a, pbDAInt, uint64(int64(x)))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return a // the JSON export cannot write it either
		}
		a = protowire.AppendTag(a, pbDADouble, protowire.Fixed64Type)
		return protowire.AppendFixed64(a, math.Float64bits(x))
	case bool:
		b := uint64(0)
		if x {
			b = 1
		}
		return appendVarintField(a, pbDABool, b)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return appendStringField(a, pbDAString, validUTF8(rv.String()))
	}
	return a
}

// validUTF8 replaces each invalid byte of s with U+FFFD, as encoding/json does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// slice writes a complete slice as a begin and an end on tid's track.
func (s *protoSink) slice(tid int, cat, name string, start, dur int64, args []traceArg) {
	s.event(teSliceBegin, threadUUID(tid), start, cat, name, args, 0)
	s.event(teSliceEnd, threadUUID(tid), start+max(dur, 0), "", "", nil, 0)
}

// instant writes an instant on tid's track, or the process's (scope "p").
func (s *protoSink) instant(tid int, scope, cat, name string, at int64, args []traceArg) {
	track := threadUUID(tid)
	if scope == "p" {
		track = processUUID
	}
	s.event(teInstant, track, at, cat, name, args, 0)
}

// counter writes a value of the counter track named name (described on first use).
func (s *protoSink) counter(name string, at int64, v float64) {
	id, ok := s.counters[name]
	if !ok {
		id = 1_000_000 + uint64(len(s.counters))
		s.counters[name] = id
		td := appendVarintField(nil, pbTDUuid, id)
		td = appendVarintField(td, pbTDParent, processUUID)
		td = appendStringField(td, pbTDName, name)
		s.descriptor(appendBytesField(td, pbTDCounter, nil)) // an empty CounterDescriptor
	}
	s.event(teCounter, id, at, "", "", nil, math.Round(v*100)/100)
}
