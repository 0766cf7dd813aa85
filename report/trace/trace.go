// Package trace writes a recording as a trace for Perfetto UI (fpstop export): Chrome
// trace-event JSON or Perfetto's protobuf format, every frame classified as the report counts
// it, and the phone's own Perfetto traces kept by --record-raw.
package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/source"
)

// Trace layout: one process (the app) with a "main thread" track for Looper messages and
// Skipped/Slow lines, one track per other Looper thread, and one track per window for frames.
// Overlapping slices of one track (a frame still in the GPU when the next vsync starts the next
// one) go to extra lanes of that track, "<window> (2)", so every track nests properly.
const (
	tracePid      = 1
	traceMainTid  = 1
	traceFirstTid = 10
)

// ProcessName names a trace's process after the recording's identity: the app, the device
// (model and serial) and the source, so traces of one app from several phones, opened side by
// side in Perfetto UI, are told apart.
func ProcessName(h record.Header) string {
	parts := []string{h.Package}
	if h.Package == "" {
		parts[0] = "app"
	}
	if d := strings.TrimSpace(h.Device.Model + " " + h.Device.Serial); d != "" {
		parts = append(parts, d)
	}
	if h.Source != "" {
		parts = append(parts, string(h.Source))
	}
	return strings.Join(parts, " · ")
}

// Export writes the part of the recording opts selects as Chrome trace-event JSON
// ({"traceEvents":[…], "displayTimeUnit":"ms"}), which Perfetto UI and chrome://tracing open,
// or with opts.Perfetto as Perfetto's protobuf trace, with opts.Config's drop levels and
// slices. Timestamps are the device's CLOCK_MONOTONIC in µs (so the trace lines up with a
// Perfetto trace of the same device); every slice has a non-negative duration. Contents:
//   - metadata (M): the process (the app) and its tracks;
//   - each frame as a complete slice (X) on its window's track, named by drop level and cost
//     ("frame 8.1 ms", "janky 1 dropped · 12.5 ms", "frozen 45 dropped · 760 ms") with the
//     numbers in args;
//   - each Looper message as X on its thread's track, named "Handler: Callback #what";
//   - Skipped-frames and Slow Looper lines as thread instants (i) on the main thread, gaps and
//     warnings as process instants;
//   - the pipeline's FPS per slice as a counter (C) "FPS", with an "idle" counter that is 1
//     while nothing was drawn (FPS is then shown as 0 but means idle).
//
// Frames are classified by a pipeline that has seen the recording from a minute before the
// part (the whole recording when the part starts at its beginning, so the numbers then equal
// the report's); reading stops half a minute after the part's end.
func Export(w io.Writer, path string, opts Options) error {
	h, err := readHeader(path)
	if err != nil {
		return err
	}
	tw := &traceWriter{bw: bufio.NewWriterSize(w, 256<<10), tracks: map[string]*track{}}
	if opts.Perfetto {
		tw.proto = newProtoSink(tw.bw, ProcessName(h))
	}
	// One pipeline gives both the frames, classified exactly as the report counts them
	// (Looper-derived frames included), and the FPS series for the counters.
	cfg := opts.Config
	p := metrics.NewPipeline(report.Offline(cfg))
	var win window
	p.OnFrame(func(c metrics.ClassifiedFrame) {
		if win.has(c.Frame.VsyncNs) {
			tw.frame(c)
		}
	})
	sc := report.NewSeriesCollector(p, cfg)
	if tw.proto == nil {
		tw.bw.WriteString(`{"displayTimeUnit":"ms","traceEvents":[`)
	}
	r, err := record.ReadBatchesWhile(path, func(evs []source.Event) bool {
		if !win.resolved {
			win = opts.resolve(h, evs)
		}
		if win.before(evs) {
			return true // long before the window: not even classified
		}
		sc.Feed(evs)
		for _, ev := range evs {
			if win.has(ev.At()) {
				tw.event(ev)
			}
		}
		return !win.after(evs)
	})
	if err != nil {
		return err
	}
	p.Report(metrics.ReportMeta{}) // releases frames held back at the end (Looper-derived)
	series := sc.Finish()
	kept := series[:0]
	for _, pt := range series {
		if win.has(pt.StartNs) {
			kept = append(kept, pt)
		}
	}
	tw.meta("process_name", 0, "name", ProcessName(r.Header))
	tw.meta("process_sort_index", 0, "sort_index", 0)
	tw.counters(kept)
	if tw.proto != nil {
		return tw.bw.Flush()
	}
	tw.bw.WriteString("\n],\"otherData\":")
	od := map[string]any{"recording": path, "source": r.Header.Source,
		"package": r.Header.Package, "fpstop_version": r.Header.FpstopVersion, "device": r.Header.Device}
	if h := r.Header; h.Scenario != "" {
		od["scenario"], od["seed"] = h.Scenario, h.Seed
		if h.WorkScale != 0 {
			od["work_scale"] = h.WorkScale
		}
	}
	other, _ := json.Marshal(od)
	tw.bw.Write(other)
	tw.bw.WriteString("}\n")
	return tw.bw.Flush()
}

