package metrics

import (
	"fmt"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// looperTraffic builds n paired messages like a busy app's logcat: the main thread's vsync
// frames at 60 Hz (each a new FrameDisplayEventReceiver hash, as real logs print), a click
// handler, a lambda and ActivityThread messages between them, and a worker thread's messages;
// millisecond timestamps, deterministic.
func looperTraffic(n int) []source.Message {
	out := make([]source.Message, 0, n)
	x := uint32(7)
	at := int64(1e12)
	for len(out) < n {
		x = x*1664525 + 1013904223
		cost := int64(2+x%9) * 1e6
		if x%53 == 0 {
			cost = 40e6
		}
		out = append(out, source.Message{Pid: 100, Tid: 100, Handler: "android.view.Choreographer$FrameHandler",
			Callback: fmt.Sprintf("android.view.Choreographer$FrameDisplayEventReceiver@%x", x&0xfffffff), StartNs: at, EndNs: at + cost})
		other := []source.Message{
			{Handler: "android.view.ViewRootImpl$ViewRootHandler", Callback: fmt.Sprintf("android.view.View$PerformClick@%x", x>>4)},
			{Handler: "android.os.Handler", Callback: fmt.Sprintf("com.example.feed.FeedAdapter$$ExternalSyntheticLambda3@%x", x>>3)},
			{Handler: "android.app.ActivityThread$H", Callback: "null", What: 159},
		}[x%3]
		other.Pid, other.Tid, other.StartNs, other.EndNs = 100, 100, at+cost, at+cost+1e6
		out = append(out, other)
		out = append(out, source.Message{Pid: 100, Tid: 140, Handler: "android.os.Handler",
			Callback: fmt.Sprintf("com.example.sync.SyncWorker$1@%x", x>>2), What: 3, StartNs: at + 1e6, EndNs: at + 3e6})
		at += 16e6 + int64(x%2)*1e6
	}
	return out[:n]
}

// BenchmarkLooperMessages measures the message path (Pipeline.Add of paired Looper messages:
// signature table, message ring, Looper-derived frames and their counting) on a logcat session.
func BenchmarkLooperMessages(b *testing.B) {
	ms := looperTraffic(1 << 14)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		j := i & (len(ms) - 1)
		if j == 0 {
			b.StopTimer()
			p := NewPipeline(Config{})
			p.Add(&source.Session{Source: source.KindLogcat, CostBasis: source.CostMainThread, Package: "com.example", Pid: 100})
			benchPipeline = p
			b.StartTimer()
		}
		benchPipeline.Add(&ms[j])
	}
}

var benchPipeline *Pipeline
