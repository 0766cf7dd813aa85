package source

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

type troubled struct{ what string }

func (e troubled) Error() string {
	return "adb shell dumpsys gfxinfo com.example.feed framestats: device X is not connected: device not found"
}
func (e troubled) Trouble() string { return e.what }

// TestRetryText: a device error that can say what happened is shown in those words, with how
// often fpstop retries, even wrapped; never the adb command that failed. Others keep their text.
func TestRetryText(t *testing.T) {
	err := fmt.Errorf("poll: %w", troubled{"phone disconnected"})
	if got, want := RetryText("gfxinfo", err, 5*time.Second), "phone disconnected — waiting for it; fpstop retries every 5 s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := RetryText("logcat", errors.New("boom"), 2500*time.Millisecond), "logcat: boom (fpstop retries every 2.5 s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
