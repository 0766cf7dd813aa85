package gfxinfo

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/benchgen"
	"github.com/fpstop/fpstop/internal/realdata"
	"github.com/fpstop/fpstop/source"
)

// writeCapture writes data to a file of its own and returns its path.
func writeCapture(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "capture.txt")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameThroughMap checks that the dumps read from the file at path through its mapping (when
// mapped says it must be mapped) are those read from its text through read.
func sameThroughMap(t *testing.T, path string, mapped bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if mapSupported {
		c, err := openCapture(path)
		if err != nil {
			t.Fatal(err)
		}
		if used := newDumpReader(c).mapped != nil; used != mapped {
			t.Errorf("read through the mapping: %v, want %v", used, mapped)
		}
		c.close(path, &err)
	}
	for _, upTo := range []bool{false, true} {
		c, err := openCapture(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		var dg *dumpReader
		if upTo {
			got, dg = dumpsUpTo(t, c)
		} else {
			got, dg = dumps(t, c, false)
		}
		var cerr error
		c.close(path, &cerr)
		if cerr != nil {
			t.Fatal(cerr)
		}
		var want []string
		var dw *dumpReader
		if upTo {
			want, dw = dumpsUpTo(t, bytes.NewReader(data))
		} else {
			want, dw = dumps(t, bytes.NewReader(data), false)
		}
		sameDumps(t, "mapped", got, want, dg, dw)
	}
}

// runEvents runs src to its end and returns its events and error.
func runEvents(t *testing.T, src source.Source) ([]source.Event, error) {
	t.Helper()
	out := make(chan []source.Event, 1<<16)
	err := src.Run(context.Background(), out)
	close(out)
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	return evs, err
}

// sameEvents checks that a capture's events are the same read through its mapping (FromFile)
// and through read (FromReader).
func sameEvents(t *testing.T, path string) {
	t.Helper()
	got, gerr := runEvents(t, FromFile(path))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, werr := runEvents(t, FromReader(f, path))
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("error %v, through read %v", gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, through read %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("event %d: %#v\nthrough read: %#v", i, got[i], want[i])
		}
	}
}

func twoDumps() []byte {
	w := synthWin{title: pkg + "/.Main", rows: 10, start: 10e9, period: 16_666_667, firstID: 1, total: 10}
	d := dumpAt(11_000, 5, w)
	w.start, w.firstID, w.total = 11e9, 11, 20
	return append(d, dumpAt(12_000, 5, w)...)
}

// TestMappedSameDumps: the dumps (and events) read through the mapping are those read through
// read, for the text the reader cuts in each of its ways.
func TestMappedSameDumps(t *testing.T) {
	two := twoDumps()
	i := bytes.Index(two, []byte("---PROFILEDATA---\n")) + len("---PROFILEDATA---\n")
	long := append(append(append([]byte(nil), two[:i]...), bytes.Repeat([]byte("1234567,"), 3<<20/8)...), '\n')
	long = append(long, two[i:]...)
	big := append([]byte(nil), two[:i]...) // a dump over maxLine: cut line by line
	for len(big) < maxLine+4096 {
		big = append(big, "no frame here, but a line of a dump all the same\n"...)
	}
	big = append(append(big, two[i:]...), two...)
	var gen bytes.Buffer
	bw := bufio.NewWriter(&gen)
	if _, err := benchgen.Framestats(bw, 23, 2000); err != nil {
		t.Fatal(err)
	}
	bw.Flush()
	for _, c := range []struct {
		name   string
		data   []byte
		mapped bool
	}{
		{"two dumps", two, true},
		{"long line", long, true},
		{"dump over maxLine", big, true},
		{"CRLF", bytes.ReplaceAll(two, []byte("\n"), []byte("\r\n")), true},
		{"BOM", append([]byte("\xef\xbb\xbf"), two...), true},
		{"no final newline", bytes.TrimRight(two, "\n"), true},
		{"not gfxinfo", []byte(strings.Repeat("hello world\n", 1000)), true},
		{"UTF-16", toUTF16(two, false), false},
		{"empty", nil, false},
		{"benchgen", gen.Bytes(), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeCapture(t, c.data)
			sameThroughMap(t, p, c.mapped)
			sameEvents(t, p)
		})
	}
}

