package device_test

// End-to-end tests: the device package against Debian's real adb server, connected to a fake
// device (internal/testkit/fakeadb) through internal/testkit/adbtest. Skipped when adb is not installed unless
// FPSTOP_REQUIRE_ADB=1.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

// guard bounds waits so a bug fails a test instead of hanging it; no test asserts durations.
const guard = 20 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// scripted answers commands from a table (by word-aligned prefix, see fakeadb.Mux); other
// commands print what a shell would.
func scripted(answers map[string]string) fakeadb.Handler {
	m := fakeadb.Mux{}
	for cmd, out := range answers {
		m[cmd] = fakeadb.Text(out)
	}
	return m.Serve
}

func TestE2EDevices(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, fakeadb.Config{Model: "Pixel 7 Pro", Product: "cheetah", Device: "cheetah", Android: "13", SDK: 33})
	ctx := testContext(t)

	infos, err := env.Client.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := device.Select(infos, "")
	if err != nil {
		t.Fatalf("Select: %v (devices %+v)", err, infos)
	}
	// online devices carry the real model name (getprop), not adb's underscored one
	want := device.Info{Serial: env.Serial, State: "device", Model: "Pixel 7 Pro", Product: "cheetah", Device: "cheetah",
		TransportID: got.TransportID, Android: "13", SDK: 33}
	if got != want || got.TransportID <= 0 {
		t.Errorf("device:\n got %+v\nwant %+v", got, want)
	}

	// The adb command-line client's own `adb devices -l` text parses to the same device.
	out, err := env.Adb("devices", "-l")
	if err != nil {
		t.Fatalf("adb devices -l: %v\n%s", err, out)
	}
	cli := device.ParseDevices(string(out))
	if len(cli) != 1 || cli[0].Serial != env.Serial || cli[0].State != "device" || cli[0].Model != "Pixel_7_Pro" {
		t.Errorf("adb devices -l parsed to %+v:\n%s", cli, out)
	}
}

func TestE2ECommands(t *testing.T) {
	t.Parallel()
	gfx := "Applications Graphics Acceleration Info:\n** Graphics info for pid 4242 [com.example.app] **\nTotal frames rendered: 12\n---PROFILEDATA---\nFlags,IntendedVsync,\n0,1,\n---PROFILEDATA---\n"
	ps := "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n" +
		"root             1     0 10904548 12008 0                   0 S init\n" +
		"u0_a9         9191   812 15566260 90132 0                   0 S com.old.app\n" +
		strings.Repeat("root            2     0       0      0 0                   0 S kthreadd\n", 5)
	env := adbtest.Start(t, fakeadb.Config{Handler: scripted(map[string]string{
		"echo hello": "hello\n",
		"dumpsys gfxinfo com.example.app framestats":       gfx,
		"dumpsys gfxinfo com.example.app framestats reset": gfx,
		"dumpsys gfxinfo com.gone.app framestats":          "\n\nNo process found for: com.gone.app\n",
		"pidof com.example.app":                            "4242\n",
		"pidof com.old.app":                                "",
		"pidof com.gone.app":                               "",
		"ps -A":                                            ps,
		"pm list packages -3":                              "package:org.mozilla.firefox\npackage:com.example.app\n",
		"pm list packages -U com.example.app":              "package:com.example.app.test uid:10124\npackage:com.example.app uid:10123\n",
		"pm list packages -U com.old.app":                  "",
		"dumpsys package com.old.app":                      "Packages:\n  Package [com.old.app] (5e3f1a2):\n    userId=10077\n",
		"setprop log.looper.10123.main.slow 16":            "",
	})})
	ctx := testContext(t)
	c, serial := env.Client, env.Serial

	if out, err := c.Shell(ctx, serial, "echo hello"); err != nil || string(out) != "hello\n" {
		t.Errorf("Shell = %q, %v", out, err)
	}
	if out, err := c.Gfxinfo(ctx, serial, "com.example.app", false); err != nil || string(out) != gfx {
		t.Errorf("Gfxinfo = %q, %v", out, err)
	}
	if _, err := c.Gfxinfo(ctx, serial, "com.example.app", true); err != nil {
		t.Errorf("Gfxinfo reset: %v", err)
	}
	if out, err := c.Gfxinfo(ctx, serial, "com.gone.app", false); err != nil || !strings.Contains(string(out), "No process found for: com.gone.app") {
		t.Errorf("Gfxinfo of a stopped app = %q, %v; want dumpsys's own words", out, err)
	}
	if pid, err := c.Pidof(ctx, serial, "com.example.app"); err != nil || pid != 4242 {
		t.Errorf("Pidof = %d, %v", pid, err)
	}
	if pid, err := c.Pidof(ctx, serial, "com.old.app"); err != nil || pid != 9191 {
		t.Errorf("Pidof via ps = %d, %v", pid, err)
	}
	if _, err := c.Pidof(ctx, serial, "com.gone.app"); !errors.Is(err, device.ErrNotRunning) {
		t.Errorf("Pidof of a stopped app = %v", err)
	}
	if pkgs, err := c.Packages(ctx, serial); err != nil || !slices.Equal(pkgs, []string{"com.example.app", "org.mozilla.firefox"}) {
		t.Errorf("Packages = %q, %v", pkgs, err)
	}
	if uid, err := c.UID(ctx, serial, "com.example.app"); err != nil || uid != 10123 {
		t.Errorf("UID = %d, %v", uid, err)
	}
	if uid, err := c.UID(ctx, serial, "com.old.app"); err != nil || uid != 10077 {
		t.Errorf("UID via dumpsys package = %d, %v", uid, err)
	}
	if err := c.SetProp(ctx, serial, "log.looper.10123.main.slow", "16"); err != nil {
		t.Errorf("SetProp: %v", err)
	}
	tg := device.Target{Client: c, Serial: serial}
	if out, err := tg.Gfxinfo(ctx, "com.example.app"); err != nil || string(out) != gfx {
		t.Errorf("Target.Gfxinfo = %q, %v", out, err)
	}
	if pid, err := tg.Pid("com.example.app")(ctx); err != nil || pid != 4242 {
		t.Errorf("Target.Pid = %d, %v", pid, err)
	}

	// What reached the device, in order (the getprops are the harness's Devices calls).
	var cmds []string
	for _, cmd := range env.Fake.Commands() {
		if !strings.HasPrefix(cmd, "getprop ") {
			cmds = append(cmds, cmd)
		}
	}
	want := []string{
		"echo hello",
		"dumpsys gfxinfo com.example.app framestats",
		"dumpsys gfxinfo com.example.app framestats reset",
		"dumpsys gfxinfo com.gone.app framestats",
		"pidof com.example.app",
		"pidof com.old.app", "ps -A",
		"pidof com.gone.app", "ps -A",
		"pm list packages -3",
		"pm list packages -U com.example.app",
		"pm list packages -U com.old.app", "dumpsys package com.old.app",
		"setprop log.looper.10123.main.slow 16",
		"dumpsys gfxinfo com.example.app framestats",
		"pidof com.example.app",
	}
	if !slices.Equal(cmds, want) {
		t.Errorf("commands received:\n%q\nwant:\n%q", cmds, want)
	}
}

