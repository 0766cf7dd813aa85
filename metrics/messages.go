package metrics

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fpstop/fpstop/source"
)

const (
	maxSignatures  = 1000
	worstPerSig    = 5
	msgRingLen     = 8192
	slowLooperKeep = 200
	// p95 histogram: log-spaced buckets 2.5 % wide from 0.01 ms (≈ 560 buckets to 1000 s).
	durBase    = 0.01
	durGrowth  = 1.025
	durBuckets = 750
)

var logGrowth = math.Log(durGrowth)

// sigKey identifies a message signature: handler class, normalised callback, what.
type sigKey struct {
	handler, callback string
	what              int
}

// sigStats aggregates one signature.
type sigStats struct {
	key     sigKey
	printed string // the callback as its first message printed it, without the identity hash
	count   int64
	totalMs float64
	maxMs   float64
	lastNs  int64
	worst   []Occurrence // by ms, descending, at most worstPerSig
	hist    *[durBuckets]uint32
	idx     int // position in messageTable.least
}

// lessSevere orders signatures for eviction: the smaller max first, then the fewer occurrences.
func lessSevere(a, b *sigStats) bool {
	return a.maxMs < b.maxMs || (a.maxMs == b.maxMs && a.count < b.count)
}

// durBucket is the p95 histogram's bucket for a duration of ms.
func durBucket(ms float64) int {
	if ms <= durBase {
		return 0
	}
	b := int(math.Log(ms/durBase)/logGrowth) + 1
	if b >= durBuckets {
		return durBuckets - 1
	}
	return b
}

// bucketUpper is the upper bound of bucket b in ms.
func bucketUpper(b int) float64 {
	if b == 0 {
		return durBase
	}
	return durBase * math.Pow(durGrowth, float64(b))
}

// add counts a message of ms that started at startNs, sinceNs after the report's origin.
func (s *sigStats) add(ms float64, sinceNs, startNs int64) {
	s.count++
	s.totalMs += ms
	if ms > s.maxMs {
		s.maxMs = ms
	}
	if startNs > s.lastNs {
		s.lastNs = startNs
	}
	if s.hist == nil {
		s.hist = new([durBuckets]uint32)
	}
	s.hist[durBucket(ms)]++
	if len(s.worst) < worstPerSig || ms > float64(s.worst[len(s.worst)-1].Ms) {
		o := Occurrence{StartMs: R2(float64(sinceNs) / 1e6), Ms: R2(ms)}
		i := sort.Search(len(s.worst), func(i int) bool { return float64(s.worst[i].Ms) < ms })
		s.worst = append(s.worst, Occurrence{})
		copy(s.worst[i+1:], s.worst[i:])
		s.worst[i] = o
		if len(s.worst) > worstPerSig {
			s.worst = s.worst[:worstPerSig]
		}
	}
}

// p95 is the 95th percentile, nearest rank on the log histogram (within 2.5 %), never above
// the exact max.
func (s *sigStats) p95() float64 {
	if s.count == 0 || s.hist == nil {
		return 0
	}
	rank := uint64(math.Ceil(0.95 * float64(s.count)))
	var cum uint64
	for b, c := range s.hist {
		if cum += uint64(c); cum >= rank {
			return math.Min(bucketUpper(b), s.maxMs)
		}
	}
	return s.maxMs
}

// msgRecord is a message kept for attribution to frames.
type msgRecord struct {
	startNs, endNs    int64
	handler, callback string
	what              int
}

// messageTable tracks signatures (bounded), a ring of recent messages, and counters.
type messageTable struct {
	sigs map[sigKey]*sigStats
	// least is a min-heap of the signatures by severity (lessSevere): its root is the eviction
	// victim, so a log of millions of distinct handlers does not scan the table per message.
	least    []*sigStats
	evicted  int64
	paired   int64
	unpaired int64
	timed    int64 // messages with a known duration
	// recent are signatures the latest messages had, tried before sigs: a thread repeats a
	// handful of messages, and a match spares normalising the callback and hashing the key.
	recent     [8]*sigStats
	recentNext int

	ring  []msgRecord
	rhead int
	rlen  int

	skipped   SkippedReport
	slow      []SlowLooperReport // ring of the newest slowLooperKeep
	slowHead  int
	slowTotal int64
}

