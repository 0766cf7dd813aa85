package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// closedPort returns a loopback address where nothing listens. On Linux it is on a random
// address of 127.0.0.0/8 other than 127.0.0.1: the port is free only when the test picks it, and
// the adb servers and fake phones other tests start on this machine listen on 127.0.0.1, so one
// of them taking the port in the meantime (seen under load: the server "started" by a stand-in
// adb then answered as someone else's) would have to take this very address too.
func closedPort(t *testing.T) (string, int) {
	t.Helper()
	host := "127.0.0.1"
	if runtime.GOOS == "linux" {
		host = fmt.Sprintf("127.%d.%d.%d", 1+rand.IntN(254), rand.IntN(256), 1+rand.IntN(254))
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return net.JoinHostPort(host, strconv.Itoa(port)), port
}

func TestConnectWithoutAdb(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	addr, _ := closedPort(t)
	_, err := Connect(context.Background(), addr, Options{})
	if !errors.Is(err, ErrNoAdb) {
		t.Fatalf("Connect = %v; want ErrNoAdb", err)
	}
	for _, want := range []string{"apt install adb", "platform-tools", addr} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestConnectNoStartServer(t *testing.T) {
	addr, _ := closedPort(t)
	_, err := Connect(context.Background(), addr, Options{NoStartServer: true})
	if !errors.Is(err, ErrNoServer) {
		t.Fatalf("Connect = %v; want ErrNoServer", err)
	}
}

// TestConnectRunsStartServer puts a stand-in adb on PATH that records its arguments (and starts
// nothing): Connect must run it as `adb -P PORT start-server`, then report that the
// server still does not answer.
func TestConnectRunsStartServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a stand-in adb process")
	}
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	script := "#!/bin/sh\necho \"$@\" > '" + argsFile + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "adb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	addr, port := closedPort(t)
	_, err := Connect(context.Background(), addr, Options{})
	if err == nil || !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("Connect = %v", err)
	}
	got, rerr := os.ReadFile(argsFile)
	if rerr != nil {
		t.Fatalf("the stand-in adb was not run: %v", rerr)
	}
	if want := "-P " + strconv.Itoa(port) + " start-server"; strings.TrimSpace(string(got)) != want {
		t.Errorf("adb ran with %q; want %q", got, want)
	}
}

// silentServer accepts connections and never answers, like a wedged adb server.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// TestCallsNeverHang: against a server that accepts and never answers, every call returns
// with an error once the client's timeout or the caller's context ends.
func TestCallsNeverHang(t *testing.T) {
	c := &Client{addr: silentServer(t), opts: Options{Timeout: 100 * time.Millisecond}}
	ctx := context.Background()
	if _, err := c.Devices(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Devices = %v", err)
	}
	if _, err := c.Shell(ctx, "x", "echo"); !errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		t.Errorf("Shell = %v", err)
	}
	if _, err := c.Stream(ctx, "x", "logcat"); err == nil {
		t.Error("Stream opened against a silent server")
	}
	// The caller's own cancellation wins over a long client timeout.
	c.opts.Timeout = time.Hour
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Shell(cctx, "x", "echo")
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Shell = %v", err)
	}
}

// TestStreamReadAfterCancel: a stream whose context ends stops blocking its reader.
func TestStreamReadAfterCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 4)
		for range 2 { // host:transport:…, shell:…
			if _, err := io.ReadFull(conn, buf); err != nil {
				return
			}
			n, _ := strconv.ParseUint(string(buf), 16, 16)
			if _, err := io.ReadFull(conn, make([]byte, n)); err != nil {
				return
			}
			if _, err := conn.Write([]byte("OKAY")); err != nil {
				return
			}
		}
		_, _ = conn.Write([]byte("line 1\n"))
		_, _ = io.Copy(io.Discard, conn) // until the client closes
	}()
	c := &Client{addr: ln.Addr().String()}
	ctx, cancel := context.WithCancel(context.Background())
	rc, err := c.Stream(ctx, "serial", "logcat")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := io.ReadFull(rc, buf); err != nil || string(buf) != "line 1\n" {
		t.Fatalf("first read %q, %v", buf, err)
	}
	cancel()
	if _, err := rc.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel = %v", err)
	}
	if err := rc.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	<-served
}

func TestWatchWithoutServer(t *testing.T) {
	addr, _ := closedPort(t)
	c := &Client{addr: addr}
	ctx, cancel := context.WithCancel(context.Background())
	updates := Watch(ctx, c, 10*time.Millisecond)
	u, ok := <-updates
	if !ok || !errors.Is(u.Err, ErrNoServer) || u.Devices != nil {
		t.Fatalf("first update = %+v, %v", u, ok)
	}
	cancel()
	for range updates { // drained and closed once ctx ends
	}
}

// TestSilentServerMessage (issue 13): a server that accepts and never answers is named, with
// the time waited, not "context deadline exceeded".
func TestSilentServerMessage(t *testing.T) {
	addr := silentServer(t)
	c := &Client{addr: addr, opts: Options{Timeout: 100 * time.Millisecond}}
	_, err := c.Devices(context.Background())
	if want := "the adb server at " + addr + " did not answer within 0.1 s"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
}
