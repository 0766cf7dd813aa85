package trace

import (
	"bytes"
	"errors"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// TestExportTraceWindow: --from/--to keep exactly the frames and messages whose time falls in
// the window, measured from the recording's start; the estimate is within 15 % of the size
// written; a limit below it refuses with the size and the span.
func TestExportTraceWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.jsonl")
	batches := eventgen.Batches(31, 90, 40*time.Second)
	recordtest.Write(t, path, batches)
	evs := eventgen.Flatten(batches)
	start := firstTime(evs)
	h, err := readHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.StartMonoNs > 0 {
		start = h.StartMonoNs
	}
	from, to := start+int64(10*time.Second), start+int64(25*time.Second)
	wantF, wantM := 0, 0
	for _, ev := range evs {
		at := ev.At()
		if at < from || at >= to {
			continue
		}
		switch ev.(type) {
		case *source.Frame:
			wantF++
		case *source.Message:
			wantM++
		}
	}
	if wantF == 0 || wantM == 0 {
		t.Fatal("the generated recording has no frames or messages in the window")
	}
	opts := Options{From: TimeBound{Offset: 10 * time.Second, Set: true}, To: TimeBound{Offset: 25 * time.Second, Set: true}}
	var b bytes.Buffer
	if err := Export(&b, path, opts); err != nil {
		t.Fatal(err)
	}
	tf := validateTrace(t, b.Bytes())
	var gotF, gotM int
	for _, e := range tf.TraceEvents {
		if e.Ph == "X" && e.Cat == "frame" {
			gotF++
		}
		if e.Ph == "X" && e.Cat == "looper" {
			gotM++
		}
		if e.Ts != nil && e.Ph != "M" && (*e.Ts*1e3 < float64(from)-1e3 || *e.Ts*1e3 >= float64(to)+1e3) {
			t.Errorf("event at %.0f µs outside the window [%d, %d) ns: %+v", *e.Ts, from, to, e)
		}
	}
	if gotF != wantF || gotM != wantM {
		t.Errorf("window has %d frames and %d messages, want %d and %d", gotF, gotM, wantF, wantM)
	}
	est, err := Estimate(path, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := float64(est) / float64(b.Len()); math.Abs(r-1) > 0.15 {
		t.Errorf("estimate %d bytes for %d written (×%.2f)", est, b.Len(), r)
	}
	_, err = Estimate(path, opts, int64(b.Len())/2)
	var se *SizeError
	if !errors.As(err, &se) || !errors.Is(err, ErrTooLarge) || se.Span < 14*time.Second || se.Span > 15*time.Second {
		t.Errorf("a limit below the size: %v", err)
	}
}

func TestParseTimeBound(t *testing.T) {
	if b, err := ParseTimeBound("1h5m"); err != nil || b.Offset != 65*time.Minute || !b.Set {
		t.Errorf("1h5m: %+v %v", b, err)
	}
	if b, err := ParseTimeBound("2026-11-23T08:15:00Z"); err != nil || b.At.IsZero() {
		t.Errorf("RFC 3339: %+v %v", b, err)
	}
	for _, bad := range []string{"yesterday", "-5m", "10"} {
		if _, err := ParseTimeBound(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// a wall-clock bound resolves against the recording's wall-clock start
	start := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	o := Options{From: TimeBound{At: start.Add(90 * time.Second), Set: true}}
	if w := o.resolve(record.Header{StartMonoNs: 5e9, StartUTC: start}, nil); w.from != 5e9+90e9 || w.to != 0 {
		t.Errorf("resolved %+v", w)
	}
}
