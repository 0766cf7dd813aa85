package trace

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/record"
)

// rawTraceName is the only stream name whose bytes ExportRaw writes: a live Perfetto
// session's file as the phone named it (the recording is user input: no other path is made).
// Compiled on first use: its counted repeats make it costly to build, and only
// `fpstop export --raw-traces` needs it.
var rawTraceName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^perfetto/(fpstop-[a-z0-9]{1,32}-[0-9]{1,9}\.pftrace)$`)
})

// maxOpenTraces bounds the session files held open at once (sessions overlap two at a time).
const maxOpenTraces = 4

// ExportRaw writes the Perfetto traces kept by --record-raw beside recording rec into
// dir, one file per tracing session under the name it had on the phone, byte for byte as the
// phone wrote it: each opens in Perfetto UI. They are not joined into one file: consecutive
// sessions overlap by seconds, so a joined trace would hold every frame of an overlap twice.
// It returns the files written, in the order the sessions started; none is an error.
func ExportRaw(rec, dir string, force bool) ([]string, error) {
	f, err := os.Open(record.RawPath(rec))
	if err != nil {
		return nil, fmt.Errorf("raw file of %s (recorded with --record-raw?): %w", rec, err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: bad gzip stream: %w", record.RawPath(rec), err)
	}
	x := &rawExport{dir: dir, force: force, open: map[string]*os.File{}}
	defer x.closeAll()
	br := bufio.NewReaderSize(gz, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if werr := x.line(line); werr != nil {
				return x.written, fmt.Errorf("%s line %d: %w", record.RawPath(rec), n, werr)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return x.written, fmt.Errorf("%s: %w", record.RawPath(rec), err)
		}
	}
	if err := x.closeAll(); err != nil {
		return x.written, err
	}
	if len(x.written) == 0 {
		return nil, fmt.Errorf("%s holds no Perfetto trace (only --source perfetto with --record-raw keeps one)", record.RawPath(rec))
	}
	return x.written, nil
}

type rawExport struct {
	dir     string
	force   bool
	open    map[string]*os.File
	order   []string // open files, oldest first
	written []string
}

// line writes one raw line's bytes to its session's file (other streams are skipped).
func (x *rawExport) line(b []byte) error {
	var l record.RawLine
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("not a raw line: %w", err)
	}
	m := rawTraceName().FindStringSubmatch(l.Stream)
	if l.Type != record.LineRaw || m == nil {
		return nil
	}
	data := []byte(l.Text)
	if l.B64 != "" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(l.B64); err != nil {
			return fmt.Errorf("bad base64: %w", err)
		}
	}
	f, err := x.file(m[1])
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return nil
}

// file is the open output of session name: created (refusing an existing file unless force)
// the first time, appended to when it was closed to bound the open files.
func (x *rawExport) file(name string) (*os.File, error) {
	if f := x.open[name]; f != nil {
		return f, nil
	}
	p := filepath.Join(x.dir, name)
	var f *os.File
	var err error
	if slices.Contains(x.written, p) {
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	} else if f, err = outfile.Create(p, x.force); err == nil {
		x.written = append(x.written, p)
	}
	if err != nil {
		return nil, fmt.Errorf("trace file: %w", err)
	}
	if len(x.order) >= maxOpenTraces {
		old := x.order[0]
		x.order = x.order[1:]
		if err := x.open[old].Close(); err != nil {
			f.Close()
			return nil, fmt.Errorf("closing %s: %w", old, err)
		}
		delete(x.open, old)
	}
	x.open[name], x.order = f, append(x.order, name)
	return f, nil
}

func (x *rawExport) closeAll() error {
	var first error
	for _, name := range x.order {
		if err := x.open[name].Close(); err != nil && first == nil {
			first = fmt.Errorf("closing %s: %w", name, err)
		}
		delete(x.open, name)
	}
	x.order = nil
	return first
}
