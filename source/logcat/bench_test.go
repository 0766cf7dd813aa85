package logcat

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// genThreadtime writes a deterministic threadtime logcat of about size bytes with the mix of
// anchors-perf.md: ~133 B/line, ~31.7 % main-Looper lines (Dispatching/Finished pairs, ~10 % of
// them from a second Looper thread, interleaved with the main thread's), durations mostly
// 0.05–2 ms, 3 % 16–120 ms, 0.3 % 200–1500 ms; the other lines are ordinary app and system
// log lines. It returns the text and the number of pairs.
func genThreadtime(size int) ([]byte, int) {
	r := rand.New(rand.NewSource(1))
	buf := make([]byte, 0, size+4096)
	t := int64(((31+29+31+30+31+30+31+26)*86400 + 17*3600 + 57*60) * 1e9) // 08-27 17:57:00
	line := func(at int64, pid, tid int, lvl byte, tag, msg string) {
		d := at / 1e9 / 86400
		mo := 12
		for i := 11; i >= 0; i-- {
			if d >= cumDays[i] {
				mo = i + 1
				break
			}
		}
		day := d - cumDays[mo-1] + 1
		s := at / 1e9 % 86400
		buf = fmt.Appendf(buf, "%02d-%02d %02d:%02d:%02d.%03d %5d %5d %c %-8s: %s\n",
			mo, day, s/3600, s/60%60, s%60, at/1e6%1000, pid, tid, lvl, tag, msg)
	}
	others := []struct {
		pid, tid int
		lvl      byte
		tag, msg string
	}{
		{923, 8448, 'W', "AudioALSACaptureDataProviderNormal", "readThread, latency_in_s,0.000000,0.039850,0.000061, totalTime 0.039912 > logTimeout %d"},
		{1073, 1633, 'D', "SurfaceFlinger", "calculateTimeoutTime, triggerInterval = 1 sec + %d nsec"},
		{1863, 1914, 'I', "ActivityManager", "Start proc %d:com.google.android.gms.persistent/u0a146 for service"},
		{608, 608, 'E', "lowmemorykiller", "adj:1001 file_cache: %d free:88615"},
		{22001, 22010, 'D', "OkHttp", "<-- 200 https://api.example.com/v1/feed?page=%d (132ms, 18.2kB body)"},
		{22001, 22013, 'I', "Glide", "Load failed for https://img.example.com/%d.jpg with size [1080x1080]"},
		{22001, 22001, 'D', "FeedAdapter", "onBindViewHolder position=%d type=2 > recycled=true"},
		{1044, 20607, 'D', "AudioPolicyService", "updateUidStates_l() current->uid=99136 current->pid=%d allowCapture=1"},
		{13110, 15663, 'W', "System.err", "\tat android.os.Looper.loopOnce(Looper.java:%d)"},
		{2801, 2801, 'D', "AtCmdParser", "[PHONE0]< com.oplus.telephony.AtCmdParser$2@fff2a17 urc ind:+ECSQ: %d,54,-406,1,1"},
	}
	const pid = 22001
	const main, bg = 22001, 22047
	targets := []struct {
		target string
		what   int
		weight int
	}{
		{"Handler (android.view.Choreographer$FrameHandler) {3bdcbab2} android.view.Choreographer$FrameDisplayEventReceiver@1589ea03", 0, 50},
		{"Handler (android.app.ActivityThread$H) {5e1c0b4} null", 159, 5},
		{"Handler (android.view.ViewRootImpl$ViewRootHandler) {63ca49} android.view.View$PerformClick@", 0, 10},
		{"Handler (android.os.Handler) {9ac31f2} com.example.feed.FeedAdapter$$ExternalSyntheticLambda3@", 0, 25},
		{"Handler (androidx.recyclerview.widget.GapWorker) {77a1} null", 1, 10},
	}
	pick := func() (string, int) {
		w := r.Intn(100)
		for _, tg := range targets {
			if w < tg.weight {
				s := tg.target
				if s[len(s)-1] == '@' {
					s += strconv.FormatInt(int64(r.Intn(64)+0x1000000), 16) // instances repeat
				}
				return s, tg.what
			}
			w -= tg.weight
		}
		return targets[0].target, 0
	}
	dur := func() int64 {
		switch x := r.Intn(1000); {
		case x < 3:
			return int64(200e6 + r.Int63n(1300e6))
		case x < 33:
			return int64(16e6 + r.Int63n(104e6))
		default:
			return int64(50e3 + r.Int63n(1950e3))
		}
	}
	type open struct {
		target string
		end    int64
	}
	var mainOpen, bgOpen *open
	pairs := 0
	for len(buf) < size {
		t += int64(r.Intn(100e3))
		if r.Intn(1000) >= 317 {
			o := others[r.Intn(len(others))]
			line(t, o.pid, o.tid, o.lvl, o.tag, fmt.Sprintf(o.msg, r.Intn(100000)))
			continue
		}
		if r.Intn(10) == 0 { // the second Looper thread, interleaved with the main one
			if bgOpen != nil {
				line(t, pid, bg, 'D', "Looper", "<<<<< Finished to "+bgOpen.target)
				bgOpen = nil
				pairs++
			} else {
				tg := "Handler (android.os.Handler) {1f2e3d} com.example.sync.SyncWorker$1@4b1a2c"
				line(t, pid, bg, 'D', "Looper", ">>>>> Dispatching to "+tg+": 3")
				bgOpen = &open{tg, 0}
			}
			continue
		}
		if mainOpen != nil {
			t = max(t, mainOpen.end)
			line(t, pid, main, 'D', "Looper", "<<<<< Finished to "+mainOpen.target)
			mainOpen = nil
			pairs++
			continue
		}
		tg, w := pick()
		line(t, pid, main, 'D', "Looper", ">>>>> Dispatching to "+tg+": "+strconv.Itoa(w))
		mainOpen = &open{tg, t + dur()}
	}
	return buf, pairs
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
		benchData, benchPairs = genThreadtime(mb << 20)
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
	data, pairs := genThreadtime(8 << 20)
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
