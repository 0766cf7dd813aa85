package session

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// TestRecordingFailureSignals (issue 13): a recording whose writes fail signals it at once
// (Failed), keeps the error and is no longer active for the screen.
func TestRecordingFailureSignals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "full.jsonl")
	old := createWriter
	defer func() { createWriter = old }()
	createWriter = func(string, record.Header, record.Options) (writer, error) { return fullWriter{}, nil }
	r, err := NewRecording(path, RecordOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	r.tap([]source.Event{&source.Session{Source: source.KindSim, Package: "com.example.app"}, &source.Tick{NowNs: 1}})
	select {
	case <-r.Failed():
	default:
		t.Fatal("Failed not closed after a write failure")
	}
	if r.Err() == nil || !strings.Contains(r.Err().Error(), path) || !errors.Is(r.Err(), syscall.ENOSPC) {
		t.Errorf("Err %v", r.Err())
	}
	s := &Session{rec: r}
	if st := s.RecordingStatus(); st.Active || st.Err == nil {
		t.Errorf("status %+v: a failed recording is still active", st)
	}
}

// fullWriter fails every write as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]source.Event) error             { return syscall.ENOSPC }
func (fullWriter) Written() (int64, int64, time.Duration) { return 0, 0, 0 }
func (fullWriter) Close() error                           { return nil }

// TestNewRecordingRefusesUncreatable: the path is checked before anything runs.
func TestNewRecordingRefusesUncreatable(t *testing.T) {
	_, err := NewRecording(filepath.Join(t.TempDir(), "nodir", "x.jsonl"), RecordOptions{})
	if !errors.Is(err, ErrCannotCreate) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("err %v", err)
	}
}

// TestRecordingWaitsForTheSession: a device source sends its refresh rate before its Session;
// the header still carries the Session (device, app, source) and that rate, and nothing sent
// before it is lost — even when the source changes an event it sent afterwards.
func TestRecordingWaitsForTheSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	r, err := NewRecording(path, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := []source.Event{&source.Refresh{Hz: 90}, &source.Notice{AtNs: 5, Text: "connecting"}}
	r.tap(first)
	first[0].(*source.Refresh).Hz = 60 // the source changes what it sent
	r.tap([]source.Event{&source.Session{Source: source.KindGfxinfo, Device: source.Device{Serial: "S1", Model: "Pixel 7"}, Package: "com.example.app", StartMonoNs: 7},
		&source.Frame{Window: "w", VsyncNs: 10, DoneNs: 20}})
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	h, evs, err := recordtest.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != source.KindGfxinfo || h.Device.Serial != "S1" || h.Device.Model != "Pixel 7" || h.Package != "com.example.app" || h.RefreshHz != 90 || h.StartMonoNs != 7 {
		t.Errorf("header %+v", h)
	}
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, source.LineType(ev))
	}
	if got := strings.Join(kinds, ","); got != "refresh,notice,session,frame" {
		t.Errorf("events %s", got)
	}
	if rf, ok := evs[0].(*source.Refresh); !ok || rf.Hz != 90 {
		t.Errorf("first event %+v", evs[0])
	}
}