type traceWriter struct {
	bw     *bufio.Writer
	proto  *protoSink // Perfetto's protobuf format instead of JSON (Options.Perfetto)
	n      int
	buf    []byte
	tracks map[string]*track
	next   int        // next tid
	args   []traceArg // scratch for a frame's args
}

// track is one named track with its lanes (tids) and where each lane's last slice ends.
type track struct {
	name  string
	tids  []int
	ends  []int64
	order int
	index int // creation order
}

// lane returns a tid of the track on which a slice [start, end] nests: the first lane whose
// last slice ended by start, or a new lane.
func (tw *traceWriter) lane(key, name string, start, end int64, order int) int {
	t := tw.track(key, name, order)
	for i, e := range t.ends {
		if e <= start {
			t.ends[i] = end
			return t.tids[i]
		}
	}
	return tw.newLane(t, key, end)
}

// firstLane returns the track's first tid (for instants), creating the track if needed.
func (tw *traceWriter) firstLane(key, name string, order int) int {
	t := tw.track(key, name, order)
	if len(t.tids) == 0 {
		return tw.newLane(t, key, 0)
	}
	return t.tids[0]
}

func (tw *traceWriter) track(key, name string, order int) *track {
	t := tw.tracks[key]
	if t == nil {
		t = &track{name: name, order: order, index: len(tw.tracks)}
		tw.tracks[key] = t
	}
	return t
}

func (tw *traceWriter) newLane(t *track, key string, end int64) int {
	var tid int
	if key == "main" && len(t.tids) == 0 {
		tid = traceMainTid
	} else {
		if tw.next < traceFirstTid {
			tw.next = traceFirstTid
		}
		tid = tw.next
		tw.next++
	}
	t.tids = append(t.tids, tid)
	t.ends = append(t.ends, end)
	label := t.name
	if len(t.tids) > 1 {
		label = fmt.Sprintf("%s (%d)", t.name, len(t.tids))
	}
	tw.meta("thread_name", tid, "name", label)
	tw.meta("thread_sort_index", tid, "sort_index", t.order*100000+t.index*100+len(t.tids))
	return tid
}

func (tw *traceWriter) begin() {
	if tw.n > 0 {
		tw.buf = append(tw.buf, ",\n"...)
	} else {
		tw.buf = append(tw.buf, '\n')
	}
	tw.n++
}

func (tw *traceWriter) end() {
	tw.bw.Write(tw.buf)
	tw.buf = tw.buf[:0]
}

