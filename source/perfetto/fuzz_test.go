package perfetto

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"github.com/fpstop/fpstop/source"
)

// seedTraces adds the real test traces (when present) and small hand-made inputs to a corpus.
func seedTraces(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, p := range []string{"ft_events/trace.pftrace", "ft_power_mode/trace.pftrace", "doframe_depth/trace.pftrace",
		"atrace/android_b2b_async_begin.pftrace", "atrace/bad_print.pftrace", "atrace/bad_print.systrace",
		"atrace/test_regex_pattern_no_gap_after_irq_flags.systrace"} {
		if b, err := os.ReadFile(filepath.Join(realdata.Dir(f, "perfetto"), p)); err == nil {
			seeds = append(seeds, b)
		}
	}
	seeds = append(seeds, []byte(systraceHTML), []byte{}, []byte{0x0a, 0x00}, []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f},
		[]byte{0x0a, 0x03, 0xa2, 0x04, 0x00}, []byte{0x0b, 0x0c})
	for _, s := range seeds {
		f.Add(s)
	}
	return seeds
}

// parseAll runs the whole reader and source on b; it must never panic, and a failure must be
// one of the reader's errors.
func parseAll(t *testing.T, b []byte) {
	p := NewParser()
	n := 0
	p.OnTimeline = func(*TimelineSlice) { n++ }
	p.OnSlice = func(*Slice) { n++ }
	err := p.ReadAll(context.Background(), bytes.NewReader(b))
	if err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrNotTrace) && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unexpected error kind: %v", err)
	}
	out := make(chan []source.Event, 64)
	done := make(chan struct{})
	go func() {
		for range out {
		}
		close(done)
	}()
	_ = FromReader(bytes.NewReader(b), Options{Name: "fuzz"}).Run(context.Background(), out)
	close(out)
	<-done
}

// FuzzReader: any bytes, a trace with wrong wire types, absurd lengths and varints, packets in
// any order: a counted warning or an error, never a panic.
func FuzzReader(f *testing.F) {
	seedTraces(f)
	f.Fuzz(func(t *testing.T, b []byte) { parseAll(t, b) })
}

// FuzzPacket: one TracePacket body of any content, decoded by every payload's decoder.
func FuzzPacket(f *testing.F) {
	for _, s := range seedTraces(f) {
		rd, err := NewReader(bytes.NewReader(s))
		if err != nil {
			continue
		}
		for i := 0; i < 8; i++ {
			pk, err := rd.Next()
			if err != nil {
				break
			}
			f.Add(append([]byte(nil), pk...))
		}
	}
	f.Fuzz(func(t *testing.T, pk []byte) {
		p := NewParser()
		p.Packet(pk)
		p.Finish()
	})
}

// TestTruncatedEverywhere: a real test trace cut at every byte reads up to the cut, says it
// was truncated (or, cut between packets, reads as a shorter trace) and never panics.
func TestTruncatedEverywhere(t *testing.T) {
	dir := realdata.Dir(t, "perfetto")
	for _, name := range []string{"ft_events/trace.pftrace", "doframe_depth/trace.pftrace"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		boundaries := map[int]bool{0: true}
		rd, _ := NewReader(bytes.NewReader(b))
		for {
			if _, err := rd.Next(); err != nil {
				break
			}
			boundaries[int(rd.Off)] = true
		}
		for cut := 1; cut < len(b); cut++ {
			p := NewParser()
			err := p.ReadAll(context.Background(), bytes.NewReader(b[:cut]))
			switch {
			case boundaries[cut] && err != nil:
				t.Errorf("%s cut at packet boundary %d: %v", name, cut, err)
			case !boundaries[cut] && !errors.Is(err, ErrTruncated):
				t.Errorf("%s cut at %d (inside a packet): %v, want truncated", name, cut, err)
			}
			evs := sourcetest.Events(t, FromReader(bytes.NewReader(b[:cut]), Options{Name: "cut"}))
			if !boundaries[cut] && !hasNotice(evs, "truncated") {
				t.Errorf("%s cut at %d: no notice says truncated", name, cut)
			}
		}
	}
}

func hasNotice(evs []source.Event, word string) bool {
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok && bytes.Contains([]byte(n.Text), []byte(word)) {
			return true
		}
	}
	return false
}
