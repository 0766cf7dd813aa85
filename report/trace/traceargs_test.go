package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/fpstop/fpstop/source"
)

// annotationsViaJSON is how the protobuf export typed its annotations before they were kept
// typed: by decoding the JSON export's args object. The typed path must say the same.
func annotationsViaJSON(s *protoSink, args []traceArg) []byte {
	var parts []string
	for _, a := range args {
		parts = append(parts, jsonArg(a.key, a.v))
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader("{" + strings.Join(parts, ",") + "}"))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var e []byte
	for _, k := range names {
		a := appendVarintField(nil, pbDANameIid, s.intern(pbIDArgNames, k))
		switch v := m[k].(type) {
		case json.Number:
			if i, err := v.Int64(); err == nil {
				a = appendVarintField(a, pbDAInt, uint64(i))
			} else if f, err := v.Float64(); err == nil {
				a = protowire.AppendTag(a, pbDADouble, protowire.Fixed64Type)
				a = protowire.AppendFixed64(a, math.Float64bits(f))
			}
		case string:
			a = appendStringField(a, pbDAString, v)
		case bool:
			a = appendVarintField(a, pbDABool, map[bool]uint64{true: 1}[v])
		}
		e = protowire.AppendTag(e, pbTEDebug, protowire.BytesType)
		e = protowire.AppendBytes(e, a)
	}
	return e
}

// TestTypedAnnotationsMatchJSON: every kind of argument the trace writes (whole and fractional
// numbers, huge ones, hostile and invalid UTF-8 strings, levels and states through their JSON
// form) is encoded as the JSON export's value reads.
func TestTypedAnnotationsMatchJSON(t *testing.T) {
	cases := [][]traceArg{
		{{"cost_ms", 16.0}, {"dropped", int64(0)}, {"level", "BEST"}, {"interval_ms", 8.33}},
		{{"cost_ms", 1e20}, {"dropped", int64(-3)}, {"vsync_id", int64(math.MaxInt64)}, {"flags", int64(4)}},
		{{"cost_ms", math.Copysign(0, -1)}, {"x", 9.3e18}, {"y", 2.5e-7}, {"z", -1.5}},
		{{"what", 7}, {"duration", "unknown"}},
		{{"kind", "dispatch"}, {"ms", int64(120)}, {"handler", "=HYPERLINK(\"x\")\u202e<b>&"}, {"callback", "a\xff\xfeb"}},
		{{"frames", 31}, {"what", 0}},
		{{"to_us", 123456.789}, {"length_ms", 1500.25}},
		{{"level", source.LevelWarn}, {"state", source.State("")}, {"ok", true}, {"no", false}},
		{},
	}
	for i, args := range cases {
		typed := newProtoSink(bufio.NewWriter(io.Discard), "p")
		viaJSON := newProtoSink(bufio.NewWriter(io.Discard), "p")
		got := typed.annotations(nil, args)
		want := annotationsViaJSON(viaJSON, args)
		if !bytes.Equal(got, want) || !bytes.Equal(typed.interned, viaJSON.interned) {
			t.Errorf("case %d %v: typed annotations %x, via JSON %x", i, args, got, want)
		}
	}
}
