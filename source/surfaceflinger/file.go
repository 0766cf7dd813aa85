package surfaceflinger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"

	"strconv"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// Saved SurfaceFlinger text (`--input`): what people paste into bug reports and what other
// tools save — one or more `--latency` dumps (period line first), a `--timestats -dump`, a
// `--list`. Only the first two hold frames; for the rest the source says, in one line, why it
// has nothing to measure.

// maxFileBytes bounds what FromReader reads: far more than any saved dump.
const maxFileBytes = 256 << 20

// Shape is what kind of SurfaceFlinger text a file holds.
type Shape int

// File shapes.
const (
	ShapeNone      Shape = iota // not SurfaceFlinger text
	ShapeLatency                // `--latency` dumps: a period line, then records
	ShapeTimestats              // `--timestats -dump`
	ShapeList                   // `--list`: layer names only
	ShapeFullDump               // a plain `dumpsys SurfaceFlinger` (buffering stats, HWC layers)
)

// Detect classifies the first bytes of a file (DetectShape on its head).
func Detect(head []byte) Shape {
	text := string(head)
	switch {
	case strings.Contains(text, "SurfaceFlinger TimeStats") || strings.Contains(text, "\nlayerName = "):
		return ShapeTimestats
	case latencyHead(head):
		return ShapeLatency
	case strings.Contains(text, "RequestedLayerState{") || listHead(text):
		return ShapeList
	case strings.Contains(text, "Buffering stats:") || strings.Contains(text, "HWC layers") ||
		strings.Contains(text, "Visible layers (count = "):
		return ShapeFullDump
	}
	return ShapeNone
}

// latencyHead: the first line that is not SurfaceFlinger's "unresponsive" chatter is a lone
// period in ns (1–100 ms), and the next one, if any, is a record or another period.
func latencyHead(head []byte) bool {
	var lines [][]byte
	for _, line := range bytes.Split(head, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || bytes.Contains(line, []byte("SurfaceFlinger appears to be unresponsive")) {
			continue
		}
		if lines = append(lines, line); len(lines) == 2 {
			break
		}
	}
	if len(lines) == 0 {
		return false
	}
	var v [3]int64
	if n, ok := fields3(lines[0], &v); !ok || n != 1 || v[0] < 1_000_000 || v[0] > 100_000_000 {
		return false
	}
	if len(lines) == 1 {
		return true
	}
	n, ok := fields3(lines[1], &v)
	return ok && (n == 3 || n == 1)
}

// listHead: every line of the head is a layer name ending in `#<seq>` (an old `--list`).
func listHead(text string) bool {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, '#')
		if i < 0 || i == len(line)-1 {
			return false
		}
		if _, err := strconv.Atoi(line[i+1:]); err != nil {
			return false
		}
		n++
	}
	return n > 0
}

// FromReader is a source reading saved SurfaceFlinger text from r (name for messages; pkg,
// when set, picks the app's layer in a timestats dump).
func FromReader(r io.Reader, name, pkg string) source.Source {
	return &fileSource{r: r, name: name, pkg: pkg}
}

type fileSource struct {
	r         io.Reader
	name, pkg string
}

// Run implements source.Source.
func (s *fileSource) Run(ctx context.Context, out chan<- []source.Event) error {
	data, err := io.ReadAll(io.LimitReader(s.r, maxFileBytes+1))
	if err != nil {
		return fmt.Errorf("surfaceflinger: reading %s: %w", s.name, err)
	}
	if len(data) > maxFileBytes {
		return fmt.Errorf("surfaceflinger: %s is larger than %s: not a saved dump", s.name, source.ByteSize(maxFileBytes))
	}
	evs, err := FileEvents(data, s.name, s.pkg)
	if err != nil {
		return err
	}
	for len(evs) > 0 {
		n := min(len(evs), 4096)
		if err := source.Send(ctx, out, evs[:n]); err != nil {
			return err
		}
		evs = evs[n:]
	}
	return nil
}

// FileEvents turns saved SurfaceFlinger text into events, or says in one line why it holds no
// frames.
func FileEvents(data []byte, name, pkg string) ([]source.Event, error) {
	head := data[:min(len(data), 64<<10)]
	switch Detect(head) {
	case ShapeLatency:
		return latencyFile(data, name)
	case ShapeTimestats:
		return timestatsFile(data, name, pkg)
	case ShapeList:
		return nil, listFileErr(data, name, pkg)
	case ShapeFullDump:
		return nil, fmt.Errorf("surfaceflinger: %s is a plain `dumpsys SurfaceFlinger` (layer and buffer state): it holds no presents; save `dumpsys SurfaceFlinger --latency '<layer>'` (or `--timestats -dump`) instead", name)
	}
	return nil, fmt.Errorf("surfaceflinger: %s is not `dumpsys SurfaceFlinger --latency`, `--timestats -dump` or `--list` text", name)
}

