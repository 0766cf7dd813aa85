// Package surfaceflinger is fpstop's SurfaceFlinger source: frames as the display presented
// them, per layer, read with `dumpsys SurfaceFlinger --latency '<layer>'` — what games, Flutter,
// Unity, video and camera views draw into SurfaceViews that gfxinfo cannot see. It finds the
// app's layer in `--list` for every Android naming style, follows it when it is recreated and,
// on Android 16 where `--latency` may print only the period, falls back to per-interval
// `--timestats` counts.
//
// Like every source it turns device text into events (source.LayerFrame, source.LayerSample)
// and computes no metric.
package surfaceflinger

import (
	"bufio"
	"bytes"
	"math"
	"strings"
)

// pendingNs is INT64_MAX: a fence not yet signalled (or the ring's in-progress slot).
const pendingNs = math.MaxInt64

// Record is one `--latency` row: desired present, actual present and frame ready, in ns.
// Desired and Ready are 0 when the device printed INT64_MAX for them.
type Record struct {
	Desired, Actual, Ready int64
}

// Latency is one parsed `--latency` dump.
type Latency struct {
	// PeriodNs is the display refresh period printed on the first numeric line (0: none).
	PeriodNs int64
	// Records are the signalled rows, oldest first as printed.
	Records []Record
	// Zero counts `0 0 0` rows (slots never written); Pending rows whose actual present is
	// INT64_MAX (not yet on screen); Bad lines that are neither.
	Zero, Pending, Bad int
	// Preamble is the text printed before the period (e.g. SurfaceFlinger's "appears to be
	// unresponsive, dumping anyways").
	Preamble []string
}

// PeriodOnly reports whether the dump printed a period and nothing else: Android 16's
// FrameTimeline-backed `--latency` for a layer it has no frames for.
func (l *Latency) PeriodOnly() bool {
	return l.PeriodNs > 0 && len(l.Records) == 0 && l.Zero == 0 && l.Pending == 0
}

// ParseLatency reads `dumpsys SurfaceFlinger --latency` output. Lines before the first lone
// number (the period) are kept as Preamble; rows are split on any blank (devices print tabs,
// pages spaces). It reads bytes directly: it runs on every poll.
func ParseLatency(data []byte) *Latency {
	l := &Latency{Records: make([]Record, 0, RingRecords)}
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var v [3]int64
		n, ok := fields3(line, &v)
		if l.PeriodNs == 0 {
			if ok && n == 1 && v[0] > 0 {
				l.PeriodNs = v[0]
			} else {
				l.Preamble = append(l.Preamble, string(line))
			}
			continue
		}
		if !ok || n != 3 {
			l.Bad++
			continue
		}
		l.addRecord(v)
	}
	return l
}

// fields3 parses up to three blank-separated non-negative decimal numbers into v and returns
// how many there were; ok is false for anything else (more fields, a sign, a letter, overflow).
func fields3(line []byte, v *[3]int64) (n int, ok bool) {
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		if i == len(line) {
			break
		}
		if n == 3 {
			return n, false
		}
		var x int64
		start := i
		for ; i < len(line) && line[i] >= '0' && line[i] <= '9'; i++ {
			d := int64(line[i] - '0')
			if x > (math.MaxInt64-d)/10 {
				return n, false
			}
			x = x*10 + d
		}
		if i == start || i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' {
			return n, false
		}
		v[n] = x
		n++
	}
	return n, n > 0
}

func (l *Latency) addRecord(v [3]int64) {
	switch {
	case v[0] == 0 && v[1] == 0 && v[2] == 0:
		l.Zero++
	case v[1] == pendingNs:
		l.Pending++
	case v[1] == 0:
		l.Bad++
	default:
		r := Record{Desired: v[0], Actual: v[1], Ready: v[2]}
		if r.Desired == pendingNs {
			r.Desired = 0
		}
		if r.Ready == pendingNs {
			r.Ready = 0
		}
		l.Records = append(l.Records, r)
	}
}

// Kind ranks a layer as a frame source for an app: a SurfaceView's BLAST layer holds the
// buffers on Android 12+; a plain SurfaceView layer on 11 and older; an app window's layer
// carries the View system's frames.
type Kind int

// Layer kinds, best first.
const (
	KindSurfaceViewBLAST Kind = iota
	KindSurfaceView
	KindWindow
)

// String names the kind as the header shows it.
func (k Kind) String() string {
	switch k {
	case KindSurfaceViewBLAST:
		return "SurfaceView (BLAST)"
	case KindSurfaceView:
		return "SurfaceView"
	}
	return "window"
}

// Layer is one layer of `--list` that belongs to an app.
type Layer struct {
	// Name is the name to pass to `--latency` (RequestedLayerState wrapper stripped).
	Name string
	Kind Kind
	// Component is the `pkg/Activity` the name mentions.
	Component string
}

// StripListLine returns the layer name of one `--list` line: Android 15+ prints
// `RequestedLayerState{<name> parentId=N z=N}`; older releases print the name alone.
func StripListLine(line string) string {
	line = strings.TrimRight(line, "\r\n")
	inner, ok := strings.CutPrefix(strings.TrimSpace(line), "RequestedLayerState{")
	if !ok {
		return line
	}
	inner = strings.TrimSuffix(inner, "}")
	// drop the trailing " key=value" fields the wrapper adds (parentId, z, ...)
	for {
		i := strings.LastIndexByte(inner, ' ')
		if i < 0 {
			break
		}
		k, _, ok := strings.Cut(inner[i+1:], "=")
		if !ok || !isWord(k) {
			break
		}
		inner = inner[:i]
	}
	return inner
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// skipped are parts of names of layers that never carry an app's frames.
var skipped = []string{"Background for", "Bounds for", "ActivityRecord", "InputSink", "Splash Screen", "animation-leash", "Task="}

// ClassifyLayer tells whether name is a frame-carrying layer of pkg, and of which kind.
func ClassifyLayer(name, pkg string) (Layer, bool) {
	for _, s := range skipped {
		if strings.Contains(name, s) {
			return Layer{}, false
		}
	}
	rest := stripHexPrefix(name)
	i := strings.Index(rest, pkg+"/")
	if i < 0 {
		return Layer{}, false
	}
	comp := rest[i:]
	if j := strings.IndexAny(comp, "]#$ @("); j >= 0 {
		comp = comp[:j]
	}
	l := Layer{Name: name, Component: comp}
	switch {
	case strings.HasPrefix(rest, "SurfaceView[") && strings.Contains(rest, "(BLAST)"):
		l.Kind = KindSurfaceViewBLAST
	case strings.HasPrefix(rest, "SurfaceView"):
		l.Kind = KindSurfaceView
	case i == 0:
		l.Kind = KindWindow
	default:
		return Layer{}, false
	}
	return l, true
}

// stripHexPrefix drops Android 14+'s identity-hash prefix ("632a464 SurfaceView[…]").
func stripHexPrefix(name string) string {
	sp := strings.IndexByte(name, ' ')
	if sp < 4 || sp > 16 {
		return name
	}
	for i := 0; i < sp; i++ {
		c := name[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return name
		}
	}
	return name[sp+1:]
}

// ListLayers returns pkg's frame-carrying layers in a `--list` dump, best kind first, in
// printed order within a kind.
func ListLayers(data []byte, pkg string) []Layer {
	var out []Layer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		name := StripListLine(sc.Text())
		if strings.TrimSpace(name) == "" {
			continue
		}
		if l, ok := ClassifyLayer(name, pkg); ok {
			out = append(out, l)
		}
	}
	// stable by kind
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Kind < out[j-1].Kind; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