// bigOutput is n bytes of numbered lines.
func bigOutput(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%08d the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.Bytes()[:n]
}

func TestE2EStreams(t *testing.T) {
	t.Parallel()
	big := bigOutput(5 << 20)
	var endOnce sync.Once
	logcatEnded := make(chan struct{})
	env := adbtest.Start(t, fakeadb.Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		switch {
		case cmd == "cat /big":
			for p := big; len(p) > 0; {
				n := min(len(p), 48*1024+7) // writes that do not line up with adb's payload size
				if _, err := w.Write(p[:n]); err != nil {
					return err
				}
				p = p[n:]
			}
			return nil
		case strings.HasPrefix(cmd, "logcat "):
			defer endOnce.Do(func() { close(logcatEnded) })
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(w, "line %d\n", i); err != nil {
					return err
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(5 * time.Millisecond):
				}
			}
		}
		return nil
	}})
	ctx := testContext(t)
	c, serial := env.Client, env.Serial

	t.Run("5MB stream", func(t *testing.T) {
		rc, err := c.Stream(ctx, serial, "cat /big")
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		got, err := io.ReadAll(rc)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("read %d bytes (want %d), equal=%v, err=%v", len(got), len(big), bytes.Equal(got, big), err)
		}
	})
	t.Run("5MB shell", func(t *testing.T) {
		got, err := c.Shell(ctx, serial, "cat /big")
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("read %d bytes (want %d), err=%v", len(got), len(big), err)
		}
	})
	t.Run("endless stream cancelled by ctx", func(t *testing.T) {
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// Through Target, the shape source/logcat's Streamer takes.
		rc, err := device.Target{Client: c, Serial: serial}.Stream(sctx, []string{"-v", "monotonic", "-v", "usec", "--pid=4242"})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		br := bufio.NewReader(rc)
		for i := range 3 {
			line, err := br.ReadString('\n')
			if err != nil || line != fmt.Sprintf("line %d\n", i) {
				t.Fatalf("line %d: %q, %v", i, line, err)
			}
		}
		cancel()
		readErr := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, br)
			readErr <- err
		}()
		select {
		case err := <-readErr:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("read after cancel = %v; want context.Canceled", err)
			}
		case <-time.After(guard):
			t.Fatal("reader still blocked after its context ended")
		}
		// The server closes the device stream, so the fake's handler sees its context end.
		select {
		case <-logcatEnded:
		case <-time.After(guard):
			t.Fatal("the device-side logcat still runs after the stream was cancelled")
		}
		if cmds := env.Fake.Commands(); !slices.Contains(cmds, "logcat -v monotonic -v usec --pid=4242") {
			t.Errorf("logcat command not received as expected: %q", cmds)
		}
	})
}

