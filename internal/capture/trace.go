package capture

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/perfetto"
)

// IsTrace reports whether path holds a Perfetto trace or systrace text (plain or gzip'd),
// by its content.
func IsTrace(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 8192)
	n, err := io.ReadFull(f, head)
	head = head[:n]
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return perfetto.SniffGzip(head)
	}
	return perfetto.Sniff(head, err != nil) || perfetto.SniffText(head)
}

// AsRecording lets the commands that read recordings (replay, report, export, compare) read a
// Perfetto trace too: the trace is read once, as --input would read it (-p is pkg), into a
// temporary recording whose path is returned, with the function that removes it (the caller
// calls it when fpstop exits). Any other file is returned as it is, with remove nil.
func AsRecording(path, pkg, version string) (rec string, remove func() error, err error) {
	if !IsTrace(path) {
		return path, nil, nil
	}
	in, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read trace: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp("", "fpstop-trace-*.jsonl")
	if err != nil {
		return "", nil, fmt.Errorf("converting trace %s: %w", path, err)
	}
	tmp.Close()
	remove = func() error { return os.Remove(tmp.Name()) }
	sess := &source.Session{Source: source.KindPerfetto, Package: pkg, CostBasis: source.CostFrame, Input: path}
	w, err := record.Create(tmp.Name(), record.HeaderFromSession(sess, version, time.Time{}), record.Options{Force: true})
	if err != nil {
		return "", remove, fmt.Errorf("converting trace %s: %w", path, err)
	}
	out := make(chan []source.Event, 8)
	errc := make(chan error, 1)
	go func() {
		errc <- perfetto.FromReader(in, perfetto.Options{Name: path, Package: pkg}).Run(context.Background(), out)
		close(out)
	}()
	var werr error
	for b := range out {
		if werr == nil {
			werr = w.Write(b)
		}
	}
	rerr := <-errc
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if rerr != nil {
		return "", remove, rerr
	}
	if werr != nil {
		return "", remove, fmt.Errorf("converting trace %s: %w", path, werr)
	}
	return tmp.Name(), remove, nil
}
