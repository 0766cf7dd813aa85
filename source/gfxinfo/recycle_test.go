package gfxinfo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fpstop/fpstop/internal/benchgen"
	"github.com/fpstop/fpstop/internal/realdata"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

// plainSource hides a source's Release: the session never hands batches back, so nothing is
// reused (the reference every recycled run must equal).
type plainSource struct{ src source.Source }

func (p plainSource) Run(ctx context.Context, out chan<- []source.Event) error {
	return p.src.Run(ctx, out)
}

// replayed is what a capture replay through a session shows: the report, and the last
// snapshot's recent frames (with their phases) and frame history, and its windows.
type replayed struct {
	report, recent, windows []byte
	reused, poisoned        int64
}

// replay runs path through a session: "plain" without recycling, "recycled", or "poisoned"
// (released storage overwritten and never used again).
func replay(t *testing.T, path, mode string) replayed {
	t.Helper()
	src := gfxinfo.FromFile(path)
	run := src
	switch mode {
	case "plain":
		run = plainSource{src}
	case "poisoned":
		gfxinfo.PoisonReleased(src)
	}
	s := session.Start(context.Background(), session.Config{}, run, nil)
	if err := s.Wait(); err != nil {
		t.Fatalf("%s (%s): %v", filepath.Base(path), mode, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var r replayed
	var err error
	if r.report, err = json.Marshal(s.Report(metrics.ReportMeta{SourceArg: "gfxinfo"})); err != nil {
		t.Fatal("report: ", err)
	}
	l := s.Latest()
	r.recent = valueText(valueText(nil, reflect.ValueOf(l.Recent)), reflect.ValueOf(l.History))
	r.windows = valueText(nil, reflect.ValueOf(l.Windows))
	r.reused, r.poisoned = gfxinfo.RecycledSlabs(src)
	return r
}

// valueText appends v's text to b: every field, through pointers (a snapshot's "not known"
// NaNs, which JSON refuses, included).
func valueText(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "nil"...)
		}
		return valueText(append(b, '&'), v.Elem())
	case reflect.Struct:
		b = append(b, '{')
		for i := range v.NumField() {
			b = valueText(append(b, v.Type().Field(i).Name+":"...), v.Field(i))
			b = append(b, ' ')
		}
		return append(b, '}')
	case reflect.Slice, reflect.Array:
		b = append(b, '[')
		for i := range v.Len() {
			b = append(valueText(b, v.Index(i)), ' ')
		}
		return append(b, ']')
	case reflect.Map:
		return fmt.Appendf(b, "map of %d", v.Len()) // (no map in a snapshot's frames or windows)
	default:
		return fmt.Appendf(b, "%v", v)
	}
}

// sameReplay fails unless a recycled or poisoned replay shows exactly what the plain one does.
func sameReplay(t *testing.T, name, mode string, want, got replayed) {
	t.Helper()
	for _, c := range []struct {
		what      string
		want, got []byte
	}{{"report", want.report, got.report}, {"recent frames", want.recent, got.recent}, {"windows", want.windows, got.windows}} {
		if !bytes.Equal(c.want, c.got) {
			t.Errorf("%s: %s replay's %s differs from the plain one:\n got %.600s\nwant %.600s", name, mode, c.what, c.got, c.want)
		}
	}
}

