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
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TestCleanCaptureHasNoWarnings: undamaged dumps of every frame-drawing scenario at 60 and
// 120 Hz (one a second) give a report without a damage warning and without frames_lost: a
// warning there is a false alarm (a four-window process's counter, growing 480 a second at
// 120 Hz, was taken for a damaged one 26 times).
func TestCleanCaptureHasNoWarnings(t *testing.T) {
	for _, sc := range []string{"janky", "demo", "stress"} {
		for _, hz := range []float64{60, 120} {
			s, err := sim.New(sim.Config{Scenario: sc, Hz: hz, Seed: 7, Speed: 0, Duration: 40 * time.Second, Package: pkg})
			if err != nil {
				t.Fatal(err)
			}
			dump := sim.NewGfxinfoDump(pkg, s.Config().Pid, 0)
			ch := make(chan []source.Event)
			errc := make(chan error, 1)
			go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
			var out bytes.Buffer
			poll := time.Second
			next := sim.StartNs + int64(poll)
			for b := range ch {
				dump.Observe(b)
				var now int64
				for _, ev := range b {
					if tk, ok := ev.(*source.Tick); ok && tk.NowNs > now {
						now = tk.NowNs
					}
				}
				for ; now >= next; next += int64(poll) {
					if err := dump.Render(&out, now, sim.LayoutAndroid13); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			path := t.TempDir() + "/c.txt"
			if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
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
