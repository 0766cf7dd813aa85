package devsource

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// TestProbeNoteText: what the status line says while auto looks for the app's Looper lines —
// why a look could not tell, how many found none, when the next comes — and once they are
// found, why it reads gfxinfo+logcat.
func TestProbeNoteText(t *testing.T) {
	now := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	var none *ProbeNote
	if s := none.Text(now); s != "" {
		t.Errorf("no note: %q", s)
	}
	n := &ProbeNote{pkg: "com.example.app"}
	n.heard(source.JoinProgress{Err: fmt.Errorf("logcat -d: %w", context.DeadlineExceeded), Next: 2 * time.Second}, now)
	if s := n.Text(now.Add(500 * time.Millisecond)); !strings.Contains(s, "could not look for com.example.app's Looper lines") ||
		!strings.Contains(s, "deadline exceeded") || !strings.Contains(s, "again in 2 s") {
		t.Errorf("a failed look: %q", s)
	}
	n.heard(source.JoinProgress{Attempt: 1, Next: 4 * time.Second}, now.Add(2*time.Second))
	if s := n.Text(now.Add(2*time.Second + 3200*time.Millisecond)); !strings.Contains(s, "no Looper lines from com.example.app yet") ||
		!strings.Contains(s, "again in 1 s") || !strings.Contains(s, "looked 2×") {
		t.Errorf("two looks, none found: %q", s)
	}
	if s := n.Text(now.Add(time.Minute)); !strings.Contains(s, "looking again now") {
		t.Errorf("a look due: %q", s)
	}
	n.heard(source.JoinProgress{Attempt: 2, Joined: true}, now.Add(6*time.Second))
	if s := n.Text(now.Add(7 * time.Second)); s != looperNote("com.example.app") {
		t.Errorf("found: %q", s)
	}
}
