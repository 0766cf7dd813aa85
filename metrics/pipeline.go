package metrics

import "github.com/fpstop/fpstop/source"

// Pipeline holds all metric state. It is not safe for concurrent use: one goroutine (a Runner)
// owns it; other goroutines read Snapshots.
type Pipeline struct {
	cfg Config
}

// NewPipeline returns an empty pipeline.
func NewPipeline(cfg Config) *Pipeline {
	return &Pipeline{cfg: cfg.withDefaults()}
}

// Add applies one event.
func (p *Pipeline) Add(ev source.Event) {}

// AddBatch applies a batch of events in order.
func (p *Pipeline) AddBatch(evs []source.Event) {
	for _, ev := range evs {
		p.Add(ev)
	}
}

// Reset clears all statistics (the screen's `c`), keeping the session and refresh rate.
func (p *Pipeline) Reset() {}

// Snapshot returns an immutable copy of the state for the screen.
func (p *Pipeline) Snapshot() *Snapshot { return &Snapshot{} }

// Report returns the headless report.
func (p *Pipeline) Report(meta ReportMeta) *Report { return &Report{} }
