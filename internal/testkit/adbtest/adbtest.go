// Package adbtest runs end-to-end tests over a real adb server: it starts a private adb server
// (Debian's `adb` package) on a free port, connects it to a fake device (package fakeadb) on
// 127.0.0.1 and hands the test a *device.Client and the device's serial. Everything stays on
// loopback and the default server port 5037 is never touched, so a developer's own adb and
// phones are left alone.
//
// When adb is not on PATH the test is skipped with a message saying so, unless
// FPSTOP_REQUIRE_ADB=1 (set by .ci/run), which turns the skip into a failure.
//
//	env := adbtest.Start(t, fakeadb.Config{Handler: myHandler})
//	out, err := env.Client.Shell(ctx, env.Serial, "dumpsys display")
package adbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/electricbubble/gadb"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// Env is a private adb server with one fake device connected and online.
type Env struct {
	// AdbPath is the adb binary used.
	AdbPath string
	// Port is the private server's port (never 5037).
	Port int
	// Client talks to the private server.
	Client *device.Client
	// Fake is the fake device; Fake.Commands() lists every shell command it received.
	Fake *fakeadb.Device
	// Serial is the device's name on the server ("127.0.0.1:PORT").
	Serial string

	t       testing.TB
	home    string
	server  *exec.Cmd
	exited  chan struct{}
	exitErr error
	log     syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the server process's output copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 1<<20 {
		return len(p), nil // enough to diagnose; drop the rest
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ReconnectTimeout bounds WaitState after a Replug: adb 29 retries a dropped TCP device after
// 250 ms and then every 10 s, so a device back after an unplug shows up about 10 s later.
const ReconnectTimeout = 30 * time.Second

// FindAdb returns the adb binary on PATH, skipping t under -short and when there is none
// (failing it when FPSTOP_REQUIRE_ADB=1).
func FindAdb(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the end-to-end tests start a private adb server and a fake device")
	}
	adb, err := exec.LookPath("adb")
	if err != nil {
		msg := "adb not found on PATH: skipping the end-to-end tests over a real adb server " +
			"(install it with `apt install adb`)"
		if os.Getenv("FPSTOP_REQUIRE_ADB") == "1" {
			t.Fatal(msg + " — FPSTOP_REQUIRE_ADB=1")
		}
		t.Skip(msg)
	}
	return adb
}

// Start starts the fake device described by cfg and a private adb server, connects them and
// waits until the device is online (or listed as unauthorized, when cfg.Unauthorized). Everything is stopped when the test ends (the server with
// `adb -P PORT kill-server`).
func Start(t testing.TB, cfg fakeadb.Config) *Env {
	t.Helper()
	adb := FindAdb(t)
	e := &Env{AdbPath: adb, t: t, home: t.TempDir()}

	fake, err := fakeadb.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting the fake device: %v", err)
	}
	e.Fake = fake
	e.Serial = fake.Serial()
	t.Cleanup(func() { _ = fake.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Registered after the fake's cleanup, so it runs first: the server goes before the device.
	t.Cleanup(e.stopServer)
	for attempt := 1; ; attempt++ {
		e.Port = freePort(t)
		e.startServer()
		err = e.awaitServer(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, errServerExited) || attempt == 3 {
			t.Fatalf("private adb server: %v\n%s", err, e.log.String())
		}
		// Another process took the port between freePort and the server's bind: try another.
		t.Logf("private adb server on port %d exited (%v); retrying on another port", e.Port, e.exitErr)
		e.server = nil
	}

	// host:connect through gadb (it fits here: a one-shot request on loopback).
	gc, err := gadb.NewClientWith("127.0.0.1", e.Port)
	if err != nil {
		t.Fatalf("gadb: %v", err)
	}
	if err := gc.Connect("127.0.0.1", fake.Port()); err != nil {
		// adb 29 answers "failed to authenticate" for a device that wants a key it does not
		// accept, and keeps it listed as unauthorized.
		if !cfg.Unauthorized || !strings.Contains(err.Error(), "failed to authenticate") {
			t.Fatalf("adb connect %s: %v", e.Serial, err)
		}
	}
	want := device.StateDevice
	if cfg.Unauthorized {
		want = device.StateUnauthorized
	}
	if err := e.WaitState(ctx, want); err != nil {
		t.Fatalf("fake device never became %s: %v", want, err)
	}
	return e
}

// freePort picks a free loopback port for the server, away from 5037 and the emulator range.
func freePort(t testing.TB) int {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
		if port != device.DefaultPort && (port < 5554 || port > 5585) {
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}

// environ is the environment for adb commands: ADB_EMU=0 (no emulator scan), a private HOME
// (the server's RSA key goes there, not into the developer's ~/.android) and nothing that
// would redirect the client to another server.
func (e *Env) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "ADB_SERVER_SOCKET", "ANDROID_ADB_SERVER_PORT", "ANDROID_ADB_SERVER_ADDRESS",
			"ANDROID_SERIAL", "HOME", "ANDROID_SDK_HOME", "ANDROID_USER_HOME", "ADB_VENDOR_KEYS", "ADB_EMU":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "ADB_EMU=0", "HOME="+e.home, "ANDROID_SDK_HOME="+e.home, "ANDROID_USER_HOME="+e.home)
}

