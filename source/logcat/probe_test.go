package logcat

import "testing"

func TestLogsLooper(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"03-10 06:00:01.000 23817 23817 D Looper  : >>>>> Dispatching to Handler (android.view.Choreographer$FrameHandler) {3b1a2c4} android.view.Choreographer$FrameDisplayEventReceiver@9f8e7d6: 0\n", true},
		{"03-10 06:00:01.000 23817 23817 W Looper  : Slow dispatch took 230ms main h=android.os.Handler c=com.example.feed.FeedActivity$3@1f2e3d m=0\n", true},
		{"03-10 06:00:01.000 23817 23817 W Looper  : Slow delivery took 310ms main h=android.app.ActivityThread$H c=null m=159\n", true},
		{"03-10 06:00:01.000 23817 23817 I Choreographer: Skipped 42 frames!  The application may be doing too much work on its main thread.\n" +
			"03-10 06:00:01.100 23817 23830 D OpenGLRenderer: Davey! duration=712ms\n", false},
		{"", false},
	} {
		if got := LogsLooper([]byte(c.text)); got != c.want {
			t.Errorf("LogsLooper(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
