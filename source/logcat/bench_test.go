package logcat

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/benchgen"
	"github.com/fpstop/fpstop/source"
)

// genThreadtime is `benchgen logcat` (seed 1) of about size bytes, in memory: the text and the
// Dispatching/Finished pairs written. One generator (internal/testkit/benchgen) serves the command the
// whole-process comparisons run on and these benchmarks, so both measure the same mix.
func genThreadtime(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	var b bytes.Buffer
	b.Grow(size + 4096)
	w := bufio.NewWriterSize(&b, 1<<20)
	pairs, err := benchgen.Logcat(w, int64(size), 1, false)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b.Bytes(), pairs
}

var (
	benchOnce  sync.Once
	benchData  []byte
	benchPairs int
)

// benchInput is generated once per test binary: 200 MB by default, FPSTOP_BENCH_LOGCAT_MB to
// change it.
func benchInput(b *testing.B) []byte {
	benchOnce.Do(func() {
		mb := 200
		if s := os.Getenv("FPSTOP_BENCH_LOGCAT_MB"); s != "" {
			if v, err := strconv.Atoi(s); err == nil && v > 0 {
				mb = v
			}
		}
		benchData, benchPairs = genThreadtime(b, mb<<20)
	})
	return benchData
}

// reportCPU adds the throughput per CPU second (all threads of the process) since start.
func reportCPU(b *testing.B, start int64, bytesPerOp int) {
	if d := cpuNs() - start; d > 0 && start > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/(float64(d)/1e9), "MB/cpu-s")
	}
}

// BenchmarkLogcatThreadtime200MB is the whole logcat source, end to end: FromReader over the
// text (reader goroutine, line splitting, parsing, pairing, batching) and a consumer that
// computes what the lnav/awk anchors compute (message count, ≥16 ms, ≥100 ms, max, mean).
// Run with -cpu 1 for the one-core figure.
func BenchmarkLogcatThreadtime200MB(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNs()
	defer func() { reportCPU(b, cpu0, len(data)) }()
	for b.Loop() {
		out := make(chan []source.Event, 8)
		var n, over16, over100 int64
		var maxNs, sum int64
		done := make(chan struct{})
		go func() {
			for batch := range out {
				for _, ev := range batch {
					if m, ok := ev.(*source.Message); ok && m.EndNs != 0 {
						d := m.EndNs - m.StartNs
						n++
						sum += d
						if d >= 16e6 {
							over16++
						}
						if d >= 100e6 {
							over100++
						}
						maxNs = max(maxNs, d)
					}
				}
			}
			close(done)
		}()
		if err := FromReader(bytes.NewReader(data), Options{}).Run(context.Background(), out); err != nil {
			b.Fatal(err)
		}
		close(out)
		<-done
		if n != int64(benchPairs) {
			b.Fatalf("%d messages, generated %d pairs", n, benchPairs)
		}
		b.ReportMetric(float64(n), "msgs/op")
		_ = sum
	}
}

// BenchmarkLogcatDecoder is the Decoder alone on the same text (no goroutines, no channel).
func BenchmarkLogcatDecoder(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNs()
	defer func() { reportCPU(b, cpu0, len(data)) }()
	for b.Loop() {
		d := NewDecoder()
		rest := data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			d.Line(rest[:i])
			rest = rest[min(i+1, len(rest)):]
			if d.Pending() >= maxBatch {
				d.Events()
			}
		}
		d.Finish()
		if d.Stats().Pairs != int64(benchPairs) {
			b.Fatalf("pairs %d, want %d", d.Stats().Pairs, benchPairs)
		}
	}
}

// BenchmarkScannerFloor is the physical floor of anchors-perf.md: bufio.Scanner counting the
// lines of the same text.
func BenchmarkScannerFloor(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu0 := cpuNs()
	defer func() { reportCPU(b, cpu0, len(data)) }()
	for b.Loop() {
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

// BenchmarkNonLooperLine: an ordinary log line through the Decoder — 0 allocs/op.
func BenchmarkNonLooperLine(b *testing.B) {
	line := []byte("08-27 17:57:11.172   608   608 E lowmemorykiller: device has enough memory 2824628Kib, and freeMemory 375132Kib, disable killing")
	d := NewDecoder()
	b.SetBytes(int64(len(line) + 1))
	b.ReportAllocs()
	for b.Loop() {
		d.Line(line)
	}
}

// BenchmarkLooperPair: a Dispatching/Finished pair through the Decoder (one Message allocated).
func BenchmarkLooperPair(b *testing.B) {
	disp := []byte("08-27 17:57:11.172 22001 22001 D Looper  : >>>>> Dispatching to " + vsyncTarget + ": 0")
	fin := []byte("08-27 17:57:11.176 22001 22001 D Looper  : <<<<< Finished to " + vsyncTarget)
	d := NewDecoder()
	b.SetBytes(int64(len(disp) + len(fin) + 2))
	b.ReportAllocs()
	for b.Loop() {
		d.Line(disp)
		d.Line(fin)
		if d.Pending() > 1024 {
			d.Events()
		}
	}
}

// TestBenchInputMix checks the generator against the anchor's mix on a small sample.
func TestBenchInputMix(t *testing.T) {
	data, pairs := genThreadtime(t, 8<<20)
	lines := bytes.Count(data, []byte("\n"))
	looper := bytes.Count(data, []byte(">>>>> Dispatching")) + bytes.Count(data, []byte("<<<<< Finished"))
	bg := bytes.Count(data, []byte("22047 D Looper"))
	perLine := float64(len(data)) / float64(lines)
	share := float64(looper) / float64(lines)
	if perLine < 120 || perLine > 146 || share < 0.29 || share > 0.345 || float64(bg)/float64(looper) < 0.07 || float64(bg)/float64(looper) > 0.13 {
		t.Errorf("mix: %.1f B/line, %.1f %% Looper lines, %.1f %% of them on the second thread", perLine, 100*share, 100*float64(bg)/float64(looper))
	}
	t.Logf("mix: %.1f B/line, %.1f %% Looper lines, %.1f %% of them on the second thread, %d pairs", perLine, 100*share, 100*float64(bg)/float64(looper), pairs)
	d, _ := decodeAll(t, data)
	if st := d.Stats(); st.Pairs != int64(pairs) || st.Unpaired > 2 {
		t.Errorf("decoded %+v, generated %d pairs", st, pairs)
	}
}
