// Package fakeadb is a fake Android device for tests: the adbd side of the ADB transport
// protocol over TCP on 127.0.0.1, which a real adb server reaches with `adb connect`.
//
// It answers the host's CNXN with its own CNXN and a banner naming the product, model and
// device (no AUTH is ever requested), multiplexes OPEN/OKAY/WRTE/CLSE streams (one WRTE in
// flight per stream until the host's OKAY, payloads no larger than the host's maxdata, any
// number of concurrent streams, CLSE for unknown ids ignored) and serves `shell:<cmd>` (shell
// protocol v1: the fake does not advertise shell_v2, so the host never asks for it).
//
// `getprop` is answered from Config's properties; every other command goes to Config.Handler
// (Mux routes by command prefix, Text prints a fixed answer), which may stream for as long as it
// likes (a logcat) and must return when its context ends (the stream was closed by the host,
// the device was unplugged or closed). Every service the host opened is recorded (Services,
// Commands), so a test can assert what reached the device. Unplug/Replug model a cable pulled
// and put back; Config.Unauthorized and Authorize model the "Allow USB debugging?" prompt.
//
// SurfaceFlinger fakes `dumpsys SurfaceFlinger` (layers, --latency, --timestats) for games and
// other SurfaceView apps; MenuGame plays a game with a menu (the menu's window, then the game's
// layer, then the menu again) on it and a simulator's gfxinfo dump.
//
// Tracing is the phone's tracing service (perfetto --background sessions writing FrameTimeline
// and atrace into /data/misc/perfetto-traces/, fed the app's events): Tracing.Wrap or Serve put
// it in front of a Handler.
//
// The fake needs no adb server for its own tests; package internal/testkit/adbtest connects it to a
// real one.
package fakeadb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Handler serves one shell command. It writes the command's output (stdout and stderr mixed,
// as shell protocol v1 does) to w and returns when done; the fake then closes the stream.
// ctx ends when the host closes the stream or the device is unplugged or closed: a long-running
// handler must return then (writes to w fail with io.ErrClosedPipe once ctx has ended).
// The returned error is not sent anywhere (shell v1 has no exit status).
type Handler func(ctx context.Context, cmd string, w io.Writer) error

// Config describes the fake device. Zero fields take the defaults shown.
type Config struct {
	// Addr is the listen address, default "127.0.0.1:0" (a free port). A port in 5555–5585
	// is refused: the adb server scans that range for emulators and would list the fake twice.
	Addr string
	// Product, Model and Device go into the CNXN banner (ro.product.name/model/device), which
	// `adb devices -l` shows with non-alphanumerics turned into '_'. Defaults "fpstop_fake",
	// "fpstop Fake Phone", "fakephone".
	Product, Model, Device string
	// Android (ro.build.version.release, default "14") and SDK (ro.build.version.sdk, default 34).
	Android string
	SDK     int
	// Props are extra or overriding getprop values.
	Props map[string]string
	// Features are listed in the banner's features= (default none). Do not list shell_v2: the
	// fake serves shell protocol v1 only.
	Features []string
	// MaxData is the largest payload the fake accepts and sends (default DefaultMaxData).
	MaxData uint32
	// Unauthorized makes the device ask the host to authenticate (AUTH TOKEN) and refuse every
	// signature, as a phone whose "Allow USB debugging?" prompt is still unanswered: the server
	// lists it as "unauthorized" until Authorize is called.
	Unauthorized bool
	// Handler serves every shell command except getprop. Nil: commands other than getprop
	// print "/system/bin/sh: NAME: inaccessible or not found", as a device without them would.
	Handler Handler
}

// Device is a running fake device. Its methods are safe for concurrent use, except that
// Unplug, Replug and Close are serialised with each other.
type Device struct {
	cfg    Config
	banner []byte
	props  map[string]string
	addr   string

	authorized atomic.Bool

	ctx       context.Context // ends at Close
	cancel    context.CancelFunc
	stopAfter func() bool

	opMu sync.Mutex // serialises Unplug, Replug, Close

	mu     sync.Mutex
	ln     net.Listener // nil while unplugged
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup // accept loops and connections

	logMu    sync.Mutex
	services []string
	commands []string
}