// TestMappedRealdata: every real capture reads the same through the mapping as through read.
func TestMappedRealdata(t *testing.T) {
	for _, f := range realdata.Files(t, "gfxinfo") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sameThroughMap(t, f, sniffUTF16(data[:min(len(data), 64<<10)]) == nil) // (UTF-16 is decoded)
			sameEvents(t, f)
		})
	}
}

// TestMappedProcFile: a file that reports size 0 (a /proc file) is read, not mapped.
func TestMappedProcFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	c, err := openCapture("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close("status", &err)
	if c.data != nil {
		t.Fatal("mapped")
	}
	if got, _ := dumps(t, c, false); len(got) != 1 || !strings.Contains(got[0], "Name:") {
		t.Errorf("read %q", got)
	}
}

// TestMappedReleases: the text read is given back as the reader goes (a 12 MB capture), and
// what it hands out is unchanged.
func TestMappedReleases(t *testing.T) {
	var gen bytes.Buffer
	bw := bufio.NewWriter(&gen)
	if _, err := benchgen.Framestats(bw, 17, 50_000); err != nil {
		t.Fatal(err)
	}
	bw.Flush()
	p := writeCapture(t, gen.Bytes())
	c, err := openCapture(p)
	if err != nil {
		t.Fatal(err)
	}
	got, dg := dumpsUpTo(t, c)
	released := dg.released
	c.close(p, &err)
	want, dw := dumpsUpTo(t, bytes.NewReader(gen.Bytes()))
	sameDumps(t, "mapped", got, want, dg, dw)
	if !mapSupported {
		t.Skip("no mapping on this platform")
	}
	if released < gen.Len()-2*releaseStep-maxLine {
		t.Errorf("%d of %d bytes given back", released, gen.Len())
	}
}

// followRun runs a file source over path that hands out a batch per dump on an unbuffered
// channel, calls between after the first batch (Run is then held at its second send), and
// returns the frames and the error.
func followRun(t *testing.T, path string, between func()) (int, error) {
	t.Helper()
	out := make(chan []source.Event)
	errc := make(chan error, 1)
	go func() {
		errc <- (&fileSource{path: path, name: path, dumpPerBatch: true}).Run(context.Background(), out)
		close(out)
	}()
	nf, first := 0, true
	for b := range out {
		nf += len(frames(b))
		if first {
			between()
			first = false
		}
	}
	return nf, <-errc
}

// manyDumps is n dumps of one window, 120 rows each, 60 new (dumpStream's).
func manyDumps(n int) []byte {
	s := &dumpStream{n: n}
	var b bytes.Buffer
	if _, err := b.ReadFrom(s); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// TestMappedGrows: a capture still being written is read to its end: the text written after
// it was mapped is read with read(2).
func TestMappedGrows(t *testing.T) {
	all := manyDumps(40)
	cut := bytes.LastIndex(all[:len(all)/2], dumpHeader)
	p := writeCapture(t, all[:cut+10]) // (ends inside a dump's header)
	nf, err := followRun(t, p, func() {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(all[cut+10:]); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := runEvents(t, FromReader(bytes.NewReader(all), p))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(frames(evs)); nf != want {
		t.Errorf("%d frames, all of the file has %d", nf, want)
	}
}

// TestMappedShrinks: a capture cut short while it is read (its pages past the new end fault)
// ends Run with an error, not a crash.
func TestMappedShrinks(t *testing.T) {
	p := writeCapture(t, manyDumps(100)) // ~4 MB
	if !mapSupported {
		t.Skip("no mapping on this platform")
	}
	_, err := followRun(t, p, func() {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "capture.txt shrank while it was read") {
		t.Errorf("err %v", err)
	}
}
