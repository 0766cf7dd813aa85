package gfxinfo

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// readAllEvents runs a file source over r and returns its events and error.
func readAllEvents(t *testing.T, r io.Reader) ([]source.Event, error) {
	t.Helper()
	out := make(chan []source.Event, 1<<16)
	err := FromReader(r, "capture").Run(context.Background(), out)
	close(out)
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	return evs, err
}

func warningsOf(evs []source.Event) string {
	var w []string
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok && n.Level == source.LevelWarn {
			w = append(w, n.Text)
		}
	}
	return strings.Join(w, "\n")
}

// TestFromReaderLongLine (issue 13): a line far longer than any dumpsys line (after
// ---PROFILEDATA---) is skipped with a counted warning; the dumps around it are read.
func TestFromReaderLongLine(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 10, start: 10e9, period: 16_666_667, firstID: 1, total: 10}
	d1 := dumpAt(11_000, 5, w)
	w.start, w.firstID, w.total = 11e9, 11, 20
	d2 := dumpAt(12_000, 5, w)
	i := bytes.Index(d1, []byte("---PROFILEDATA---\n")) + len("---PROFILEDATA---\n")
	var in bytes.Buffer
	in.Write(d1[:i])
	in.Write(bytes.Repeat([]byte("1234567,"), 3<<20/8)) // a 3 MB line
	in.WriteByte('\n')
	in.Write(d1[i:])
	in.Write(d2)
	evs, err := readAllEvents(t, &in)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(frames(evs)); n != 20 {
		t.Errorf("%d frames, want 20", n)
	}
	if w := warningsOf(evs); !strings.Contains(w, "1 lines longer than 1 MB skipped") {
		t.Errorf("warnings %q", w)
	}
}

// TestFromReaderUTF16WithoutBOM (issue 13): UTF-16LE text without a byte-order mark (NUL every
// other byte) is recognised and read.
func TestFromReaderUTF16WithoutBOM(t *testing.T) {
	w := synthWin{title: pkg + "/.Main", rows: 10, start: 10e9, period: 16_666_667, firstID: 1, total: 10}
	evs, err := readAllEvents(t, bytes.NewReader(toUTF16(dumpAt(11_000, 5, w), false)[2:]))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(frames(evs)); n != 10 {
		t.Errorf("%d frames, want 10", n)
	}
}

// TestFromReaderNotGfxinfo: input with no dump says what was read.
func TestFromReaderNotGfxinfo(t *testing.T) {
	_, err := readAllEvents(t, strings.NewReader(strings.Repeat("hello world\n", 1000)))
	if err == nil || !strings.Contains(err.Error(), "no dumpsys gfxinfo output found (12 kB read)") {
		t.Errorf("err %v", err)
	}
}

// dumpStream generates n dumps of one window, one a second, as a reader (nothing held).
type dumpStream struct {
	n, i int
	buf  []byte
}

func (s *dumpStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.i == s.n {
			return 0, io.EOF
		}
		w := synthWin{title: pkg + "/.Main", rows: 120, start: int64(10+s.i) * 1e9, period: 16_666_667,
			firstID: int64(1 + 60*s.i), total: int64(60 * (s.i + 2))}
		s.buf = synthDump(s.buf[:0], 24, int64(12+s.i)*1000, 5, pkg, []synthWin{w})
		s.i++
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// TestFromReaderBoundedMemory (issue 13): a long capture is streamed: the heap does not grow
// with the input (64 MB of dumps here).
func TestFromReaderBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MB")
	}
	runtime.GC() // HeapInuse is the process's: not the garbage the tests before left
	in := &dumpStream{n: 64 << 20 / 43000}
	out := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- FromReader(in, "stream").Run(context.Background(), out); close(out) }()
	var peak uint64
	var ms runtime.MemStats
	nf, batches := 0, 0
	for b := range out {
		nf += len(frames(b))
		if batches++; batches%64 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if nf < 60*in.n || peak > 32<<20 {
		t.Errorf("%d frames from %d dumps, heap in use up to %d MB", nf, in.n, peak>>20)
	}
	t.Logf("%d dumps, %d frames, heap in use ≤ %.1f MB", in.n, nf, float64(peak)/(1<<20))
}