// splitLatency reads one or more `--latency` dumps: each lone number opens a dump (its
// period); text before the first is preamble.
func splitLatency(data []byte) (dumps []*Latency, preamble []string) {
	var cur *Latency
	for line := range bytes.Lines(data) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		var v [3]int64
		n, ok := fields3(line, &v)
		switch {
		case ok && n == 1 && v[0] > 0:
			cur = &Latency{PeriodNs: v[0]}
			dumps = append(dumps, cur)
		case cur == nil:
			preamble = append(preamble, string(line))
		case ok && n == 3:
			cur.addRecord(v)
		default:
			cur.Bad++
		}
	}
	return dumps, preamble
}

// latencyFile is the events of saved `--latency` dumps: frames deduplicated by present time
// across dumps, and frames provably overwritten between two dumps as gaps.
func latencyFile(data []byte, name string) ([]source.Event, error) {
	dumps, preamble := splitLatency(data)
	var zero, pending, bad, records int
	for _, d := range dumps {
		zero, pending, bad, records = zero+d.Zero, pending+d.Pending, bad+d.Bad, records+len(d.Records)
	}
	if records == 0 {
		return nil, noFramesErr(name, dumps, zero, pending, bad)
	}
	layer := "--latency " + filepath.Base(name)
	period := dumps[0].PeriodNs
	evs := []source.Event{&source.Session{Source: source.KindSurfaceFlinger, Package: "", CostBasis: source.CostFrame,
		RefreshHz: hzOf(period), Input: name, Layer: layer, LayerKind: "layer"}}
	for _, p := range preamble {
		evs = append(evs, source.Notef(0, source.LevelInfo, "surfaceflinger: %s printed %q before the period", name, p))
	}
	var last, lastAt int64
	for _, d := range dumps {
		fresh := freshRecords(d.Records, last)
		if d.PeriodNs != period {
			period = d.PeriodNs
			evs = append(evs, &source.Refresh{AtNs: lastAt, Hz: hzOf(period)})
		}
		if len(fresh) == 0 {
			continue
		}
		var lost int64
		if last > 0 && d.Zero == 0 && len(fresh) == len(d.Records) && len(fresh) == RingRecords {
			lost = missed(last, fresh)
		}
		if lost > 0 {
			evs = append(evs, &source.Gap{FromNs: last, ToNs: fresh[0].Actual, Layer: layer, Lost: lost,
				Reason: "surfaceflinger --latency history overran between two saved dumps"})
		}
		for _, rec := range fresh {
			evs = append(evs, &source.LayerFrame{Layer: layer, DesiredNs: rec.Desired, PresentNs: rec.Actual,
				ReadyNs: rec.Ready, PeriodNs: d.PeriodNs})
		}
		last, lastAt = fresh[len(fresh)-1].Actual, fresh[len(fresh)-1].Actual
		evs = append(evs, &source.LayerPoll{AtNs: lastAt, Layer: layer, Records: len(d.Records), NewRecords: len(fresh), Lost: lost})
	}
	if bad > 0 {
		evs = append(evs, source.Notef(lastAt, source.LevelWarn, "surfaceflinger: %d lines of %s not understood", bad, name))
	}
	if pending > 0 {
		evs = append(evs, source.Notef(lastAt, source.LevelInfo, "surfaceflinger: %d records of %s not yet presented (INT64_MAX) skipped", pending, name))
	}
	return append(evs, &source.Notice{AtNs: lastAt, Level: source.LevelInfo, State: source.StateEnded, Text: "end of " + name}), nil
}

// noFramesErr says why --latency text holds no frames.
func noFramesErr(name string, dumps []*Latency, zero, pending, bad int) error {
	switch {
	case len(dumps) == 0:
		return fmt.Errorf("surfaceflinger: %s holds no --latency dump", name)
	case zero > 0 && pending == 0:
		return fmt.Errorf("surfaceflinger: %s holds no frames: its %d records are unwritten slots (0 0 0: the layer never presented, its ring was cleared, or — as on some Android 8 devices — this layer's frames are not tracked)", name, zero)
	case pending > 0:
		return fmt.Errorf("surfaceflinger: %s holds no frames: its %d records are not yet presented (INT64_MAX)", name, pending)
	case bad > 0:
		return fmt.Errorf("surfaceflinger: %s holds no frames: %d lines after the period are not --latency records", name, bad)
	}
	return fmt.Errorf("surfaceflinger: %s prints the display period (%.2f ms) and no frames: Android 16's FrameTimeline-backed --latency for a layer it has none for; save `dumpsys SurfaceFlinger --timestats -dump` instead", name, float64(dumps[0].PeriodNs)/1e6)
}

