package compare

// The comparison result is a plain value with JSON tags: `fpstop compare --format json` prints
// it as is, and renderers (text, Markdown, HTML) read it. docs/compare.md documents the schema;
// a change here is a change of that schema (bump SchemaVersion when a key changes meaning or
// goes away).

// SchemaVersion names the JSON layout of Result.
const SchemaVersion = "fpstop-compare/2"

// Verdict is a metric's or the comparison's outcome; in JSON exactly "better", "worse" or
// "unchanged".
type Verdict string

// Verdicts.
const (
	Better    Verdict = "better"
	Worse     Verdict = "worse"
	Unchanged Verdict = "unchanged"
	// Inconclusive: one recording on a side, so the spread between runs is unknown and no test
	// can tell a change from noise (run fpstop test with --iterations 5 or more).
	Inconclusive Verdict = "inconclusive"
)

// Methods a difference was tested with (Metric.Method).
const (
	// MethodPermutation: several recordings on both sides, few enough to enumerate: an exact
	// permutation test of the difference of the per-recording means (p never below 2/C(n₁+n₂,
	// n₁), given as p_min); the interval is Welch's t interval.
	MethodPermutation = "permutation-exact"
	// MethodWelch: Welch's t test and interval on the per-recording values (more recordings
	// than an exact test enumerates, or too few for it to reach the level).
	MethodWelch = "welch-t"
	// MethodOccurrenceBootstrap: slow messages; occurrence durations resampled, difference of the p95.
	MethodOccurrenceBootstrap = "occurrence-bootstrap"
	// MethodNone: no test (a value is missing on one side, or too few data).
	MethodNone = "none"
)

// MinEffect is the smallest difference that counts as a change, per unit.
type MinEffect struct {
	FPS float64 `json:"fps"` // fps
	Pct float64 `json:"pct"` // percentage points (jank %, drop-level shares)
	Ms  float64 `json:"ms"`  // frame-time percentiles and message durations
}

// Side describes BASE or NEW.
type Side struct {
	// Label is what the user named (a file or directory).
	Label      string   `json:"label"`
	Recordings []string `json:"recordings"`
	Source     string   `json:"source"`
	Package    *string  `json:"package"`
	Device     string   `json:"device"` // model (serial), "" when unknown
	RefreshHz  *float64 `json:"refresh_hz"`
	Frames     int64    `json:"frames"` // over all its recordings
	DurationS  float64  `json:"duration_s"`
	// Scenario and Seed name a simulator run.
	Scenario string  `json:"scenario,omitempty"`
	Seeds    []int64 `json:"seeds,omitempty"`
}

// Metric is one metric compared. Values are null when they have no meaning (no frames). Diff is
// NEW − BASE in the metric's unit (percentage points for pct); CI is the confidence interval of
// Diff at Result.Confidence.
type Metric struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Better string `json:"better"` // "higher" or "lower": which direction is an improvement
	// Base and New are the sides' values: a recording's report value, or the mean over the
	// side's recordings.
	Base *float64 `json:"base"`
	New  *float64 `json:"new"`
	Diff *float64 `json:"diff"`
	// DiffPct is Diff relative to Base in percent (null when Base is 0 or missing).
	DiffPct *float64 `json:"diff_pct"`
	CILow   *float64 `json:"ci_low"`
	CIHigh  *float64 `json:"ci_high"`
	P       *float64 `json:"p"`
	// PMin is the smallest p the test could give with these sample sizes (exact tests only):
	// a p equal to it is "as small as this many recordings can show".
	PMin *float64 `json:"p_min,omitempty"`
	// Gated: a verdict metric (fps, jank_pct), tested with Holm's correction across every
	// scope's verdict metrics (PHolm, which decides its significance); the others are
	// informational, significant on their own p.
	Gated       bool     `json:"gated"`
	PHolm       *float64 `json:"p_holm,omitempty"`
	MinEffect   float64  `json:"min_effect"`
	Significant bool     `json:"significant"`
	Verdict     Verdict  `json:"verdict"`
	Method      string   `json:"method"`
	// NBase and NNew are the sample sizes: recordings, or message occurrences.
	NBase int     `json:"n_base"`
	NNew  int     `json:"n_new"`
	p     float64 // P unrounded
}

// Scope presence of a window or message on the two sides.
const (
	PresentBoth = "both"
	PresentNew  = "new"  // only in NEW
	PresentGone = "gone" // only in BASE
)

// Window is one Android window compared (matched by name).
type Window struct {
	Name    string   `json:"name"`
	Present string   `json:"present"` // both, new, gone
	Verdict Verdict  `json:"verdict"`
	Metrics []Metric `json:"metrics"`
}

// Message statuses.
const (
	MsgNew       = "new"
	MsgGone      = "gone"
	MsgSlower    = "slower"
	MsgFaster    = "faster"
	MsgUnchanged = "unchanged"
)

// Message is one slow main-thread message signature compared: its p95 duration on each side.
type Message struct {
	Handler  string `json:"handler"`
	Callback string `json:"callback"`
	What     int    `json:"what"`
	WhatName string `json:"what_name"`
	// CountBase and CountNew are occurrences over each side's recordings.
	CountBase int64  `json:"count_base"`
	CountNew  int64  `json:"count_new"`
	Status    string `json:"status"` // new, gone, slower, faster, unchanged
	// P95 compares the p95 duration in ms (Name "p95_ms").
	P95 Metric `json:"p95"`
}

// Gate is one CI gate checked on one scope.
type Gate struct {
	// Name is the flag: "max-fps-drop" or "max-jank-increase".
	Name string `json:"name"`
	// Scope is "run" or "window"; Window names the window.
	Scope     string  `json:"scope"`
	Window    string  `json:"window,omitempty"`
	Threshold float64 `json:"threshold"`
	// Measured is the regression: the fps drop (BASE − NEW) or the jank increase (NEW − BASE), in
	// fps or percentage points; null when a side has no value.
	Measured    *float64 `json:"measured"`
	Significant bool     `json:"significant"`
	Failed      bool     `json:"failed"`
	Message     string   `json:"message"`
}

// Bootstrap says how the resampling was done, so a result can be reproduced.
type Bootstrap struct {
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
}

// Result is a whole comparison.
type Result struct {
	Schema        string    `json:"schema"`
	FpstopVersion string    `json:"fpstop_version"`
	Confidence    float64   `json:"confidence"`
	MinEffect     MinEffect `json:"min_effect"`
	Bootstrap     Bootstrap `json:"bootstrap"`
	Base          Side      `json:"base"`
	New           Side      `json:"new"`
	// Verdict is the overall outcome from the verdict metrics (fps, jank_pct) of the run and of
	// every window both sides have, with Holm's correction across them: worse when any is
	// significantly worse, better when one is significantly better and none worse, inconclusive
	// with a single recording on a side, else unchanged.
	Verdict  Verdict   `json:"verdict"`
	Metrics  []Metric  `json:"metrics"`
	Windows  []Window  `json:"windows"`
	Messages []Message `json:"slow_messages"`
	// Sections are left out when neither side's recordings carry atrace sections.
	Sections []Section `json:"slow_sections,omitempty"`
	Gates    []Gate    `json:"gates"`
	// GatesFailed is true when any gate failed (the command then exits 1).
	GatesFailed bool     `json:"gates_failed"`
	Warnings    []string `json:"warnings"`
}
