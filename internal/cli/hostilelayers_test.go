package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// hostileLayerRecording writes a SurfaceFlinger recording whose layer is named by a hostile
// app, with a warning quoting that name.
func hostileLayerRecording(t *testing.T) string {
	t.Helper()
	T := int64(16_666_667)
	t0 := int64(7_000_000_000_000)
	layer := "SurfaceView[Pay\u202eyaP.apk]\u200b(BLAST)#12"
	hdr := record.Header{Format: record.FormatVersion, FpstopVersion: "test", Source: source.KindSurfaceFlinger,
		Package: "com.example.game", RefreshHz: 60, CostBasis: source.CostFrame, StartUTC: time.Unix(0, 0), StartMonoNs: t0}
	path := filepath.Join(t.TempDir(), "layers.jsonl")
	w, err := record.Create(path, hdr, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := []source.Event{&source.Notice{AtNs: t0, Level: source.LevelWarn, Text: "surfaceflinger: layer " + layer + " \u2066stalled"}}
	for i := 0; i < 300; i++ {
		p := t0 + int64(i)*T
		if i%50 == 49 {
			p += 3 * T // a stutter now and then: worst frames name the layer
		}
		evs = append(evs, &source.LayerFrame{Layer: layer, DesiredNs: p - T, ReadyNs: p - T/2, PresentNs: p, PeriodNs: T})
	}
	evs = append(evs, &source.Tick{NowNs: t0 + 310*T})
	if err := w.Write(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostileLayerNamesAndWarnings (issue 31): a layer name and a warning text holding bidi and
// zero-width characters reach no report format unescaped.
func TestHostileLayerNamesAndWarnings(t *testing.T) {
	rec := hostileLayerRecording(t)
	for _, format := range []string{"json", "md", "csv", "html"} {
		out, errs, code := run(t, "", "report", rec, "--format", format)
		if code != ExitOK {
			t.Fatalf("%s: exit %d %s", format, code, errs)
		}
		if format == "csv" {
			// (The CSV lists window frames only: it must hold no raw invisible character.)
			if strings.ContainsAny(out, "\u202e\u200b\u2066") {
				t.Errorf("csv: an invisible character reached the output")
			}
			continue
		}
		noInvisible(t, format, out)
		if format == "json" && (!strings.Contains(out, `SurfaceView[Pay\\u202eyaP.apk]\\u200b(BLAST)#12`) ||
			!strings.Contains(out, `\\u2066stalled`)) {
			t.Errorf("json: the layer or the warning is not shown escaped:\n%.2000s", out)
		}
	}
}