// adb runs `adb -P PORT ARGS...` with stdin from /dev/null and returns its combined output.
func (e *Env) adb(timeout time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.AdbPath, append([]string{"-P", strconv.Itoa(e.Port)}, args...)...)
	cmd.Env = e.environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	return out.Bytes(), err
}

// Adb runs the adb command-line client against the private server (`adb -P PORT ARGS...`,
// stdin from /dev/null) and returns its combined output.
func (e *Env) Adb(args ...string) ([]byte, error) {
	return e.adb(30*time.Second, args...)
}

// startServer starts `adb -P PORT nodaemon server` as a child of the test. This is the server
// `adb -P PORT start-server` would fork, minus the fork: the test owns the process, so it is
// always reaped (no zombie even under an init that does not reap orphans), its log is at hand
// for failure messages, and on Linux it dies with the test binary if that crashes.
func (e *Env) startServer() {
	e.t.Helper()
	cmd := exec.Command(e.AdbPath, "-P", strconv.Itoa(e.Port), "nodaemon", "server")
	cmd.Env = e.environ()
	cmd.Stdout, cmd.Stderr = &e.log, &e.log
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("starting adb -P %d nodaemon server: %v", e.Port, err)
	}
	e.server = cmd
	e.exited = make(chan struct{})
	go func() {
		e.exitErr = cmd.Wait()
		close(e.exited)
	}()
}

var errServerExited = errors.New("the adb server exited")

// awaitServer waits until the server started by startServer answers and sets e.Client.
func (e *Env) awaitServer(ctx context.Context) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(e.Port))
	for {
		c, err := device.Connect(ctx, addr, device.Options{NoStartServer: true, Timeout: 10 * time.Second})
		if err == nil {
			e.Client = c
			return nil
		}
		select {
		case <-e.exited:
			return fmt.Errorf("%w: %v", errServerExited, e.exitErr)
		case <-ctx.Done():
			return fmt.Errorf("the adb server on port %d does not answer: %w", e.Port, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stopServer stops the private server with `adb -P PORT kill-server` and waits for the process
// to exit (killing it if it does not within 10 s).
func (e *Env) stopServer() {
	if e.server == nil {
		return
	}
	select {
	case <-e.exited:
		return // already gone; the port may now be another server's: leave it alone
	default:
	}
	out, err := e.adb(10*time.Second, "kill-server")
	if err != nil {
		e.t.Logf("adb -P %d kill-server: %v %s", e.Port, err, out)
	}
	select {
	case <-e.exited:
		return
	case <-time.After(10 * time.Second):
	}
	e.t.Errorf("the private adb server on port %d still runs 10 s after kill-server: killing it", e.Port)
	_ = e.server.Process.Kill()
	<-e.exited
}

// State returns the fake device's state as the server lists it ("" when not listed).
func (e *Env) State(ctx context.Context) (string, error) {
	infos, err := e.Client.Devices(ctx)
	if err != nil {
		return "", err
	}
	for _, in := range infos {
		if in.Serial == e.Serial {
			return in.State, nil
		}
	}
	return "", nil
}

// WaitState polls the server until the fake device is in state (StateDevice, StateOffline, or
// "" for gone), or ctx ends.
func (e *Env) WaitState(ctx context.Context, state string) error {
	var last string
	var lastErr error
	for {
		last, lastErr = e.State(ctx)
		if lastErr == nil && last == state {
			return nil
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return fmt.Errorf("device %s: %w (last error: %v)", e.Serial, ctx.Err(), lastErr)
			}
			return fmt.Errorf("device %s is %q, not %q: %w", e.Serial, last, state, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Unplug drops the fake device and waits until the server lists it offline.
func (e *Env) Unplug(ctx context.Context) error {
	e.Fake.Unplug()
	return e.WaitState(ctx, device.StateOffline)
}

// Replug brings the fake device back and waits (bounded by ReconnectTimeout and ctx) until the
// server has reconnected it.
func (e *Env) Replug(ctx context.Context) error {
	if err := e.Fake.Replug(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ReconnectTimeout)
	defer cancel()
	err := e.WaitState(ctx, device.StateDevice)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("adb server did not reconnect within %s: %w", ReconnectTimeout, err)
	}
	return err
}
