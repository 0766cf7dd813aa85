package trace

import (
	"bytes"
	"encoding/json"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/source"
)

type traceEvent struct {
	Ph   string         `json:"ph"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

type traceFile struct {
	TraceEvents     []traceEvent   `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// validateTrace checks a trace against the Trace Event Format as Perfetto and chrome://tracing
// read it: known phases with their required fields, µs timestamps, non-negative durations,
// named tracks, and complete events that nest on every track.
func validateTrace(t *testing.T, data []byte) traceFile {
	t.Helper()
	var tf traceFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		t.Fatalf("trace is not valid JSON of the expected shape: %v", err)
	}
	if tf.DisplayTimeUnit != "ms" || len(tf.TraceEvents) == 0 {
		t.Fatalf("displayTimeUnit %q, %d events", tf.DisplayTimeUnit, len(tf.TraceEvents))
	}
	named := map[int]bool{}
	slices := map[int][]traceEvent{}
	for i, e := range tf.TraceEvents {
		if e.Pid == nil || e.Tid == nil || e.Name == "" {
			t.Fatalf("event %d lacks pid/tid/name: %+v", i, e)
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name", "thread_name":
				if s, ok := e.Args["name"].(string); !ok || s == "" {
					t.Fatalf("metadata %d without a name: %+v", i, e)
				}
				if e.Name == "thread_name" {
					if named[*e.Tid] {
						t.Fatalf("tid %d named twice", *e.Tid)
					}
					named[*e.Tid] = true
				}
			case "process_sort_index", "thread_sort_index":
				if _, ok := e.Args["sort_index"].(float64); !ok {
					t.Fatalf("sort index %d: %+v", i, e)
				}
			default:
				t.Fatalf("unknown metadata %q", e.Name)
			}
			if e.Ts != nil {
				t.Fatalf("metadata with ts: %+v", e)
			}
		case "X":
			if e.Ts == nil || e.Dur == nil || *e.Ts < 0 || *e.Dur < 0 || e.Cat == "" {
				t.Fatalf("complete event %d: %+v", i, e)
			}
			slices[*e.Tid] = append(slices[*e.Tid], e)
		case "i":
			if e.Ts == nil || *e.Ts < 0 || (e.S != "t" && e.S != "p" && e.S != "g") || e.Dur != nil {
				t.Fatalf("instant %d: %+v", i, e)
			}
			if e.S == "t" {
				if !named[*e.Tid] {
					t.Fatalf("thread instant %d on unnamed tid %d", i, *e.Tid)
				}
			}
		case "C":
			if e.Ts == nil || len(e.Args) == 0 {
				t.Fatalf("counter %d: %+v", i, e)
			}
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					t.Fatalf("counter %d arg %s = %v is not a number", i, k, v)
				}
			}
		default:
			t.Fatalf("event %d has phase %q", i, e.Ph)
		}
	}
	for tid, ss := range slices {
		if !named[tid] {
			t.Fatalf("tid %d has slices but no thread_name", tid)
		}
		sort.SliceStable(ss, func(a, b int) bool {
			if *ss[a].Ts != *ss[b].Ts {
				return *ss[a].Ts < *ss[b].Ts
			}
			return *ss[a].Dur > *ss[b].Dur
		})
		var stack []float64 // end times
		for _, s := range ss {
			start, end := *s.Ts, *s.Ts+*s.Dur
			// Timestamps are µs with ns decimals; allow for float rounding of ts+dur.
			for len(stack) > 0 && stack[len(stack)-1] <= start+5e-4 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && end > stack[len(stack)-1]+1e-6 {
				t.Fatalf("tid %d: slice %q [%v, %v] overlaps its parent ending %v", tid, s.Name, start, end, stack[len(stack)-1])
			}
			stack = append(stack, end)
		}
	}
	return tf
}

