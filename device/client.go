// Package device is everything in fpstop that talks to adb: it finds the adb server (starting
// one when adb is installed and none answers), lists devices with their state, model and
// Android version, picks one, runs shell commands with timeouts, streams long-running commands
// (logcat), and asks the device for its foreground app, refresh rate, pids and packages.
//
// Nothing the user or the device supplies reaches a device shell unchecked: package names must
// match Java's package grammar (ValidPackage), logcat arguments and property keys/values are
// checked against short allow-lists, and serials only ever travel as adb transport names
// (host:transport:SERIAL), never inside shell text. Every call takes a context and is bounded:
// no adb hang can freeze the caller.
//
// device is a leaf package: it imports neither source/* nor metrics, ui or record.
package device

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultHost and DefaultPort are where adb clients find the server unless told otherwise.
const (
	DefaultHost = "localhost"
	DefaultPort = 5037
)

// DefaultTimeout bounds a non-streaming call (and a stream's opening handshake) when
// Options.Timeout is zero.
const DefaultTimeout = 15 * time.Second

// MaxShellOutput bounds the output Shell collects (a full `dumpsys gfxinfo` of every process is
// under 1 MB; this is far above it).
const MaxShellOutput = 64 << 20

// Errors callers may test with errors.Is.
var (
	// ErrNoServer: nothing answered at the adb server address.
	ErrNoServer = errors.New("no adb server")
	// ErrNoAdb: no server answered and adb is not installed, so none could be started.
	ErrNoAdb = errors.New("adb is not installed")
	// ErrNoDevice: no device is connected (or none is online).
	ErrNoDevice = errors.New("no Android device connected")
	// ErrSeveralDevices: several devices are online and none was chosen.
	ErrSeveralDevices = errors.New("several Android devices connected")
	// ErrDeviceNotFound: the chosen serial is not connected.
	ErrDeviceNotFound = errors.New("device not found")
	// ErrOffline: the device is connected but offline (unplugged, rebooting, not responding).
	ErrOffline = errors.New("device offline")
	// ErrUnauthorized: the device has not accepted this computer's RSA key.
	ErrUnauthorized = errors.New("device unauthorized")
	// ErrNotRunning: the app has no running process on the device.
	ErrNotRunning = errors.New("app not running")
	// ErrInvalid: a package name, logcat argument or property was refused before anything was
	// sent to the device.
	ErrInvalid = errors.New("refused")
)

// Options tune a Client.
type Options struct {
	// Timeout bounds every non-streaming call and the opening of a stream, on top of the
	// caller's context (default DefaultTimeout).
	Timeout time.Duration
	// AdbPath is the adb binary used to start a server when none answers (default: "adb" on PATH).
	AdbPath string
	// NoStartServer: never start an adb server; fail with ErrNoServer instead.
	NoStartServer bool
}

// Client talks to one adb server. It holds no connection between calls, so it is safe for
// concurrent use and survives server restarts.
type Client struct {
	addr string
	opts Options
	// started: Connect started the server this client talks to (none answered)
	started bool
	// facts are what each connected device said of itself (model, release, SDK): read once
	// per connection, not on every listing.
	facts *factCache
}

// ServerAddr returns the adb server address ("host:port") the way adb's own client chooses it:
// --adb-host/--adb-port (host "" and port 0 mean "not given") win; when neither is given,
// $ADB_SERVER_SOCKET ("tcp:PORT" or "tcp:HOST:PORT") is used; otherwise
// $ANDROID_ADB_SERVER_ADDRESS and $ANDROID_ADB_SERVER_PORT, then localhost:5037.
func ServerAddr(host string, port int) (string, error) {
	if port < 0 || port > 65535 {
		return "", fmt.Errorf("invalid adb server port %d", port)
	}
	if host == "" && port == 0 {
		if sock := strings.TrimSpace(os.Getenv("ADB_SERVER_SOCKET")); sock != "" {
			return parseServerSocket(sock)
		}
	}
	if host == "" {
		host = os.Getenv("ANDROID_ADB_SERVER_ADDRESS")
	}
	if host == "" {
		host = DefaultHost
	}
	if port == 0 {
		if env := os.Getenv("ANDROID_ADB_SERVER_PORT"); env != "" {
			p, err := strconv.Atoi(env)
			if err != nil || p <= 0 || p > 65535 {
				return "", fmt.Errorf("invalid ANDROID_ADB_SERVER_PORT %q", env)
			}
			port = p
		}
	}
	if port == 0 {
		port = DefaultPort
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port)), nil
}

