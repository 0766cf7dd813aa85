package perfetto

import (
	"bytes"
	"compress/zlib"
	"context"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func pbMsg(b []byte, n protowire.Number, m []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, n, protowire.BytesType), m)
}

func pbInt(b []byte, n protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), v)
}

func pbStr(b []byte, n protowire.Number, s string) []byte { return pbMsg(b, n, []byte(s)) }

// TestTrackEvents: sections written as track events (the Perfetto SDK, Android's newer atrace)
// take their thread from the track descriptor and their names from the sequence's interned
// strings, or inline; a compressed_packets batch is opened; a clock snapshot moves them to
// MONOTONIC.
func TestTrackEvents(t *testing.T) {
	var trace []byte
	packet := func(p []byte) { trace = pbMsg(trace, 1, p) }
	clock := pbMsg(nil, 1, pbInt(pbInt(nil, 1, clockMonotonic), 2, 1000))
	clock = pbMsg(clock, 1, pbInt(pbInt(nil, 1, clockBoottime), 2, 5000))
	packet(pbMsg(nil, pkClock, clock))
	thread := pbStr(pbInt(pbInt(nil, 1, 10), 2, 11), 5, "RenderThread")
	packet(pbMsg(nil, pkTrackDesc, pbMsg(pbInt(nil, 1, 77), 4, thread)))
	names := pbMsg(nil, 2, pbStr(pbInt(nil, 1, 1), 2, "inflate"))
	packet(pbMsg(pbInt(pbInt(nil, pkSequence, 3), pkSeqFlags, 1), pkInterned, names))
	begin := func(ts uint64, te []byte) []byte {
		return pbMsg(pbInt(pbInt(nil, pkTimestamp, ts), pkSequence, 3), pkTrackEvent, te)
	}
	packet(begin(5100, pbInt(pbInt(pbInt(nil, 9, teSliceBegin), 11, 77), 10, 1)))
	// a begin and two ends, deflated in one compressed_packets batch
	var inner []byte
	inner = pbMsg(inner, 1, begin(5120, pbStr(pbInt(pbInt(nil, 9, teSliceBegin), 11, 77), 23, "RV OnBindView")))
	inner = pbMsg(inner, 1, begin(5150, pbInt(pbInt(nil, 9, teSliceEnd), 11, 77)))
	inner = pbMsg(inner, 1, begin(5200, pbInt(pbInt(nil, 9, teSliceEnd), 11, 77)))
	var z bytes.Buffer
	zw := zlibWriter(&z)
	zw.Write(inner)
	zw.Close()
	packet(pbMsg(nil, pkCompressed, z.Bytes()))

	p := NewParser()
	var got []*Slice
	p.OnSlice = func(s *Slice) { got = append(got, s) }
	if err := p.ReadAll(context.Background(), bytes.NewReader(trace)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d slices, want 2: %+v", len(got), got)
	}
	in, out := got[0], got[1]
	if in.Name != "RV OnBindView" || in.Depth != 1 || in.DurNs() != 30 || out.Name != "inflate" || out.Depth != 0 ||
		out.Tid != 11 || out.Pid != 10 || out.DurNs() != 100 {
		t.Errorf("slices %+v %+v", in, out)
	}
	if p.ToMono(out.StartNs) != 1100 || p.ThreadName(10, 11) != "RenderThread" {
		t.Errorf("mono %d, thread %q", p.ToMono(out.StartNs), p.ThreadName(10, 11))
	}
}

func zlibWriter(w *bytes.Buffer) *zlib.Writer { return zlib.NewWriter(w) }
