package record_test

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/source"
)

// hourFile is a one-hour 120 Hz recording (~432 k frames, a vsync message per frame plus app
// messages), generated once per test binary run.
var hourFile struct {
	once   sync.Once
	dir    string
	path   string
	frames int64
	events int64
	size   int64
	plain  int64
}

func oneHour(b *testing.B) string {
	hourFile.once.Do(func() {
		dir, err := os.MkdirTemp("", "fpstop-bench-")
		if err != nil {
			b.Fatal(err)
		}
		hourFile.dir = dir
		hourFile.path = filepath.Join(dir, "hour.jsonl.gz")
		w, err := record.Create(hourFile.path, record.Header{Package: "com.example.app", RefreshHz: 120}, record.Options{})
		if err != nil {
			b.Fatal(err)
		}
		eventgen.Stream(41, 120, time.Hour, false, func(evs []source.Event) {
			for _, ev := range evs {
				if _, ok := ev.(*source.Frame); ok {
					hourFile.frames++
				}
				if l, err := source.AppendLine(nil, ev); err == nil {
					hourFile.plain += int64(len(l)) + 1
				}
			}
			hourFile.events += int64(len(evs))
			if err := w.Write(evs); err != nil {
				b.Fatal(err)
			}
		})
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(hourFile.path)
		hourFile.size = st.Size()
	})
	if hourFile.path == "" {
		b.Fatal("no benchmark recording")
	}
	return hourFile.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if hourFile.dir != "" {
		os.RemoveAll(hourFile.dir)
	}
	os.Exit(code)
}

// cpuNow is the process's user+system CPU time: with other work on the machine, CPU per op
// tells more than wall time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func reportSizes(b *testing.B) {
	b.ReportMetric(float64(hourFile.frames), "frames")
	b.ReportMetric(float64(hourFile.events), "events")
	b.ReportMetric(float64(hourFile.size)/1e6, "MB_gz")
	b.ReportMetric(float64(hourFile.plain)/1e6, "MB_plain")
}

// BenchmarkReportOneHour: `fpstop report` of a one-hour 120 Hz recording (read, decode, full
// metrics pipeline). Target ≤ 1 s.
func BenchmarkReportOneHour(b *testing.B) {
	path := oneHour(b)
	b.ResetTimer()
	c0 := cpuNow()
	for i := 0; i < b.N; i++ {
		an, err := report.Analyse(path, metrics.Config{}, metrics.ReportMeta{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if an.Report.Frames == 0 {
			b.Fatal("no frames")
		}
	}
	reportSizes(b)
	reportCPU(b, c0)
}

// BenchmarkReadOneHour: reading and decoding only (gunzip + lines + events), no pipeline.
func BenchmarkReadOneHour(b *testing.B) {
	path := oneHour(b)
	b.ResetTimer()
	c0 := cpuNow()
	for i := 0; i < b.N; i++ {
		n := 0
		if _, err := record.ReadBatches(path, func(evs []source.Event) { n += len(evs) }); err != nil {
			b.Fatal(err)
		}
		if int64(n) != hourFile.events {
			b.Fatalf("read %d events of %d", n, hourFile.events)
		}
	}
	reportSizes(b)
	reportCPU(b, c0)
}

// BenchmarkPipelineOnlyOneHour: the same events fed straight to a pipeline from memory (what
// the report costs beyond reading the file).
func BenchmarkPipelineOnlyOneHour(b *testing.B) {
	var batches [][]source.Event
	eventgen.Stream(41, 120, time.Hour, false, func(evs []source.Event) { batches = append(batches, evs) })
	b.ResetTimer()
	c0 := cpuNow()
	for i := 0; i < b.N; i++ {
		p := metrics.NewPipeline(metrics.Config{})
		for _, bt := range batches {
			p.AddBatch(bt)
		}
		p.Report(metrics.ReportMeta{})
	}
	reportCPU(b, c0)
}
