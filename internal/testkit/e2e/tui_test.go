package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// binary is the real fpstop, built once per test binary (so once for -count=N) for the tests
// that start it.
func binary(t testing.TB) string {
	t.Helper()
	return testkit.Binary(t)
}

// screenSlots bounds the tests that read the dashboard in tmux to two at once, whatever
// -parallel allows: their screen samplers and the real binary's redraws are what a crowded
// machine starves first (six tests at once did), while a headless test beside them only
// waits on its phone's clock.
var screenSlots = make(chan struct{}, 2)

// screenHolders are the tests holding one of screenSlots.
var screenHolders sync.Map

// screenTest marks t as a test that reads the dashboard in tmux: it waits for one of
// screenSlots and holds it to its end. Call it first thing, after t.Parallel (a paused test
// holding a slot would keep it from the serial tests) and before the test starts its phone (so
// the phone's clock and the test's script stay together).
func screenTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the dashboard test starts tmux and the real binary")
	}
	screenSlots <- struct{}{}
	screenHolders.Store(t, true)
	t.Cleanup(func() {
		screenHolders.Delete(t)
		<-screenSlots
	})
}

// pane is the real binary running in a private tmux server.
type pane struct {
	t      *testing.T
	sock   string
	target string // its tmux session
	home   string // fpstop's HOME (its log under .cache/fpstop)
}

func startPane(t *testing.T, args ...string) *pane {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the dashboard test starts tmux and the real binary")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("FPSTOP_REQUIRE_TMUX") == "1" {
			t.Fatal("tmux not found (FPSTOP_REQUIRE_TMUX=1)")
		}
		t.Skip("tmux not found: skipping the dashboard test")
	}
	if _, ok := screenHolders.Load(t); !ok {
		t.Fatal("startPane: the test did not call screenTest(t) first")
	}
	p := &pane{t: t, sock: fmt.Sprintf("fpstop-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), target: "fpstop"}
	home := t.TempDir()
	p.home = home
	cmd := []string{"env", "HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_CACHE_HOME=" + home + "/.cache",
		"LANG=C.UTF-8", "TERM=xterm-256color", binary(t)}
	cmd = append(cmd, args...)
	if out, err := exec.Command("tmux", append([]string{"-L", p.sock, "-f", "/dev/null", "new-session", "-d", "-s", p.target, "-x", "120", "-y", "40"}, cmd...)...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.sock, "kill-server").Run() })
	return p
}

func (p *pane) screen() string {
	out, _ := exec.Command("tmux", "-L", p.sock, "capture-pane", "-p").Output()
	return string(out)
}

// waitFor polls the screen until every text appears (deadline, not a timing assertion).
func (p *pane) waitFor(d time.Duration, texts ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := p.screen()
		ok := true
		for _, x := range texts {
			if !strings.Contains(s, x) {
				ok = false
			}
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %v for %q; the screen shows:\n%s", d, texts, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *pane) key(k string) {
	_ = exec.Command("tmux", "-L", p.sock, "send-keys", k).Run()
	time.Sleep(150 * time.Millisecond)
}

// exited reports whether the pane's program is gone (the session closes with it).
func (p *pane) exited(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if exec.Command("tmux", "-L", p.sock, "has-session").Run() != nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// TestDashboardOnDevice: `fpstop` alone, one device: straight to the foreground app with live
// numbers; `d` lists the device. Then a second device: the picker opens by itself, and picking
// the device and the app starts the numbers.
func TestDashboardOnDevice(t *testing.T) {
	t.Parallel()
	screenTest(t)
	ph := startPhone(t, 90, "demo", 8, 0)
	env := startEnv(t, ph)

	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(15*time.Second, "Pixel 7", "com.example.feed", "90 Hz", "gfxinfo")
	s := p.waitFor(15*time.Second, "FeedActivity")
	if strings.Contains(s, "SIMULATOR") {
		t.Fatalf("the dashboard fell back to the simulator:\n%s", s)
	}
	p.key("d")
	p.waitFor(10*time.Second, env.Serial)
	p.key("Escape")
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}

	// A second device on the same server.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	second, err := fakeadb.Start(ctx, fakeadb.Config{Handler: ph.handler, Model: "Pixel 8", Android: "15", SDK: 35})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if out, err := env.Adb("connect", second.Addr()); err != nil {
		t.Fatalf("adb connect: %v %s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _ := env.Adb("devices")
		if strings.Count(string(out), "\tdevice") >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("second device not online: %s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	p2 := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p2.waitFor(15*time.Second, env.Serial, second.Addr()) // the picker opened by itself
	p2.key("Enter")                                       // the first device
	p2.waitFor(10*time.Second, "com.example.feed")        // the app picker, foreground app first
	p2.key("Enter")
	s = p2.waitFor(20*time.Second, "FeedActivity", "90 Hz")
	if strings.Contains(s, "SIMULATOR") {
		t.Fatalf("fell back to the simulator:\n%s", s)
	}
	p2.key("q")
	if !p2.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p2.screen())
	}
}
