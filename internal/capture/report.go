package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/source"
)

// Reportable returns a recording of path for `fpstop report`: path itself when it is one;
// for anything else --input reads (a gfxinfo dump, logcat text, a Perfetto trace) a recording
// made from it in a temporary directory, which cleanup removes. open is how --input opens
// path, scfg how a headless run reads it: the numbers are those of `fpstop --input FILE
// --headless`, and every format (CSV and HTML too) works on captures.
func Reportable(ctx context.Context, path string, open func() (source.Source, error), scfg session.Config) (rec string, cleanup func(), err error) {
	cleanup = func() {}
	if path == "-" {
		return "", cleanup, exit.Usagef("fpstop report reads a file: pass its name (or fpstop --input - --headless for stdin)")
	}
	_, c, kind, derr := Detect(path, nil)
	if c != nil {
		c.Close()
	}
	if derr != nil && !errors.Is(derr, ErrUnrecognised) {
		return "", cleanup, exit.RuntimeErr(derr)
	}
	if kind == Recording || derr != nil {
		return path, cleanup, nil // a recording, or nothing known: the recording reader says why
	}
	dir, err := os.MkdirTemp("", "fpstop-report-")
	if err != nil {
		return "", cleanup, exit.RuntimeErr(fmt.Errorf("cannot convert %s for the report: %w", path, err))
	}
	cleanup = func() { os.RemoveAll(dir) }
	rec = filepath.Join(dir, "capture.jsonl")
	r, err := session.NewRecording(rec, session.RecordOptions{Version: scfg.Recording.Version})
	if err != nil {
		cleanup()
		return "", func() {}, exit.RuntimeErr(err)
	}
	src, err := open()
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	sess := session.Start(ctx, scfg, src, r)
	runErr := sess.Wait()
	if cerr := sess.Close(); cerr != nil || runErr != nil && !errors.Is(runErr, context.Canceled) {
		cleanup()
		return "", func() {}, exit.RuntimeErr(fmt.Errorf("reading %s: %w", path, errors.Join(runErr, cerr)))
	}
	return rec, cleanup, nil
}

// NameCapture rewrites warnings about rec, the temporary recording Reportable made, to name
// name, the capture the user gave: the temporary path is one they never typed, and it changes
// every run. Warnings of a recording the user gave (rec = name) are returned as they are.
func NameCapture(warnings []string, rec, name string) []string {
	if rec == name {
		return warnings
	}
	for i, w := range warnings {
		w = strings.ReplaceAll(w, "recording "+rec, name)
		warnings[i] = strings.ReplaceAll(w, rec, name)
	}
	return warnings
}
