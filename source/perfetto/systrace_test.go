package perfetto

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"github.com/fpstop/fpstop/source"
)

func TestParseTextLine(t *testing.T) {
	for _, c := range []struct {
		line      string
		task      string
		tid, tgid int32
		ts        int64
		event     string
		args      string
	}{
		{"kworker/u16:1-77    (   77) [004] ....   316.196720: tracing_mark_write: B|77|x", "kworker/u16:1", 77, 77, 316196720000, "tracing_mark_write", "B|77|x"},
		{"kworker/u16:1-77    (   77) [004] ....316.196720: tracing_mark_write: B|77|x", "kworker/u16:1", 77, 77, 316196720000, "tracing_mark_write", "B|77|x"},
		{"test-process-123    (  123) [002] d...316.196740: tracing_mark_write: E|123", "test-process", 123, 123, 316196740000, "tracing_mark_write", "E|123"},
		{"chrome-10830 ( 10830) [000] dNsa. 4213.033572: tracing_mark_write: B|10830|h", "chrome", 10830, 10830, 4213033572000, "tracing_mark_write", "B|10830|h"},
		{"task-1234-567    ( 567) [000] ....   100.000000: tracing_mark_write: E|567", "task-1234", 567, 567, 100000000000, "tracing_mark_write", "E|567"},
		{"<idle>-0     [000]  0.002188: tracing_mark_write: E|77", "<idle>", 0, 0, 2188000, "tracing_mark_write", "E|77"},
		{"<...>-882   (-----) [003] d..2 10852.771242: sched_switch: prev_comm=a", "<...>", 882, 0, 10852771242000, "sched_switch", "prev_comm=a"},
		{"RenderThread-4021  ( 3990) [001] ...1 123.4567891234: tracing_mark_write: B|3990|DrawFrames 7", "RenderThread", 4021, 3990, 123456789123, "tracing_mark_write", "B|3990|DrawFrames 7"},
	} {
		l, ok := parseTextLine(c.line)
		if !ok {
			t.Errorf("%q: not tokenized", c.line)
			continue
		}
		want := textLine{c.task, c.tid, c.tgid, c.ts, c.event, c.args}
		if l != want {
			t.Errorf("%q:\n got %+v\nwant %+v", c.line, l, want)
		}
	}
	for _, bad := range []string{"some = 000, other = 0x4", "", "# tracer: nop", "x-1 [0] 1.5:", "a-1 [000] 99999999999999999999.1: e: x"} {
		if _, ok := parseTextLine(bad); ok {
			t.Errorf("%q tokenized", bad)
		}
	}
}

// systraceHTML is a small page as systrace.py writes it: the viewer, a trace-data section
// with the ftrace text, and a process dump naming the app.
const systraceHTML = `<!DOCTYPE html>
<html>
<head i18n-values="dir:textdirection;">
<title>Android System Trace</title>
</head>
<body>
<script class="trace-data" type="application/text">
PROCESS DUMP
USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       COMMAND
u0_a123       3990   700 1234567 89012 0                   0 S com.example.app com.example.app --flag
</script>
<script class="trace-data" type="application/text">
# tracer: nop
#
#                              _-----=> irqs-off
#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION
#              | |        |      |   ||||       |         |
   example.app-3990  ( 3990) [000] ...1   100.000000: tracing_mark_write: B|3990|Choreographer#doFrame 11
   example.app-3990  ( 3990) [000] ...1   100.001000: tracing_mark_write: B|3990|traversal
   example.app-3990  ( 3990) [000] ...1   100.009000: tracing_mark_write: E|3990
   example.app-3990  ( 3990) [000] ...1   100.010000: tracing_mark_write: E|3990
  RenderThread-4021  ( 3990) [001] ...1   100.010500: tracing_mark_write: B|3990|DrawFrames 11
  RenderThread-4021  ( 3990) [001] ...1   100.030000: tracing_mark_write: E|3990
   example.app-3990  ( 3990) [000] ...1   100.016667: tracing_mark_write: B|3990|Choreographer#doFrame 12
   example.app-3990  ( 3990) [000] ...1   100.020000: tracing_mark_write: E|3990
  RenderThread-4021  ( 3990) [001] ...1   100.030500: tracing_mark_write: B|3990|DrawFrames 12
  RenderThread-4021  ( 3990) [001] ...1   100.032000: tracing_mark_write: E|3990
</script>
<script class="trace-data" type="application/text">
  ignored-1  ( 1) [000] ...1   200.000000: tracing_mark_write: B|1|after the trace
</script>
</html>
`

// TestSystraceHTML: an HTML page is detected, its trace-data text read (its other sections
// not taken for events), the process named from its dump, and frames made from its doFrame
// and DrawFrames sections (systrace has no FrameTimeline), timed to the RenderThread's end.
func TestSystraceHTML(t *testing.T) {
	if !SniffText([]byte(systraceHTML)) || Sniff([]byte(systraceHTML), true) {
		t.Fatal("the HTML page is not detected as systrace text")
	}
	evs := sourcetest.Events(t, FromReader(strings.NewReader(systraceHTML), Options{Name: "x.html"}))
	var frames []*source.Frame
	var names []string
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Frame:
			frames = append(frames, e)
		case *source.Section:
			names = append(names, e.Name)
		}
	}
	if len(frames) != 2 {
		t.Fatalf("%d frames, want 2 (%v)", len(frames), evs)
	}
	f := frames[0]
	if f.Process != "com.example.app" || f.VsyncID != 11 || f.VsyncNs != 100_000_000_000 || f.DoneNs != 100_030_000_000 {
		t.Errorf("frame 1: %+v", f)
	}
	if frames[1].VsyncID != 12 || frames[1].DoneNs != 100_032_000_000 {
		t.Errorf("frame 2: %+v", frames[1])
	}
	if f.Sections == nil || (*f.Sections)[0].Name != "DrawFrames 11" {
		t.Errorf("frame 1 sections: %+v", f.Sections)
	}
	for _, n := range names {
		if n == "after the trace" {
			t.Error("a section outside the trace-data text was read")
		}
	}
	if !hasNotice(evs, "no FrameTimeline") {
		t.Error("no notice says the text has no FrameTimeline")
	}
}

// TestSystraceSniff: plain ftrace text is text, binary traces and other text are not.
func TestSystraceSniff(t *testing.T) {
	plain := "# tracer: nop\n#\n  app-1 ( 1) [000] ....  1.000000: tracing_mark_write: B|1|a\n"
	if !SniffText([]byte(plain)) {
		t.Error("plain ftrace text not detected")
	}
	for _, not := range []string{"", "hello\nworld\n", "12-07 10:00:00.000  1  1 I Tag: msg\n", "<html><body>hi</body></html>\n",
		"\x0a\x02\x08\x01"} {
		if SniffText([]byte(not)) {
			t.Errorf("%q detected as systrace text", not)
		}
	}
	p := NewParser()
	if err := p.ReadAll(context.Background(), bytes.NewReader([]byte("# tracer: nop\n"))); err == nil {
		t.Error("text without an event line read without an error")
	}
}
