package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/source"
)

func TestRoundTrip(t *testing.T) {
	batches := eventgen.Batches(1, 120, 5*time.Second)
	want := eventgen.Flatten(batches)
	for _, name := range []string{"run.jsonl", "run.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			writeRecording(t, path, batches)
			raw, _ := os.ReadFile(path)
			if gz := len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b; gz != strings.HasSuffix(name, ".gz") {
				t.Fatalf("gzip = %v for %s", gz, name)
			}
			hdr, got, end, err := ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(hdr, testHeader()) {
				t.Errorf("header = %+v, want %+v", hdr, testHeader())
			}
			if len(got) != len(want) {
				t.Fatalf("read %d events, wrote %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("event %d = %#v, want %#v", i, got[i], want[i])
				}
			}
			if end == nil || end.Events != int64(len(want)) {
				t.Fatalf("end = %+v, want %d events", end, len(want))
			}
			var frames int64
			for _, ev := range want {
				if _, ok := ev.(*source.Frame); ok {
					frames++
				}
			}
			if end.Counts["frame"] != frames || end.FirstNs != 5_000_000_000_000 || end.DurationNs != end.LastNs-end.FirstNs {
				t.Errorf("end = %+v (frames %d)", end, frames)
			}
			// The first line is the header, with its type first.
			if !bytes.Contains(firstLine(t, path), []byte(`{"type":"header","format":1,"fpstop_version":"test","source":"sim"`)) {
				t.Errorf("header line: %s", firstLine(t, path))
			}
		})
	}
}

func firstLine(t *testing.T, path string) []byte {
	t.Helper()
	b := readPlain(t, path)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// readPlain returns a recording's bytes, decompressed when gzip.
func readPlain(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		b, err = io.ReadAll(zr)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatal(err)
		}
	}
	return b
}

func TestCreateRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Create(path, testHeader(), Options{})
	if !errors.Is(err, outfile.ErrExists) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Create over an existing file: err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Fatalf("existing file changed: %q", b)
	}
	w, err := Create(path, testHeader(), Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, evs, end, err := ReadAll(path); err != nil || len(evs) != 0 || end == nil {
		t.Fatalf("forced recording: %v %v %v", evs, end, err)
	}
	// --record-raw refuses too when the raw file exists, and leaves no recording behind.
	path2 := filepath.Join(t.TempDir(), "y.jsonl.gz")
	os.WriteFile(RawPath(path2), nil, 0o644)
	if _, err := Create(path2, testHeader(), Options{Raw: true}); !errors.Is(err, outfile.ErrExists) {
		t.Fatalf("raw file exists: err = %v", err)
	}
	if _, err := os.Stat(path2); !os.IsNotExist(err) {
		t.Fatalf("recording left behind after a refused raw file: %v", err)
	}
}

