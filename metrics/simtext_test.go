package metrics_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

// rowCollector polls a simulator's gfxinfo dump as a device would be polled: it renders the
// text in the case's layout (Android 13's 23 columns with the real devices' FrameInterval /
// FrameStartTime label swap, or an older one without deadlines), parses it with the real parser and keeps every
// row once (by window and IntendedVsync), in the order first seen.
type rowCollector struct {
	t      *testing.T
	c      simCase
	dump   *simtext.GfxinfoDump
	layout simtext.Layout
	seen   map[string]bool
	frames []source.Frame
	text   bytes.Buffer
}

func newRowCollector(t *testing.T, c simCase) *rowCollector {
	return &rowCollector{t: t, c: c, dump: simtext.NewGfxinfoDump("", 0, 0), layout: c.layout, seen: map[string]bool{}}
}

// poll renders and parses the dump once. The simulator sends 100 ms batches and is at most one
// batch ahead, so a poll per batch never lets a window's 120-row ring overflow.
func (rc *rowCollector) poll() {
	rc.text.Reset()
	if err := rc.dump.Render(&rc.text, 0, rc.layout); err != nil {
		rc.t.Fatal(err)
	}
	d, err := new(gfxinfo.Parser).Parse(rc.text.Bytes())
	if err != nil {
		rc.t.Fatal(err)
	}
	for _, p := range d.Processes {
		for _, w := range p.Windows {
			for _, f := range w.Frames {
				k := fmt.Sprint(f.Window, f.VsyncNs)
				if !rc.seen[k] {
					rc.seen[k] = true
					rc.frames = append(rc.frames, f)
				}
			}
		}
	}
}

// report runs the collected rows through a pipeline as the gfxinfo source would send them.
func (rc *rowCollector) report() *metrics.Report {
	p := metrics.NewPipeline(metrics.Config{})
	evs := []source.Event{&source.Session{Source: source.KindGfxinfo, RefreshHz: rc.c.hz, CostBasis: source.CostFrame}}
	for i := range rc.frames {
		evs = append(evs, &rc.frames[i])
	}
	p.AddBatch(evs)
	return p.Report(metrics.ReportMeta{})
}

// truthSeen is the truth restricted to the rows the polls saw (a window removed between two
// polls takes its last rows with it, as on a device).
func (rc *rowCollector) truthSeen(truth []byte) []byte {
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(truth, []byte("\n")) {
		typ, ev, err := source.ParseLine(bytes.TrimSpace(l))
		if err != nil || typ != "frame" {
			continue
		}
		f := ev.(*source.Frame)
		if rc.seen[fmt.Sprint(f.Window, f.VsyncNs)] {
			out.Write(l)
		}
	}
	return out.Bytes()
}

// TestGfxinfoTextEqualsTruth: every scenario, rendered as gfxinfo text and read back by the
// real parser, gives the truth's numbers through the pipeline; and the rule applied to the
// parsed rows by the reference gives exactly the truth's numbers (the text keeps every input
// of the rule: deadlines with stuffing, late starts, the swapped interval column).
func TestGfxinfoTextEqualsTruth(t *testing.T) {
	for _, c := range simCases() {
		t.Run(c.String(), func(t *testing.T) {
			rc := newRowCollector(t, c)
			truth := runSim(t, c, simDuration(30*time.Second), rc.dump, func([]source.Event) { rc.poll() })
			rc.poll()
			seen := rc.truthSeen(truth.Bytes())
			ref, err := reference.FromTruth(bytes.NewReader(seen), false)
			if err != nil {
				t.Fatal(err)
			}
			all, err := reference.FromTruth(bytes.NewReader(truth.Bytes()), false)
			if err != nil {
				t.Fatal(err)
			}
			// Only a popup, removed between two polls, can take rows the polls never saw: the
			// simulator runs a batch (100 ms) ahead of the poll, and a popup's last frames are
			// still in the pipeline when it goes. With GOMAXPROCS=1 the goroutine schedule lets
			// it lose up to 0.32 s of frames (38 of 136 at 120 Hz, 28 at 90 Hz, -cpu 1 -count 60);
			// 0.3 s failed 1 run in 10 there. 0.4 s (four batches) bounds it.
			for w, n := range all.Windows {
				if lost := n - ref.Windows[w]; lost > 0 && (!strings.HasPrefix(w, "PopupWindow:") || float64(lost) > 0.4*c.hz) {
					t.Errorf("the polls missed %d of the %d frames of %s", lost, n, w)
				}
			}
			checkAgainst(t, rc.report(), ref, true)

			T := int64(1e9/c.hz + 0.5)
			calc := reference.NewCalc()
			for _, f := range rc.frames {
				calc.Add(lineOf(&f, T))
			}
			got := calc.Numbers()
			if got.Frames != ref.Frames || got.Janky != ref.Janky || got.Levels != ref.Levels || got.FPS != ref.FPS {
				t.Errorf("the rule on the parsed rows: %d frames %d janky %v %.4f fps; on the truth: %d %d %v %.4f",
					got.Frames, got.Janky, got.Levels, got.FPS, ref.Frames, ref.Janky, ref.Levels, ref.FPS)
			}
		})
	}
}

// lineOf is the reference's view of a parsed row: the vsync it started on from the row's Vsync
// column, its GpuCompleted (the end the deadline rule uses), the interval from the
// row (Android 12+) or the display's.
func lineOf(f *source.Frame, T int64) reference.Line {
	l := reference.Line{Type: "frame", Window: f.Window, VsyncNs: f.VsyncNs, DeadlineNs: f.DeadlineNs,
		DoneNs: f.DoneNs, IntervalNs: f.IntervalNs, Flags: f.Flags}
	if l.IntervalNs == 0 {
		l.IntervalNs = T
	}
	if ph := f.Phases; ph != nil {
		if ph.Vsync != f.VsyncNs {
			l.StartVsyncNs = ph.Vsync
		}
		l.Phases = &reference.Phases{SyncQueued: ph.SyncQueued, SyncStart: ph.SyncStart, GpuCompleted: ph.GpuCompleted}
	}
	return l
}
