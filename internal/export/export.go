// Package export turns metrics Snapshots into what monitoring systems ingest (Prometheus,
// OpenTelemetry). It reads Snapshots only — never device output — so the numbers exported are
// exactly the dashboard's and the report's. The subpackages prom and otlp encode them.
package export

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/metrics"
)

// Device is one measured device as the exports see it.
type Device struct {
	// Snap is the device's newest Snapshot (nil: nothing measured yet; the device is skipped).
	Snap *metrics.Snapshot
	// Source overrides the session's source kind when set (the --source the run uses).
	Source string
	// Connected is false once the device was unplugged: its counters stay, its gauges go.
	Connected bool
}

// Feed returns the devices to export, read at each scrape or push. It must be safe to call from
// any goroutine.
type Feed func() []Device

// Labels identify a device's series: serial, model, Android version, package and source kind.
type Labels struct {
	Serial, Model, Android, Package, Source string
}

// LabelsOf returns d's labels, from its Snapshot's session.
func LabelsOf(d Device) Labels {
	s := d.Snap.Session
	l := Labels{Serial: s.Device.Serial, Model: s.Device.Model, Android: s.Device.Android,
		Package: s.Package, Source: string(s.Source)}
	if d.Source != "" {
		l.Source = d.Source
	}
	return l
}

// LastFPS is the FPS of the newest complete slice (the last second with the default slice);
// ok is false when that slice was idle or there is none — an idle second has no FPS, not 0.
func LastFPS(series []metrics.SlicePoint) (fps float64, ok bool) {
	for i := len(series) - 1; i >= 0; i-- {
		s := series[i]
		if s.Partial {
			continue
		}
		if s.Idle || math.IsNaN(s.FPS) || s.FPS <= 0 {
			return 0, false
		}
		return s.FPS, true
	}
	return 0, false
}

// FPSOver is the FPS over the newest n complete slices by the pipeline's own formula
// (frames / Σ(dropped+1)·T): Σframes / Σ(frames/fps) over the non-idle ones. ok is false when
// all were idle.
func FPSOver(series []metrics.SlicePoint, n int) (fps float64, ok bool) {
	var frames, display float64
	seen := 0
	for i := len(series) - 1; i >= 0 && seen < n; i-- {
		s := series[i]
		if s.Partial {
			continue
		}
		seen++
		if s.Idle || math.IsNaN(s.FPS) || s.FPS <= 0 || s.Frames == 0 {
			continue
		}
		frames += float64(s.Frames)
		display += float64(s.Frames) / s.FPS
	}
	if frames == 0 || display == 0 {
		return 0, false
	}
	return frames / display, true
}

// SlicesIn is how many slices of sliceNs make up span seconds (at least 1).
func SlicesIn(spanS float64, sliceNs int64) int {
	if sliceNs <= 0 {
		return 1
	}
	n := int(math.Round(spanS * 1e9 / float64(sliceNs)))
	if n < 1 {
		n = 1
	}
	return n
}

// maxSignatureLen bounds a signature label value.
const maxSignatureLen = 160

// Signature names a slow message: "Handler Callback #what" as the report lists it.
func Signature(m metrics.MessageSnapshot) string {
	what := m.WhatName
	if what == "" {
		what = fmt.Sprint(m.What)
	}
	s := m.Handler
	if m.Callback != "" {
		s += " " + m.Callback
	}
	s += " #" + what
	if len(s) > maxSignatureLen {
		s = s[:maxSignatureLen] + "…"
	}
	return s
}

// OtherSignature is the label value that sums every signature past the top N.
const OtherSignature = "other"

// Signatures caps the cardinality of the slow-message series. Per device (by serial), the
// first N signatures seen — the most frequent first when several appear at once — keep their
// own label for the whole run; all later ones are summed under OtherSignature. Membership never
// changes, so every exported count only grows (a counter), which a "top N right now" would
// break. Safe for concurrent use.
type Signatures struct {
	N  int
	mu sync.Mutex
	in map[string]map[string]bool // serial → admitted signatures
}

// SignatureCount is one exported slow-message count.
type SignatureCount struct {
	Signature string
	Count     int64
}

// Counts returns the capped counts for one device's messages, admitted ones first (by count,
// descending), OtherSignature last when any message fell outside.
func (c *Signatures) Counts(serial string, msgs []metrics.MessageSnapshot) []SignatureCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.in == nil {
		c.in = map[string]map[string]bool{}
	}
	adm := c.in[serial]
	if adm == nil {
		adm = map[string]bool{}
		c.in[serial] = adm
	}
	sorted := append([]metrics.MessageSnapshot(nil), msgs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Count > sorted[j].Count })
	byName := map[string]int64{}
	var other int64
	hasOther := false
	for _, m := range sorted {
		sig := Signature(m)
		if !adm[sig] && len(adm) < c.N {
			adm[sig] = true
		}
		if adm[sig] {
			byName[sig] += m.Count
		} else {
			other += m.Count
			hasOther = true
		}
	}
	out := make([]SignatureCount, 0, len(byName)+1)
	for s, n := range byName {
		out = append(out, SignatureCount{Signature: s, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Signature < out[j].Signature
	})
	if hasOther {
		out = append(out, SignatureCount{Signature: OtherSignature, Count: other})
	}
	return out
}

// bucketUpperMs[i] is the exclusive upper bound, in ms, of Android's histogram bucket i, derived
// from hwui.Index itself (a frame's ms is truncated, so the "6ms" bucket holds 6.0–6.99 ms and
// ends at 7). The last bucket is open (+Inf).
var bucketUpperMs = func() []float64 {
	up := make([]float64, hwui.NumBuckets)
	last := int64(hwui.BucketMs(hwui.NumBuckets-1)) + 1
	for ms := int64(0); ms <= last; ms++ {
		i := hwui.Index(ms * 1_000_000)
		if v := float64(ms + 1); v > up[i] {
			up[i] = v
		}
	}
	up[hwui.NumBuckets-1] = math.Inf(1)
	return up
}()

// BucketBoundsSeconds are the finite upper bounds of Android's frame-time buckets in seconds,
// ascending: the explicit bounds of an exported histogram.
func BucketBoundsSeconds() []float64 {
	out := make([]float64, 0, len(bucketUpperMs)-1)
	for _, ms := range bucketUpperMs[:len(bucketUpperMs)-1] {
		out = append(out, ms/1000)
	}
	return out
}

// BucketCounts spreads a window's non-empty Android buckets over BucketBoundsSeconds: counts[i]
// is the frames of bucket i (not cumulative), with one more entry for the open last bucket.
func BucketCounts(h []metrics.HistogramBucket) []uint64 {
	counts := make([]uint64, len(bucketUpperMs))
	for _, b := range h {
		if b.Count <= 0 {
			continue
		}
		counts[hwui.Index(int64(b.Ms)*1_000_000)] += uint64(b.Count)
	}
	return counts
}
