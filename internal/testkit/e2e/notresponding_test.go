package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// TestPhoneNotResponding (issue 31): a phone that stops answering (the adb server frozen for
// 5 s, so the dump goes unanswered) gets a "not responding" warning in the report — neither
// damage nor idle — and the run goes on: in gfxinfo mode (`dumpsys gfxinfo`) and in
// SurfaceFlinger mode (`dumpsys SurfaceFlinger`, the run going on measuring the layer). Both
// modes run in parallel: they wait on real time and the bound (3 s unanswered, in a 5 s stall)
// is wide.
func TestPhoneNotResponding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts adb and the binary")
	}
	t.Parallel()
	t.Run("gfxinfo", func(t *testing.T) {
		t.Parallel()
		ph := startPhone(t, 60, "smooth", 3, 0)
		runStalled(t, startEnv(t, ph), "dumpsys gfxinfo", "--source", "gfxinfo")
	})
	t.Run("surfaceflinger", func(t *testing.T) {
		t.Parallel()
		g := startGamePhone(t, 120, "game", fakeadb.SFAndroid14)
		env := g.env(t)
		defer g.stop()
		runStalled(t, env, "dumpsys SurfaceFlinger", "--source", "sf", "-p", pkg)
	})
}

// runStalled runs fpstop headless for 14 s with args, stalls the adb server 5 s of it from 4 s
// in, and checks the report says the phone did not answer dump (after 3 s), went on measuring,
// and took the hang for no damage.
func runStalled(t *testing.T, env *adbtest.Env, dump string, args ...string) {
	t.Helper()
	args = append([]string{"--adb-port", fmt.Sprint(env.Port)}, args...)
	cmd := exec.Command(binary(t), append(args, "--headless", "--json", "--duration", "14s")...)
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
	if !strings.Contains(out.String(), "the phone is not responding: `"+dump+"` unanswered for 3 s") {
		t.Errorf("no not-responding warning; stderr %q\n%.3000s", errb.String(), out.String())
	}
	if !strings.Contains(out.String(), `"frames": `) || strings.Contains(out.String(), `"frames": 0,`) {
		t.Errorf("the run did not go on measuring:\n%.1500s", out.String())
	}
	if strings.Contains(out.String(), "damaged") {
		t.Errorf("a hung phone reported as damage:\n%.3000s", out.String())
	}
}
