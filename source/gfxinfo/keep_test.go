package gfxinfo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/source"
)

func runAll(t *testing.T, src source.Source) []source.Event {
	t.Helper()
	out := make(chan []source.Event, 8)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), out); close(out) }()
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestKeepProcess: -p with a dump of every process keeps that process's windows only — its
// frames, summaries and polls — and a process the dump does not have is said, never silently
// replaced by every process.
func TestKeepProcess(t *testing.T) {
	path := filepath.Join(realdata.Dir(t, "gfxinfo"), "anavmode-topicon-t865-android13plus-framestats-allprocs.txt")
	t.Run("settings", func(t *testing.T) {
		evs := runAll(t, KeepProcess(FromFile(path), "com.android.settings"))
		windows := map[string]int{}
		for _, ev := range evs {
			switch e := ev.(type) {
			case *source.Frame:
				if e.Process != "com.android.settings" {
					t.Fatalf("frame of %q kept", e.Process)
				}
				windows[e.Window]++
			case *source.AndroidSummary:
				if e.Process != "com.android.settings" {
					t.Fatalf("summary of %q kept", e.Process)
				}
			case *source.Poll:
				if e.Pid != 1955 { // "** Graphics info for pid 1955 [com.android.settings] **"
					t.Fatalf("poll of pid %d kept", e.Pid)
				}
			case *source.Session:
				if e.Package != "com.android.settings" {
					t.Errorf("session package %q", e.Package)
				}
			case *source.Notice:
				if strings.HasPrefix(e.Text, "-p ") {
					t.Errorf("notice %q for a process the dump has", e.Text)
				}
			}
		}
		// The capture's three Settings windows and their framestats rows (SubSettings prints
		// 79 rows, the home page 65; SpaActivity's ring holds 117 of its 160 frames).
		if len(windows) != 3 || windows["com.android.settings/com.android.settings.SubSettings"] != 79 ||
			windows["com.android.settings/com.android.settings.homepage.SettingsHomepageActivity"] != 65 {
			t.Errorf("windows %v", windows)
		}
	})
	t.Run("missing", func(t *testing.T) {
		evs := runAll(t, KeepProcess(FromFile(path), "com.example.absent"))
		var said []string
		for _, ev := range evs {
			switch e := ev.(type) {
			case *source.Frame, *source.AndroidSummary, *source.Poll:
				t.Fatalf("%T kept for a process the dump does not have", e)
			case *source.Notice:
				if strings.HasPrefix(e.Text, "-p com.example.absent: no process") {
					said = append(said, e.Text)
					if e.Level != source.LevelWarn || !strings.Contains(e.Text, "com.android.settings") {
						t.Errorf("notice %+v", e)
					}
				}
			}
		}
		if len(said) != 1 {
			t.Errorf("%d notices about the missing process, want 1", len(said))
		}
	})
}
