package trace

import (
	"bytes"
	"fmt"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"math"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/source"
)

// pbEvent is a decoded TrackEvent with its packet's timestamp.
type pbEvent struct {
	ts    int64
	typ   uint64
	track uint64
	cat   string
	name  string
	value float64
	args  map[string]any
}

type pbTrace struct {
	interned map[protowire.Number]map[uint64]string // InternedData table → iid → string
	threads  map[uint64]int                         // thread track uuid → tid
	names    map[int]string                         // tid → thread name
	counters map[uint64]string                      // counter track uuid → name
	process  string
	events   []pbEvent
}

// fields decodes one message's fields, failing the test on malformed bytes.
func fields(t *testing.T, b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, raw []byte)) {
	t.Helper()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var raw []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			raw, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("unexpected wire type %v for field %d", typ, num)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		fn(num, typ, v, raw)
	}
}

// decodePerfetto reads a trace back with protowire alone: every packet on sequence 1, the first
// one clearing incremental state, descriptors before the events on their tracks.
func decodePerfetto(t *testing.T, data []byte) pbTrace {
	t.Helper()
	tr := pbTrace{threads: map[uint64]int{}, names: map[int]string{}, counters: map[uint64]string{},
		interned: map[protowire.Number]map[uint64]string{pbIDCategories: {}, pbIDNames: {}, pbIDArgNames: {}}}
	known := map[uint64]bool{}
	packets := 0
	fields(t, data, func(num protowire.Number, _ protowire.Type, _ uint64, pkt []byte) {
		if num != pbTracePacket {
			t.Fatalf("Trace field %d", num)
		}
		packets++
		var seq, flags uint64
		var ts int64
		var td, te []byte
		fields(t, pkt, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
			switch num {
			case pbInterned:
				tr.intern(t, raw)
			case pbSequenceID:
				seq = v
			case pbSequenceFlags:
				flags = v
			case pbTimestamp:
				ts = int64(v)
			case pbTrackDesc:
				td = raw
			case pbTrackEvent:
				te = raw
			default:
				t.Fatalf("unexpected TracePacket field %d", num)
			}
		})
		if seq != traceSequence || (packets == 1) != (flags == seqIncrementalCleared) ||
			(packets > 1 && te != nil) != (flags == seqNeedsIncremental) {
			t.Fatalf("packet %d: sequence %d, flags %d", packets, seq, flags)
		}
		if td != nil {
			tr.descriptor(t, td, known)
		}
		if te != nil {
			e := tr.decodeEvent(t, te)
			e.ts = ts
			if !known[e.track] {
				t.Fatalf("event %+v on an undescribed track", e)
			}
			tr.events = append(tr.events, e)
		}
	})
	return tr
}

func (tr *pbTrace) descriptor(t *testing.T, td []byte, known map[uint64]bool) {
	var uuid, parent uint64
	var name string
	var thread, process []byte
	counter := false
	fields(t, td, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
		switch num {
		case pbTDUuid:
			uuid = v
		case pbTDParent:
			parent = v
		case pbTDName:
			name = string(raw)
		case pbTDThread:
			thread = raw
		case pbTDProcess:
			process = raw
		case pbTDCounter:
			counter = true
		}
	})
	if known[uuid] || uuid == 0 || (uuid != processUUID && parent != processUUID) {
		t.Fatalf("track %d (parent %d) described twice or unattached", uuid, parent)
	}
	known[uuid] = true
	switch {
	case process != nil:
		fields(t, process, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
			if num == pbPDName {
				tr.process = string(raw)
			}
		})
	case thread != nil:
		var tid int
		var tname string
		fields(t, thread, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
			switch num {
			case pbThTid:
				tid = int(v)
			case pbThName:
				tname = string(raw)
			}
		})
		tr.threads[uuid], tr.names[tid] = tid, tname
	case counter:
		tr.counters[uuid] = name
	default:
		t.Fatalf("track %d is neither process, thread nor counter", uuid)
	}
}

// intern adds an InternedData message's entries; an iid is never defined twice.
func (tr *pbTrace) intern(t *testing.T, id []byte) {
	fields(t, id, func(table protowire.Number, _ protowire.Type, _ uint64, entry []byte) {
		m, ok := tr.interned[table]
		if !ok {
			t.Fatalf("InternedData field %d", table)
		}
		var iid uint64
		var name string
		fields(t, entry, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
			switch num {
			case pbInternIid:
				iid = v
			case pbInternName:
				name = string(raw)
			}
		})
		if _, dup := m[iid]; dup || iid == 0 {
			t.Fatalf("iid %d of table %d defined twice", iid, table)
		}
		m[iid] = name
	})
}

// lookup resolves an iid, failing for one not defined before.
func (tr *pbTrace) lookup(t *testing.T, table protowire.Number, iid uint64) string {
	s, ok := tr.interned[table][iid]
	if !ok {
		t.Fatalf("iid %d of table %d used before it is defined", iid, table)
	}
	return s
}

