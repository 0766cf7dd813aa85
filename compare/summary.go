package compare

import (
	"math"

	"github.com/fpstop/fpstop/metrics"
)

// Iteration statuses in a Summary.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Iteration is one iteration of `fpstop test`.
type Iteration struct {
	Index int `json:"index"` // 1-based
	// Recording is the file name inside the test directory ("" when nothing was recorded).
	Recording string `json:"recording"`
	Status    string `json:"status"` // ok, failed
	// Error says why a failed iteration failed (driver exit status, --before, cold start, source).
	Error     string  `json:"error,omitempty"`
	DurationS float64 `json:"duration_s"`
	Seed      *int64  `json:"seed,omitempty"` // the simulator's seed for this iteration
	// Values are the iteration's run-level metrics (fps, jank_pct, drop_*_pct, p*_ms), from its
	// report; missing when the iteration has no frames.
	Values map[string]*float64 `json:"values"`
}

// Stat summarises one metric over the successful iterations: their mean, the t confidence
// interval of the mean, and their spread.
type Stat struct {
	Name   string   `json:"name"`
	Unit   string   `json:"unit"`
	N      int      `json:"n"`
	Mean   *float64 `json:"mean"`
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
	StdDev *float64 `json:"stddev"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

// Summary is what `fpstop test` writes to summary.json and prints.
type Summary struct {
	Schema        string      `json:"schema"`
	FpstopVersion string      `json:"fpstop_version"`
	Source        string      `json:"source"`
	Package       string      `json:"package,omitempty"`
	Command       string      `json:"command"`
	Before        string      `json:"before,omitempty"`
	Cold          bool        `json:"cold"`
	Iterations    []Iteration `json:"iterations"`
	Failed        int         `json:"failed"`
	Confidence    float64     `json:"confidence"`
	// Method names how CI was computed.
	Method string `json:"method"`
	Stats  []Stat `json:"stats"`
}

// SummarySchema names Summary's JSON layout.
const SummarySchema = "fpstop-test/2"

// IterationValues are a report's run-level values by metric name.
func IterationValues(r *metrics.Report) map[string]*float64 {
	v := runValues(r)
	out := make(map[string]*float64, len(metricDefs))
	for _, d := range metricDefs {
		out[d.name] = r2p(v.reported(d))
	}
	return out
}

// Summarize fills s.Stats from the successful iterations' values: mean, the t interval of the
// mean at confidence (two iterations or more), standard deviation, min, max. The interval is
// the one compare's Welch test works with; the iterations' min..max is not an interval of
// the mean.
func Summarize(s *Summary, confidence float64) {
	s.Confidence = confidence
	s.Method = "t interval of the mean over iterations"
	s.Stats = make([]Stat, 0, len(metricDefs))
	s.Failed = 0
	for _, it := range s.Iterations {
		if it.Status != StatusOK {
			s.Failed++
		}
	}
	for _, d := range metricDefs {
		var x []float64
		for _, it := range s.Iterations {
			if p := it.Values[d.name]; it.Status == StatusOK && p != nil {
				x = append(x, *p)
			}
		}
		st := Stat{Name: d.name, Unit: d.unit, N: len(x)}
		if len(x) > 0 {
			m := mean(x)
			st.Mean = r2p(m)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range x {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			st.Min, st.Max = r2p(lo), r2p(hi)
			if len(x) > 1 {
				l, h := tInterval(x, confidence)
				st.CILow, st.CIHigh, st.StdDev = r2p(l), r2p(h), r2p(stdDev(x))
			}
		}
		s.Stats = append(s.Stats, st)
	}
}
