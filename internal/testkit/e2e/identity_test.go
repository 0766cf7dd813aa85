package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/report/trace"
)

// TestRecordingIdentity: a device recording's first line says where it came from — the
// device's serial and model, the app, the source, the refresh rate and the start — and so do
// the traces exported from it: three phones' traces are told apart by their process name.
func TestRecordingIdentity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real adb servers and three 3 s measurements")
	}
	t.Parallel()
	names := make([]string, 3)
	t.Run("phones", func(t *testing.T) {
		for i, hz := range []float64{60, 90, 120} {
			t.Run(fmt.Sprintf("%gHz", hz), func(t *testing.T) {
				t.Parallel()
				names[i] = recordAndTrace(t, hz)
			})
		}
	}) // returns once its parallel subtests are done
	if names[0] == names[1] || names[1] == names[2] || names[0] == names[2] {
		t.Errorf("three phones' traces share a process name: %q", names)
	}
}

// recordAndTrace records 3 s from a new fake phone at hz, checks the recording's header and its
// trace, and returns the trace's process name.
func recordAndTrace(t *testing.T, hz float64) string {
	ph := startPhone(t, hz, "demo", 3, 0)
	env := startEnv(t, ph)
	rec := filepath.Join(t.TempDir(), "run.jsonl.gz")
	if _, errs, code := fpstop(t, env, "--headless", "--json", "--duration", "3s", "--record", rec); code != cli.ExitOK {
		t.Errorf("exit %d: %s", code, errs)
		return ""
	}
	r, err := record.Open(rec)
	if err != nil {
		t.Error(err)
		return ""
	}
	h := r.Header
	r.Close()
	if h.Device.Serial != env.Serial || h.Device.Model != "Pixel 7" || h.Package != pkg || h.Source != "gfxinfo" || h.RefreshHz != hz || h.StartMonoNs == 0 || h.StartUTC.IsZero() {
		t.Errorf("header %+v: want serial %s, model Pixel 7, package %s, source gfxinfo, %g Hz, a start", h, env.Serial, pkg, hz)
	}
	var b bytes.Buffer
	if err := trace.Export(&b, rec, trace.Options{}); err != nil {
		t.Error(err)
		return ""
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		OtherData struct {
			Source string `json:"source"`
			Device struct {
				Serial string `json:"serial"`
				Model  string `json:"model"`
			} `json:"device"`
		} `json:"otherData"`
	}
	if err := json.Unmarshal(b.Bytes(), &tr); err != nil {
		t.Error(err)
		return ""
	}
	var name string
	for _, e := range tr.TraceEvents {
		if e.Name == "process_name" {
			name, _ = e.Args["name"].(string)
		}
	}
	if !strings.HasPrefix(name, pkg) || !strings.Contains(name, env.Serial) || !strings.Contains(name, "gfxinfo") {
		t.Errorf("trace process %q: want the package, the serial and the source", name)
	}
	if o := tr.OtherData; o.Source != "gfxinfo" || o.Device.Serial != env.Serial || o.Device.Model != "Pixel 7" {
		t.Errorf("trace otherData %+v", o)
	}
	return name
}

// TestDeviceLostMidRun: the phone is unplugged during a headless run and never comes back; the
// run does not pass on the part it saw: exit 3, and stderr says the device was lost (not that
// the app stopped).
func TestDeviceLostMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real adb server and an 8 s measurement")
	}
	t.Parallel()
	ph := startPhone(t, 60, "stress", 2, 0)
	env := startEnv(t, ph)
	px := startProxy(t, env.Port)
	type result struct {
		errs string
		code int
	}
	done := make(chan result, 1)
	go func() {
		_, errs, code := fpstopVia(t, env, px.port, "--headless", "--json", "--duration", "8s", "--fail-under-fps", "1")
		done <- result{errs, code}
	}()
	waitCommands(t, env, "dumpsys gfxinfo", 3, 15*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := env.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	res := <-done
	t.Logf("stderr: %s", res.errs)
	if res.code != cli.ExitRuntime || !strings.Contains(res.errs, "was lost during the run") {
		t.Errorf("exit %d, stderr %q: want 3 and the device named lost", res.code, res.errs)
	}
}

// TestStartedAdbServerStopped: with no adb server on --adb-port, fpstop starts one (as adb
// does), says so, and stops it when it exits, leaving the machine as it found it.
func TestStartedAdbServerStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real adb server")
	}
	adbtest.FindAdb(t)
	home := t.TempDir() // a private HOME for the server's key
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
	out, errs, code := runCLI(port, "devices")
	if code != cli.ExitOK || !strings.Contains(errs, fmt.Sprintf("started an adb server at localhost:%d", port)) || !strings.Contains(errs, "stopped it on exit") {
		t.Errorf("exit %d, stdout %q, stderr %q: want the server started and stopped said", code, out, errs)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the adb server fpstop started on port %d is still running", port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCompletionDevices: completion offers the connected phone's serial (with its model) and,
// for -p, the third-party packages of the phone -s names, asked of the running adb server.
func TestCompletionDevices(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real adb server")
	}
	t.Parallel()
	ph := startPhone(t, 60, "smooth", 5, 0)
	env := adbtest.Start(t, fakeadb.Config{Model: "Pixel 7", Android: "14", SDK: 34,
		Handler: func(ctx context.Context, cmd string, w io.Writer) error {
			if cmd == "pm list packages -3" {
				_, err := fmt.Fprintf(w, "package:%s\npackage:com.example.other\n", pkg)
				return err
			}
			return ph.handler(ctx, cmd, w)
		}})
	out, errs, code := runCLI(env.Port, "__complete", "-s", "")
	if code != cli.ExitOK || !strings.Contains(out, env.Serial+"\tPixel 7") {
		t.Errorf("serials: exit %d %q %q", code, out, errs)
	}
	out, errs, code = runCLI(env.Port, "__complete", "-s", env.Serial, "-p", "")
	if code != cli.ExitOK || !strings.Contains(out, pkg+"\n") || !strings.Contains(out, "com.example.other\n") {
		t.Errorf("packages: exit %d %q %q", code, out, errs)
	}
}
