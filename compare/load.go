// Package compare answers "better, worse, or noise?" for two sets of fpstop recordings (BASE and
// NEW): FPS, jank %, each drop level's share, frame-time percentiles, per window and per slow
// main-thread message signature, each with both values, the difference, a confidence interval,
// a p-value and a verdict (docs/compare.md).
//
// The unit of analysis is the run (DESIGN §7): with several recordings on both sides (fpstop
// test iterations) the test is across runs, on per-iteration values; frames and seconds within
// a run are autocorrelated and never treated as independent, so one recording a side gives
// the values and `inconclusive`. Point values always come from the recordings' reports
// (metrics.Report, the numbers `fpstop report` prints), so a comparison never disagrees with a
// report.
package compare

import (
	"fmt"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// maxMessageSamples bounds the durations kept per message signature (a deterministic
// reservoir), and maxSignatures the signatures tracked per recording.
const (
	maxMessageSamples = 4096
	maxSignatures     = 2000
)

// Run is one recording read for comparison: its report and the durations of its main-thread
// messages per signature.
type Run struct {
	Path   string
	Header record.Header
	Report *metrics.Report
	// Messages are occurrence durations (ms) per signature, at most maxMessageSamples each.
	Messages map[Signature][]float64
	// MessageCounts are all occurrences per signature (the samples may be fewer).
	MessageCounts map[Signature]int64
	// Sections and SectionCounts are the same for atrace sections (Perfetto traces), by
	// folded name and thread as the report groups them.
	Sections      map[SectionKey][]float64
	SectionCounts map[SectionKey]int64
}

// SectionKey identifies an atrace section as the report groups them.
type SectionKey struct {
	Name   string `json:"name"`
	Thread string `json:"thread"`
}

// Signature identifies a main-thread message as the report groups them.
type Signature struct {
	Handler  string `json:"handler"`
	Callback string `json:"callback"`
	What     int    `json:"what"`
}

// Load reads a recording with the metrics configuration cfg (drop levels, slow-ms), giving the
// report `fpstop report` would print and its messages' durations.
func Load(path string, cfg metrics.Config) (*Run, error) {
	ld := newLoader(cfg)
	r, err := record.ReadBatches(path, ld.feed)
	if err != nil {
		return nil, err
	}
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

// loader feeds a pipeline and keeps the messages' and sections' durations.
type loader struct {
	p        *metrics.Pipeline
	msgs     durations[Signature]
	sections durations[SectionKey]
}

// durations are the occurrence durations (ms) kept per key, and how many there were.
type durations[K comparable] struct {
	ms   map[K][]float64
	seen map[K]int64
}

func newDurations[K comparable]() durations[K] {
	return durations[K]{ms: map[K][]float64{}, seen: map[K]int64{}}
}

func newLoader(cfg metrics.Config) *loader {
	cfg.HistoryLen = -1 // only the screen's timeline reads the frame history
	return &loader{p: metrics.NewPipeline(cfg), msgs: newDurations[Signature](), sections: newDurations[SectionKey]()}
}

func (ld *loader) feed(evs []source.Event) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Message:
			if e.EndNs > e.StartNs {
				ld.msgs.add(Signature{Handler: e.Handler, Callback: metrics.NormalizeCallback(e.Callback), What: e.What}, e.StartNs, e.EndNs)
			}
		case *source.Section:
			if e.EndNs > e.StartNs {
				ld.sections.add(SectionKey{Name: metrics.SectionName(e.Name), Thread: e.Thread}, e.StartNs, e.EndNs)
			}
		}
	}
	ld.p.AddBatch(evs)
}

// add keeps an occurrence's duration: every one up to maxMessageSamples per key, then a
// deterministic reservoir (so the same recording always gives the same sample).
func (d durations[K]) add(k K, startNs, endNs int64) {
	ms := float64(endNs-startNs) / 1e6
	kept, ok := d.ms[k]
	if !ok && len(d.ms) >= maxSignatures {
		return
	}
	n := d.seen[k] + 1
	d.seen[k] = n
	if len(kept) < maxMessageSamples {
		d.ms[k] = append(kept, ms)
		return
	}
	// a fixed hash of the occurrence number picks the slot to replace (Algorithm R)
	h := uint64(n) * 0x9E3779B97F4A7C15
	if j := int64(h>>11) % n; j < maxMessageSamples {
		kept[j] = ms
	}
}

func (ld *loader) finish(path string) *Run {
	return &Run{Path: path, Report: ld.p.Report(metrics.ReportMeta{}), Messages: ld.msgs.ms, MessageCounts: ld.msgs.seen,
		Sections: ld.sections.ms, SectionCounts: ld.sections.seen}
}