// TestE2EHostileInput: refused names and arguments never reach the device.
func TestE2EHostileInput(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, fakeadb.Config{Handler: scripted(nil)})
	ctx := testContext(t)
	c, serial := env.Client, env.Serial
	before := env.Fake.Services()

	hostile := []string{"com.x;rm -rf /", "$(reboot)", "-a", "com.x && reboot", "com.x`reboot`", "com.x|sh",
		"com.x\nreboot", "'com.x'", "com.x>/sdcard/x", "", strings.Repeat("a.", 200)}
	for _, pkg := range hostile {
		checks := map[string]error{}
		_, checks["Gfxinfo"] = c.Gfxinfo(ctx, serial, pkg, false)
		_, checks["Pidof"] = c.Pidof(ctx, serial, pkg)
		_, checks["UID"] = c.UID(ctx, serial, pkg)
		for name, err := range checks {
			if !errors.Is(err, device.ErrInvalid) {
				t.Errorf("%s(%q) = %v; want a refusal", name, pkg, err)
			}
		}
	}
	for _, args := range [][]string{{"--pid=1;reboot"}, {"-v", "$(reboot)"}, {"-c"}, {"-f", "/data/x"}, {"Tag:D", "|", "sh"}} {
		if rc, err := c.Logcat(ctx, serial, args); !errors.Is(err, device.ErrInvalid) {
			if rc != nil {
				rc.Close()
			}
			t.Errorf("Logcat(%q) = %v; want a refusal", args, err)
		}
	}
	for _, kv := range [][2]string{{"a;reboot", "1"}, {"log.x", "1;reboot"}, {"log.x", "$(reboot)"}, {"-x", "1"}} {
		if err := c.SetProp(ctx, serial, kv[0], kv[1]); !errors.Is(err, device.ErrInvalid) {
			t.Errorf("SetProp(%q, %q) = %v; want a refusal", kv[0], kv[1], err)
		}
	}
	if _, err := c.Getprop(ctx, serial, "ro.x;reboot"); !errors.Is(err, device.ErrInvalid) {
		t.Errorf("Getprop = %v; want a refusal", err)
	}
	// Serials travel in host:transport:, never in shell text: a hostile one reaches no device.
	if _, err := c.Shell(ctx, "$(reboot)", "echo"); !errors.Is(err, device.ErrDeviceNotFound) {
		t.Errorf("Shell on serial $(reboot) = %v; want ErrDeviceNotFound", err)
	}
	if _, err := c.Shell(ctx, serial+"; reboot", "echo"); err == nil {
		t.Error("Shell on a serial with a blank was sent")
	}
	if after := env.Fake.Services(); !slices.Equal(after, before) {
		t.Errorf("the device received %q", after[len(before):])
	}
}