func appendStr(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// appendUs writes ns as µs with three decimals.
func appendUs(b []byte, ns int64) []byte {
	if ns < 0 {
		ns = 0
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	f := ns % 1000
	b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
	return b
}

// meta writes a metadata event with its one argument: a process's or a thread's name or sort
// index. The protobuf trace takes only thread names (its process is described when it starts,
// and Perfetto orders tracks itself).
func (tw *traceWriter) meta(name string, tid int, key string, v any) {
	if tw.proto != nil {
		if name == "thread_name" {
			tw.proto.thread(tid, v.(string))
		}
		return
	}
	tw.begin()
	tw.buf = append(tw.buf, `{"ph":"M","pid":1,"tid":`...)
	tw.buf = strconv.AppendInt(tw.buf, int64(tid), 10)
	tw.buf = append(tw.buf, `,"name":`...)
	tw.buf = appendStr(tw.buf, name)
	tw.endArgs([]traceArg{{key, v}})
}

// slice writes a complete event with its args (may be empty); a negative duration is written
// as 0 (appendUs and the protobuf sink both clamp it).
func (tw *traceWriter) slice(tid int, cat, name string, start, dur int64, args []traceArg) {
	if tw.proto != nil {
		tw.proto.slice(tid, cat, name, start, dur, args)
		return
	}
	tw.begin()
	tw.buf = append(tw.buf, `{"ph":"X","pid":1,"tid":`...)
	tw.buf = strconv.AppendInt(tw.buf, int64(tid), 10)
	tw.catNameTs(cat, name, start)
	tw.buf = append(tw.buf, `,"dur":`...)
	tw.buf = appendUs(tw.buf, dur)
	tw.endArgs(args)
}

// instant writes an instant event with scope "t" (thread) or "p" (process).
func (tw *traceWriter) instant(tid int, scope, cat, name string, at int64, args []traceArg) {
	if tw.proto != nil {
		tw.proto.instant(tid, scope, cat, name, at, args)
		return
	}
	tw.begin()
	tw.buf = append(tw.buf, `{"ph":"i","s":"`...)
	tw.buf = append(tw.buf, scope...)
	tw.buf = append(tw.buf, `","pid":1,"tid":`...)
	tw.buf = strconv.AppendInt(tw.buf, int64(tid), 10)
	tw.catNameTs(cat, name, at)
	tw.endArgs(args)
}

// catNameTs appends the category, name and timestamp fields a slice and an instant share.
func (tw *traceWriter) catNameTs(cat, name string, ts int64) {
	tw.buf = append(tw.buf, `,"cat":`...)
	tw.buf = appendStr(tw.buf, cat)
	tw.buf = append(tw.buf, `,"name":`...)
	tw.buf = appendStr(tw.buf, name)
	tw.buf = append(tw.buf, `,"ts":`...)
	tw.buf = appendUs(tw.buf, ts)
}

// endArgs closes a slice or an instant with its args and writes it.
func (tw *traceWriter) endArgs(args []traceArg) {
	tw.buf = append(tw.buf, `,"args":{`...)
	for i, a := range args {
		if i > 0 {
			tw.buf = append(tw.buf, ',')
		}
		tw.buf = append(tw.buf, jsonArg(a.key, a.v)...)
	}
	tw.buf = append(tw.buf, "}}"...)
	tw.end()
}

func (tw *traceWriter) counter(name string, at int64, key string, v float64) {
	if tw.proto != nil {
		tw.proto.counter(name, at, v)
		return
	}
	tw.begin()
	tw.buf = append(tw.buf, `{"ph":"C","pid":1,"tid":0,"name":`...)
	tw.buf = appendStr(tw.buf, name)
	tw.buf = append(tw.buf, `,"ts":`...)
	tw.buf = appendUs(tw.buf, at)
	tw.endArgs([]traceArg{{key, math.Round(v*100) / 100}}) // finite: counters writes idle as 0
}

// traceArg is one argument of a slice or an instant. The values stay typed so that the protobuf
// export encodes them directly (re-parsing each event's JSON args was a quarter of its CPU).
type traceArg struct {
	key string
	v   any
}

func jsonArg(key string, v any) string {
	b, _ := json.Marshal(v)
	return strconv.Quote(key) + ":" + string(b)
}

// frame writes one classified frame as a slice on its window's track.
func (tw *traceWriter) frame(c metrics.ClassifiedFrame) {
	e := &c.Frame
	win := source.Visible(e.Window)
	tid := tw.lane("w:"+win, win, e.VsyncNs, e.VsyncNs+c.CostNs, 1)
	args := append(tw.args[:0], traceArg{"cost_ms", roundMs(c.CostNs)}, traceArg{"dropped", c.Dropped},
		traceArg{"level", c.Level.String()}, traceArg{"interval_ms", roundMs(c.IntervalNs)})
	if e.VsyncID != 0 {
		args = append(args, traceArg{"vsync_id", e.VsyncID})
	}
	if e.Flags != 0 {
		args = append(args, traceArg{"flags", e.Flags})
	}
	tw.slice(tid, "frame", frameName(c), e.VsyncNs, c.CostNs, args)
	tw.args = args
}

func (tw *traceWriter) event(ev source.Event) {
	switch e := ev.(type) {
	case *source.Message:
		dur := max(e.EndNs-e.StartNs, 0)
		key, name, order := "main", "main thread", 0
		if e.Thread != "" && e.Thread != "main" {
			key, name, order = "t:"+source.Visible(e.Thread), source.Visible(e.Thread), 2
		}
		tid := tw.lane(key, name, e.StartNs, e.StartNs+dur, order)
		args := []traceArg{{"what", e.What}}
		if e.EndNs == 0 {
			args = append(args, traceArg{"duration", "unknown"})
		}
		tw.slice(tid, "looper", traceMsgName(source.Visible(e.Handler), source.Visible(e.Callback), e.What), e.StartNs, dur, args)
	case *source.Skipped:
		tid := tw.firstLane("main", "main thread", 0)
		tw.instant(tid, "t", "choreographer", fmt.Sprintf("Skipped %d frames!", e.Frames), e.AtNs, []traceArg{{"frames", e.Frames}})
	case *source.SlowLooper:
		tid := tw.firstLane("main", "main thread", 0)
		name := fmt.Sprintf("Slow %s took %dms", e.Kind, e.Ms)
		args := []traceArg{{"kind", e.Kind}, {"ms", e.Ms}}
		if e.Truncated && e.Ms == 0 {
			// cut off before its duration: unknown, not 0 ms
			name = fmt.Sprintf("Slow %s (line cut off: duration unknown)", e.Kind)
			args = []traceArg{{"kind", e.Kind}, {"duration", "unknown"}}
		}
		if e.Handler != "" {
			args = append(args, traceArg{"handler", e.Handler}, traceArg{"callback", e.Callback})
		}
		if e.What != nil {
			args = append(args, traceArg{"what", *e.What})
		}
		tw.instant(tid, "t", "looper", name, e.AtNs, args)
	case *source.Gap:
		tw.instant(0, "p", "gap", "gap: "+e.Reason, e.FromNs,
			[]traceArg{{"to_us", float64(e.ToNs) / 1e3}, {"length_ms", roundMs(e.ToNs - e.FromNs)}})
	case *source.Notice:
		if e.Level != source.LevelInfo || e.State != "" {
			tw.instant(0, "p", "notice", e.Text, e.AtNs, []traceArg{{"level", e.Level}, {"state", e.State}})
		}
	}
}

// roundMs converts ns to ms rounded to two decimals.
func roundMs(ns int64) float64 { return math.Round(float64(ns)/1e4) / 100 }

// frameName names a frame slice by its drop level and cost.
func frameName(c metrics.ClassifiedFrame) string {
	ms := strconv.FormatFloat(roundMs(c.CostNs), 'f', 1, 64)
	switch {
	case c.Dropped == 0:
		return "frame " + ms + " ms"
	case c.Level == metrics.LevelBest:
		return fmt.Sprintf("janky %d dropped · %s ms", c.Dropped, ms)
	}
	return fmt.Sprintf("%s %d dropped · %s ms", c.Level, c.Dropped, ms)
}

// traceMsgName names a Looper message as Android's Handler.getTraceName does in Perfetto:
// "<Handler class>: <Callback class>" or "<Handler class>: #<what>"; fpstop adds "#what" after a
// callback too, so messages of one handler stay apart.
func traceMsgName(handler, callback string, what int) string {
	if callback != "" && callback != "null" {
		return fmt.Sprintf("%s: %s #%d", handler, callback, what)
	}
	return fmt.Sprintf("%s: #%d", handler, what)
}

// counters writes the FPS series.
func (tw *traceWriter) counters(series []metrics.SlicePoint) {
	for _, pt := range series {
		fps, idle := pt.FPS, 0.0
		switch {
		case pt.Frozen: // the app was stuck: no frame, and not idle
			fps = 0
		case pt.Idle || math.IsNaN(pt.FPS) || math.IsInf(pt.FPS, 0):
			fps, idle = 0, 1
		}
		tw.counter("FPS", pt.StartNs, "fps", fps)
		tw.counter("idle", pt.StartNs, "idle", idle)
	}
}