func newMessageTable() *messageTable {
	return &messageTable{sigs: make(map[sigKey]*sigStats), ring: make([]msgRecord, msgRingLen)}
}

// NormalizeCallback removes what changes between instances of the same code: the identity hash
// after '@', and the index of D8/R8 synthetic lambdas, so the same call site groups together.
func NormalizeCallback(cb string) string {
	return normalizeLambda(withoutHash(cb))
}

// withoutHash is NormalizeCallback's first half: the callback without its identity hash.
func withoutHash(cb string) string {
	if i := strings.LastIndexByte(cb, '@'); i > 0 && isHex(cb[i+1:]) {
		return cb[:i]
	}
	return cb
}

// normalizeLambda is NormalizeCallback's second half: a callback without its identity hash.
func normalizeLambda(cb string) string {
	if !strings.Contains(cb, "Lambda") { // every marker below contains it: one scan for most callbacks
		return cb
	}
	for _, marker := range []string{"$$ExternalSyntheticLambda", "$$Lambda$", "$Lambda$"} {
		if i := strings.Index(cb, marker); i >= 0 {
			j := i + len(marker)
			k := j
			for k < len(cb) && cb[k] >= '0' && cb[k] <= '9' {
				k++
			}
			rest := cb[k:]
			if strings.HasPrefix(rest, "/0x") || strings.HasPrefix(rest, "/") {
				rest = "" // "$$Lambda$12/0x0000000801234" → the class address changes per run
			}
			if k > j || rest == "" {
				cb = cb[:j] + rest
			}
			break
		}
	}
	return cb
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (t *messageTable) add(m *source.Message, originNs int64) {
	t.paired++
	if m.EndNs <= 0 || m.EndNs < m.StartNs {
		return
	}
	t.timed++
	ms := float64(m.EndNs-m.StartNs) / 1e6
	if s := t.signatureOf(m, ms); s != nil {
		s.add(ms, m.StartNs-originNs, m.StartNs)
		t.down(s.idx) // its max and count only grow
	}
	t.ring[t.rhead] = msgRecord{startNs: m.StartNs, endNs: m.EndNs, handler: m.Handler, callback: m.Callback, what: m.What}
	t.rhead = (t.rhead + 1) % len(t.ring)
	t.rlen = min(t.rlen+1, len(t.ring))
}

// signatureOf returns the stats for m's signature, from recent when one of the latest messages
// had it, else from signature.
func (t *messageTable) signatureOf(m *source.Message, ms float64) *sigStats {
	printed := withoutHash(m.Callback)
	for _, s := range t.recent {
		if s != nil && s.key.what == m.What && s.key.handler == m.Handler && s.printed == printed {
			return s
		}
	}
	s := t.signature(sigKey{handler: m.Handler, callback: normalizeLambda(printed), what: m.What}, printed, ms)
	if s != nil && s.printed == printed {
		t.recent[t.recentNext] = s
		t.recentNext = (t.recentNext + 1) % len(t.recent)
	}
	return s
}

// signature returns the stats for key, creating them (evicting the least severe signature when
// the table is full and ms is worse); nil when the message is not worth a place. printed is
// the message's callback without its identity hash.
func (t *messageTable) signature(key sigKey, printed string, ms float64) *sigStats {
	if s := t.sigs[key]; s != nil {
		return s
	}
	if len(t.sigs) >= maxSignatures {
		victim := t.least[0]
		t.evicted++
		if victim.maxMs >= ms {
			return nil
		}
		delete(t.sigs, victim.key)
		t.pop()
		for i, s := range t.recent {
			if s == victim {
				t.recent[i] = nil
			}
		}
	}
	// The table outlives the messages: its own copies of the names, so that a kept signature
	// does not pin the buffer a source carved them from (the logcat decoder's 32 KB arenas).
	key.handler, key.callback = strings.Clone(key.handler), strings.Clone(key.callback)
	s := &sigStats{key: key, printed: key.callback, idx: len(t.least)}
	if printed != key.callback {
		s.printed = strings.Clone(printed)
	}
	t.sigs[key] = s
	t.least = append(t.least, s)
	t.up(s.idx)
	return s
}

// pop removes the heap's root.
func (t *messageTable) pop() {
	n := len(t.least) - 1
	t.swap(0, n)
	t.least[n] = nil
	t.least = t.least[:n]
	if n > 0 {
		t.down(0)
	}
}

func (t *messageTable) swap(i, j int) {
	h := t.least
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

func (t *messageTable) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !lessSevere(t.least[i], t.least[p]) {
			return
		}
		t.swap(i, p)
		i = p
	}
}