func TestE2EForegroundAndRefreshRate(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	answers := map[string]string{}
	set := func(cmd, out string) {
		mu.Lock()
		defer mu.Unlock()
		answers[cmd] = out
	}
	env := adbtest.Start(t, fakeadb.Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		mu.Lock()
		out := answers[cmd]
		mu.Unlock()
		_, err := io.WriteString(w, out)
		return err
	}})
	ctx := testContext(t)
	c, serial := env.Client, env.Serial

	t.Run("resumed activity", func(t *testing.T) {
		set("dumpsys activity activities", "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"+
			"  ResumedActivity: ActivityRecord{8f2c1d0 u0 com.example.app/.ui.MainActivity t31}\n")
		pkg, act, err := c.ForegroundApp(ctx, serial)
		if err != nil || pkg != "com.example.app" || act != "com.example.app.ui.MainActivity" {
			t.Errorf("ForegroundApp = %q, %q, %v", pkg, act, err)
		}
	})
	t.Run("window fallback", func(t *testing.T) {
		set("dumpsys activity activities", "")
		set("dumpsys window", "WINDOW MANAGER WINDOWS\n  mCurrentFocus=Window{3d2 u0 org.mozilla.firefox/org.mozilla.fenix.HomeActivity}\n")
		pkg, act, err := c.ForegroundApp(ctx, serial)
		if err != nil || pkg != "org.mozilla.firefox" || act != "org.mozilla.fenix.HomeActivity" {
			t.Errorf("ForegroundApp = %q, %q, %v", pkg, act, err)
		}
	})
	t.Run("nothing in front", func(t *testing.T) {
		set("dumpsys activity activities", "")
		set("dumpsys window", "  mCurrentFocus=null\n")
		if _, _, err := c.ForegroundApp(ctx, serial); err == nil {
			t.Error("ForegroundApp found an app")
		}
	})
	t.Run("refresh rate", func(t *testing.T) {
		set("dumpsys display", `DisplayDeviceInfo{"Built-in Screen": uniqueId="local:1", 1080 x 2400, modeId 2, supportedModes [{id=1, width=1080, height=2400, fps=60.0}, {id=2, width=1080, height=2400, fps=90.0}]}`)
		if hz, err := c.RefreshRate(ctx, serial); err != nil || hz != 90 {
			t.Errorf("RefreshRate = %v, %v", hz, err)
		}
		set("dumpsys display", "nothing useful")
		if _, err := c.RefreshRate(ctx, serial); err == nil {
			t.Error("RefreshRate without a rate succeeded")
		}
	})
	t.Run("real captures", func(t *testing.T) {
		dir := realdata.Dir(t, "misc")
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		set("dumpsys activity activities", "")
		set("dumpsys window", read("flashlight-dumpsys-window-windows-samsung.txt"))
		if pkg, act, err := c.ForegroundApp(ctx, serial); err != nil || pkg != "com.twitter.android" || act != "com.twitter.app.main.MainActivity" {
			t.Errorf("ForegroundApp (Samsung capture) = %q, %q, %v", pkg, act, err)
		}
		set("dumpsys display", read("flashlight-dumpsys-display-grep-pixel-120hz.txt"))
		if hz, err := c.RefreshRate(ctx, serial); err != nil || hz != 120.00001 {
			t.Errorf("RefreshRate (Pixel capture) = %v, %v", hz, err)
		}
	})
}

// TestE2EUnplugReplug: an unplugged device goes offline, calls on it fail with a clear error
// instead of hanging, a running stream ends, Watch reports both changes, and the device comes
// back after a replug (adb 29 reconnects about 10 s after the drop).
func TestE2EUnplugReplug(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, fakeadb.Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		if cmd == "echo ok" {
			_, err := io.WriteString(w, "ok\n")
			return err
		}
		for ctx.Err() == nil { // an endless logcat
			if _, err := io.WriteString(w, "log line\n"); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
		return nil
	}})
	ctx := testContext(t)
	c, serial := env.Client, env.Serial

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	updates := device.Watch(wctx, c, 100*time.Millisecond)
	states := make(chan string, 64)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for u := range updates {
			for _, in := range u.Devices {
				if in.Serial == serial {
					select {
					case states <- in.State:
					default:
					}
				}
			}
		}
	}()
	waitWatch := func(state string) {
		t.Helper()
		timeout := time.After(adbtest.ReconnectTimeout)
		for {
			select {
			case s := <-states:
				if s == state {
					return
				}
			case <-timeout:
				t.Fatalf("Watch never reported %s", state)
			}
		}
	}
	waitWatch("device")

	rc, err := c.Logcat(ctx, serial, []string{"-v", "threadtime"})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	if line, err := br.ReadString('\n'); err != nil || line != "log line\n" {
		t.Fatalf("first log line %q, %v", line, err)
	}

	if err := env.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	waitWatch("offline")
	streamEnd := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, br)
		streamEnd <- err
	}()
	select {
	case <-streamEnd: // EOF or a reset: the stream is over either way
	case <-time.After(guard):
		t.Fatal("the stream did not end when the device was unplugged")
	}
	_, err = c.Shell(ctx, serial, "echo ok")
	if !errors.Is(err, device.ErrOffline) || !strings.Contains(err.Error(), serial) || !strings.Contains(err.Error(), "offline") {
		t.Errorf("Shell on the unplugged device = %v; want an offline error naming it", err)
	}
	if _, err := c.Gfxinfo(ctx, serial, "com.example.app", false); !errors.Is(err, device.ErrOffline) {
		t.Errorf("Gfxinfo on the unplugged device = %v", err)
	}

	if err := env.Replug(ctx); err != nil {
		t.Fatal(err)
	}
	waitWatch("device")
	if out, err := c.Shell(ctx, serial, "echo ok"); err != nil || string(out) != "ok\n" {
		t.Errorf("Shell after replug = %q, %v", out, err)
	}
	stopWatch()
	<-watchDone
}