// Start listens and serves until Close (or until ctx ends, which closes the device too).
func Start(ctx context.Context, cfg Config) (*Device, error) {
	cfg = withDefaults(cfg)
	ln, err := listen(cfg.Addr)
	if err != nil {
		return nil, err
	}
	d := &Device{
		cfg:   cfg,
		addr:  ln.Addr().String(),
		conns: map[*conn]struct{}{},
		props: map[string]string{
			"ro.product.name":          cfg.Product,
			"ro.product.model":         cfg.Model,
			"ro.product.device":        cfg.Device,
			"ro.product.manufacturer":  "fpstop",
			"ro.build.version.release": cfg.Android,
			"ro.build.version.sdk":     strconv.Itoa(cfg.SDK),
		},
	}
	for k, v := range cfg.Props {
		d.props[k] = v
	}
	d.banner = []byte(fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s",
		cfg.Product, cfg.Model, cfg.Device, strings.Join(cfg.Features, ",")))
	d.authorized.Store(!cfg.Unauthorized)
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.stopAfter = context.AfterFunc(ctx, func() { _ = d.Close() })
	d.mu.Lock()
	d.serveLocked(ln)
	d.mu.Unlock()
	return d, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Product == "" {
		cfg.Product = "fpstop_fake"
	}
	if cfg.Model == "" {
		cfg.Model = "fpstop Fake Phone"
	}
	if cfg.Device == "" {
		cfg.Device = "fakephone"
	}
	if cfg.Android == "" {
		cfg.Android = "14"
	}
	if cfg.SDK == 0 {
		cfg.SDK = 34
	}
	if cfg.MaxData == 0 {
		cfg.MaxData = DefaultMaxData
	}
	return cfg
}

// inEmulatorRange reports whether the adb server's emulator scan (5555–5585) covers port.
func inEmulatorRange(port int) bool { return port >= 5555 && port <= 5585 }

func listen(addr string) (net.Listener, error) {
	for range 20 {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("fakeadb: listen on %s: %w", addr, err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if !inEmulatorRange(port) {
			return ln, nil
		}
		_ = ln.Close()
		if _, p, _ := net.SplitHostPort(addr); p != "0" {
			return nil, fmt.Errorf("fakeadb: port %d is in the adb server's emulator range 5555-5585", port)
		}
	}
	return nil, errors.New("fakeadb: no free port outside 5555-5585")
}

// Addr is the address the device listens on ("127.0.0.1:PORT"), the same after Replug.
func (d *Device) Addr() string { return d.addr }

// Serial is the name an adb server gives the device after `adb connect Addr()`.
func (d *Device) Serial() string { return d.addr }

// Port is the TCP port of Addr.
func (d *Device) Port() int {
	_, p, _ := net.SplitHostPort(d.addr)
	n, _ := strconv.Atoi(p)
	return n
}

// Authorize accepts the host's key, as a user tapping "Allow" on the phone: connections waiting
// for authentication go online at once (and later ones never ask).
func (d *Device) Authorize() {
	d.authorized.Store(true)
	d.mu.Lock()
	conns := make([]*conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		c.mu.Lock()
		pending := c.authPending
		c.authPending = false
		if pending {
			c.online = true
		}
		c.mu.Unlock()
		if pending {
			_ = c.send(cmdCNXN, protocolVersion, d.cfg.MaxData, d.banner)
		}
	}
}

// Services returns every service the host opened, in order (e.g. "shell:getprop ro.build.version.sdk").
func (d *Device) Services() []string {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	return append([]string(nil), d.services...)
}

// Commands returns the command of every shell service the host opened, in order.
func (d *Device) Commands() []string {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	return append([]string(nil), d.commands...)
}

// Unplug drops every connection (running handlers see their context end) and stops listening,
// as a cable pulled out would. It returns once every connection and handler has finished.
func (d *Device) Unplug() {
	d.opMu.Lock()
	defer d.opMu.Unlock()
	d.dropAll()
}

// Replug listens again on the same address. The adb server notices on its next reconnect
// attempt (adb 29: about 10 s after the drop).
func (d *Device) Replug() error {
	d.opMu.Lock()
	defer d.opMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("fakeadb: device is closed")
	}
	if d.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", d.addr)
	if err != nil {
		return fmt.Errorf("fakeadb: replug on %s: %w", d.addr, err)
	}
	d.serveLocked(ln)
	return nil
}

// Close stops the device for good and waits for every goroutine it started. It is idempotent.
func (d *Device) Close() error {
	d.opMu.Lock()
	defer d.opMu.Unlock()
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.stopAfter()
	d.dropAll()
	return nil
}

