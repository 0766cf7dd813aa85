package session

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestRecordingFailureSignals (issue 13): a recording whose writes fail signals it at once
// (Failed), keeps the error and is no longer active for the screen.
func TestRecordingFailureSignals(t *testing.T) {
	r, err := NewRecording("/dev/full", RecordOptions{Force: true})
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	r.tap([]source.Event{&source.Session{Source: source.KindSim, Package: "com.example.app"}, &source.Tick{NowNs: 1}})
	select {
	case <-r.Failed():
	default:
		t.Fatal("Failed not closed after a write failure")
	}
	if r.Err() == nil || !strings.Contains(r.Err().Error(), "/dev/full") {
		t.Errorf("Err %v", r.Err())
	}
	s := &Session{rec: r}
	if st := s.RecordingStatus(); st.Active || st.Err == nil {
		t.Errorf("status %+v: a failed recording is still active", st)
	}
}

// TestNewRecordingRefusesUncreatable: the path is checked before anything runs.
func TestNewRecordingRefusesUncreatable(t *testing.T) {
	_, err := NewRecording(filepath.Join(t.TempDir(), "nodir", "x.jsonl"), RecordOptions{})
	if !errors.Is(err, ErrCannotCreate) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("err %v", err)
	}
}