// parseServerSocket reads adb's socket spec for the server: tcp:PORT, tcp:HOST:PORT,
// tcp:[IPv6]:PORT.
func parseServerSocket(spec string) (string, error) {
	rest, ok := strings.CutPrefix(spec, "tcp:")
	if !ok {
		return "", fmt.Errorf("ADB_SERVER_SOCKET %q: only tcp:[HOST:]PORT is supported", spec)
	}
	host := DefaultHost
	portStr := rest
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		host, portStr = strings.Trim(rest[:i], "[]"), rest[i+1:]
	}
	p, err := strconv.Atoi(portStr)
	if err != nil || p <= 0 || p > 65535 || host == "" {
		return "", fmt.Errorf("invalid ADB_SERVER_SOCKET %q (want tcp:[HOST:]PORT)", spec)
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

// Connect returns a client for the adb server at addr (see ServerAddr), after checking that a
// server answers. When nothing listens there and the address is on this machine, it starts a
// server with `adb -P PORT start-server` (adb from Options.AdbPath or PATH) and tries again;
// without adb the error says how to install it (wrapping ErrNoAdb).
func Connect(ctx context.Context, addr string, opts Options) (*Client, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("invalid adb server address %q: %w", addr, err)
	}
	c := &Client{addr: addr, opts: opts, facts: &factCache{m: map[string]Info{}}}
	_, err = c.ServerVersion(ctx)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, ErrNoServer) || !refused(err) || !isLocal(host) || opts.NoStartServer {
		return nil, err
	}
	adb := opts.AdbPath
	if adb == "" {
		adb, err = exec.LookPath("adb")
		if err != nil {
			return nil, fmt.Errorf("no adb server at %s and %w: install Android SDK platform-tools "+
				"(Debian/Ubuntu: `apt install adb`; elsewhere https://developer.android.com/tools/releases/platform-tools) "+
				"and make sure adb is on PATH", addr, ErrNoAdb)
		}
	}
	if err := startServer(ctx, adb, portStr, c.timeout()); err != nil {
		return nil, err
	}
	c.started = true
	// The server answers as soon as start-server returns; retry briefly in case it is still
	// binding its socket.
	for attempt := 0; ; attempt++ {
		_, err = c.ServerVersion(ctx)
		if err == nil {
			return c, nil
		}
		if attempt == 10 || !errors.Is(err, ErrNoServer) {
			return nil, fmt.Errorf("started an adb server with %s, but it does not answer: %w", adb, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// isLocal reports whether host names this machine (a server can only be started here).
func isLocal(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// startServer runs `adb -P PORT start-server`, bounded by timeout. Only a server on this machine
// can be started, and adb starts it on localhost; -H is not passed, since with -H adb only
// looks for a server at that host and never starts one.
func startServer(ctx context.Context, adb, port string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, max(timeout, 20*time.Second))
	defer cancel()
	args := []string{"-P", port, "start-server"}
	cmd := exec.CommandContext(ctx, adb, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = nil
	// The daemon adb forks must not keep us waiting on its inherited output.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("starting an adb server (%s %s) failed: %v: %s", adb, strings.Join(args, " "), err,
			strings.TrimSpace(out.String()))
	}
	return nil
}

// StartedServer reports whether Connect started the adb server (none answered at the address):
// the caller says so and stops it when done (KillServer), leaving the machine as it found it.
func (c *Client) StartedServer() bool { return c.started }

// KillServer stops the adb server (adb kill-server's host:kill).
func (c *Client) KillServer(ctx context.Context) error {
	cctx, cancel := c.callContext(ctx)
	defer cancel()
	h, err := dial(cctx, c.addr)
	if err != nil {
		return err
	}
	defer h.Close()
	return h.request("host:kill")
}

// Addr is the server address this client talks to.
func (c *Client) Addr() string { return c.addr }

func (c *Client) timeout() time.Duration {
	if c.opts.Timeout > 0 {
		return c.opts.Timeout
	}
	return DefaultTimeout
}

// callContext bounds a non-streaming call by the client's timeout.
func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout())
}

// ServerVersion asks the server for its protocol version (host:version; 41 for adb 1.0.41).
func (c *Client) ServerVersion(ctx context.Context) (int, error) {
	s, err := c.query(ctx, "host:version")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("adb server sent version %q", s)
	}
	return int(v), nil
}

// Shell runs cmd on the device and returns its output (stdout and stderr mixed, as adb's shell
// protocol v1 gives them; the exit status is not available). cmd is sent verbatim: build it only
// from constants and validated pieces (the typed helpers below do). The call ends with an
// error when ctx ends or the client's timeout passes; an unplugged device is an error wrapping
// ErrOffline or ErrDeviceNotFound.
func (c *Client) Shell(ctx context.Context, serial, cmd string) ([]byte, error) {
	if strings.TrimSpace(cmd) == "" {
		return nil, errors.New("empty shell command")
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	h, err := c.openService(ctx, serial, "shell:"+cmd)
	if err != nil {
		return nil, fmt.Errorf("adb shell %s: %w", short(cmd), err)
	}
	defer h.Close()
	out, err := io.ReadAll(io.LimitReader(h.nc, MaxShellOutput+1))
	if err != nil {
		return nil, fmt.Errorf("adb shell %s: %w", short(cmd), c.deviceErr(serial, h.wrap(err)))
	}
	if len(out) > MaxShellOutput {
		return nil, fmt.Errorf("adb shell %s: output larger than %d bytes", short(cmd), MaxShellOutput)
	}
	return out, nil
}

// Stream runs cmd on the device and returns its output as it is produced, over the host
// protocol (host:transport:SERIAL, then shell:CMD). Reading ends with io.EOF when the command
// exits or the device goes away, and with ctx's error once ctx ends; Close stops the command
// (adb closes the device stream). Opening the stream is bounded by the client's timeout.
// cmd is sent verbatim: see Shell.
func (c *Client) Stream(ctx context.Context, serial, cmd string) (io.ReadCloser, error) {
	if strings.TrimSpace(cmd) == "" {
		return nil, errors.New("empty shell command")
	}
	h, err := c.openService(ctx, serial, "shell:"+cmd)
	if err != nil {
		return nil, fmt.Errorf("adb shell %s: %w", short(cmd), err)
	}
	return &stream{h: h}, nil
}

// stream is a running shell command's output.
type stream struct{ h *hostConn }

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.h.nc.Read(p)
	if err != nil && err != io.EOF {
		err = s.h.wrap(err)
	}
	return n, err
}

func (s *stream) Close() error {
	err := s.h.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