// hzOf is the refresh rate of a period, to 0.01 Hz (0 for an implausible period).
func hzOf(periodNs int64) float64 {
	if periodNs < 1_000_000 || periodNs > 100_000_000 {
		return 0
	}
	return math.Round(1e11/float64(periodNs)) / 100
}

// listFileErr says what a `--list` holds: names, no frames.
func listFileErr(data []byte, name, pkg string) error {
	var n, svs int
	for _, line := range strings.Split(string(data), "\n") {
		l := StripListLine(line)
		if strings.TrimSpace(l) == "" {
			continue
		}
		n++
		if strings.Contains(stripHexPrefix(l), "SurfaceView") {
			svs++
		}
	}
	app := ""
	if pkg != "" {
		app = fmt.Sprintf(", %d of them %s's", len(ListLayers(data, pkg)), pkg)
	}
	return fmt.Errorf("surfaceflinger: %s is a `dumpsys SurfaceFlinger --list` (%d layers%s, %d SurfaceViews): names only, no frames; measure one live with --source surfaceflinger -p PKG [--layer NAME]", name, n, app, svs)
}

// timestatsFile is the events of a saved `--timestats -dump`: each layer's frames over the
// stats period (statsStart → statsEnd) as one per-interval sample, the measured layer the one
// with the most frames (of pkg's layers when pkg is set).
func timestatsFile(data []byte, name, pkg string) ([]source.Event, error) {
	ts := ParseTimestats(data)
	var layers []TimestatsLayer
	for _, l := range ts.Layers {
		if l.TotalFrames > 0 && (pkg == "" || l.Package == pkg || strings.Contains(l.Name, pkg+"/")) {
			layers = append(layers, l)
		}
	}
	if len(layers) == 0 {
		what := "no layer with frames"
		if pkg != "" {
			what = "no layer of " + pkg + " with frames"
		}
		return nil, fmt.Errorf("surfaceflinger: %s is a --timestats dump with %s (%d layers listed; timestats may have been off)", name, what, len(ts.Layers))
	}
	sort.SliceStable(layers, func(i, j int) bool { return layers[i].TotalFrames > layers[j].TotalFrames })
	from, _ := strconv.ParseInt(strings.TrimSpace(ts.StatsStart), 10, 64)
	to, _ := strconv.ParseInt(strings.TrimSpace(ts.StatsEnd), 10, 64)
	hz := layers[0].RefreshHz
	var period int64
	if hz > 0 {
		period = int64(math.Round(1e9 / hz))
	}
	evs := []source.Event{&source.Session{Source: source.KindSurfaceFlinger, Package: pkg, CostBasis: source.CostFrame,
		RefreshHz: hz, Input: name, Layer: layers[0].Name, LayerKind: kindOf(layers[0].Name)}}
	var end int64
	for _, l := range layers {
		fromNs, toNs := from*1e9, to*1e9
		if to <= from || from <= 0 {
			// no usable stats period: the histogram's own span
			fromNs, toNs = 1e9, 1e9+histSpanNs(l.Present2Present, l.TotalFrames)
		}
		p := period
		if l.RefreshHz > 0 {
			p = int64(math.Round(1e9 / l.RefreshHz))
		}
		evs = append(evs, &source.LayerSample{Layer: l.Name, FromNs: fromNs, ToNs: toNs, Frames: l.TotalFrames,
			Dropped: l.DroppedFrames, Present2Present: l.Present2Present, PeriodNs: p})
		end = max(end, toNs)
	}
	evs = append(evs, source.Notef(end, source.LevelWarn, "surfaceflinger: %s is a --timestats dump: frames counted over %s and placed from a present-to-present histogram, not seen one by one", name, spanText(from, to)))
	return append(evs, &source.Notice{AtNs: end, Level: source.LevelInfo, State: source.StateEnded, Text: "end of " + name}), nil
}

// histSpanNs is the time a histogram's intervals add up to (bucket centres), at least 1 ms a frame.
func histSpanNs(b []source.Bucket, frames int64) int64 {
	var ns int64
	for _, x := range b {
		ns += x.Count * (int64(x.Ms)*1e6 + 500_000)
	}
	return max(ns, frames*1e6)
}

func spanText(from, to int64) string {
	if to > from && from > 0 {
		return fmt.Sprintf("%d s of stats", to-from)
	}
	return "their histogram's span (no stats period printed)"
}

// kindOf names a layer's kind from its name alone.
func kindOf(name string) string {
	rest := stripHexPrefix(name)
	switch {
	case strings.HasPrefix(rest, "SurfaceView") && strings.Contains(rest, "(BLAST)"):
		return KindSurfaceViewBLAST.String()
	case strings.HasPrefix(rest, "SurfaceView"):
		return KindSurfaceView.String()
	}
	return KindWindow.String()
}
