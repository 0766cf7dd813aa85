package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNamedDeviceMissing is issue 11's item 4: a device the user named is never replaced by
// simulated numbers. Two phones are connected to a real adb server; `-s 127.0.0.1:9999` names
// one that is not. The dashboard (the real binary in tmux) opens the device picker saying so
// and never shows the simulator, before or after the picker is closed; the headless run and
// `--source gfxinfo` exit 3 with one sentence that names the serial.
func TestNamedDeviceMissing(t *testing.T) {
	t.Parallel()
	screenTest(t)
	env, x := twoPhones(t, "demo", "demo", 120)
	const missing = "127.0.0.1:9999"
	port := fmt.Sprint(env.Port)

	p := startPane(t, "--adb-port", port, "--no-mouse", "-s", missing)
	s := p.waitFor(15*time.Second, "device "+missing+" is not connected", env.Serial, x.Serial)
	if strings.Contains(s, "SIMULATOR") {
		t.Fatalf("a named device that is missing shows the simulator:\n%s", s)
	}
	p.key("Escape") // the picker closes: the screen waits for a choice, still no simulator
	until := time.Now().Add(2 * time.Second)
	for time.Now().Before(until) {
		if s := p.screen(); strings.Contains(s, "SIMULATOR") || strings.Contains(s, "simulator") {
			t.Fatalf("the simulator after the picker closed:\n%s", s)
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}

	// the same with an explicit source
	p = startPane(t, "--adb-port", port, "--no-mouse", "--source", "gfxinfo", "-s", missing)
	s = p.waitFor(15*time.Second, "device "+missing+" is not connected", env.Serial, x.Serial)
	if strings.Contains(s, "SIMULATOR") {
		t.Fatalf("--source gfxinfo with a missing named device shows the simulator:\n%s", s)
	}
	p.key("Escape")
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}

	for _, args := range [][]string{
		{"-s", missing, "--headless", "--duration", "2s"},
		{"-s", missing, "--source", "gfxinfo", "--headless", "--duration", "2s"},
		{"-s", missing, "-p", "com.example.feed", "--headless", "--duration", "2s", "--json"},
	} {
		out, errs, code := runCLI(env.Port, args...)
		if code != 3 || !strings.Contains(errs, "device "+missing+" is not connected") ||
			strings.Count(strings.TrimSpace(errs), "\n") != 0 || strings.Contains(out+errs, "simulator") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 3 and one sentence naming %s", args, code, out, errs, missing)
		}
	}
}
