package device

import (
	"errors"
	"testing"
)

// An activity name from the device goes into `am start -n`: only Java class names pass, and
// '$' (nested classes) is quoted.
func TestValidActivity(t *testing.T) {
	for _, ok := range []string{".FeedActivity", "com.example.feed.Main", ".ui.Main$Inner", "_A"} {
		if err := ValidActivity(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".Feed;reboot", ".Feed Activity", "a..b", ".Main.", "1Main", ".Main`id`", ".Main'x", "-n"} {
		if err := ValidActivity(bad); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
	if got := shellQuote("com.example/.Main$Inner"); got != `'com.example/.Main$Inner'` {
		t.Errorf("quoted %s", got)
	}
}
