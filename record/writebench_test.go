package record

import (
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/source"
)

// cpuNow is the process's user+system CPU time: with other work on the machine, CPU per op
// tells more than wall time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRecordOverhead: what the recorder tap costs per frame (encoding every event of a
// typical 120 Hz session and gzip at BestSpeed), per frame and per event.
func BenchmarkRecordOverhead(b *testing.B) {
	for _, gz := range []bool{true, false} {
		name := "plain"
		if gz {
			name = "gzip"
		}
		b.Run(name, func(b *testing.B) {
			batches := eventgen.Batches(42, 120, 10*time.Second)
			var frames, events int
			for _, bt := range batches {
				events += len(bt)
				for _, ev := range bt {
					if _, ok := ev.(*source.Frame); ok {
						frames++
					}
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w, err := newWriter(io.Discard, gz, nil, testHeader())
				if err != nil {
					b.Fatal(err)
				}
				for _, bt := range batches {
					w.Write(bt)
				}
				w.Close()
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/float64(frames), "ns/frame")
			b.ReportMetric(per/float64(events), "ns/event")
		})
	}
}

// BenchmarkDecodeFrameLine: one frame line through source.ParseLine, as the reader decodes it.
func BenchmarkDecodeFrameLine(b *testing.B) {
	var f *source.Frame
	for _, ev := range eventgen.Flatten(eventgen.Batches(43, 120, 100*time.Millisecond)) {
		if fr, ok := ev.(*source.Frame); ok {
			f = fr
			break
		}
	}
	line, _ := source.AppendLine(nil, f)
	b.SetBytes(int64(len(line)))
	c0 := cpuNow()
	for i := 0; i < b.N; i++ {
		if _, _, err := source.ParseLine(line); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNow()-c0)/float64(b.N), "cpu-ns/op")
}
