package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPhoneNotResponding (issue 31): a phone that stops answering (the adb server frozen for
// 5 s, so `dumpsys gfxinfo` goes unanswered) gets a "not responding" warning in the report —
// neither damage nor idle — and the run goes on.
func TestPhoneNotResponding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts adb and the binary")
	}
	ph := startPhone(t, 60, "smooth", 3, 0)
	env := startEnv(t, ph)
	cmd := exec.Command(binary(t), "--adb-port", fmt.Sprint(env.Port), "--source", "gfxinfo", "--headless", "--json",
		"--duration", "14s")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second)
	if err := env.Stall(5 * time.Second); err != nil {
		t.Error(err)
	}
	_ = cmd.Wait()
	if !strings.Contains(out.String(), "the phone is not responding: `dumpsys gfxinfo` unanswered for 3 s") {
		t.Errorf("no not-responding warning; stderr %q\n%s", errb.String(), out.String())
	}
	if !strings.Contains(out.String(), `"frames": `) || strings.Contains(out.String(), `"frames": 0,`) {
		t.Errorf("the run did not go on measuring:\n%.1500s", out.String())
	}
}
