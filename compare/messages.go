package compare

import (
	"fmt"
	"sort"
)

// Message tests resample at most this many occurrences per side (an even, deterministic
// thinning of longer samples) this many times at most: a p95's spread needs no more.
const (
	msgSampleCap     = 400
	msgResampleCap   = 500
	msgMinOccurrence = 10
)

// messages compares every slow-message signature either side's reports list: new (only in
// NEW), gone (only in BASE), or the p95 duration of its occurrences tested (slower, faster,
// unchanged). Occurrences of a message are far apart compared with frames, so they are
// resampled one by one.
func (c *comparer) messages(base, new []*Run) []Message {
	type info struct {
		whatName string
		max      float64
	}
	sigs := map[Signature]*info{}
	for _, runs := range [][]*Run{base, new} {
		for _, r := range runs {
			for _, m := range r.Report.SlowMessages {
				s := Signature{Handler: m.Handler, Callback: m.Callback, What: m.What}
				in := sigs[s]
				if in == nil {
					in = &info{whatName: m.WhatName}
					sigs[s] = in
				}
				in.max = max(in.max, float64(m.MaxMs))
			}
		}
	}
	keys := make([]Signature, 0, len(sigs))
	for s := range sigs {
		keys = append(keys, s)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := sigs[keys[i]].max, sigs[keys[j]].max
		if a != b {
			return a > b
		}
		return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j])
	})
	out := make([]Message, 0, len(keys))
	for _, s := range keys {
		out = append(out, c.message(s, sigs[s].whatName, base, new))
	}
	return out
}

// gather pools the occurrence durations kept under k (of picks a run's samples and counts) and
// counts them over runs.
func gather[K comparable](runs []*Run, k K, of func(*Run) (map[K][]float64, map[K]int64)) (samples []float64, count int64) {
	for _, r := range runs {
		ms, n := of(r)
		samples = append(samples, ms[k]...)
		count += n[k]
	}
	return samples, count
}

func messagesOf(r *Run) (map[Signature][]float64, map[Signature]int64) {
	return r.Messages, r.MessageCounts
}

// thin keeps at most n values, evenly spaced (deterministic).
func thin(x []float64, n int) []float64 {
	if len(x) <= n {
		return x
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = x[i*len(x)/n]
	}
	return out
}

func (c *comparer) message(s Signature, name string, base, new []*Run) Message {
	bs, bc := gather(base, s, messagesOf)
	ns, nc := gather(new, s, messagesOf)
	if name == "" {
		name = whatName(s.Handler, s.What)
	}
	m := Message{Handler: s.Handler, Callback: s.Callback, What: s.What, WhatName: name, CountBase: bc, CountNew: nc}
	m.P95, m.Status = c.occurrences(bs, bc, ns, nc, fmt.Sprintf("message:%s|%s|%d", s.Handler, s.Callback, s.What))
	return m
}

// occurrences compares the p95 of two sides' occurrence durations (bs and ns sampled from bc
// and nc occurrences): the metric and the status (new, gone, slower, faster, unchanged). key
// seeds the resampling.
func (c *comparer) occurrences(bs []float64, bc int64, ns []float64, nc int64, key string) (Metric, string) {
	m := Metric{Name: "p95_ms", Unit: UnitMs, Better: "lower", MinEffect: c.o.MinEffect.Ms, Verdict: Unchanged, Method: MethodNone}
	if len(bs) > 0 {
		m.Base = r2p(p95(append([]float64(nil), bs...)))
	}
	if len(ns) > 0 {
		m.New = r2p(p95(append([]float64(nil), ns...)))
	}
	switch {
	case bc == 0:
		return m, MsgNew
	case nc == 0:
		return m, MsgGone
	}
	if len(bs) < msgMinOccurrence || len(ns) < msgMinOccurrence {
		c.fillBootstrap(&m, *m.New-*m.Base, *m.Base, nil) // too few to test
		return m, MsgUnchanged
	}
	d := *m.New - *m.Base
	bt, nt := thin(bs, msgSampleCap), thin(ns, msgSampleCap)
	dist := meanBootstrap(bt, nt, min(c.o.Resamples, msgResampleCap), rngFor(c.o.Seed, key), p95)
	m.Method, m.NBase, m.NNew = MethodOccurrenceBootstrap, len(bt), len(nt)
	c.fillBootstrap(&m, d, *m.Base, dist)
	switch m.Verdict {
	case Worse:
		return m, MsgSlower
	case Better:
		return m, MsgFaster
	}
	return m, MsgUnchanged
}