func TestExportTrace(t *testing.T) {
	T := int64(8_333_333)
	what := 7
	evs := []source.Event{
		&source.Session{Source: source.KindGfxinfo, Package: "com.example.app", RefreshHz: 120, CostBasis: source.CostFrame},
		&source.Frame{Window: "w", VsyncNs: 2e9, DoneNs: 2e9 + 8_100_000, IntervalNs: T},
		// Still running when the next frame of the same window starts: that one goes to a
		// second lane. 800 ms at 120 Hz: ceil(800 / 8.333333) − 1 = 96 dropped.
		&source.Frame{Window: "w", VsyncNs: 2e9 + T, DoneNs: 2e9 + T + 58_200_000, IntervalNs: T},
		&source.Frame{Window: "w", VsyncNs: 2e9 + 2*T, DoneNs: 2e9 + 2*T + 8_000_000, IntervalNs: T},
		&source.Frame{Window: "w", VsyncNs: 3e9, DoneNs: 3e9 + 800e6, IntervalNs: T},
		&source.Message{Thread: "main", Handler: "android.app.ActivityThread$H", Callback: "null", What: 159, StartNs: 2e9, EndNs: 2e9 + 5e6},
		&source.Message{Thread: "main", Handler: "h", Callback: "com.x.Foo$1@1a2b", What: 0, StartNs: 2e9 + 6e6, EndNs: 0},
		&source.Message{Thread: "bg", Handler: "h", Callback: "null", What: 1, StartNs: 2e9, EndNs: 2e9 + 1e6},
		&source.Skipped{AtNs: 3e9 + 800e6, Frames: 95},
		&source.SlowLooper{AtNs: 3e9 + 800e6, Kind: "dispatch", Ms: 790, What: &what},
		&source.SlowLooper{AtNs: 3e9 + 900e6, Kind: "activity_late", Truncated: true},
		&source.Gap{FromNs: 4e9, ToNs: 5e9, Reason: "device disconnected"},
		&source.Notice{AtNs: 5e9, Level: source.LevelWarn, Text: `odd "text" <here>`},
		&source.Tick{NowNs: 6e9},
	}
	path := filepath.Join(t.TempDir(), "t.jsonl.gz")
	recordtest.Write(t, path, [][]source.Event{evs})
	var b bytes.Buffer
	if err := Export(&b, path, Options{}); err != nil {
		t.Fatal(err)
	}
	tf := validateTrace(t, b.Bytes())
	byName := map[string]traceEvent{}
	threads := map[int]string{}
	counters := 0
	for _, e := range tf.TraceEvents {
		byName[e.Name] = e
		if e.Ph == "M" && e.Name == "thread_name" {
			threads[*e.Tid] = e.Args["name"].(string)
		}
		if e.Ph == "C" {
			counters++
		}
	}
	f1, ok := byName["frame 8.1 ms"]
	if !ok || *f1.Ts != 2e6 || *f1.Dur != 8100 || threads[*f1.Tid] != "w" {
		t.Errorf("frame 1: %+v (threads %v)", f1, threads)
	}
	f2, ok := byName["normal 6 dropped · 58.2 ms"]
	if !ok || *f2.Dur != 58200 || threads[*f2.Tid] != "w" || f2.Args["dropped"] != 6.0 {
		t.Errorf("frame 2: %+v", f2)
	}
	if f3, ok := byName["frame 8.0 ms"]; !ok || threads[*f3.Tid] != "w (2)" {
		t.Errorf("frame 3 not on a second lane: %+v", f3)
	}
	if _, ok := byName["frozen 96 dropped · 800.0 ms"]; !ok {
		t.Errorf("frozen frame missing: %v", keys(byName))
	}
	m := byName["android.app.ActivityThread$H: #159"]
	if m.Ph != "X" || threads[*m.Tid] != "main thread" || *m.Tid != traceMainTid || *m.Dur != 5000 {
		t.Errorf("message: %+v", m)
	}
	if m := byName["h: com.x.Foo$1@1a2b #0"]; *m.Dur != 0 || m.Args["duration"] != "unknown" {
		t.Errorf("message without end: %+v", m)
	}
	if m := byName["h: #1"]; threads[*m.Tid] != "bg" {
		t.Errorf("bg message: %+v", m)
	}
	if s := byName["Skipped 95 frames!"]; s.Ph != "i" || s.S != "t" || *s.Tid != traceMainTid {
		t.Errorf("skipped: %+v", s)
	}
	if s := byName["Slow dispatch took 790ms"]; s.Ph != "i" || s.Args["what"] != 7.0 {
		t.Errorf("slow: %+v", s)
	}
	// a line cut off before its duration: unknown, never "took 0ms"
	if s, ok := byName["Slow activity_late (line cut off: duration unknown)"]; !ok || s.Args["duration"] != "unknown" {
		t.Errorf("truncated slow line: %+v (names %v)", s, keys(byName))
	}
	if g := byName["gap: device disconnected"]; g.Ph != "i" || g.S != "p" || g.Args["length_ms"] != 1000.0 {
		t.Errorf("gap: %+v", g)
	}
	if _, ok := byName[`odd "text" <here>`]; !ok {
		t.Error("warning notice missing")
	}
	if p := byName["process_name"]; p.Args["name"] != "com.example.app · sim" { // the app and the source (no device in this recording)
		t.Errorf("process: %+v", p)
	}
	// FPS counters: two per slice of the pipeline's series.
	an, err := report.Analyse(path, metrics.Config{}, metrics.ReportMeta{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if series := an.Series; len(series) == 0 || counters != 2*len(series) {
		t.Errorf("%d counter events for %d slices", counters, len(series))
	}
}

func keys(m map[string]traceEvent) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestExportTraceGenerated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.jsonl")
	batches := eventgen.Batches(31, 90, 20*time.Second)
	recordtest.Write(t, path, batches)
	var b bytes.Buffer
	if err := Export(&b, path, Options{}); err != nil {
		t.Fatal(err)
	}
	tf := validateTrace(t, b.Bytes())
	frames, msgs := 0, 0
	for _, ev := range eventgen.Flatten(batches) {
		switch ev.(type) {
		case *source.Frame:
			frames++
		case *source.Message:
			msgs++
		}
	}
	var gotF, gotM int
	for _, e := range tf.TraceEvents {
		if e.Ph == "X" && e.Cat == "frame" {
			gotF++
		}
		if e.Ph == "X" && e.Cat == "looper" {
			gotM++
		}
	}
	if gotF != frames || gotM != msgs {
		t.Errorf("trace has %d frames and %d messages, recording %d and %d", gotF, gotM, frames, msgs)
	}
	if !strings.Contains(b.String(), `"otherData":{`) {
		t.Error("no otherData")
	}
}
