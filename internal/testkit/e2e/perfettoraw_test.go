package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/perfetto"
)

// checkRawTraces (issue 33, --record-raw keeps the trace itself): `fpstop export REC
// --raw-traces DIR` writes the phone's own trace of each tracing session; read back through
// fpstop's trace reader they hold every frame of the recording with the same timing and
// FrameTimeline verdict (and, past the recording's end, only the frames of the last second
// the live source still held in its sort window when it stopped).
func checkRawTraces(t *testing.T, rec string) {
	t.Helper()
	dir := t.TempDir()
	var eb strings.Builder
	if code := cli.Main(context.Background(), []string{"export", rec, "--raw-traces", dir}, cli.Env{Stdin: strings.NewReader(""),
		Stdout: &strings.Builder{}, Stderr: &eb, Getenv: func(string) string { return "" }}); code != cli.ExitOK {
		t.Fatalf("export --raw-traces: exit %d: %s", code, eb.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fpstop-*.pftrace"))
	if len(files) == 0 {
		t.Fatalf("export --raw-traces wrote nothing: %s", eb.String())
	}
	type verdict struct{ done, jank int64 }
	fromFiles := map[string]verdict{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		out := make(chan []source.Event, 16)
		errc := make(chan error, 1)
		go func() {
			errc <- perfetto.FromReader(f, perfetto.Options{Name: name, Package: pkg}).Run(context.Background(), out)
			close(out)
		}()
		for batch := range out {
			for _, e := range batch {
				if fr, ok := e.(*source.Frame); ok && fr.Timeline != nil {
					fromFiles[fmt.Sprint(fr.Window, fr.VsyncID)] = verdict{fr.DoneNs, fr.Timeline.JankType}
				}
			}
		}
		f.Close()
		if err := <-errc; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	_, last, _, frames := seen(t, rec)
	missing, differ := 0, 0
	for _, fr := range frames {
		v, ok := fromFiles[fmt.Sprint(fr.Window, fr.VsyncID)]
		switch {
		case !ok:
			missing++
		case fr.Timeline == nil || v.done != fr.DoneNs || v.jank != fr.Timeline.JankType:
			differ++
		}
	}
	extra := len(fromFiles) - (len(frames) - missing)
	t.Logf("raw traces: %d files, %d frames; the recording %d frames (%d missing from the traces, %d differ, %d only in the traces); vsync up to %d",
		len(files), len(fromFiles), len(frames), missing, differ, extra, last)
	if missing > 0 || differ > 0 {
		t.Errorf("the exported traces miss %d and differ on %d of the recording's %d frames", missing, differ, len(frames))
	}
	if limit := len(frames)/10 + 130; extra > limit {
		t.Errorf("the exported traces hold %d frames the recording has not (more than the live source's last second)", extra)
	}
}
