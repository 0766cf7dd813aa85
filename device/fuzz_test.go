package device

import (
	"context"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// shellSafe reports whether cmd, outside single-quoted words, uses only characters the shell
// gives no meaning to.
func shellSafe(cmd string) bool {
	inQuote := false
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case ch == '\'':
			inQuote = !inQuote
		case inQuote:
		case isIdentByte(ch) || strings.IndexByte(" -_.=:/,+@%", ch) >= 0:
		default:
			return false
		}
	}
	return !inQuote
}

func FuzzValidPackage(f *testing.F) {
	for _, s := range []string{"com.example.app", "com.x;rm -rf /", "$(reboot)", "-a", "a.b", "a..b", "é.x", "com.x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidPackage(s) != nil {
			return
		}
		if len(s) > MaxPackageLen || !strings.Contains(s, ".") || strings.HasPrefix(s, "-") {
			t.Fatalf("accepted %q", s)
		}
		if !shellSafe(s) || shellQuote(s) != s {
			t.Fatalf("accepted %q, which the shell would interpret", s)
		}
		if got := fakeadb.Args("pidof " + s); !slices.Equal(got, []string{"pidof", s}) {
			t.Fatalf("`pidof %s` splits into %q", s, got)
		}
	})
}

func FuzzLogcatCommand(f *testing.F) {
	for _, s := range []string{"-v\x00monotonic\x00-v\x00usec\x00--pid=12", "*:S\x00Looper:D", "Foo$Bar:I", "-c", "-v\x00a;b", "--pid=1;reboot", "-T\x001.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		cmd, err := LogcatCommand(args)
		if err != nil {
			return
		}
		if !shellSafe(cmd) {
			t.Fatalf("LogcatCommand(%q) = %q: the shell would interpret it", args, cmd)
		}
		// The device's shell sees exactly the words that were validated.
		if got := fakeadb.Args(cmd); !slices.Equal(got, append([]string{"logcat"}, args...)) {
			t.Fatalf("LogcatCommand(%q) = %q splits into %q", args, cmd, got)
		}
		for _, a := range args {
			if a == "-c" || a == "-G" || a == "-f" || a == "-P" || a == "--clear" {
				t.Fatalf("LogcatCommand accepted %q", a)
			}
		}
	})
}

func FuzzParsers(f *testing.F) {
	seeds := []string{
		"List of devices attached\nR58M device usb:1-1 product:p model:M device:d transport_id:3\n",
		"x unauthorized usb:1\n* daemon started\n",
		"mResumedActivity: ActivityRecord{1 u0 com.a/.B t1}\n",
		"mCurrentFocus=Window{1 u0 com.a/com.a.B}\n",
		"  Window #1 Window{1 u0 x}:\n    mActivityRecord=ActivityRecord{2 u0 com.x/.Y t3}\n    isOnScreen=true\n",
		"modeId 2, supportedModes [{id=2, width=1, height=1, fps=90.0}]",
		"renderFrameRate 1e308",
		"USER PID NAME\nu0 12 com.a\n",
		"package:com.a uid:10001\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		for _, in := range ParseDevices(s) {
			if in.Serial == "" || in.State == "" || strings.ContainsAny(in.Serial, " \t\r\n") {
				t.Fatalf("bad device %+v", in)
			}
		}
		for _, parse := range []func([]byte) (string, string, bool){ParseResumedActivity, ParseFocusedWindow} {
			if pkg, act, ok := parse(b); ok && (ValidPackage(pkg) != nil || act == "") {
				t.Fatalf("parsed %q / %q", pkg, act)
			}
		}
		if hz, ok := ParseRefreshRate(b); ok && (hz < 1 || hz > 1000) {
			t.Fatalf("refresh rate %v", hz)
		}
		if pid, ok := ParsePs(b, "com.a"); ok && pid <= 0 {
			t.Fatalf("pid %d", pid)
		}
		if uid, ok := ParsePackagesUID(b, "com.a"); ok && uid < 0 {
			t.Fatalf("uid %d", uid)
		}
	})
}

// FuzzServerReply (issue 13): whatever an adb server answers (a length that lies, no OKAY,
// garbage, nothing), the client returns — an answer or an error — within its timeout.
func FuzzServerReply(f *testing.F) {
	f.Add([]byte("OKAY0004abcd"))
	f.Add([]byte("OKAY0040List of devices attached\nR58M device usb:1 model:M\n"))
	f.Add([]byte("FAIL0010unknown command"))
	f.Add([]byte("OKAYffff"))
	f.Add([]byte("OK"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Skip(err)
	}
	defer ln.Close()
	var reply atomic.Pointer[[]byte]
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var hdr [4]byte
				if _, err := io.ReadFull(c, hdr[:]); err != nil {
					return
				}
				n, _ := strconv.ParseUint(string(hdr[:]), 16, 16)
				if _, err := io.CopyN(io.Discard, c, int64(n)); err != nil {
					return
				}
				if r := reply.Load(); r != nil {
					c.Write(*r)
				}
			}()
		}
	}()
	f.Fuzz(func(t *testing.T, b []byte) {
		reply.Store(&b)
		c := &Client{addr: ln.Addr().String(), opts: Options{Timeout: 200 * time.Millisecond}}
		start := time.Now()
		_, _ = c.Devices(context.Background())
		_, _ = c.ServerVersion(context.Background())
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("calls took %v", d)
		}
	})
}