func (tr *pbTrace) decodeEvent(t *testing.T, te []byte) pbEvent {
	e := pbEvent{args: map[string]any{}}
	fields(t, te, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
		switch num {
		case pbTEType:
			e.typ = v
		case pbTETrack:
			e.track = v
		case pbTECategory:
			e.cat = tr.lookup(t, pbIDCategories, v)
		case pbTENameIid:
			e.name = tr.lookup(t, pbIDNames, v)
		case pbTEDouble:
			e.value = math.Float64frombits(v)
		case pbTEDebug:
			var k string
			var val any
			fields(t, raw, func(num protowire.Number, _ protowire.Type, v uint64, raw []byte) {
				switch num {
				case pbDANameIid:
					k = tr.lookup(t, pbIDArgNames, v)
				case pbDAInt:
					val = float64(int64(v))
				case pbDADouble:
					val = math.Float64frombits(v)
				case pbDAString:
					val = string(raw)
				case pbDABool:
					val = v == 1
				}
			})
			e.args[k] = val
		default:
			t.Fatalf("unexpected TrackEvent field %d", num)
		}
	})
	return e
}

// key renders a slice, instant or counter the same way from either format.
func sliceKey(tid int, cat, name string, startNs, durNs int64, args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := fmt.Sprintf("%d|%s|%s|%d|%d", tid, cat, name, startNs, durNs)
	for _, k := range keys {
		s += fmt.Sprintf("|%s=%v", k, args[k])
	}
	return s
}

func usToNs(us float64) int64 { return int64(math.Round(us * 1000)) }

