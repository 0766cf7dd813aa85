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