// dropAll closes the listener and every connection, then waits for them all. Called with opMu.
func (d *Device) dropAll() {
	d.mu.Lock()
	ln := d.ln
	d.ln = nil
	conns := make([]*conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for _, c := range conns {
		c.shutdown()
	}
	d.wg.Wait()
}

func (d *Device) serveLocked(ln net.Listener) {
	d.ln = ln
	d.wg.Add(1)
	go d.acceptLoop(ln)
}

func (d *Device) acceptLoop(ln net.Listener) {
	defer d.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		if d.closed || d.ln != ln {
			d.mu.Unlock()
			_ = nc.Close()
			return
		}
		c := newConn(d, nc)
		d.conns[c] = struct{}{}
		d.wg.Add(1)
		d.mu.Unlock()
		go c.run()
	}
}

func (d *Device) removeConn(c *conn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

func (d *Device) logOpen(service string) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	d.services = append(d.services, service)
	if cmd, ok := strings.CutPrefix(service, "shell:"); ok {
		d.commands = append(d.commands, cmd)
	}
}

// runCommand serves one shell command: getprop from the properties, the rest by the handler.
func (d *Device) runCommand(ctx context.Context, cmd string, w io.Writer) error {
	args := Args(cmd)
	if len(args) > 0 && args[0] == "getprop" && !strings.ContainsAny(cmd, ";|&`$<>") {
		return d.getprop(args[1:], w)
	}
	if d.cfg.Handler != nil {
		return d.cfg.Handler(ctx, cmd, w)
	}
	name := cmd
	if len(args) > 0 {
		name = args[0]
	}
	_, err := fmt.Fprintf(w, "/system/bin/sh: %s: inaccessible or not found\n", name)
	return err
}

// getprop prints one property (with getprop's optional default) or, with no argument, all of
// them as "[key]: [value]" lines like Android's getprop.
func (d *Device) getprop(args []string, w io.Writer) error {
	if len(args) == 0 {
		keys := make([]string, 0, len(d.props))
		for k := range d.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "[%s]: [%s]\n", k, d.props[k])
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	v, ok := d.props[args[0]]
	if !ok && len(args) > 1 {
		v = args[1]
	}
	_, err := io.WriteString(w, v+"\n")
	return err
}

// conn is one transport connection from the adb server.
type conn struct {
	d      *Device
	nc     net.Conn
	ctx    context.Context
	cancel context.CancelFunc

	wmu sync.Mutex // serialises writes to nc
	hdr [headerLen]byte

	mu          sync.Mutex
	peerMax     int
	online      bool
	authPending bool // AUTH requested, not yet authorized
	nextID      uint32
	streams     map[uint32]*stream
	handlers    sync.WaitGroup
}

type stream struct {
	local, remote uint32
	ctx           context.Context
	cancel        context.CancelFunc
	ack           chan struct{} // the host's OKAY for our WRTE in flight
	wmu           sync.Mutex    // one writer at a time
}

func newConn(d *Device, nc net.Conn) *conn {
	c := &conn{d: d, nc: nc, streams: map[uint32]*stream{}, peerMax: 4096}
	c.ctx, c.cancel = context.WithCancel(d.ctx)
	return c
}

// shutdown ends the connection: its streams' contexts end and the read loop returns.
func (c *conn) shutdown() {
	c.cancel()
	_ = c.nc.Close()
}

func (c *conn) run() {
	defer c.d.wg.Done()
	defer func() {
		c.shutdown()
		c.handlers.Wait()
		c.d.removeConn(c)
	}()
	br := bufio.NewReaderSize(c.nc, 64*1024)
	for {
		m, err := readMessage(br)
		if err != nil {
			return
		}
		if err := c.handle(m); err != nil {
			return
		}
	}
}

func (c *conn) send(cmd, arg0, arg1 uint32, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	encodeHeader(&c.hdr, cmd, arg0, arg1, data)
	bufs := net.Buffers{c.hdr[:]}
	if len(data) > 0 {
		bufs = append(bufs, data)
	}
	_, err := bufs.WriteTo(c.nc)
	return err
}