// TestE2EConnectStartsServer: Connect starts a server with `adb -P PORT start-server` when none
// answers (on a private port, with a private HOME for the server's key).
func TestE2EConnectStartsServer(t *testing.T) {
	adb := adbtest.FindAdb(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("ANDROID_SDK_HOME", home)
	t.Setenv("ANDROID_USER_HOME", home)
	t.Setenv("ADB_EMU", "0")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	t.Cleanup(func() {
		// kill-server, then wait for the port to close.
		kctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		cmd := osexec.CommandContext(kctx, adb, "-P", strconv.Itoa(port), "kill-server")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("kill-server: %v %s", err, out)
		}
		for kctx.Err() == nil {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			conn.Close()
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("the adb server on port %d did not stop", port)
	})
	ctx := testContext(t)
	c, err := device.Connect(ctx, addr, device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := c.ServerVersion(ctx); err != nil || v <= 0 {
		t.Errorf("ServerVersion = %d, %v", v, err)
	}
	if infos, err := c.Devices(ctx); err != nil || len(infos) != 0 {
		t.Errorf("Devices on a fresh private server = %+v, %v", infos, err)
	}
	if !c.StartedServer() {
		t.Error("StartedServer false for the server Connect started")
	}
	if c2, err := device.Connect(ctx, addr, device.Options{}); err != nil || c2.StartedServer() {
		t.Errorf("a second Connect to the running server: %v, started %v", err, c2 != nil && c2.StartedServer())
	}
	// KillServer stops it (the cleanup then waits for the port to close)
	if err := c.KillServer(ctx); err != nil {
		t.Errorf("KillServer: %v", err)
	}
}

// TestE2EReplugSlow: a device that stays away past the server's first quick retry (250 ms) is
// picked up again by its periodic retry (every 10 s in adb 29): the harness's ReconnectTimeout
// covers it, and the client works again afterwards.
func TestE2EReplugSlow(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, fakeadb.Config{Handler: scripted(map[string]string{"echo ok": "ok\n"})})
	ctx := testContext(t)
	if err := env.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	// Setup, not an assertion: stay unplugged long enough for the quick retry to fail.
	time.Sleep(time.Second)
	if _, err := env.Client.Shell(ctx, env.Serial, "echo ok"); !errors.Is(err, device.ErrOffline) {
		t.Errorf("Shell while unplugged = %v", err)
	}
	start := time.Now()
	if err := env.Replug(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("reconnected %v after the replug", time.Since(start).Round(100*time.Millisecond))
	if out, err := env.Client.Shell(ctx, env.Serial, "echo ok"); err != nil || string(out) != "ok\n" {
		t.Errorf("Shell after replug = %q, %v", out, err)
	}
}

// TestE2EUnauthorized: a phone whose RSA prompt is unanswered is listed as unauthorized, with
// help, is never sent a command, and becomes usable once the user allows it.
func TestE2EUnauthorized(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, fakeadb.Config{Unauthorized: true, Handler: scripted(map[string]string{"echo ok": "ok\n"})})
	ctx := testContext(t)
	c, serial := env.Client, env.Serial

	infos, err := c.Devices(ctx)
	if err != nil || len(infos) != 1 || infos[0].State != device.StateUnauthorized || infos[0].Android != "" {
		t.Fatalf("Devices = %+v, %v", infos, err)
	}
	if _, err := device.Select(infos, ""); !errors.Is(err, device.ErrNoDevice) || !strings.Contains(err.Error(), "RSA") {
		t.Errorf("Select = %v", err)
	}
	if h := device.Help(infos[0].State); !strings.Contains(h, "accept the RSA prompt") {
		t.Errorf("Help(%q) = %q", infos[0].State, h)
	}
	if _, err := c.Shell(ctx, serial, "echo ok"); !errors.Is(err, device.ErrUnauthorized) || !strings.Contains(err.Error(), "kill-server") {
		t.Errorf("Shell on an unauthorized device = %v", err)
	}
	if got := env.Fake.Services(); len(got) != 0 {
		t.Errorf("an unauthorized device received %q", got)
	}

	env.Fake.Authorize()
	if err := env.WaitState(ctx, device.StateDevice); err != nil {
		t.Fatal(err)
	}
	if out, err := c.Shell(ctx, serial, "echo ok"); err != nil || string(out) != "ok\n" {
		t.Errorf("Shell after Authorize = %q, %v", out, err)
	}
}
