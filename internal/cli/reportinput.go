package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fpstop/fpstop/internal/session"
)

// reportable returns a recording of path for `fpstop report`: path itself when it is one;
// for anything else --input reads (a gfxinfo dump, logcat text, a Perfetto trace) a recording
// made from it in a temporary directory, which cleanup removes. The numbers are those of
// `fpstop --input FILE --headless`, and every format (CSV and HTML too) works on captures.
func (a *app) reportable(ctx context.Context, path string) (rec string, cleanup func(), err error) {
	cleanup = func() {}
	if path == "-" {
		return "", cleanup, usageErr("fpstop report reads a file: pass its name (or fpstop --input - --headless for stdin)")
	}
	_, c, kind, derr := openInput(path, nil)
	if c != nil {
		c.Close()
	}
	if derr != nil && !errors.Is(derr, errUnrecognised) {
		return "", cleanup, runtimeErr(derr)
	}
	if kind == inputRecording || derr != nil {
		return path, cleanup, nil // a recording, or nothing known: the recording reader says why
	}
	dir, err := os.MkdirTemp("", "fpstop-report-")
	if err != nil {
		return "", cleanup, runtimeErr(fmt.Errorf("cannot convert %s for the report: %w", path, err))
	}
	cleanup = func() { os.RemoveAll(dir) }
	rec = filepath.Join(dir, "capture.jsonl")
	r, err := session.NewRecording(rec, session.RecordOptions{Version: a.env.Build.Version})
	if err != nil {
		cleanup()
		return "", func() {}, runtimeErr(err)
	}
	a.opts.Input = path
	op, err := a.inputSource()
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	sess := session.Start(ctx, a.sessionConfig(false), op.src, r)
	runErr := sess.Wait()
	if cerr := sess.Close(); cerr != nil || runErr != nil && !errors.Is(runErr, context.Canceled) {
		cleanup()
		return "", func() {}, runtimeErr(fmt.Errorf("reading %s: %w", path, errors.Join(runErr, cerr)))
	}
	return rec, cleanup, nil
}