func (c *conn) handle(m message) error {
	switch m.cmd {
	case cmdCNXN:
		c.mu.Lock()
		// Read under c.mu: Authorize sets the flag, then looks at each connection under its
		// mu, so a connection is either seen as pending or sees the flag.
		authorized := c.d.authorized.Load()
		c.peerMax = int(m.arg1)
		if c.peerMax <= 0 || c.peerMax > maxAcceptedPayload {
			c.peerMax = 4096
		}
		c.online = authorized
		c.authPending = !authorized
		c.mu.Unlock()
		if !authorized {
			return c.send(cmdAUTH, authToken, 0, authChallenge)
		}
		return c.send(cmdCNXN, protocolVersion, c.d.cfg.MaxData, c.d.banner)
	case cmdOPEN:
		return c.open(m)
	case cmdOKAY:
		if s := c.stream(m.arg1); s != nil {
			select {
			case s.ack <- struct{}{}:
			default:
			}
		}
	case cmdWRTE:
		// Input for a shell (adb forwards a client's stdin): acknowledged and dropped.
		if s := c.stream(m.arg1); s != nil {
			return c.send(cmdOKAY, s.local, s.remote, nil)
		}
	case cmdCLSE:
		// The host closed one of our streams. CLSE for an id we do not know (the server
		// answers our own CLSE with one) is ignored.
		if s := c.removeStream(m.arg1); s != nil {
			s.cancel()
		}
	case cmdAUTH:
		// A signature is never good enough while unauthorized: ask again, which makes the host
		// run out of keys and send its public key (the prompt a phone would show); that one is
		// left unanswered until Authorize.
		c.mu.Lock()
		pending := c.authPending
		c.mu.Unlock()
		if pending && m.arg0 == authSignature {
			return c.send(cmdAUTH, authToken, 0, authChallenge)
		}
	}
	return nil
}

func (c *conn) open(m message) error {
	service := strings.TrimRight(string(m.data), "\x00")
	c.d.logOpen(service)
	c.mu.Lock()
	online := c.online
	c.mu.Unlock()
	cmd, isShell := strings.CutPrefix(service, "shell:")
	if !online || !isShell || strings.TrimSpace(cmd) == "" || m.arg0 == 0 {
		// Refused: interactive shells, shell v2, sync, jdwp, ... are not served.
		return c.send(cmdCLSE, 0, m.arg0, nil)
	}
	s := &stream{remote: m.arg0, ack: make(chan struct{}, 1)}
	s.ctx, s.cancel = context.WithCancel(c.ctx)
	c.mu.Lock()
	c.nextID++
	s.local = c.nextID
	c.streams[s.local] = s
	c.mu.Unlock()
	if err := c.send(cmdOKAY, s.local, s.remote, nil); err != nil {
		s.cancel()
		return err
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		defer s.cancel()
		_ = c.d.runCommand(s.ctx, cmd, &streamWriter{c: c, s: s})
		if c.removeStream(s.local) != nil {
			// Still open on the host side: end it. (The host answers with a CLSE of its own,
			// which handle ignores.)
			_ = c.send(cmdCLSE, s.local, s.remote, nil)
		}
	}()
	return nil
}

func (c *conn) stream(id uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

func (c *conn) removeStream(id uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.streams[id]
	delete(c.streams, id)
	return s
}

func (c *conn) maxPayload() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return min(c.peerMax, int(c.d.cfg.MaxData))
}

// streamWriter sends a handler's output as WRTE messages, one in flight at a time.
type streamWriter struct {
	c *conn
	s *stream
}

// Write sends p in chunks of at most the host's maxdata, waiting for the host's OKAY after
// each. It fails with io.ErrClosedPipe once the stream has been closed.
func (w *streamWriter) Write(p []byte) (int, error) {
	w.s.wmu.Lock()
	defer w.s.wmu.Unlock()
	n := 0
	for len(p) > 0 {
		if w.s.ctx.Err() != nil {
			return n, io.ErrClosedPipe
		}
		chunk := min(len(p), w.c.maxPayload())
		if err := w.c.send(cmdWRTE, w.s.local, w.s.remote, p[:chunk]); err != nil {
			return n, io.ErrClosedPipe
		}
		select {
		case <-w.s.ack:
		case <-w.s.ctx.Done():
			// The host may acknowledge a chunk and close the stream at once (OKAY then CLSE):
			// both are ready and select picks either. An acknowledged chunk was delivered.
			select {
			case <-w.s.ack:
			default:
				return n, io.ErrClosedPipe
			}
		}
		n += chunk
		p = p[chunk:]
	}
	return n, nil
}
