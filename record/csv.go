package record

import (
	"bufio"
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// csvPhases are the phase columns of WriteCSV, in hwui FrameInfo order.
var csvPhases = []struct {
	name string
	get  func(*source.Phases) int64
}{
	{"vsync_actual_ns", func(p *source.Phases) int64 { return p.Vsync }},
	{"handle_input_start_ns", func(p *source.Phases) int64 { return p.HandleInputStart }},
	{"animation_start_ns", func(p *source.Phases) int64 { return p.AnimationStart }},
	{"perform_traversals_start_ns", func(p *source.Phases) int64 { return p.PerformTraversalsStart }},
	{"draw_start_ns", func(p *source.Phases) int64 { return p.DrawStart }},
	{"sync_queued_ns", func(p *source.Phases) int64 { return p.SyncQueued }},
	{"sync_start_ns", func(p *source.Phases) int64 { return p.SyncStart }},
	{"issue_draw_commands_start_ns", func(p *source.Phases) int64 { return p.IssueDrawCommandsStart }},
	{"swap_buffers_ns", func(p *source.Phases) int64 { return p.SwapBuffers }},
	{"frame_completed_ns", func(p *source.Phases) int64 { return p.FrameCompleted }},
	{"dequeue_buffer_duration_ns", func(p *source.Phases) int64 { return p.DequeueBufferDuration }},
	{"queue_buffer_duration_ns", func(p *source.Phases) int64 { return p.QueueBufferDuration }},
	{"gpu_completed_ns", func(p *source.Phases) int64 { return p.GpuCompleted }},
	{"swap_buffers_completed_ns", func(p *source.Phases) int64 { return p.SwapBuffersCompleted }},
	{"display_present_ns", func(p *source.Phases) int64 { return p.DisplayPresentTime }},
	{"command_submission_completed_ns", func(p *source.Phases) int64 { return p.CommandSubmissionCompleted }},
	{"frame_start_ns", func(p *source.Phases) int64 { return p.FrameStartTime }},
	{"workload_target_ns", func(p *source.Phases) int64 { return p.WorkloadTarget }},
}

// CSVHeader is the first row WriteCSV writes.
func CSVHeader() []string {
	h := []string{"window", "process", "vsync_ns", "done_ns", "ui_done_ns", "interval_ns", "t_ns", "rate_hz",
		"cost_ms", "dropped", "level", "flags", "deadline_ns", "vsync_id"}
	for _, p := range csvPhases {
		h = append(h, p.name)
	}
	return h
}

// WriteCSV writes one row per frame of a recording (CSVHeader's columns) with Matrix's default
// drop levels. See WriteCSVConfig.
func WriteCSV(w io.Writer, path string) error {
	return WriteCSVConfig(w, path, metrics.Config{})
}

// WriteCSVConfig writes one row per frame of a recording. Raw fields are as recorded (0 and
// empty mean unknown, as in the recording). Derived columns: t_ns is the frame interval that
// applied (the frame's own, else the refresh rate last announced by a refresh or session
// event; empty when neither is known — the pipeline then estimates it, see the report),
// rate_hz is metrics.RateHz(t_ns), cost_ms the frame's cost (frame completion − intended
// vsync, or the main thread's end − intended vsync when the session's cost basis is
// main_thread or completion is unknown), dropped is metrics.Dropped(cost, t_ns) and level its
// metrics.Classify drop level under cfg.DropLevels.
func WriteCSVConfig(w io.Writer, path string, cfg metrics.Config) error {
	levels := cfg.DropLevels
	if levels == ([4]int{}) {
		levels = metrics.DefaultDropLevels
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	if err := cw.Write(CSVHeader()); err != nil {
		return err
	}
	ft := newFrameTimer(levels)
	row := make([]string, 0, len(CSVHeader()))
	var werr error
	_, err := readBatches(path, func(evs []source.Event) {
		if werr != nil {
			return
		}
		for _, ev := range evs {
			f, ok := ft.observe(ev)
			if !ok {
				continue
			}
			fr := ev.(*source.Frame)
			row = append(row[:0], fr.Window, fr.Process, i64(fr.VsyncNs), i64(fr.DoneNs), i64(fr.UIDoneNs), i64(fr.IntervalNs))
			if f.intervalNs > 0 {
				row = append(row, i64(f.intervalNs), i64(metrics.RateHz(f.intervalNs)))
			} else {
				row = append(row, "", "")
			}
			if f.costKnown {
				row = append(row, strconv.FormatFloat(float64(f.costNs)/1e6, 'f', 3, 64))
			} else {
				row = append(row, "")
			}
			if f.costKnown && f.intervalNs > 0 {
				row = append(row, i64(f.dropped), f.level.String())
			} else {
				row = append(row, "", "")
			}
			row = append(row, i64(fr.Flags), i64(fr.DeadlineNs), i64(fr.VsyncID))
			for _, p := range csvPhases {
				if fr.Phases == nil {
					row = append(row, "")
				} else {
					row = append(row, i64(p.get(fr.Phases)))
				}
			}
			if werr = cw.Write(row); werr != nil {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }

// frameTimer follows a recording's session and refresh events to time its frames for the CSV
// and the trace: the interval that applied, the cost, dropped vsyncs and drop level, all
// through metrics' exported definitions.
type frameTimer struct {
	levels    [4]int
	refreshNs int64
	mainOnly  bool
}

type frameTime struct {
	intervalNs int64
	costNs     int64
	costKnown  bool
	dropped    int64
	level      metrics.Level
}

func newFrameTimer(levels [4]int) *frameTimer { return &frameTimer{levels: levels} }

func hzToNs(hz float64) int64 {
	if hz <= 0 || math.IsNaN(hz) || math.IsInf(hz, 0) {
		return 0
	}
	return int64(math.Round(1e9 / hz))
}

// observe updates the state with ev and, for a frame, returns its timing.
func (t *frameTimer) observe(ev source.Event) (frameTime, bool) {
	switch e := ev.(type) {
	case *source.Session:
		if ns := hzToNs(e.RefreshHz); ns > 0 {
			t.refreshNs = ns
		}
		t.mainOnly = e.CostBasis == source.CostMainThread
	case *source.Refresh:
		if ns := hzToNs(e.Hz); ns > 0 {
			t.refreshNs = ns
		}
	case *source.Frame:
		var ft frameTime
		ft.intervalNs = e.IntervalNs
		if ft.intervalNs <= 0 {
			ft.intervalNs = t.refreshNs
		}
		end := e.DoneNs
		if t.mainOnly || end == 0 {
			end = e.UIDoneNs
		}
		if end > 0 {
			ft.costNs, ft.costKnown = end-e.VsyncNs, true
			if ft.costNs < 0 {
				ft.costNs = 0
			}
		}
		if ft.costKnown && ft.intervalNs > 0 {
			ft.dropped = metrics.Dropped(ft.costNs, ft.intervalNs)
			ft.level = metrics.Classify(ft.dropped, metrics.Thresholds(t.levels, metrics.RateHz(ft.intervalNs)))
		}
		return ft, true
	}
	return frameTime{}, false
}
