package logcat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf16"

	"github.com/fpstop/fpstop/source"
)

var sampleLog = strings.Join([]string{
	"--------- beginning of main",
	"08-27 17:57:09.700  1863  1863 I ActivityManager: Start proc",
	"08-27 17:57:09.765  1863  1863 D Looper  : >>>>> Dispatching to " + vsyncTarget + ": 0",
	"08-27 17:57:09.769  1863  1863 D Looper  : <<<<< Finished to " + vsyncTarget,
	"08-27 17:57:09.770  1863  1863 I Choreographer: Skipped 31 frames!  The application may be doing too much work on its main thread.",
	"08-27 17:57:09.771  1863  1863 W Looper  : Slow dispatch took 292ms main h=android.app.ActivityThread$H c=null m=159",
	"08-27 17:57:09.780  1863  1863 D Looper  : >>>>> Dispatching to " + hTarget + ": 159",
	"08-27 17:57:09.900  1863  1900 I Other   : tail line without newline",
}, "\n")

// collect runs src to its end and returns every event in order and the batches.
func collect(t *testing.T, src source.Source) ([]source.Event, [][]source.Event) {
	t.Helper()
	out := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), out); close(out) }()
	var all []source.Event
	var batches [][]source.Event
	for b := range out {
		batches = append(batches, b)
		all = append(all, b...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return all, batches
}

func TestFromReader(t *testing.T) {
	evs, _ := collect(t, FromReader(strings.NewReader(sampleLog), Options{Name: "x.txt"}))
	var kinds []string
	var lastTick int64
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Session:
			kinds = append(kinds, "session")
			if e.Source != source.KindLogcat || e.CostBasis != source.CostMainThread || e.Input != "x.txt" {
				t.Errorf("session %+v", e)
			}
		case *source.Message:
			kinds = append(kinds, "message")
			if e.EndNs-e.StartNs != 4e6 {
				t.Errorf("message %+v", e)
			}
		case *source.Skipped:
			kinds = append(kinds, "skipped")
		case *source.SlowLooper:
			kinds = append(kinds, "slow")
		case *source.UnpairedLine:
			kinds = append(kinds, "unpaired")
		case *source.Notice:
			kinds = append(kinds, "notice:"+string(e.State))
		case *source.Tick:
			if e.NowNs <= lastTick {
				t.Errorf("tick %d after %d", e.NowNs, lastTick)
			}
			lastTick = e.NowNs
		}
	}
	want := "session message skipped slow unpaired notice:ended"
	if strings.Join(kinds, " ") != want {
		t.Errorf("events %q, want %q", strings.Join(kinds, " "), want)
	}
	// The last tick is the last line's time (17:57:09.900), a line that mattered to nothing.
	var p Parser
	var l Line
	p.Parse([]byte("08-27 17:57:09.900  1863  1900 I Other   : x"), &l)
	if want := p.TimeNs(&l); lastTick != want {
		t.Errorf("last tick %d, want %d", lastTick, want)
	}
}

func TestFromReaderEncodingsAndChunks(t *testing.T) {
	ref, _ := collect(t, FromReader(strings.NewReader(sampleLog), Options{}))
	u := utf16.Encode([]rune("\uFEFF" + strings.ReplaceAll(sampleLog, "\n", "\r\n")))
	le := make([]byte, 0, 2*len(u))
	be := make([]byte, 0, 2*len(u))
	for _, c := range u {
		le = append(le, byte(c), byte(c>>8))
		be = append(be, byte(c>>8), byte(c))
	}
	// Binary junk in a message: NUL bytes inside lines (every other byte of one, as in a
	// UTF-16 head) are text, not an encoding, and no line loses its timestamp.
	nul := strings.Replace(sampleLog, "Start proc", "Start\x00p\x00r\x00o\x00c\x00 \x00a\x00p\x00p\x00 \x00x\x00y\x00z\x00", 1)
	nul = strings.Replace(nul, "tail line", "tail\x00\x00\x00line", 1)
	for name, r := range map[string]io.Reader{
		"utf-16le no bom":    bytes.NewReader(le[2:]),
		"utf-16be no bom":    bytes.NewReader(be[2:]),
		"nul bytes in lines": strings.NewReader(nul),
		"one byte at a time": iotest.OneByteReader(strings.NewReader(sampleLog)),
		"utf-16le bom crlf":  bytes.NewReader(le),
		"utf-16be bom crlf":  iotest.HalfReader(bytes.NewReader(be)),
		"utf-8 bom crlf":     strings.NewReader("\uFEFF" + strings.ReplaceAll(sampleLog, "\n", "\r\n")),
	} {
		got, _ := collect(t, FromReader(r, Options{}))
		if summary(got) != summary(ref) {
			t.Errorf("%s:\n got %s\nwant %s", name, summary(got), summary(ref))
		}
		for _, ev := range got {
			if n, ok := ev.(*source.Notice); ok && n.Text == UntimedNotice {
				t.Errorf("%s: %q", name, n.Text)
			}
		}
	}
}