func (t *messageTable) down(i int) {
	h := t.least
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && lessSevere(h[c+1], h[c]) {
			c++
		}
		if !lessSevere(h[c], h[i]) {
			return
		}
		t.swap(i, c)
		i = c
	}
}

// overlapping returns the messages overlapping [from, to], each with its overlap in ms, in time
// order. offsetNs is added to message times first (logcat → frame clock).
func (t *messageTable) overlapping(from, to, offsetNs int64) []FrameMessage {
	if to <= from || t.rlen == 0 {
		return nil
	}
	var out []FrameMessage
	older, newer := t.records()
	for _, part := range [][]msgRecord{older, newer} {
		for i := range part {
			r := &part[i]
			s, e := r.startNs+offsetNs, r.endNs+offsetNs
			if e <= from || s >= to {
				continue
			}
			ov := min(e, to) - max(s, from)
			if ov <= 0 {
				continue
			}
			out = append(out, FrameMessage{Handler: r.handler, Callback: r.callback, What: r.what,
				WhatName: WhatName(r.handler, r.what), Ms: R2(float64(ov) / 1e6)})
		}
	}
	return out
}

// records returns the ring's records in two parts, the older first, each from the oldest.
func (t *messageTable) records() (older, newer []msgRecord) {
	if t.rlen < len(t.ring) {
		return t.ring[t.rhead-t.rlen : t.rhead], nil
	}
	return t.ring[t.rhead:], t.ring[:t.rhead]
}

func (t *messageTable) addSlow(s *source.SlowLooper) {
	t.slowTotal++
	r := SlowLooperReport{Kind: s.Kind, Ms: s.Ms, Thread: s.Thread, Handler: s.Handler, Callback: s.Callback, What: s.What,
		Truncated: s.Truncated}
	if len(t.slow) < slowLooperKeep {
		t.slow = append(t.slow, r)
		return
	}
	t.slow[t.slowHead] = r
	t.slowHead = (t.slowHead + 1) % slowLooperKeep
}

// slowList returns the kept slow lines, oldest first.
func (t *messageTable) slowList() []SlowLooperReport {
	out := make([]SlowLooperReport, 0, len(t.slow))
	out = append(out, t.slow[t.slowHead:]...)
	out = append(out, t.slow[:t.slowHead]...)
	return out
}

// listed returns the signatures whose max reaches slowMs, by max descending (then total, then
// name), at most n.
func (t *messageTable) listed(slowMs float64, n int) []*sigStats {
	var out []*sigStats
	for _, s := range t.least {
		if s.maxMs >= slowMs {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *sigStats) int {
		if a.maxMs != b.maxMs {
			return cmp.Compare(b.maxMs, a.maxMs)
		}
		if a.totalMs != b.totalMs {
			return cmp.Compare(b.totalMs, a.totalMs)
		}
		if c := strings.Compare(a.key.handler, b.key.handler); c != 0 {
			return c
		}
		if c := strings.Compare(a.key.callback, b.key.callback); c != 0 {
			return c
		}
		return cmp.Compare(a.key.what, b.key.what)
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
