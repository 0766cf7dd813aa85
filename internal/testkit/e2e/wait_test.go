package e2e

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
)

// waitUntil polls ok until it holds; after limit the test fails (a deadline, not a timing
// assertion).
func waitUntil(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitCommands waits until the fake device has run at least n shell commands starting with
// prefix.
func waitCommands(t *testing.T, env *adbtest.Env, prefix string, n int, limit time.Duration) {
	t.Helper()
	waitUntil(t, strconv.Itoa(n)+" × "+prefix+" on the device", limit, func() bool {
		c := 0
		for _, cmd := range env.Fake.Commands() {
			if strings.HasPrefix(cmd, prefix) {
				c++
			}
		}
		return c >= n
	})
}

// proxy relays TCP connections to the private adb server and counts the server's FAIL
// replies (the smart-socket protocol's refusal, e.g. "device offline"), so a test can see
// fpstop being refused.
type proxy struct {
	port  int
	fails atomic.Int64
	ln    net.Listener
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, serverPort int) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{port: ln.Addr().(*net.TCPAddr).Port, ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(serverPort)))
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); _, _ = io.Copy(s, c); s.Close() }()
			go func() { defer p.wg.Done(); p.relayReplies(c, s); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// relayReplies copies the server's bytes to the client, counting reads that start with a FAIL
// status: the server sends a refusal as one short write, so it starts a read.
func (p *proxy) relayReplies(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if bytes.HasPrefix(buf[:n], []byte("FAIL")) {
				p.fails.Add(1)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
