package reference

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

const ms = 1_000_000

// TestRule works the rule by hand at 120 Hz (T = 8 333 333 ns, thresholds 6/18/48/84).
func TestRule(t *testing.T) {
	const T = 8_333_333
	c := NewCalc()
	add := func(iv, start, deadline, done int64) {
		c.Add(Line{Type: "frame", Window: "w", VsyncNs: iv, StartVsyncNs: start, DeadlineNs: deadline, DoneNs: done, IntervalNs: T})
	}
	// on time, budget 2T = 16.67 ms (q 167), done at 11 ms: 0 dropped
	add(100*T, 0, 102*T, 100*T+11*ms)
	// on time, budget 2T, done at 17 ms: ⌈(17 − 16.67)/8.33⌉ = 1
	add(101*T, 0, 103*T, 101*T+17*ms)
	// on time, budget T (q 83): done at 11 ms: 1 dropped; the tally is now 167×2, 83×1
	add(110*T, 0, 111*T, 110*T+11*ms)
	// started late (3 periods): the budget is the mode, 16.7 ms (167 × 100 µs), not its printed
	// deadline; done 55 ms after its vsync: ⌈(55 − 16.7)/8.333⌉ = 5
	add(120*T, 123*T, 122*T, 120*T+55*ms)
	// started half a period late is still "late" only from T/2 on: here 4 ms < T/2, on time
	add(130*T, 130*T+4*ms, 132*T, 130*T+10*ms)
	// a frozen frame: 800 ms with budget 2T → ⌈(800 − 16.67)/8.333⌉ = 95 ≥ 84: frozen
	add(200*T, 0, 202*T, 200*T+800*ms)
	n := c.Numbers()
	want := []int64{0, 1, 1, 5, 0, 95}
	for i, d := range n.Dropped {
		if d != want[i] {
			t.Errorf("frame %d: dropped %d, want %d", i, d, want[i])
		}
	}
	if n.Frames != 6 || n.Janky != 4 || n.Levels != [5]int64{5, 0, 0, 0, 1} {
		t.Errorf("frames %d janky %d levels %v", n.Frames, n.Janky, n.Levels)
	}
	// fps = 6 / ((0+1+1+5+0+95 + 6) · T)
	if want := 6 / (108 * float64(T) / 1e9); math.Abs(n.FPS-want) > 1e-9 {
		t.Errorf("fps %.6f, want %.6f", n.FPS, want)
	}
	if n.JankyDeadline != 4 || n.Deadlines != 6 { // GpuCompleted ≥ printed deadline
		t.Errorf("janky_deadline %d of %d", n.JankyDeadline, n.Deadlines)
	}
}