// TestExportPerfetto: the protobuf trace, decoded back with protowire, holds exactly what the
// JSON trace of the same recording holds: the same named thread tracks, every complete slice as
// a begin and an end on its track (properly nested), the same instants and counters, with the
// same names, categories, times and arguments; and it is smaller.
func TestExportPerfetto(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.jsonl")
	recordtest.Write(t, path, eventgen.Batches(7, 90, 20*time.Second))
	var js, pb bytes.Buffer
	if err := Export(&js, path, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Export(&pb, path, Options{Perfetto: true}); err != nil {
		t.Fatal(err)
	}
	tf := validateTrace(t, js.Bytes())
	tr := decodePerfetto(t, pb.Bytes())

	want := map[string]int{}
	names := map[int]string{}
	process := ""
	for _, e := range tf.TraceEvents {
		switch e.Ph {
		case "M":
			switch e.Name {
			case "thread_name":
				names[*e.Tid] = e.Args["name"].(string)
			case "process_name":
				process = e.Args["name"].(string)
			}
		case "X":
			want["X"+sliceKey(*e.Tid, e.Cat, e.Name, usToNs(*e.Ts), usToNs(*e.Dur), e.Args)]++
		case "i":
			tid := *e.Tid
			if e.S == "p" {
				tid = -1
			}
			want["i"+sliceKey(tid, e.Cat, e.Name, usToNs(*e.Ts), 0, e.Args)]++
		case "C":
			for _, v := range e.Args {
				want["C"+sliceKey(0, "", e.Name, usToNs(*e.Ts), 0, map[string]any{"v": v})]++
			}
		}
	}
	if fmt.Sprint(names) != fmt.Sprint(tr.names) || process != tr.process {
		t.Errorf("threads %v (process %q), JSON has %v (%q)", tr.names, tr.process, names, process)
	}
	got := map[string]int{}
	open := map[uint64][]pbEvent{}
	for _, e := range tr.events {
		switch e.typ {
		case teSliceBegin:
			if st := open[e.track]; len(st) > 0 && e.ts < st[len(st)-1].ts {
				t.Fatalf("slice %q begins before its parent", e.name)
			}
			open[e.track] = append(open[e.track], e)
		case teSliceEnd:
			st := open[e.track]
			if len(st) == 0 {
				t.Fatalf("end without a begin on track %d", e.track)
			}
			b := st[len(st)-1]
			open[e.track] = st[:len(st)-1]
			if e.ts < b.ts {
				t.Fatalf("slice %q ends before it begins", b.name)
			}
			got["X"+sliceKey(tr.threads[e.track], b.cat, b.name, b.ts, e.ts-b.ts, b.args)]++
		case teInstant:
			tid := -1
			if e.track != processUUID {
				tid = tr.threads[e.track]
			}
			got["i"+sliceKey(tid, e.cat, e.name, e.ts, 0, e.args)]++
		case teCounter:
			got["C"+sliceKey(0, "", tr.counters[e.track], e.ts, 0, map[string]any{"v": e.value})]++
		}
	}
	for track, st := range open {
		if len(st) > 0 {
			t.Errorf("track %d: %d slices never end", track, len(st))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d distinct events, JSON has %d", len(got), len(want))
	}
	n := 0
	for k, c := range want {
		n += c
		if got[k] != c {
			t.Fatalf("JSON event %s ×%d, protobuf ×%d", k, c, got[k])
		}
	}
	if n < 1000 || pb.Len()*2 > js.Len() {
		t.Errorf("%d events; protobuf %d bytes, JSON %d", n, pb.Len(), js.Len())
	}
	t.Logf("%d events: JSON %d bytes, protobuf %d bytes", n, js.Len(), pb.Len())
	est, err := Estimate(path, Options{Perfetto: true}, 0)
	if err != nil || math.Abs(float64(est)/float64(pb.Len())-1) > 0.25 {
		t.Errorf("estimated %d bytes for a %d-byte protobuf trace (%v)", est, pb.Len(), err)
	}

	// The hand-built recording of TestExportTrace: every kind of event, each checked the same way.
	evs := []source.Event{
		&source.Session{Source: source.KindGfxinfo, Package: "com.example.app", RefreshHz: 120},
		&source.Frame{Window: "w", VsyncNs: 2e9, DoneNs: 2e9 + 8_100_000, IntervalNs: 8_333_333, VsyncID: 5, Flags: 4},
		&source.Message{Thread: "bg", Handler: "h", Callback: "null", What: 1, StartNs: 2e9, EndNs: 0},
		&source.Skipped{AtNs: 3e9, Frames: 95},
		&source.Gap{FromNs: 4e9, ToNs: 5e9, Reason: "device disconnected"},
		&source.Tick{NowNs: 6e9},
	}
	path2 := filepath.Join(t.TempDir(), "t.jsonl.gz")
	recordtest.Write(t, path2, [][]source.Event{evs})
	pb.Reset()
	if err := Export(&pb, path2, Options{Perfetto: true}); err != nil {
		t.Fatal(err)
	}
	tr = decodePerfetto(t, pb.Bytes())
	kinds := map[uint64]int{}
	for _, e := range tr.events {
		kinds[e.typ]++
		if e.typ == teSliceBegin && e.cat == "frame" && (e.args["vsync_id"] != 5.0 || e.args["level"] == nil) {
			t.Errorf("frame args %v", e.args)
		}
	}
	if kinds[teSliceBegin] != 2 || kinds[teSliceEnd] != 2 || kinds[teInstant] < 2 || kinds[teCounter] == 0 || tr.process != "com.example.app · sim" {
		t.Errorf("kinds %v, process %q", kinds, tr.process)
	}
}

// TestPerfettoFieldNumbers pins the field numbers to Perfetto's .proto files (the encoder and
// the decoder above share the constants, so only this catches a wrong one).
func TestPerfettoFieldNumbers(t *testing.T) {
	for name, c := range map[string][2]int{
		"Trace.packet":                        {pbTracePacket, 1},
		"TracePacket.timestamp":               {pbTimestamp, 8},
		"TracePacket.trusted_packet_seq_id":   {pbSequenceID, 10},
		"TracePacket.track_event":             {pbTrackEvent, 11},
		"TracePacket.interned_data":           {pbInterned, 12},
		"TracePacket.sequence_flags":          {pbSequenceFlags, 13},
		"TracePacket.track_descriptor":        {pbTrackDesc, 60},
		"TrackDescriptor.uuid":                {pbTDUuid, 1},
		"TrackDescriptor.name":                {pbTDName, 2},
		"TrackDescriptor.process":             {pbTDProcess, 3},
		"TrackDescriptor.thread":              {pbTDThread, 4},
		"TrackDescriptor.parent_uuid":         {pbTDParent, 5},
		"TrackDescriptor.counter":             {pbTDCounter, 8},
		"ProcessDescriptor.pid":               {pbPDPid, 1},
		"ProcessDescriptor.process_name":      {pbPDName, 6},
		"ThreadDescriptor.pid":                {pbThPid, 1},
		"ThreadDescriptor.tid":                {pbThTid, 2},
		"ThreadDescriptor.thread_name":        {pbThName, 5},
		"TrackEvent.category_iids":            {pbTECategory, 3},
		"TrackEvent.debug_annotations":        {pbTEDebug, 4},
		"TrackEvent.type":                     {pbTEType, 9},
		"TrackEvent.name_iid":                 {pbTENameIid, 10},
		"TrackEvent.track_uuid":               {pbTETrack, 11},
		"TrackEvent.double_counter_value":     {pbTEDouble, 44},
		"InternedData.event_categories":       {pbIDCategories, 1},
		"InternedData.event_names":            {pbIDNames, 2},
		"InternedData.debug_annotation_names": {pbIDArgNames, 3},
		"DebugAnnotation.name_iid":            {pbDANameIid, 1},
		"DebugAnnotation.bool_value":          {pbDABool, 2},
		"DebugAnnotation.int_value":           {pbDAInt, 4},
		"DebugAnnotation.double_value":        {pbDADouble, 5},
		"DebugAnnotation.string_value":        {pbDAString, 6},
		"TrackEvent.TYPE_SLICE_BEGIN":         {teSliceBegin, 1},
		"TrackEvent.TYPE_SLICE_END":           {teSliceEnd, 2},
		"TrackEvent.TYPE_INSTANT":             {teInstant, 3},
		"TrackEvent.TYPE_COUNTER":             {teCounter, 4},
	} {
		if c[0] != c[1] {
			t.Errorf("%s = %d, Perfetto's is %d", name, c[0], c[1])
		}
	}
}
