package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/metrics"
)

// TestCleanCaptureHasNoWarnings: undamaged dumps of every frame-drawing scenario at 60 and
// 120 Hz (one a second) give a report without a damage warning and without frames_lost: a
// warning there is a false alarm (a four-window process's counter, growing 480 a second at
// 120 Hz, was taken for a damaged one 26 times).
func TestCleanCaptureHasNoWarnings(t *testing.T) {
	for _, sc := range []string{"janky", "demo", "stress"} {
		for _, hz := range []float64{60, 120} {
			capture, _, _ := simCapture(t, sc, nil, hz, 40*time.Second, time.Second, 7)
			path := t.TempDir() + "/c.txt"
			if err := os.WriteFile(path, capture, 0o644); err != nil {
				t.Fatal(err)
			}
			var o, e bytes.Buffer
			code := cli.Main(context.Background(), []string{"--input", path, "--headless", "--json"}, cli.Env{
				Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e,
				Getenv: func(string) string { return "" }, Build: buildinfo.Info{Version: "e2e"},
			})
			var r metrics.Report
			if err := json.Unmarshal(o.Bytes(), &r); code != cli.ExitOK || err != nil {
				t.Fatalf("%s %v Hz: exit %d (%v): %s", sc, hz, code, err, e.String())
			}
			if len(r.Warnings) > 0 || r.FramesLost == nil || *r.FramesLost != 0 || r.Frames < 500 {
				t.Errorf("%s %v Hz: %d frames, frames_lost %v, warnings %q", sc, hz, r.Frames, r.FramesLost, r.Warnings)
			}
		}
	}
}
