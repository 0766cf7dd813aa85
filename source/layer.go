package source

// KindSurfaceFlinger names the SurfaceFlinger source (`--source surfaceflinger`): frames as the
// display presented them, per SurfaceFlinger layer, from `dumpsys SurfaceFlinger --latency`
// (or, where Android 16 no longer fills that ring, per-interval `--timestats` counts).
const KindSurfaceFlinger Kind = "surfaceflinger"

// Line types of the layer events.
const (
	LineLayerFrame  = "layer_frame"
	LineLayerSample = "layer_sample"
	LineLayerPoll   = "layer_poll"
	LineLayerList   = "layer_list"
)

// LayerFrame is one frame a SurfaceFlinger layer presented: one `--latency` record. Unlike a
// Frame it knows nothing of the app's rendering stages, only when the display showed it, which
// is what a game, a video or a Flutter SurfaceView can be measured by.
type LayerFrame struct {
	// Layer is the SurfaceFlinger layer name as `--list` printed it (wrapper stripped).
	Layer string `json:"layer"`
	// DesiredNs is when the app wanted the frame shown (0 when not signalled).
	DesiredNs int64 `json:"desired_ns,omitempty"`
	// PresentNs is when the frame reached the display (the present fence): the time metrics
	// differences.
	PresentNs int64 `json:"present_ns"`
	// ReadyNs is when the frame's buffer was ready (0 when not signalled).
	ReadyNs int64 `json:"ready_ns,omitempty"`
	// PeriodNs is the display refresh period the dump printed (0 unknown).
	PeriodNs int64 `json:"period_ns,omitempty"`
	// Dropped is known only to the simulator (its ground truth): the frames at the app's own
	// pace it came late by (DESIGN §4a). Sources reading a device leave it 0.
	Dropped int64 `json:"dropped,omitempty"`
}

// At implements Event.
func (f *LayerFrame) At() int64 { return f.PresentNs }

// LayerSample is what a layer presented between two `--timestats -dump` readings (Android 16,
// where `--latency` prints only the period): counts and a histogram of present-to-present
// intervals for the interval, not single frames.
type LayerSample struct {
	Layer  string `json:"layer"`
	FromNs int64  `json:"from_ns"`
	ToNs   int64  `json:"to_ns"`
	// Frames is the growth of the layer's totalFrames; Dropped of its droppedFrames.
	Frames  int64 `json:"frames"`
	Dropped int64 `json:"dropped"`
	// Present2Present is the growth of the layer's present2present histogram: interval
	// bucket in ms → frames.
	Present2Present []Bucket `json:"present2present,omitempty"`
	// PeriodNs is the display refresh period (0 unknown).
	PeriodNs int64 `json:"period_ns,omitempty"`
}

// At implements Event.
func (s *LayerSample) At() int64 { return s.ToNs }

// LayerPoll is what one `--latency` poll saw of a layer: how many records the ring held, how
// many were new, and how many frames were provably missed since the previous poll (the ring's
// oldest record is newer than the newest one seen before while the ring was full: the poll came
// too late). metrics adds Lost to frames_lost.
type LayerPoll struct {
	AtNs       int64  `json:"at_ns"`
	Layer      string `json:"layer"`
	Records    int    `json:"records"`
	NewRecords int    `json:"new_records"`
	Lost       int64  `json:"lost"`
}

// At implements Event.
func (p *LayerPoll) At() int64 { return p.AtNs }

// LayerList is the app's frame-carrying layers as `--list` showed them, each with its newest
// present times (the last second of its `--latency` ring), for the layer picker.
type LayerList struct {
	AtNs   int64         `json:"at_ns"`
	Layers []ListedLayer `json:"layers"`
}

// ListedLayer is one layer of a LayerList.
type ListedLayer struct {
	Name string `json:"name"`
	// Kind is "SurfaceView (BLAST)", "SurfaceView" or "window".
	Kind string `json:"kind"`
	// PresentsNs are its present times within the second before its newest, oldest first.
	PresentsNs []int64 `json:"presents_ns,omitempty"`
}

// At implements Event.
func (l *LayerList) At() int64 { return l.AtNs }
