package cli

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestCommandLinePolish: the small command-line promises of issue 12.
func TestCommandLinePolish(t *testing.T) {
	// replay without a file prints its usage, not only cobra's arity message
	_, errs, code := run(t, "", "replay")
	if code != ExitUsage || !strings.Contains(errs, "Usage:\n  fpstop replay FILE") || !strings.Contains(errs, "--speed") {
		t.Errorf("replay without a file: exit %d, stderr:\n%s", code, errs)
	}
	// the drop-levels error names the flag
	_, errs, code = run(t, "", "--source", "sim", "--headless", "--drop-levels", "3,3,4,5")
	if code != ExitUsage || !strings.HasPrefix(errs, "fpstop: --drop-levels: ") {
		t.Errorf("bad --drop-levels: exit %d, stderr %q", code, errs)
	}
	// a headless run rejects an unknown theme as the screen does
	_, errs, code = run(t, "", "--source", "sim", "--headless", "--duration", "1s", "--speed", "0", "--theme", "nope")
	if code != ExitUsage || !strings.Contains(errs, `unknown theme "nope"`) {
		t.Errorf("headless --theme nope: exit %d, stderr %q", code, errs)
	}
	// info asks the adb server the flags name (a closed loopback port: not reachable)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	out, errs, code := run(t, "", "info", "--adb-host", "127.0.0.1", "--adb-port", strconv.Itoa(port))
	if code != ExitOK || !strings.Contains(out, "adb server:    127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("info --adb-host/--adb-port: exit %d\n%s%s", code, out, errs)
	}
}

// `fpstop info` states what each source asks of the phone, from the pollers' pacing.
func TestInfoStatesDeviceCost(t *testing.T) {
	out, _, code := run(t, "", "info", "--adb-host", "127.0.0.1", "--adb-port", "1")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"device cost:", "`dumpsys gfxinfo PKG framestats` every 0.75 s at 120 Hz", "1.5 s at 60 Hz",
		"every 4 s (0.25/s)", "no pidof", "getprop` once per device connection",
		"a tracing session of at most 30 s", "written every\n                  100 ms", "started 5 s before its end", "read every 0.2 s"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
}
