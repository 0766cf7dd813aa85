package record

import (
	"reflect"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/source"
)

// checkFast compares the fast decoder with source.ParseLine on one line: whenever the fast
// decoder answers, ParseLine must give the same event.
func checkFast(t *testing.T, line []byte) bool {
	t.Helper()
	d := newDecoder()
	typ, ev, ok := d.decodeFast(line)
	if !ok {
		return false
	}
	wtyp, want, err := source.ParseLine(line)
	if err != nil {
		t.Fatalf("fast decoder accepted %q, ParseLine: %v", line, err)
	}
	if typ != wtyp || !reflect.DeepEqual(ev, want) {
		t.Fatalf("line %q:\nfast  %#v\nparse %#v", line, ev, want)
	}
	return true
}

func TestFastDecodeMatchesParseLine(t *testing.T) {
	fast := 0
	evs := eventgen.Flatten(eventgen.Batches(9, 120, time.Second))
	for _, ev := range evs {
		b, err := source.AppendLine(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		if checkFast(t, b) {
			fast++
		}
		switch ev.(type) {
		case *source.Frame, *source.Message:
		default:
			continue
		}
		if !checkFast(t, b) {
			t.Fatalf("fast decoder refused an AppendLine line: %s", b)
		}
	}
	if fast == 0 {
		t.Fatal("fast decoder never used")
	}
	// Lines the fast decoder must hand over (and ParseLine decides).
	for _, s := range []string{
		`{"type":"frame","window":"a\"b","vsync_ns":1}`,
		`{"type":"frame","Window":"a","vsync_ns":1}`,
		`{"type":"frame","vsync_ns":1.5}`,
		`{"type":"frame","vsync_ns":1e3}`,
		`{"type":"frame","vsync_ns":null}`,
		`{"type":"frame","vsync_ns":01}`,
		`{"type":"frame","vsync_ns":99999999999999999999}`,
		`{"type":"frame","window":"\xff"}`,
		`{"type":"frame","phases":null}`,
		`{"type":"frame","vsync_ns":1} x`,
		`{"type":"frame","vsync_ns":1`,
		`{"type":"message","what":-1,"handler":"h","start_ns":-0}`,
	} {
		checkFast(t, []byte(s))
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, ev := range eventgen.Flatten(eventgen.Batches(10, 60, 200*time.Millisecond))[:40] {
		b, _ := source.AppendLine(nil, ev)
		f.Add(b)
	}
	f.Add([]byte(`{"type":"frame","phases":{},"phases":{"sync_start_ns":3}}`))
	f.Add([]byte(`{"type":"message" , "what" : 7 }`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}
