package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// simSource is a reproducible simulated run of d, as fast as possible.
func simSource(t *testing.T, d time.Duration, seed int64) source.Source {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: "demo", Hz: 60, Seed: seed, Speed: 0, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// direct applies src straight to a pipeline, the reference the session must agree with.
func direct(t *testing.T, src source.Source) *metrics.Report {
	t.Helper()
	p := metrics.NewPipeline(metrics.Config{})
	ch := make(chan []source.Event, 64)
	go func() { _ = src.Run(context.Background(), ch); close(ch) }()
	for b := range ch {
		p.AddBatch(b)
	}
	return p.Report(metrics.ReportMeta{})
}

// blocking sends one batch and then waits for its context.
type blocking struct{ batch []source.Event }

func (b blocking) Run(ctx context.Context, out chan<- []source.Event) error {
	select {
	case out <- b.batch:
	case <-ctx.Done():
	}
	<-ctx.Done()
	return ctx.Err()
}

// gated runs inner once open is closed.
type gated struct {
	open  chan struct{}
	inner source.Source
}

func (g gated) Run(ctx context.Context, out chan<- []source.Event) error {
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.inner.Run(ctx, out)
}

type failing struct{ err error }

func (f failing) Run(context.Context, chan<- []source.Event) error { return f.err }

func TestEveryBatchReachesTheReport(t *testing.T) {
	want := direct(t, simSource(t, 20*time.Second, 3))
	if want.Frames < 100 {
		t.Fatalf("reference run has %d frames", want.Frames)
	}
	s := Start(context.Background(), Config{}, simSource(t, 20*time.Second, 3), nil)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := s.Report(metrics.ReportMeta{})
	if got.Frames != want.Frames || got.JankyFrames != want.JankyFrames {
		t.Fatalf("session: %d frames, %d janky; the pipeline alone: %d, %d", got.Frames, got.JankyFrames, want.Frames, want.JankyFrames)
	}
	if l := s.Latest(); l.Totals.Frames != want.Frames {
		t.Errorf("the last snapshot has %d frames, want %d", l.Totals.Frames, want.Frames)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestWaitReturnsTheSourceError(t *testing.T) {
	boom := errors.New("adb went away")
	s := Start(context.Background(), Config{}, failing{boom}, nil)
	if err := s.Wait(); !errors.Is(err, boom) {
		t.Fatalf("Wait: %v, want %v", err, boom)
	}
	_ = s.Close()
	// A source stopped by its context (--duration) is not an error.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s = Start(ctx, Config{}, blocking{}, nil)
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait after the context ended: %v", err)
	}
	_ = s.Close()
}

func TestAnnounceEnd(t *testing.T) {
	s := Start(context.Background(), Config{AnnounceEnd: true, ErrorText: func(error) string { return "short" }},
		failing{errors.New("long. story")}, nil)
	waitFor(t, func() bool { return strings.Contains(s.Latest().StateText, "short") }, func() string {
		return s.Latest().StateText
	})
	_ = s.Close()
}

// waitFor polls ok (a deadline, not a timing assertion).
func waitFor(t *testing.T, ok func() bool, last func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out; last: %s", last())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSwitchClearsAndRunsTheNext(t *testing.T) {
	ctx := context.Background()
	s := Start(ctx, Config{Refresh: 10 * time.Millisecond}, simSource(t, 10*time.Second, 1), nil)
	defer s.Close()
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Latest().Totals.Frames > 0 }, func() string { return "no frames" })
	before := s.Latest().Totals.Frames
	next := blocking{batch: []source.Event{&source.Session{Source: source.KindGfxinfo, Package: "com.example.next"}}}
	if err := s.Switch(ctx, next); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Latest().Session.Package == "com.example.next" }, func() string {
		return s.Latest().Session.Package
	})
	if f := s.Latest().Totals.Frames; f != 0 {
		t.Errorf("after Switch the statistics still count %d frames (had %d)", f, before)
	}
	s.Clear()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Switch(ctx, next); err == nil {
		t.Error("Switch after Close did not fail")
	}
}

func TestRecordingFromTheDashboard(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	open := make(chan struct{})
	s := Start(ctx, Config{Recording: RecordOptions{Dir: dir, Version: "test"}}, gated{open, simSource(t, 5*time.Second, 2)}, nil)
	// Started before any batch: the file exists at once, with the session known so far.
	path, err := s.StartRecording("")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir {
		t.Errorf("recording in %s, want %s", filepath.Dir(path), dir)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the file was not created at once: %v", err)
	}
	if again, _ := s.StartRecording(""); again != path {
		t.Errorf("a second start made %s", again)
	}
	if st := s.RecordingStatus(); !st.Active || st.Path != path || st.Err != nil {
		t.Errorf("status %+v", st)
	}
	close(open)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // ends the recording
		t.Fatal(err)
	}
	if st := s.RecordingStatus(); st.Active {
		t.Error("still recording after Close")
	}
	_, evs, err := recordtest.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	frames, closed := 0, true
	for _, ev := range evs {
		switch ev := ev.(type) {
		case *source.Frame:
			frames++
		case *source.Notice:
			closed = closed && !strings.Contains(ev.Text, "has no end line")
		}
	}
	if rep := s.Report(metrics.ReportMeta{}); frames == 0 || int64(frames) != rep.Frames || !closed {
		t.Errorf("recorded %d frames (closed %v), the report counts %d", frames, closed, rep.Frames)
	}
}

func TestRecordingFromTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	rec, err := NewRecording(path, RecordOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s := Start(context.Background(), Config{}, simSource(t, 3*time.Second, 4), rec)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	h, _, err := recordtest.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source == "" {
		t.Errorf("header without the source's session: %+v", h)
	}
	if _, err := NewRecording(path, RecordOptions{}); !errors.Is(err, ErrExists) {
		t.Errorf("an existing file: %v, want ErrExists", err)
	}
	if _, err := NewRecording(path, RecordOptions{Force: true}); err != nil {
		t.Errorf("an existing file with Force: %v", err)
	}
}

func TestNothingRecorded(t *testing.T) {
	rec, err := NewRecording(filepath.Join(t.TempDir(), "empty.jsonl"), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := Start(context.Background(), Config{}, failing{nil}, rec)
	_ = s.Wait()
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "nothing was recorded") {
		t.Fatalf("Close: %v, want nothing was recorded", err)
	}
}

// TestSwitchDeviceNamesThePhoneAtOnce: right after SwitchDevice, before the new source has
// sent anything (it decides what to read first), the snapshot names the picked phone and app
// in the waiting state with the connecting text, not the old phone nor nothing; once the
// source's Session arrives the session is the source's and the state live.
func TestSwitchDeviceNamesThePhoneAtOnce(t *testing.T) {
	ctx := context.Background()
	s := Start(ctx, Config{Refresh: 10 * time.Millisecond}, simSource(t, 10*time.Second, 1), nil)
	defer s.Close()
	waitFor(t, func() bool { return s.Latest().Totals.Frames > 0 }, func() string { return "no frames" })
	open := make(chan struct{})
	dev := source.Session{Device: source.Device{Serial: "R5CT1", Model: "SM-G991B", Android: "13"}, Package: "com.example.next"}
	next := gated{open, blocking{batch: []source.Event{&source.Session{Source: source.KindGfxinfo,
		Device: dev.Device, Package: dev.Package, RefreshHz: 120}}}}
	if err := s.SwitchDevice(ctx, next, dev, "connecting to SM-G991B (R5CT1)"); err != nil {
		t.Fatal(err)
	}
	// No wait: SwitchDevice returned after the snapshot was published.
	snap := s.Latest()
	if snap.Session.Device != dev.Device || snap.Session.Package != dev.Package || snap.Session.Source != "" {
		t.Errorf("after SwitchDevice the session is %+v, want the picked phone and app, no source yet", snap.Session)
	}
	if snap.State != source.StateWaiting || snap.StateText != "connecting to SM-G991B (R5CT1)" || snap.Totals.Frames != 0 {
		t.Errorf("after SwitchDevice: state %q %q, %d frames; want waiting, the connecting text, none",
			snap.State, snap.StateText, snap.Totals.Frames)
	}
	close(open)
	waitFor(t, func() bool { return s.Latest().Session.Source == source.KindGfxinfo }, func() string {
		return string(s.Latest().Session.Source)
	})
	if snap := s.Latest(); snap.State != source.StateLive || snap.StateText != "" {
		t.Errorf("connected: state %q %q, want live without the connecting text", snap.State, snap.StateText)
	}
}

// TestConnectingAtStart: Connecting names the phone while the first source has said nothing,
// and does nothing once it has (the source's Session and live state stay).
func TestConnectingAtStart(t *testing.T) {
	ctx := context.Background()
	dev := source.Session{Device: source.Device{Serial: "R5CT1", Model: "SM-G991B"}, Package: "com.example.next"}
	open := make(chan struct{})
	src := gated{open, blocking{batch: []source.Event{&source.Session{Source: source.KindGfxinfo, Device: dev.Device, Package: dev.Package}}}}
	s := Start(ctx, Config{Refresh: 10 * time.Millisecond}, src, nil)
	defer s.Close()
	s.Connecting(dev, "connecting to SM-G991B (R5CT1)…")
	if snap := s.Latest(); snap.Session.Device != dev.Device || snap.State != source.StateWaiting || snap.StateText == "" {
		t.Errorf("before the source spoke: session %+v state %q %q, want the phone, waiting, the text", snap.Session, snap.State, snap.StateText)
	}
	close(open)
	waitFor(t, func() bool { return s.Latest().Session.Source == source.KindGfxinfo }, func() string { return string(s.Latest().State) })
	s.Connecting(source.Session{Device: source.Device{Serial: "other"}}, "connecting to other…")
	if snap := s.Latest(); snap.Session.Device != dev.Device || snap.State != source.StateLive || snap.StateText != "" {
		t.Errorf("Connecting after the source's Session changed it: session %+v state %q %q", snap.Session, snap.State, snap.StateText)
	}
}
