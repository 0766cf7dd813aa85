package gfxinfo

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// streamDump is dump i of dumpStream: one window of 120 rows, 60 of them new.
func streamDump(i int) []byte {
	w := synthWin{title: pkg + "/.Main", rows: 120, start: int64(10+i) * 1e9, period: 16_666_667,
		firstID: int64(1 + 60*i), total: int64(60 * (i + 2))}
	return synthDump(nil, 24, int64(12+i)*1000, 5, pkg, []synthWin{w})
}

// runBatches runs a file source over n dumps and returns its batches.
func runBatches(t *testing.T, n int, perDump bool) [][]source.Event {
	t.Helper()
	var text []byte // a file: a read returns many dumps
	for i := range n {
		text = append(text, streamDump(i)...)
	}
	src := FromReader(bytes.NewReader(text), "capture").(*fileSource)
	src.dumpPerBatch = perDump
	out := make(chan []source.Event, n+8)
	if err := src.Run(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	close(out)
	var bs [][]source.Event
	for b := range out {
		bs = append(bs, b)
	}
	return bs
}

// TestFileBatchesAreDumpsJoined: a capture's dumps gathered into batches of about fileBatch
// events carry exactly the events, in the same order, of a batch per dump.
func TestFileBatchesAreDumpsJoined(t *testing.T) {
	const n = 300 // ~64 events a dump: ~19 batches
	one, joined := runBatches(t, n, true), runBatches(t, n, false)
	if len(one) != n+1 { // (and the end's)
		t.Errorf("a batch per dump: %d batches for %d dumps", len(one), n)
	}
	if len(joined) > n/10 {
		t.Errorf("gathered: %d batches for %d dumps", len(joined), n)
	}
	for _, b := range joined { // (shorter ones: handed on at a read, the reader's first are short)
		if len(b) > fileBatch+200 {
			t.Errorf("a gathered batch of %d events (fileBatch %d)", len(b), fileBatch)
		}
	}
	var a, b []source.Event
	for _, x := range one {
		a = append(a, x...)
	}
	for _, x := range joined {
		b = append(b, x...)
	}
	if len(a) != len(b) || !reflect.DeepEqual(a, b) {
		t.Errorf("gathered batches hold other events: %d against %d", len(b), len(a))
	}
}

// TestFileBatchNotHeldBack: input that arrives a dump at a time (a pipe fed from a device) is
// handed on before the source waits for more: a dump is out once the next one has started,
// as with a batch per dump, not once fileBatch events are gathered.
func TestFileBatchNotHeldBack(t *testing.T) {
	pr, pw := io.Pipe()
	out := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- FromReader(pr, "pipe").Run(context.Background(), out); close(out) }()
	go func() {
		_, _ = pw.Write(streamDump(0))
	}()
	seen := 0 // frames handed on
	for i := 1; i <= 5; i++ {
		go func(i int) { _, _ = pw.Write(streamDump(i)) }(i) // dump i−1 is now complete
		for want := 60 * i; seen < want; {
			select {
			case b := <-out:
				seen += len(frames(b))
			case <-time.After(time.Minute): // (a hang, not a timing: nothing more is written)
				t.Fatalf("dump %d not handed on after dump %d began (%d frames out)", i-1, i, seen)
			}
		}
	}
	pw.Close()
	for b := range out {
		seen += len(frames(b))
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames", seen)
}