// TestRuleEdges: ties in the tally go to the smaller budget, 100 µs steps round half away from
// zero, a late frame before any on-time frame uses its printed deadline − the vsync it started
// on, rows without a deadline take the ≤ 11 rule less the sync stall, history frames stay out
// of fps.
func TestRuleEdges(t *testing.T) {
	const T = 16_666_667
	c := NewCalc()
	// late before any on-time frame: budget = deadline − start = 20 ms; done 50 ms after its
	// intended vsync: ⌈(50 − 20)/16.67⌉ = 2
	c.Add(Line{Window: "a", VsyncNs: 10 * T, StartVsyncNs: 11 * T, DeadlineNs: 11*T + 20*ms, DoneNs: 10*T + 50*ms, IntervalNs: T})
	// one on-time budget of 20.05 ms (q 201: half away from zero) and one of 36.7 ms (q 367)
	c.Add(Line{Window: "a", VsyncNs: 20 * T, DeadlineNs: 20*T + 20_050_000, DoneNs: 20*T + 5*ms, IntervalNs: T})
	c.Add(Line{Window: "a", VsyncNs: 21 * T, DeadlineNs: 21*T + 36_700_000, DoneNs: 21*T + 5*ms, IntervalNs: T})
	// late: tie 201 vs 367 → 20.1 ms; done 40 ms: ⌈(40 − 20.1)/16.67⌉ = 2
	c.Add(Line{Window: "a", VsyncNs: 30 * T, StartVsyncNs: 31 * T, DeadlineNs: 31*T + 20*ms, DoneNs: 30*T + 40*ms, IntervalNs: T})
	// another window's tally is its own: late before any on-time frame of its own, so its
	// printed deadline − its start vsync, 20 ms: ⌈(40 − 20)/16.67⌉ = 2
	c.Add(Line{Window: "b", VsyncNs: 30 * T, StartVsyncNs: 32 * T, DeadlineNs: 32*T + 20*ms, DoneNs: 30*T + 40*ms, IntervalNs: T})
	// ≤ 11: 40 ms with a 10 ms sync stall → 30 ms → ⌈30/16.67⌉ − 1 = 1
	c.Add(Line{Window: "c", VsyncNs: 40 * T, DoneNs: 40*T + 40*ms, IntervalNs: T,
		Phases: &Phases{SyncQueued: 40*T + 5*ms, SyncStart: 40*T + 15*ms}})
	// history: counted, but not in fps
	c.Add(Line{Window: "c", VsyncNs: 50 * T, DoneNs: 50*T + 40*ms, IntervalNs: T, History: true})
	// SkippedFrame rows are not frames
	c.Add(Line{Window: "c", VsyncNs: 60 * T, DoneNs: 60*T + 40*ms, IntervalNs: T, Flags: 8})
	n := c.Numbers()
	want := []int64{2, 0, 0, 2, 2, 1, 2}
	if len(n.Dropped) != len(want) {
		t.Fatalf("dropped %v, want %v", n.Dropped, want)
	}
	for i, d := range n.Dropped {
		if d != want[i] {
			t.Errorf("frame %d: dropped %d, want %d (all: %v)", i, d, want[i], n.Dropped)
		}
	}
	if n.Frames != 7 || n.History != 1 {
		t.Errorf("frames %d history %d", n.Frames, n.History)
	}
	if want := 6 / (float64(3+1+1+3+3+2) * T / 1e9); math.Abs(n.FPS-want) > 1e-9 {
		t.Errorf("fps %.6f, want %.6f", n.FPS, want)
	}
}

// TestRealScroll: the rule, applied by this package to the real Android 13 120 Hz scroll's rows
// as the real parser reads them, gives the 78.0 fps issue 9 works out (metrics must agree).
func TestRealScroll(t *testing.T) {
	dir := realdata.Dir(t, "gfxinfo")
	b, err := os.ReadFile(filepath.Join(dir, "choi890-soundviz-android13plus-120hz-framestats-scroll.txt"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := new(gfxinfo.Parser).Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCalc()
	for _, p := range d.Processes {
		for _, w := range p.Windows {
			if !strings.Contains(w.Title, "MainActivity") {
				continue
			}
			for i := range w.Frames {
				c.Add(rowLine(&w.Frames[i]))
			}
		}
	}
	n := c.Numbers()
	t.Logf("%d frames, %d janky, levels %v, %.2f fps, Android's deadline rule %d janky", n.Frames, n.Janky, n.Levels, n.FPS, n.JankyDeadline)
	if n.Frames != 120 || math.Round(n.FPS*10)/10 != 78.0 || n.JankyDeadline != 10 {
		t.Errorf("%d frames, %.3f fps, %d deadline-janky; want 120, 78.0 and 10", n.Frames, n.FPS, n.JankyDeadline)
	}
}

// rowLine is the rule's view of a parsed row: the vsync it started on from the Vsync column,
// its GpuCompleted.
func rowLine(f *source.Frame) Line {
	l := Line{Type: "frame", Window: f.Window, VsyncNs: f.VsyncNs, DeadlineNs: f.DeadlineNs, DoneNs: f.DoneNs,
		IntervalNs: f.IntervalNs, Flags: f.Flags}
	if ph := f.Phases; ph != nil {
		if ph.Vsync != f.VsyncNs {
			l.StartVsyncNs = ph.Vsync
		}
		l.Phases = &Phases{SyncQueued: ph.SyncQueued, SyncStart: ph.SyncStart, GpuCompleted: ph.GpuCompleted}
	}
	return l
}
