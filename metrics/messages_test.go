package metrics

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// refTable is the signature table's rule written the slow way: when full, the signature with the
// smallest max (then the fewest occurrences) is found by a scan and evicted for a worse message.
type refTable struct {
	max     map[string]float64
	count   map[string]int64
	evicted int64
}

func (r *refTable) add(name string, ms float64) {
	if _, ok := r.max[name]; !ok {
		if len(r.max) >= maxSignatures {
			victim, found := "", false
			for n, m := range r.max {
				if !found || m < r.max[victim] || (m == r.max[victim] && r.count[n] < r.count[victim]) {
					victim, found = n, true
				}
			}
			r.evicted++
			if r.max[victim] >= ms {
				return
			}
			delete(r.max, victim)
			delete(r.count, victim)
		}
		r.max[name] = 0
	}
	r.count[name]++
	r.max[name] = max(r.max[name], ms)
}

// TestSignatureEviction: the heap-ordered table keeps the same signatures, counts and evictions
// as a scan for the least severe one would, with many more distinct handlers than places and
// with recurring ones (durations all different, so that the victim is never a tie).
func TestSignatureEviction(t *testing.T) {
	adds := 30000
	if testing.Short() {
		adds = 5000 // the scan is slow; 5,000 still fills the table and evicts in the two larger cases
	}
	for _, distinct := range []int{50, 1500, 20000} {
		t.Run(fmt.Sprint(distinct), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(distinct)))
			tab := newMessageTable()
			ref := &refTable{max: map[string]float64{}, count: map[string]int64{}}
			used := map[int64]bool{}
			for i := 0; i < adds; i++ {
				name := fmt.Sprintf("com.example.H%d", r.Intn(distinct))
				var us int64
				for us == 0 || used[us] {
					us = 1 + r.Int63n(2_000_000)
				}
				used[us] = true
				tab.add(&source.Message{Handler: name, Callback: "null", StartNs: 1e9, EndNs: 1e9 + us*1000}, 0)
				ref.add(name, float64(us)/1000)
			}
			if distinct > maxSignatures && tab.evicted == 0 {
				t.Fatal("nothing evicted: the case checks no eviction")
			}
			if len(tab.sigs) != len(ref.max) || tab.evicted != ref.evicted {
				t.Fatalf("%d signatures, %d evicted; the scan keeps %d, evicts %d", len(tab.sigs), tab.evicted, len(ref.max), ref.evicted)
			}
			for k, s := range tab.sigs {
				if m, ok := ref.max[k.handler]; !ok || m != s.maxMs || ref.count[k.handler] != s.count {
					t.Fatalf("%s: max %v count %d; the scan has %v %d (kept %v)", k.handler, s.maxMs, s.count, m, ref.count[k.handler], ok)
				}
			}
			for i, s := range tab.least {
				if s.idx != i || (i > 0 && lessSevere(s, tab.least[(i-1)/2])) {
					t.Fatalf("heap order broken at %d", i)
				}
			}
		})
	}
}

// TestImpossibleMessageIgnored: a message whose timestamps cannot be (one flipped byte in a
// recording made one 3.5 days long; an end before its start; a negative start) is ignored with
// a warning, as frames with impossible timestamps are: it is neither the worst slow message nor
// does it stretch the session.
func TestImpossibleMessageIgnored(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindLogcat, CostBasis: source.CostMainThread})
	good := &source.Message{Pid: 1, Tid: 1, Handler: "android.view.Choreographer$FrameHandler", Callback: "null", StartNs: 10e9, EndNs: 10e9 + 40e6}
	p.Add(good)
	for _, m := range []source.Message{
		{StartNs: 11e9, EndNs: 11e9 + 302_400e9}, // 3.5 days
		{StartNs: 12e9, EndNs: 11e9},
		{StartNs: -5, EndNs: 13e9},
	} {
		m.Pid, m.Tid, m.Handler, m.Callback = 1, 1, "android.app.ActivityThread$H", "null"
		p.Add(&m)
	}
	p.Add(&source.Tick{NowNs: 14e9})
	r := p.Report(ReportMeta{Version: "test"})
	if r.Messages.Paired != 1 || float64(r.DurationS) > 10 {
		t.Errorf("%d messages over %v s, want 1 and the session's 4 s", r.Messages.Paired, r.DurationS)
	}
	if len(r.SlowMessages) == 0 || r.SlowMessages[0].Handler != good.Handler {
		t.Errorf("slow messages %+v", r.SlowMessages)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.HasPrefix(w, "messages with impossible timestamps ignored")
	}
	if !found {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestEvictedSignatureForgotten: a signature evicted from the table is forgotten: when it
// recurs it starts over.
func TestEvictedSignatureForgotten(t *testing.T) {
	tab := newMessageTable()
	msg := func(h string, ms int64) *source.Message {
		return &source.Message{Handler: h, Callback: "null", StartNs: 1e9, EndNs: 1e9 + ms*1e6}
	}
	tab.add(msg("v", 1), 0)
	for i := 1; i < maxSignatures; i++ {
		tab.add(msg(fmt.Sprintf("other.H%d", i), 2), 0)
	}
	tab.add(msg("v", 1), 0) // v is the recent one in its place
	w := "w.Evicts"
	tab.add(msg(w, 5), 0) // evicts v, the least severe
	if _, ok := tab.sigs[sigKey{handler: "v", callback: "null"}]; ok {
		t.Fatal("v was not evicted")
	}
	tab.add(msg("v", 3), 0) // worse than the others now: back, counted from 1
	s := tab.sigs[sigKey{handler: "v", callback: "null"}]
	if s == nil || s.count != 1 || s.maxMs != 3 {
		t.Fatalf("v after eviction: %+v", s)
	}
}

// TestListedTopN: the signatures listed when more than n qualify are the first n of the whole
// table sorted by the full order (max, total, names), with many ties on max and total.
func TestListedTopN(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	tab := newMessageTable()
	for i := 0; i < 3000; i++ {
		ms := int64(1 + r.Intn(30))
		tab.add(&source.Message{Handler: fmt.Sprintf("h%d", r.Intn(40)), Callback: fmt.Sprintf("c%d", r.Intn(20)),
			What: r.Intn(3), StartNs: 1e9, EndNs: 1e9 + ms*1e6}, 0)
	}
	var all []*sigStats
	for _, s := range tab.sigs {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.maxMs != b.maxMs {
			return a.maxMs > b.maxMs
		}
		if a.totalMs != b.totalMs {
			return a.totalMs > b.totalMs
		}
		if a.key.handler != b.key.handler {
			return a.key.handler < b.key.handler
		}
		if a.key.callback != b.key.callback {
			return a.key.callback < b.key.callback
		}
		return a.key.what < b.key.what
	})
	for _, slow := range []float64{0, 10, 25, 31} {
		for _, n := range []int{0, 1, 7, 50, 200, 5000} {
			var want []*sigStats
			for _, s := range all {
				if s.maxMs >= slow && len(want) < n {
					want = append(want, s)
				}
			}
			got := tab.listed(slow, n)
			if len(got) != len(want) {
				t.Fatalf("slow %v n %d: %d listed, want %d", slow, n, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("slow %v n %d: #%d is %+v, want %+v", slow, n, i, got[i].key, want[i].key)
				}
			}
		}
	}
}
