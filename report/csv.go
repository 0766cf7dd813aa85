package report

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
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
	return append(h, "time_ms", "verdict")
}

// csvVerdict is a frame's verdict in the report's terms: janky when it dropped a vsync, and
// history when it was drawn before the session started (it counts in jank, not in FPS).
func csvVerdict(c *metrics.ClassifiedFrame) string {
	v := "ok"
	if c.Dropped >= 1 {
		v = "janky"
	}
	if c.Frame.History {
		v += " (history)"
	}
	return v
}

// WriteCSV writes one row per frame the report counts (CSVHeader's columns), in the order the
// pipeline counted them, with cfg's drop levels. Raw fields are as recorded (0 means unknown);
// the derived columns are the pipeline's own: t_ns is the frame interval that applied (the
// row's own, the refresh rate, or the learned frame spacing), rate_hz its rate, cost_ms the
// frame's cost (DESIGN §4: completion − intended vsync, or the main thread's part for
// Looper-derived frames), dropped the vsyncs it missed and level its drop level under
// cfg.DropLevels; time_ms is the intended vsync from the session's start (negative for frames
// drawn before it), verdict "ok" or "janky" (a vsync dropped), with " (history)" for frames
// drawn before the session. A recording of logcat alone has rows for the frames derived from
// its vsync messages.
func WriteCSV(w io.Writer, path string, cfg metrics.Config) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := &csvWriter{w: bw}
	if err := cw.Write(CSVHeader()); err != nil {
		return err
	}
	row := make([]string, 0, len(CSVHeader()))
	var werr error
	var originNs int64 // the session's start, else the first frame's vsync: time_ms is from it
	// The pipeline classifies each frame exactly as the report counts it (frames it derives
	// from Looper messages included), and calls back as it does.
	p := metrics.NewPipeline(Offline(cfg))
	p.OnFrame(func(c metrics.ClassifiedFrame) {
		if werr != nil {
			return
		}
		fr := &c.Frame
		row = append(row[:0], csvText(fr.Window), csvText(fr.Process), i64(fr.VsyncNs), i64(fr.DoneNs), i64(fr.UIDoneNs), i64(fr.IntervalNs),
			i64(c.IntervalNs), i64(metrics.RateHz(c.IntervalNs)), strconv.FormatFloat(float64(c.CostNs)/1e6, 'f', 3, 64),
			i64(c.Dropped), c.Level.String(), i64(fr.Flags), i64(fr.DeadlineNs), i64(fr.VsyncID))
		for _, ph := range csvPhases {
			if fr.Phases == nil {
				row = append(row, "")
			} else {
				row = append(row, i64(ph.get(fr.Phases)))
			}
		}
		if originNs == 0 {
			originNs = fr.VsyncNs
		}
		row = append(row, strconv.FormatFloat(float64(fr.VsyncNs-originNs)/1e6, 'f', 3, 64), csvVerdict(&c))
		werr = cw.Write(row)
	})
	_, err := record.ReadBatches(path, func(evs []source.Event) {
		for _, ev := range evs {
			if se, ok := ev.(*source.Session); ok && originNs == 0 && se.StartMonoNs > 0 {
				originNs = se.StartMonoNs
			}
			p.Add(ev) // one at a time: a session later in the batch must not move time_ms's origin
		}
	})
	if err != nil {
		return err
	}
	p.Report(metrics.ReportMeta{}) // releases the frames held back at the end (Looper-derived)
	if werr != nil {
		return werr
	}
	return bw.Flush()
}

// csvText neutralises a text cell (a name the device or app chose) for spreadsheets, per
// OWASP's CSV-injection advice: one that starts with =, +, -, @, tab or CR gets a leading ',
// and csvWriter quotes it, so no spreadsheet runs it as a formula; bidirectional controls and
// zero-width characters are shown escaped (source.Visible). Numeric cells never pass here.
func csvText(s string) string {
	s = source.Visible(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// csvWriter writes RFC 4180 rows like encoding/csv, and also quotes every neutralised text
// cell (one starting with ') as OWASP advises; encoding/csv cannot be asked to quote a cell.
type csvWriter struct {
	w *bufio.Writer
}

// Write writes one row.
func (c *csvWriter) Write(fields []string) error {
	for i, f := range fields {
		if i > 0 {
			c.w.WriteByte(',')
		}
		if f == "" || !(f[0] == '\'' || f[0] == ' ' || f[0] == '\t' || strings.ContainsAny(f, ",\"\r\n")) {
			c.w.WriteString(f)
			continue
		}
		c.w.WriteByte('"')
		c.w.WriteString(strings.ReplaceAll(f, `"`, `""`))
		c.w.WriteByte('"')
	}
	_, err := c.w.WriteString("\n")
	return err
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }
