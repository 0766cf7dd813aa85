package device

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestTroubleWords: the adb server's answers for an unplugged, offline or unauthorized phone
// and a missing server say in plain words what happened (source.Trouble), through the wrapping
// the shell helpers add; the full message keeps the serial and the server's words for the log.
func TestTroubleWords(t *testing.T) {
	c := &Client{addr: "127.0.0.1:5037"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{c.deviceErr("R5CT", &FailError{Request: "host:transport:R5CT", Message: "device 'R5CT' not found"}), "phone disconnected"},
		{c.deviceErr("R5CT", &FailError{Request: "host:transport:R5CT", Message: "device offline"}), "phone disconnected"},
		{c.deviceErr("R5CT", &FailError{Request: "host:transport:R5CT", Message: "device unauthorized."}), "phone unauthorized: accept the USB debugging prompt on it"},
		{&serverDownError{addr: "127.0.0.1:5037", err: errors.New("connection refused")}, "the adb server is not running (`adb start-server`)"},
	} {
		var tr source.Trouble
		err := fmt.Errorf("adb shell dumpsys gfxinfo com.example.feed framestats: %w", tc.err)
		if !errors.As(err, &tr) || tr.Trouble() != tc.want {
			t.Errorf("%v: trouble %v, want %q", err, tr, tc.want)
		}
	}
	if err := c.deviceErr("R5CT", &FailError{Request: "host:transport:R5CT", Message: "device 'R5CT' not found"}); !errors.Is(err, ErrDeviceNotFound) {
		t.Errorf("%v does not match ErrDeviceNotFound", err)
	}
}
