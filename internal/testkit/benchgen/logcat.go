package benchgen

import (
	"bufio"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// The mix of anchors-perf.md: ~133 B/line, ~31.7 % main-app Looper lines (Dispatching/Finished
// pairs, ~10 % of them from a second Looper thread interleaved with the main thread's), durations
// 96.7 % 0.05–2 ms, 3 % 16–120 ms, 0.3 % 200–1500 ms; the rest ordinary app and system lines.

// The display runs at 60 Hz; the vsync frame message is dispatched vsyncLatency after a tick.
const (
	vsyncNs       = 16_666_667
	vsyncLatency  = 150_000
	vsyncCallback = "android.view.Choreographer$FrameDisplayEventReceiver"
)

type otherLine struct {
	pid, tid int
	lvl      byte
	tag, msg string
}

var others = []otherLine{
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

// A Looper target: handler class, callback (empty: "null") and how hashes vary.
type target struct {
	handler  string
	callback string // "" prints null
	what     int
	weight   int
	// freshHandler: the Handler object differs per message (a Handler made per call);
	// otherwise one of poolSize instances.
	poolSize int
	// freshCallback: the Runnable is a new object per message (a lambda or anonymous class).
	freshCallback bool
}

var targets = []target{
	{"android.view.Choreographer$FrameHandler", "android.view.Choreographer$FrameDisplayEventReceiver", 0, 50, 1, false},
	{"android.app.ActivityThread$H", "", 159, 5, 1, false},
	{"android.view.ViewRootImpl$ViewRootHandler", "android.view.View$PerformClick", 0, 10, 4, true},
	{"android.os.Handler", "com.example.feed.FeedAdapter$$ExternalSyntheticLambda3", 0, 15, 4096, true},
	{"android.os.Handler", "com.example.feed.ImageLoader$1", 0, 10, 4096, true},
	{"androidx.recyclerview.widget.GapWorker", "", 1, 10, 1, false},
}

type logGen struct {
	r       *rand.Rand
	w       *bufio.Writer
	written int64
	buf     []byte
	pools   [][]uint32
	// distinct: a new handler class per main-thread message (seq numbers them)
	distinct bool
	seq      int
}

// hash is an object hash as Object.toString prints it (hex, no leading zeros).
func (g *logGen) hash() string { return strconv.FormatUint(uint64(g.r.Uint32()>>4|1<<20), 16) }

func (g *logGen) targetText() (string, int) {
	x := g.r.Intn(100)
	ti := 0
	for i, t := range targets {
		if x < t.weight {
			ti = i
			break
		}
		x -= t.weight
	}
	t := targets[ti]
	pool := g.pools[ti]
	h := strconv.FormatUint(uint64(pool[g.r.Intn(len(pool))]), 16)
	handler := t.handler
	if g.distinct {
		g.seq++
		handler = fmt.Sprintf("com.example.gen.Handler%07d", g.seq)
	}
	s := "Handler (" + handler + ") {" + h + "} "
	switch {
	case t.callback == "":
		s += "null"
	case t.freshCallback:
		s += t.callback + "@" + g.hash()
	default:
		s += t.callback + "@" + strconv.FormatUint(uint64(pool[0]^0x5a5a5), 16)
	}
	return s, t.what
}

var cumDays = [12]int64{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}

// line writes one threadtime line at ns (nanoseconds since the year's start).
func (g *logGen) line(at int64, pid, tid int, lvl byte, tag, msg string) error {
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
	g.buf = fmt.Appendf(g.buf[:0], "%02d-%02d %02d:%02d:%02d.%03d %5d %5d %c %-8s: %s\n",
		mo, day, s/3600, s/60%60, s%60, at/1e6%1000, pid, tid, lvl, tag, msg)
	g.written += int64(len(g.buf))
	_, err := g.w.Write(g.buf)
	return err
}

func (g *logGen) duration() int64 {
	switch x := g.r.Intn(1000); {
	case x < 3:
		return 200e6 + g.r.Int63n(1300e6)
	case x < 33:
		return 16e6 + g.r.Int63n(104e6)
	default:
		return 50e3 + g.r.Int63n(1950e3)
	}
}

// Logcat writes about size bytes of threadtime text drawn from seed and returns the
// Dispatching/Finished pairs written (what the awk pairing script counts). With distinct, every
// main-thread message has a handler class of its own ("com.example.gen.Handler0000001", …):
// millions of distinct handler names in one log, the worst case for the report's table of
// message signatures (issue 13).
func Logcat(w *bufio.Writer, size, seed int64, distinct bool) (int, error) {
	g := &logGen{r: rand.New(rand.NewSource(seed)), w: w, distinct: distinct}
	for _, t := range targets {
		p := make([]uint32, t.poolSize)
		for i := range p {
			p[i] = g.r.Uint32()>>4 | 1<<20
		}
		g.pools = append(g.pools, p)
	}
	t := int64(((31+29+31+30+31+30+31+26)*86400 + 10*3600) * 1e9) // 08-27 10:00:00
	start := t
	const pid, main, bg = 22001, 22001, 22047
	var mainOpen, bgOpen string
	var mainEnd int64
	pairs := 0
	for g.written < size {
		t += int64(g.r.Intn(100e3))
		var err error
		switch {
		case g.r.Intn(1000) >= 317:
			o := others[g.r.Intn(len(others))]
			err = g.line(t, o.pid, o.tid, o.lvl, o.tag, fmt.Sprintf(o.msg, g.r.Intn(100000)))
		case g.r.Intn(10) == 0: // the second Looper thread, interleaved with the main one
			if bgOpen != "" {
				err = g.line(t, pid, bg, 'D', "Looper", "<<<<< Finished to "+bgOpen)
				bgOpen = ""
				pairs++
			} else {
				bgOpen = "Handler (android.os.Handler) {1f2e3d} com.example.sync.SyncWorker$1@" + g.hash()
				err = g.line(t, pid, bg, 'D', "Looper", ">>>>> Dispatching to "+bgOpen+": 3")
			}
		case mainOpen != "":
			t = max(t, mainEnd)
			err = g.line(t, pid, main, 'D', "Looper", "<<<<< Finished to "+mainOpen)
			mainOpen = ""
			pairs++
		default:
			tg, what := g.targetText()
			if strings.Contains(tg, vsyncCallback) {
				// Choreographer's frame message runs on the display's vsync: the tick at or after
				// the main thread is free, and a little after it
				t = start + (t-start+vsyncNs-1)/vsyncNs*vsyncNs + vsyncLatency
			}
			err = g.line(t, pid, main, 'D', "Looper", ">>>>> Dispatching to "+tg+": "+strconv.Itoa(what))
			mainOpen, mainEnd = tg, t+g.duration()
		}
		if err != nil {
			return pairs, fmt.Errorf("writing logcat: %w", err)
		}
	}
	return pairs, nil
}