// genCapture writes a generated framestats capture of rows rows in layout to a temporary file.
func genCapture(t *testing.T, layout, rows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "framestats.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if _, err := benchgen.Framestats(w, layout, rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecycledReplayShowsTheSame: a capture replay whose batches the pipeline hands back reuses
// their storage (source.Recycler), and shows exactly what a replay that allocates every event
// anew shows; with the released storage poisoned instead (any read of a released event sees
// nonsense) it shows the same again, so nothing downstream reads an event after its batch was
// handed back. Generated captures of both layouts: ~470 dumps, slabs retired and reused many
// times.
func TestRecycledReplayShowsTheSame(t *testing.T) {
	for _, layout := range []int{17, 23} {
		path := genCapture(t, layout, 60_000)
		name := filepath.Base(path) + "/" + map[int]string{17: "17 columns", 23: "23 columns"}[layout]
		plain := replay(t, path, "plain")
		if plain.reused != 0 || plain.poisoned != 0 {
			t.Fatalf("%s: a replay whose batches are never handed back reused %d slabs, poisoned %d", name, plain.reused, plain.poisoned)
		}
		rec := replay(t, path, "recycled")
		if rec.reused < 50 {
			t.Errorf("%s: the recycled replay reused %d slabs, want many (is Release reaching the source?)", name, rec.reused)
		}
		sameReplay(t, name, "recycled", plain, rec)
		poisoned := replay(t, path, "poisoned")
		if poisoned.poisoned < 50 || poisoned.reused != 0 {
			t.Errorf("%s: the poisoned replay poisoned %d slabs and reused %d, want many and none", name, poisoned.poisoned, poisoned.reused)
		}
		sameReplay(t, name, "poisoned", plain, poisoned)
	}
}

// TestRecycledRealCapturesShowTheSame is the same for every real capture (one or a few dumps
// each: what they check is that a short replay, damage and odd layouts included, is unchanged).
func TestRecycledRealCapturesShowTheSame(t *testing.T) {
	for _, path := range realdata.Files(t, "gfxinfo") {
		plain := replay(t, path, "plain")
		sameReplay(t, filepath.Base(path), "recycled", plain, replay(t, path, "recycled"))
		sameReplay(t, filepath.Base(path), "poisoned", plain, replay(t, path, "poisoned"))
	}
}

// TestPoisonCatchesAKeptFrame: the poisoned mode does catch a consumer that keeps a frame past
// handing its batch back (so the tests above could fail): this one keeps the first frame it
// gets, and by the end of the replay that frame reads as poison.
func TestPoisonCatchesAKeptFrame(t *testing.T) {
	path := genCapture(t, 23, 20_000)
	src := gfxinfo.FromFile(path)
	gfxinfo.PoisonReleased(src)
	rec := src.(source.Recycler)
	out := make(chan []source.Event, 2)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), out); close(out) }()
	var kept *source.Frame
	var keptVsync int64
	for batch := range out {
		for _, ev := range batch {
			if f, ok := ev.(*source.Frame); ok && kept == nil {
				kept, keptVsync = f, f.VsyncNs
			}
		}
		rec.Release(batch)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if kept == nil {
		t.Fatal("no frame replayed")
	}
	if kept.VsyncNs != -gfxinfo.PoisonNs || kept.Phases == nil || kept.Phases.SyncStart != -gfxinfo.PoisonNs {
		t.Errorf("a frame kept after its batch was released reads vsync %d (was %d), phases %+v: want the poison", kept.VsyncNs, keptVsync, kept.Phases)
	}
	if _, poisoned := gfxinfo.RecycledSlabs(src); poisoned == 0 {
		t.Error("nothing was poisoned")
	}
}

// TestUnreleasedBatchesAreNeverReused: a consumer that never hands batches back (a test reading
// Run's channel, a live poller's consumer) gets new storage for every event: the frames it kept
// from the first batch are intact at the end.
func TestUnreleasedBatchesAreNeverReused(t *testing.T) {
	path := genCapture(t, 17, 20_000)
	src := gfxinfo.FromFile(path)
	out := make(chan []source.Event, 2)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), out); close(out) }()
	var first []source.Frame // copies of the first batch's frames
	var kept []*source.Frame // the frames themselves
	n := 0
	for batch := range out {
		for _, ev := range batch {
			if f, ok := ev.(*source.Frame); ok && n == 0 {
				first, kept = append(first, *f), append(kept, f)
			}
		}
		n++
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n < 10 || len(kept) == 0 {
		t.Fatalf("%d batches, %d frames in the first: want many batches", n, len(kept))
	}
	for i, f := range kept {
		if *f != first[i] {
			t.Fatalf("frame %d of the first batch changed after the replay: %+v, was %+v", i, *f, first[i])
		}
	}
	if reused, _ := gfxinfo.RecycledSlabs(src); reused != 0 {
		t.Errorf("%d slabs reused without a release", reused)
	}
}
