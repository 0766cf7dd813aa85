// Package compare answers "better, worse, or noise?" for two sets of fpstop recordings (BASE and
// NEW): FPS, jank %, each drop level's share, frame-time percentiles, per window and per slow
// main-thread message signature, each with both values, the difference, a confidence interval,
// a p-value and a verdict (docs/compare.md).
//
// Frames within a run are autocorrelated (a slow scroll makes many slow frames in a row), so a
// within-run test never treats frames as independent: it resamples whole one-second secs (a
// block bootstrap). With several recordings on both sides (fpstop test iterations) the test is
// across runs, on per-iteration values. Point values always come from the recordings' reports
// (metrics.Report, the numbers `fpstop report` prints), so a comparison never disagrees with a
// report; the secs only give the spread.
package compare

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// Features of one slice, summed when secs are resampled. Ratios are computed from sums, so a
// resampled run is a run made of the drawn seconds.
const (
	fFrames  = iota // frames
	fJanky          // frames with dropped ≥ 1
	fDisplay        // Σ (dropped+1)·T in ns (FPS denominator), frames drawn before the session excluded
	fFPSN           // frames counted in FPS (history frames excluded)
	fLevel0         // best, normal, middle, high, frozen: five features
	fHist    = fLevel0 + 5
	nFeat    = fHist + hwui.NumBuckets
)

// maxMessageSamples bounds the durations kept per message signature (a deterministic
// reservoir), and maxSignatures the signatures tracked per recording.
const (
	maxMessageSamples = 4096
	maxSignatures     = 2000
)

// slice is one second of a run: its features, the histogram kept sparse (a second's frames
// fill few buckets), so resampling long runs stays cheap.
type slice struct {
	f    [fHist]float64
	hist []bucketCount
}

type bucketCount struct {
	idx int
	n   float64
}

// secs is a run's one-second secs in time order.
type secs []slice

// Run is one recording read for comparison: its report and its per-second secs, for the whole
// run and per window, and the durations of its main-thread messages per signature.
type Run struct {
	Path    string
	Header  record.Header
	Report  *metrics.Report
	Total   secs
	Windows map[string]secs
	// Messages are occurrence durations (ms) per signature, at most maxMessageSamples each.
	Messages map[Signature][]float64
	// MessageCounts are all occurrences per signature (the samples may be fewer).
	MessageCounts map[Signature]int64
}

// Signature identifies a main-thread message as the report groups them.
type Signature struct {
	Handler  string `json:"handler"`
	Callback string `json:"callback"`
	What     int    `json:"what"`
}

// Load reads a recording with the metrics configuration cfg (drop levels, slow-ms), giving the
// report `fpstop report` would print and the secs the tests resample.
func Load(path string, cfg metrics.Config) (*Run, error) {
	r, err := record.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ld := newLoader(cfg)
	batch := make([]source.Event, 0, 1024)
	first := true
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading recording %s: %w", path, err)
		}
		if first {
			first = false
			if _, ok := ev.(*source.Session); !ok && r.HasHeader {
				batch = append(batch, r.Header.Session())
			}
		}
		batch = append(batch, ev)
		if len(batch) == cap(batch) {
			ld.feed(batch)
			batch = batch[:0]
		}
	}
	ld.feed(batch)
	run := ld.finish(path)
	run.Header = r.Header
	if run.Report.Frames == 0 {
		return nil, fmt.Errorf("recording %s has no frames to compare", path)
	}
	return run, nil
}

// FromEvents loads a run from a source's events (the first a Session) as Load loads a
// recording of them: simulated runs are compared in memory this way (scripts/calibrate), with
// no file in between.
func FromEvents(name string, evs []source.Event, cfg metrics.Config) (*Run, error) {
	ld := newLoader(cfg)
	var sess *source.Session
	for _, ev := range evs {
		if s, ok := ev.(*source.Session); ok {
			sess = s
			break
		}
	}
	ld.feed(evs)
	run := ld.finish(name)
	run.Header = record.HeaderFromSession(sess, "", time.Time{})
	if run.Report.Frames == 0 {
		return nil, fmt.Errorf("%s has no frames to compare", name)
	}
	return run, nil
}

