package tmuxctl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestAttachSendCapture types into `cat` through the control client and reads the echo back.
func TestAttachSendCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a tmux server")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("FPSTOP_REQUIRE_TMUX") == "1" {
			t.Fatal("tmux not found (FPSTOP_REQUIRE_TMUX=1)")
		}
		t.Skip("tmux not found")
	}
	sock := fmt.Sprintf("fpstop-tmuxctl-%d-%d", os.Getpid(), time.Now().UnixNano())
	if out, err := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "s", "-x", "80", "-y", "24", "cat").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	c, err := Attach(context.Background(), sock, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SendKeys("s", "it's $HOME \"quoted\"", "Enter"); err != nil {
		t.Fatal(err)
	}
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, err = c.Capture("s"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, `it's $HOME "quoted"`) {
			break
		}
	}
	if !strings.Contains(got, `it's $HOME "quoted"`) {
		t.Errorf("screen %q", got)
	}
	// the window keeps the session's size: a control client does not resize it
	if size, err := c.Command("display-message -p -t s '#{window_width}x#{window_height}'"); err != nil || size != "80x24" {
		t.Errorf("window size %q (%v)", size, err)
	}
	if _, err := c.Command("no-such-command"); err == nil {
		t.Error("an unknown command gave no error")
	}
}