// summary describes the decoded events (not the batching).
func summary(evs []source.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Message:
			b.WriteString("M" + e.Handler + e.Callback + time.Duration(e.EndNs-e.StartNs).String() + " ")
		case *source.Skipped, *source.SlowLooper, *source.UnpairedLine:
			b.WriteString(source.LineType(ev) + " ")
		}
	}
	return b.String()
}

func TestFromReaderRaw(t *testing.T) {
	evs, _ := collect(t, FromReader(iotest.HalfReader(strings.NewReader(sampleLog)), Options{Raw: true}))
	var raw []byte
	for _, ev := range evs {
		if r, ok := ev.(*source.Raw); ok {
			if r.Stream != "logcat" {
				t.Errorf("stream %q", r.Stream)
			}
			raw = append(raw, r.Text...)
		}
	}
	if string(raw) != sampleLog {
		t.Errorf("raw text differs: %d bytes, want %d", len(raw), len(sampleLog))
	}
}

func TestFromReaderNoPrinterHelp(t *testing.T) {
	evs, _ := collect(t, FromReader(strings.NewReader("I/Choreographer: Skipped 40 frames!  x\n"), Options{}))
	var help bool
	for _, ev := range ofType[*source.Notice](evs) {
		help = help || ev.Text == NoPrinterHelp
	}
	if !help {
		t.Error("no help notice for a log without printer lines")
	}
}

// TestFromReaderLive: text arriving on a pipe (adb logcat | fpstop --input -) is emitted while
// the pipe is still open.
func TestFromReaderLive(t *testing.T) {
	pr, pw := io.Pipe()
	out := make(chan []source.Event, 64)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- FromReader(pr, Options{Name: "-"}).Run(ctx, out) }()
	lines := strings.Split(sampleLog, "\n")
	go func() {
		for _, l := range lines[:4] {
			io.WriteString(pw, l+"\n")
		}
	}()
	deadline := time.After(10 * time.Second)
	for got := false; !got; {
		select {
		case b := <-out:
			for _, ev := range b {
				if _, ok := ev.(*source.Message); ok {
					got = true
				}
			}
		case <-deadline:
			t.Fatal("no message while the pipe is open")
		}
	}
	pw.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestPackageFilter: -p on logcat text keeps only that app's lines where the text names the
// app (Android Studio's package column, and then the app's pid on lines without the column);
// on text that names processes by pid only, every line is kept and a warning says -p was
// ignored — never silently.
func TestPackageFilter(t *testing.T) {
	studio := strings.Join([]string{
		"2022-10-19 13:25:37.364 10391-10391 Choreographer           com.example.app                      I  Skipped 31 frames!  x",
		"2022-10-19 13:25:37.365 20000-20000 Choreographer           com.other.app                        I  Skipped 5 frames!  x",
		"10-19 13:25:38.000 20000 20000 I Choreographer: Skipped 6 frames!  x", // the other app's pid, no column
		"10-19 13:25:38.001 10391 10391 I Choreographer: Skipped 7 frames!  x",
	}, "\n") + "\n"
	plain := "10-19 13:25:38.000 20000 20000 I Choreographer: Skipped 6 frames!  x\n" +
		"10-19 13:25:38.001 10391 10391 I Choreographer: Skipped 7 frames!  x\n"
	for _, c := range []struct {
		name, text string
		frames     []int
		ignored    bool
	}{
		{"studio", studio, []int{31, 7}, false},
		{"plain", plain, []int{6, 7}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, _ := collect(t, FromReader(strings.NewReader(c.text), Options{Name: "x", Package: "com.example.app"}))
			var frames []int
			ignored := 0
			for _, ev := range evs {
				switch e := ev.(type) {
				case *source.Skipped:
					frames = append(frames, e.Frames)
				case *source.Notice:
					if e.Text == PackageIgnoredText("com.example.app") && e.Level == source.LevelWarn {
						ignored++
					}
				}
			}
			if fmt.Sprint(frames) != fmt.Sprint(c.frames) {
				t.Errorf("skipped %v, want %v", frames, c.frames)
			}
			if (ignored == 1) != c.ignored || ignored > 1 {
				t.Errorf("%d \"-p was ignored\" warnings, want ignored=%v", ignored, c.ignored)
			}
		})
	}
}
