package gfxinfo

import (
	"bufio"
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

var (
	benchOnce sync.Once
	benchData []byte
	benchRows int
)

// benchInput generates, deterministically, the anchor's framestats input (anchors-perf.md):
// 7,813 concatenated `dumpsys gfxinfo <pkg> framestats` outputs of the 17-column Android 10/11
// layout, each with a popup window of 8 rows and the focused activity of 120 rows: 1,000,064
// rows. Consecutive dumps overlap (the ring moves by 60 frames), as polls do.
func benchInput() ([]byte, int) {
	benchOnce.Do(func() {
		const dumps = 7813
		b := make([]byte, 0, 200<<20)
		start := int64(100e9)
		for i := 0; i < dumps; i++ {
			popup := synthWin{title: "PopupWindow:8a2f1c", vis: 0, rows: 8, start: start + 3e6, period: 16_666_667, total: int64(8 + i)}
			act := synthWin{title: "com.example.feed/com.example.feed.MainActivity", vis: 0, rows: 120, start: start,
				period: 16_666_667, total: int64(120 + 60*i), jankEach: 7}
			b = synthDump(b, 17, start/1e6+2500, 4242, "com.example.feed", []synthWin{popup, act})
			start += 60 * 16_666_667
			benchRows += 128
		}
		benchData = b
	})
	return benchData, benchRows
}

// BenchmarkParseFramestats parses the 1 M-row input dump by dump (dumpReader + parse), every row to
// a source.Frame with its phases. Run with GOMAXPROCS=1 for the one-core figure.
func BenchmarkParseFramestats(b *testing.B) {
	data, rows := benchInput()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var ps Parser
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		n := 0
		for dr := newDumpReader(bytes.NewReader(data)); ; {
			c, err := dr.next()
			if err != nil {
				break
			}
			d := ps.ParseChunk(c)
			for _, p := range d.Processes {
				for _, w := range p.Windows {
					n += len(w.Frames)
				}
			}
		}
		if n != rows {
			b.Fatalf("parsed %d rows, want %d", n, rows)
		}
	}
	reportRates(b, rows, cpuTime()-cpu0)
}

// BenchmarkFromReader is the file source end to end: parse, dedupe across dumps, emit events.
func BenchmarkFromReader(b *testing.B) {
	data, rows := benchInput()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		out := make(chan []source.Event, 64)
		done := make(chan int)
		go func() {
			n := 0
			for evs := range out {
				for _, e := range evs {
					if _, ok := e.(*source.Frame); ok {
						n++
					}
				}
			}
			done <- n
		}()
		if err := FromReader(bytes.NewReader(data), "bench").Run(context.Background(), out); err != nil {
			b.Fatal(err)
		}
		close(out)
		// Overlapping rows are emitted once: all 8 popup rows of every dump are new (the popup
		// is redrawn each time), the activity's ring moves by 60 rows per dump.
		if n := <-done; n != 8*7813+120+60*7812 {
			b.Fatalf("%d frames", n)
		}
	}
	reportRates(b, rows, cpuTime()-cpu0)
}

// reportRates reports rows per wall second and, where measurable, rows per CPU second.
func reportRates(b *testing.B, rows int, cpu time.Duration) {
	total := float64(rows) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "rows/cpu-s")
	}
}

// BenchmarkScannerFloor is the reference floor on the same input: a bufio.Scanner counting
// lines, what any line-at-a-time Go parser pays before doing anything (anchors-perf.md).
func BenchmarkScannerFloor(b *testing.B) {
	data, _ := benchInput()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		n := 0
		for sc.Scan() {
			n++
		}
		if n == 0 {
			b.Fatal("no lines")
		}
	}
}