func TestCreateMode0644(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl.gz")
	w, err := Create(path, testHeader(), Options{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, p := range []string{path, RawPath(path)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", p, st.Mode().Perm())
		}
	}
}

func TestDefaultName(t *testing.T) {
	tm := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for pkg, want := range map[string]string{
		"com.example.app":  "fpstop-com.example.app-20260304-050607.jsonl.gz",
		"":                 "fpstop-session-20260304-050607.jsonl.gz",
		"../../etc/passwd": "fpstop-_.._etc_passwd-20260304-050607.jsonl.gz",
		"a b/c:d*é":        "fpstop-a_b_c_d__-20260304-050607.jsonl.gz",
	} {
		got := DefaultName(pkg, tm)
		if got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", pkg, got, want)
		}
		if strings.ContainsAny(got, "/\\") {
			t.Errorf("DefaultName(%q) = %q has a path separator", pkg, got)
		}
	}
	for in, want := range map[string]string{"d/run.jsonl.gz": "d/run.raw.gz", "run.jsonl": "run.raw.gz", "x.gz": "x.raw.gz", "x": "x.raw.gz"} {
		if got := RawPath(in); got != want {
			t.Errorf("RawPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// failWriter accepts n bytes, then fails every write (a full disk).
type failWriter struct {
	n      int
	writes int
}

var errDiskFull = errors.New("no space left on device")

func (f *failWriter) Write(p []byte) (int, error) {
	f.writes++
	if len(p) <= f.n {
		f.n -= len(p)
		return len(p), nil
	}
	k := f.n
	f.n = 0
	return k, errDiskFull
}

func TestWriteErrorStopsOnce(t *testing.T) {
	batches := eventgen.Batches(2, 60, 3*time.Second)
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprint("gzip=", gz), func(t *testing.T) {
			fw := &failWriter{n: 2000}
			w, err := newWriter(fw, gz, nil, testHeader())
			if err != nil {
				t.Fatal(err)
			}
			var errs []error
			for _, b := range batches {
				if err := w.Write(b); err != nil {
					errs = append(errs, err)
				}
				if err := w.Flush(); err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want exactly one: %v", len(errs), errs)
			}
			if !errors.Is(errs[0], errDiskFull) || !strings.Contains(errs[0].Error(), "recording stopped") {
				t.Errorf("error = %v", errs[0])
			}
			writes := fw.writes
			if err := w.Write(batches[0]); err != nil {
				t.Errorf("Write after the error returned %v, want nil (error returned once)", err)
			}
			if fw.writes != writes {
				t.Errorf("Writer kept writing after the error")
			}
			if err := w.Close(); !errors.Is(err, errDiskFull) {
				t.Errorf("Close = %v, want the write error", err)
			}
			if err := w.Close(); !errors.Is(err, errDiskFull) {
				t.Errorf("second Close = %v", err)
			}
		})
	}
	// A header that cannot be written fails Create-time setup.
	if _, err := newWriter(&failWriter{n: 10}, false, nil, testHeader()); !errors.Is(err, errDiskFull) {
		t.Errorf("header write error: %v", err)
	}
}

func TestCloseIdempotentAndConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl.gz")
	w, err := Create(path, testHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	batches := eventgen.Batches(3, 60, 2*time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, b := range batches {
			w.Write(b)
		}
	}()
	// A "signal handler" closes while the tap is writing.
	errc := make(chan error, 2)
	go func() { errc <- w.Close() }()
	go func() { errc <- w.Close() }()
	<-done
	for i := 0; i < 2; i++ {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(batches[0]); err != nil {
		t.Fatal(err)
	}
	_, evs, end, err := ReadAll(path)
	if err != nil || end == nil {
		t.Fatalf("after concurrent close: end=%v err=%v", end, err)
	}
	if end.Events != int64(len(evs)) {
		t.Fatalf("end counts %d events, file has %d", end.Events, len(evs))
	}
}

// TestGzipFlushIsReadable: after Flush, a reader of the still-open .gz file gets every line.
func TestGzipFlushIsReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.jsonl.gz")
	w, err := Create(path, testHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	batches := eventgen.Batches(4, 60, 2*time.Second)
	var want []source.Event
	for _, b := range batches[:len(batches)/2] {
		w.Write(b)
		want = append(want, b...)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	_, got, end, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if end != nil {
		t.Fatal("end line in an open recording")
	}
	evs, notices := splitNotices(got)
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("read %d events of %d flushed", len(evs), len(want))
	}
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "cut off") {
		t.Errorf("notices = %v, want one about the cut stream", notices)
	}
}

func splitNotices(evs []source.Event) (data []source.Event, warns []*source.Notice) {
	for _, ev := range evs {
		if n, ok := ev.(*source.Notice); ok && n.Level == source.LevelWarn && strings.Contains(n.Text, "recording ") {
			warns = append(warns, n)
			continue
		}
		data = append(data, ev)
	}
	return data, warns
}

// checkPrefix reads a damaged recording and checks it never panics and yields a prefix of the
// original events, plus reader warnings.
func checkPrefix(t *testing.T, path string, want []source.Event, where string) (int, []*source.Notice) {
	t.Helper()
	_, got, _, err := ReadAll(path)
	if err != nil {
		return -1, nil // e.g. cut inside the header: a clear error is fine
	}
	evs, warns := splitNotices(got)
	if len(evs) > len(want) {
		t.Fatalf("%s: read %d events, more than the %d written", where, len(evs), len(want))
	}
	for i := range evs {
		if !reflect.DeepEqual(evs[i], want[i]) {
			t.Fatalf("%s: event %d = %#v, want %#v", where, i, evs[i], want[i])
		}
	}
	return len(evs), warns
}

func TestTruncatedEveryOffsetOfLast4KiB(t *testing.T) {
	for _, name := range []string{"t.jsonl", "t.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			// Files of 8 to 30 KiB: every cut of the last 4 KiB reads the whole file again.
			dur := 250 * time.Millisecond
			if strings.HasSuffix(name, ".gz") {
				dur = 1500 * time.Millisecond
			}
			batches := eventgen.Batches(5, 60, dur)
			want := eventgen.Flatten(batches)
			dir := t.TempDir()
			full := filepath.Join(dir, name)
			// Flush after every batch so the .gz has many flush points.
			w, err := Create(full, testHeader(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range batches {
				w.Write(b)
				w.Flush()
			}
			w.Close()
			data, _ := os.ReadFile(full)
			if len(data) < 8<<10 || len(data) > 30<<10 {
				t.Fatalf("test recording of %d bytes, want 8 to 30 KiB", len(data))
			}
			// Cut the file shorter and shorter, by truncating one copy in place.
			cut := filepath.Join(dir, "cut-"+name)
			if err := os.WriteFile(cut, data, 0o644); err != nil {
				t.Fatal(err)
			}
			prev, tornSeen := len(want)+1, false
			for off := len(data); off >= len(data)-4096; off-- {
				if testing.Short() && off < len(data)-64 && off%5 != 0 {
					continue // -short: the last 64 cuts, then every 5th
				}
				if err := os.Truncate(cut, int64(off)); err != nil {
					t.Fatal(err)
				}
				n, warns := checkPrefix(t, cut, want, fmt.Sprintf("cut at %d/%d", off, len(data)))
				if n < 0 {
					t.Fatalf("cut at %d: Open failed on a recording with a complete header", off)
				}
				if n > prev {
					t.Fatalf("cut at %d: read %d events, more than %d at a longer cut", off, n, prev)
				}
				if off == len(data) && n != len(want) {
					t.Fatalf("whole file read %d events, want %d", n, len(want))
				}
				prev = n
				// Only the final newline missing leaves a complete file.
				if off < len(data)-1 || (off == len(data)-1 && strings.HasSuffix(name, ".gz")) {
					if len(warns) == 0 {
						t.Fatalf("cut at %d of %d: no warning; tail %q", off, len(data), data[off-60:off])
					} else if strings.Contains(warns[0].Text, "torn") {
						tornSeen = true
					}
				}
			}
			if !strings.HasSuffix(name, ".gz") && !tornSeen {
				t.Error("no torn-line warning seen for a plain file")
			}
		})
	}
}

func TestTruncatedRandomOffsets(t *testing.T) {
	batches := eventgen.Batches(6, 90, 2*time.Second)
	want := eventgen.Flatten(batches)
	for _, name := range []string{"r.jsonl", "r.jsonl.gz"} {
		dir := t.TempDir()
		full := filepath.Join(dir, name)
		writeRecording(t, full, batches)
		data, _ := os.ReadFile(full)
		cut := filepath.Join(dir, "cut-"+name)
		for off := 0; off < len(data); off += 1 + off/7 {
			os.WriteFile(cut, data[:off], 0o644)
			_, _ = checkPrefix(t, cut, want, fmt.Sprintf("%s cut at %d", name, off))
		}
	}
}

// TestKilledMidWrite records from a child process that is killed with SIGKILL while writing;
// the recording must read back as a prefix of what it wrote.
func TestKilledMidWrite(t *testing.T) {
	if os.Getenv("FPSTOP_RECORD_CHILD") != "" {
		childWriter(os.Getenv("FPSTOP_RECORD_CHILD"))
		return
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, name := range []string{"k.jsonl", "k.jsonl.gz"} {
		path := filepath.Join(t.TempDir(), name)
		cmd := exec.Command(exe, "-test.run=^TestKilledMidWrite$")
		cmd.Env = append(os.Environ(), "FPSTOP_RECORD_CHILD="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until a fair amount has been flushed, then kill without warning.
		deadline := time.Now().Add(20 * time.Second)
		for {
			st, err := os.Stat(path)
			if err == nil && st.Size() > 20<<10 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("child wrote nothing")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		want := eventgen.Flatten(eventgen.Batches(8, 120, 600*time.Second))
		_, got, end, err := ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		if end != nil {
			t.Fatal("killed recording has an end line")
		}
		evs, warns := splitNotices(got)
		if len(evs) == 0 || len(warns) == 0 {
			t.Fatalf("%s: %d events, %d warnings", name, len(evs), len(warns))
		}
		for i := range evs {
			if !reflect.DeepEqual(evs[i], want[i]) {
				t.Fatalf("%s: event %d differs", name, i)
			}
		}
	}
}

func childWriter(path string) {
	w, err := Create(path, testHeader(), Options{})
	if err != nil {
		os.Exit(3)
	}
	for _, b := range eventgen.Batches(8, 120, 600*time.Second) {
		w.Write(b)
		w.Flush()
	}
	w.Close()
	// The parent kills us long before; if not, stay alive until it does.
	time.Sleep(time.Minute)
	os.Exit(0)
}

func TestRawFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.jsonl.gz")
	w, err := Create(path, testHeader(), Options{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	utf16 := []byte{0xff, 0xfe, 'A', 0, '\n', 0}
	raws := []*source.Raw{
		{AtNs: 1, Stream: "gfxinfo", Text: []byte("---PROFILEDATA---\nFlags,IntendedVsync\n0,1\n")},
		{AtNs: 2, Stream: "logcat", Text: utf16},
	}
	// Restart (a replay's) has no line form: it is not recorded.
	w.Write([]source.Event{raws[0], &source.Tick{NowNs: 5}, &source.Restart{}, raws[1]})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRaw(RawPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, raws) {
		t.Fatalf("raw chunks = %#v", got)
	}
	_, evs, end, _ := ReadAll(path)
	if len(evs) != 1 || end.RawChunks != 2 {
		t.Fatalf("recording has %v, end %+v", evs, end)
	}
	// Without Raw, raw events are dropped and no file is made.
	p2 := filepath.Join(t.TempDir(), "noraw.jsonl")
	w2, _ := Create(p2, testHeader(), Options{})
	w2.Write([]source.Event{raws[0]})
	w2.Close()
	if _, err := os.Stat(RawPath(p2)); !os.IsNotExist(err) {
		t.Fatalf("raw file made without Raw: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"empty":   "",
		"garbage": "hello world\n",
		"newer":   `{"type":"header","format":2}` + "\n",
		"unknown": `{"type":"nonsense"}` + "\n",
	}
	for name, content := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := Open(p); err == nil {
			t.Errorf("%s: Open succeeded", name)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file opened")
	}
	// Header-less event files (a --truth file) are read.
	p := filepath.Join(dir, "truth.jsonl")
	os.WriteFile(p, []byte(`{"type":"frame","window":"w","vsync_ns":5}`+"\n"+`{"type":"tick","now_ns":9}`), 0o644)
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.HasHeader {
		t.Error("HasHeader on a header-less file")
	}
	var n int
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		if _, ok := ev.(*source.Notice); !ok {
			n++
		}
	}
	if n != 2 {
		t.Errorf("read %d events from a truth file, want 2 (last line without newline is complete)", n)
	}
}

func TestDamagedMiddleLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.jsonl")
	content := `{"type":"header","format":1,"source":"sim"}
{"type":"frame","window":"w","vsync_ns":5}
{"type":"frame","window":
{"type":"future_thing","x":1}
not json at all

{"type":"tick","now_ns":9}
{"type":"end","events":2}
`
	os.WriteFile(p, []byte(content), 0o644)
	_, evs, end, err := ReadAll(p)
	if err != nil || end == nil {
		t.Fatal(err, end)
	}
	data, warns := splitNotices(evs)
	if len(data) != 2 || len(warns) != 4 { // 3 bad lines + the summary count
		t.Fatalf("data %v warnings %d: %v", data, len(warns), warns)
	}
	if !strings.Contains(warns[len(warns)-1].Text, "3 unreadable lines") {
		t.Errorf("last warning %q", warns[len(warns)-1].Text)
	}
}

// FuzzReader: any bytes as a recording never panic the reader. The reader works on the bytes
// in memory (writing a file per input held the 8-second CI run to a dozen inputs); an input
// starting with gzip's magic byte is gzip-compressed first, so the gzip path reads arbitrary
// content too (damaged gzip streams: TestTruncatedEveryOffsetOfLast4KiB and the damaged-line tests).
func FuzzReader(f *testing.F) {
	var plain bytes.Buffer
	w, _ := newWriter(&plain, false, nil, testHeader())
	w.Write(eventgen.Flatten(eventgen.Batches(12, 60, 100*time.Millisecond)))
	w.Close()
	f.Add(plain.Bytes())
	f.Add(append([]byte{0x1f}, plain.Bytes()[:min(plain.Len(), 2000)]...))
	f.Add([]byte(`{"type":"header","format":1}` + "\n" + `{"type":"frame","phases":{"x":1}}` + "\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := data
		if len(data) > 0 && data[0] == 0x1f {
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(data[1:])
			zw.Close()
			in = gz.Bytes()
		}
		r, err := readerFrom("fuzz.jsonl", bytes.NewReader(in), int64(len(in)), false)
		if err != nil {
			return
		}
		defer r.Close()
		for i := 0; ; i++ {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					t.Fatalf("Next: %v", err)
				}
				return
			}
			if i > len(data)+10 {
				t.Fatal("reader does not end")
			}
		}
	})
}

// TestBackgroundFlush: events written once reach the file without another Write or Flush (the
// flusher goroutine), for both kinds of file.
func TestBackgroundFlush(t *testing.T) {
	t.Parallel() // waits on the writer's flush timer
	for _, name := range []string{"bg.jsonl", "bg.jsonl.gz"} {
		path := filepath.Join(t.TempDir(), name)
		w, err := Create(path, testHeader(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		evs := secondEvents(3)
		w.Write(evs)
		deadline := time.Now().Add(20 * time.Second) // generous: only "eventually" is checked
		for {
			_, got, _, err := ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := splitNotices(got); len(d) == len(evs) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: events never reached the file", name)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadRaw reads the raw-text file written beside a recording (RawPath): every chunk of source
// text with its stream and device time. A torn or cut file yields the chunks before the damage.
func ReadRaw(path string) ([]*source.Raw, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening raw recording: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("raw recording %s: bad gzip stream: %w", path, err)
	}
	lr := lineReader{br: bufio.NewReaderSize(gz, 64<<10)}
	var out []*source.Raw
	for {
		line, err := lr.next()
		if err == errLongLine {
			continue
		}
		if err != nil {
			return out, nil
		}
		var l RawLine
		if json.Unmarshal(line, &l) != nil || l.Type != LineRaw {
			continue
		}
		r := &source.Raw{AtNs: l.AtNs, Stream: l.Stream, Text: []byte(l.Text)}
		if l.B64 != "" {
			if r.Text, err = base64.StdEncoding.DecodeString(l.B64); err != nil {
				continue
			}
		}
		out = append(out, r)
	}
}