// loader feeds a pipeline and gathers secs from the frames it classifies.
type loader struct {
	p        *metrics.Pipeline
	originNs int64
	total    map[int64]*[nFeat]float64
	windows  map[string]map[int64]*[nFeat]float64
	msgs     map[Signature][]float64
	seen     map[Signature]int64
}

func newLoader(cfg metrics.Config) *loader {
	ld := &loader{p: metrics.NewPipeline(record.Offline(cfg)), total: map[int64]*[nFeat]float64{},
		windows: map[string]map[int64]*[nFeat]float64{}, msgs: map[Signature][]float64{}, seen: map[Signature]int64{}}
	ld.p.OnFrame(ld.frame)
	return ld
}

func (ld *loader) feed(evs []source.Event) {
	for _, ev := range evs {
		if ld.originNs == 0 {
			if at := ev.At(); at > 0 {
				ld.originNs = at
			}
		}
		if m, ok := ev.(*source.Message); ok && m.EndNs > m.StartNs {
			ld.message(m)
		}
	}
	ld.p.AddBatch(evs)
}

// message keeps a message's duration: every one up to maxMessageSamples per signature, then a
// deterministic reservoir (so the same recording always gives the same sample).
func (ld *loader) message(m *source.Message) {
	sig := Signature{Handler: m.Handler, Callback: metrics.NormalizeCallback(m.Callback), What: m.What}
	ms := float64(m.EndNs-m.StartNs) / 1e6
	d, ok := ld.msgs[sig]
	if !ok && len(ld.msgs) >= maxSignatures {
		return
	}
	n := ld.seen[sig] + 1
	ld.seen[sig] = n
	if len(d) < maxMessageSamples {
		ld.msgs[sig] = append(d, ms)
		return
	}
	// a fixed hash of the occurrence number picks the slot to replace (Algorithm R)
	h := uint64(n) * 0x9E3779B97F4A7C15
	if j := int64(h>>11) % n; j < maxMessageSamples {
		d[j] = ms
	}
}

// frame adds a classified frame to its slice, for the run and for its window.
func (ld *loader) frame(c metrics.ClassifiedFrame) {
	idx := int64(0)
	if c.Frame.VsyncNs > ld.originNs {
		idx = (c.Frame.VsyncNs - ld.originNs) / 1e9
	}
	add := func(m map[int64]*[nFeat]float64) {
		s := m[idx]
		if s == nil {
			s = new([nFeat]float64)
			m[idx] = s
		}
		s[fFrames]++
		if c.Dropped >= 1 {
			s[fJanky]++
		}
		if !c.Frame.History {
			s[fFPSN]++
			s[fDisplay] += float64((c.Dropped + 1) * c.IntervalNs)
		}
		s[fLevel0+levelIndex(c.Level)]++
		s[fHist+hwui.Index(c.CostNs)]++
	}
	add(ld.total)
	w := ld.windows[c.Frame.Window]
	if w == nil {
		w = map[int64]*[nFeat]float64{}
		ld.windows[c.Frame.Window] = w
	}
	add(w)
}

func levelIndex(l metrics.Level) int {
	switch l {
	case metrics.LevelNormal:
		return 1
	case metrics.LevelMiddle:
		return 2
	case metrics.LevelHigh:
		return 3
	case metrics.LevelFrozen:
		return 4
	}
	return 0
}

func (ld *loader) finish(path string) *Run {
	rep := ld.p.Report(metrics.ReportMeta{}) // flushes Looper-derived frames into the secs
	run := &Run{Path: path, Report: rep, Total: ordered(ld.total), Windows: map[string]secs{},
		Messages: ld.msgs, MessageCounts: ld.seen}
	for name, m := range ld.windows {
		run.Windows[name] = ordered(m)
	}
	return run
}

// ordered returns the secs by time. Seconds without frames are left out: they hold nothing
// any metric counts (idle time is not part of FPS), so resampling them would only add noise.
func ordered(m map[int64]*[nFeat]float64) secs {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	out := make(secs, len(keys))
	for i, k := range keys {
		d := m[k]
		copy(out[i].f[:], d[:fHist])
		for b := fHist; b < nFeat; b++ {
			if d[b] != 0 {
				out[i].hist = append(out[i].hist, bucketCount{idx: b - fHist, n: d[b]})
			}
		}
	}
	return out
}
