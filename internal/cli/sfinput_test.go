package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// sfText is what a saved --latency text says, read here without fpstop's parser: the period
// (the first lone number) and the presented frames (column 2, neither 0 nor INT64_MAX).
func sfText(t *testing.T, data string) (period int64, presents []int64) {
	t.Helper()
	for _, line := range strings.Split(data, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && period == 0:
			if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				period = v
			}
		case len(f) == 3 && period > 0:
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil && v != 0 && v != math.MaxInt64 {
				presents = append(presents, v)
			}
		}
	}
	return period, presents
}

// Every real SurfaceFlinger capture reads with --input: one holding frames gives a report whose
// frames, refresh rate and fps are the text's (fps: frames / (their span + one period, the
// first frame's)); one holding none says why in one line and exits 3. --source sf reads the
// same files the same way.
func TestSurfaceFlingerRealInput(t *testing.T) {
	var withFrames int
	for _, path := range realdata.Files(t, "surfaceflinger") {
		if strings.HasSuffix(path, ".md") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		period, presents := sfText(t, string(data))
		for _, src := range []string{"auto", "sf"} {
			out, errs, code := run(t, "", "--input", path, "--source", src, "--headless", "--json")
			name := filepath.Base(path) + " --source " + src
			if len(presents) == 0 {
				lines := strings.Split(strings.TrimSpace(errs), "\n")
				if code != ExitRuntime || len(lines) != 1 || !strings.Contains(errs, "surfaceflinger: ") ||
					!strings.Contains(errs, filepath.Base(path)) {
					t.Errorf("%s: exit %d, stderr %q: want exit 3 and one line saying why", name, code, errs)
				}
				continue
			}
			if code != ExitOK {
				t.Fatalf("%s: exit %d: %s", name, code, errs)
			}
			r := decode(t, out)
			n := len(presents)
			wantHz := math.Round(1e11/float64(period)) / 100
			wantFPS := float64(n) * 1e9 / float64(presents[n-1]-presents[0]+period)
			if r.Source != "surfaceflinger" || r.Frames != int64(n) || r.RefreshHz == nil || float64(*r.RefreshHz) != wantHz ||
				len(r.Layers) != 1 || r.Layers[0].Frames != int64(n) || r.FPS == nil || math.Abs(float64(*r.FPS)-wantFPS) > 0.01 {
				t.Errorf("%s: source %s frames %d refresh %v fps %v layers %+v; the text: %d frames, period %d (%.2f Hz, %.2f fps)",
					name, r.Source, r.Frames, r.RefreshHz, r.FPS, r.Layers, n, period, wantHz, wantFPS)
			}
			withFrames++
		}
	}
	if withFrames < 6 {
		t.Errorf("only %d readings with frames: the three --latency captures with rows, twice each", withFrames)
	}
}

// Several saved --latency dumps in one file (a script's successive polls): frames deduplicated
// by present time; a dump whose whole 127-record ring is newer than the last frame seen is a
// gap (frames_lost), its first frame counted and not judged, so a smooth 120 Hz layer reads
// 0 janky and its rate.
func TestSurfaceFlingerInputDumpsGap(t *testing.T) {
	const period = 8_333_333
	var b strings.Builder
	at := int64(5_000_000_000_000)
	dump := func(first, n int) { // records first..first+n-1 at 120 Hz
		b.WriteString(strconv.Itoa(period) + "\n")
		for i := first; i < first+n; i++ {
			p := at + int64(i)*period
			b.WriteString(strconv.FormatInt(p-period, 10) + "\t" + strconv.FormatInt(p, 10) + "\t" + strconv.FormatInt(p-period/2, 10) + "\n")
		}
		b.WriteString("\n")
	}
	dump(0, 127)
	dump(60, 127)  // overlaps: 60 new
	dump(300, 127) // 113 frames (187..299) overwritten before this dump
	path := filepath.Join(t.TempDir(), "polls.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, "", "--input", path, "--headless", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	if r.Frames != 187+127 || r.JankyFrames != 0 || r.FramesLost == nil || *r.FramesLost != 113 || r.DropLevels.Frozen != 0 ||
		len(r.Layers) != 1 || r.Layers[0].FramesLost != 113 || math.Abs(float64(*r.FPS)-120) > 0.01 {
		t.Errorf("frames %d janky %d lost %v frozen %d fps %v layers %+v", r.Frames, r.JankyFrames, r.FramesLost, r.DropLevels.Frozen, r.FPS, r.Layers)
	}
}

// A saved --timestats -dump: the app's layer with the most frames is measured over the stats
// period (statsStart → statsEnd), per interval; a dump with no layer frames says so.
func TestSurfaceFlingerInputTimestats(t *testing.T) {
	text := "SurfaceFlinger TimeStats:\nLegacy stats are as follows:\nstatsStart = 1000\nstatsEnd = 1010\ntotalFrames = 700\n" +
		"displayRefreshRate = 120 fps\nrenderRate = 60 fps\nuid = 10234\nlayerName = SurfaceView[g.x/g.x.Game]@0(BLAST)#9\npackageName = g.x\n" +
		"totalFrames = 600\ndroppedFrames = 2\npresent2present histogram is as below:\n0ms=0 16ms=600\n" +
		"displayRefreshRate = 120 fps\nrenderRate = 120 fps\nuid = 10234\nlayerName = g.x/g.x.Game#8\npackageName = g.x\n" +
		"totalFrames = 100\ndroppedFrames = 0\npresent2present histogram is as below:\n0ms=0 8ms=100\n"
	path := filepath.Join(t.TempDir(), "ts.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, "", "--input", path, "-p", "g.x", "--headless", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	if len(r.Layers) != 2 || r.Layers[0].Name != "SurfaceView[g.x/g.x.Game]@0(BLAST)#9" || !r.Layers[0].Measured ||
		!r.Layers[0].PerInterval || r.Layers[0].Frames != 600 || math.Abs(float64(*r.Layers[0].FPS)-60) > 0.5 {
		t.Errorf("layers %+v", r.Layers)
	}
	_, errs, code = run(t, "", "--input", path, "-p", "other.app", "--headless", "--json")
	if code != ExitRuntime || !strings.Contains(errs, "no layer of other.app with frames") {
		t.Errorf("other app: exit %d %q", code, errs)
	}
}
