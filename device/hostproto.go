package device

// This file is a small client for the adb *host* protocol (the smart-socket protocol the adb
// server speaks on port 5037: SERVICES.TXT / protocol.txt in AOSP's adb sources).
//
// gadb v0.1.0 speaks the same protocol, but it lacks what fpstop needs here, so these pieces
// were added beside it:
//   - contexts: gadb dials with net.Dial and reads with a fixed 60 s deadline, and its
//     connection type is unexported, so a gadb call can be neither cancelled nor bounded by
//     the caller. Every request below dials with the caller's context and closes the socket
//     when that context ends, so no adb call can freeze the UI.
//   - streaming: gadb's RunShellCommand reads a command's whole output (io.ReadAll); a logcat
//     never ends, so Stream hands out the socket as an io.ReadCloser instead.
//   - the full device list: gadb's DeviceList drops lines with fewer than four fields, which
//     loses unauthorized and offline devices; Devices parses host:devices-l itself.
// The request framing (4 hex digits of length, then the text; OKAY or FAIL plus a
// length-prefixed message) is the same as gadb's transport.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FailError is an adb server's FAIL answer to a request.
type FailError struct {
	Request string // the request, e.g. "host:transport:SERIAL" or "shell:…" (truncated)
	Message string // what the server said, e.g. "device offline"
}

func (e *FailError) Error() string {
	return fmt.Sprintf("adb server refused %s: %s", e.Request, strings.TrimSpace(e.Message))
}

// Is lets errors.Is match the server's usual answers against ErrOffline, ErrUnauthorized and
// ErrDeviceNotFound.
func (e *FailError) Is(target error) bool {
	msg := strings.ToLower(e.Message)
	switch target {
	case ErrOffline:
		return strings.Contains(msg, "offline")
	case ErrUnauthorized:
		return strings.Contains(msg, "unauthorized")
	case ErrDeviceNotFound:
		return strings.Contains(msg, "not found") || strings.Contains(msg, "no devices")
	}
	return false
}

// hostConn is one connection to the adb server, bound to a context: when the context ends the
// socket is closed, which unblocks any read or write in progress.
type hostConn struct {
	nc   net.Conn
	ctx  context.Context
	stop func() bool
}

// dial connects to the adb server at addr. The connection is closed when ctx ends.
func dial(ctx context.Context, addr string) (*hostConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &serverDownError{addr: addr, err: err}
	}
	hc := &hostConn{nc: nc, ctx: ctx}
	hc.stop = context.AfterFunc(ctx, func() { _ = nc.Close() })
	return hc, nil
}

// serverDownError reports that no adb server accepted a connection.
type serverDownError struct {
	addr string
	err  error
}

func (e *serverDownError) Error() string {
	return fmt.Sprintf("no adb server at %s: %v", e.addr, e.err)
}

func (e *serverDownError) Unwrap() error { return e.err }

func (e *serverDownError) Is(target error) bool { return target == ErrNoServer }

// ServerDown marks the error as the adb server's absence (source.OutageState).
func (e *serverDownError) ServerDown() bool { return true }

// Trouble says what happened in plain words (source.Trouble).
func (e *serverDownError) Trouble() string {
	return "the adb server is not running (`adb start-server`)"
}

// troubleError is a failure to reach a device, with the plain words a status line shows for it
// (source.Trouble) besides the full message the log keeps.
type troubleError struct {
	msg, trouble string
	err          error
}

func (e *troubleError) Error() string   { return e.msg }
func (e *troubleError) Unwrap() error   { return e.err }
func (e *troubleError) Trouble() string { return e.trouble }

// refused reports whether err says that nothing listens at the address (as opposed to a
// timeout or an unreachable host).
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

func (h *hostConn) Close() error {
	h.stop()
	return h.nc.Close()
}

// wrap turns an I/O error caused by the context ending into the context's error.
func (h *hostConn) wrap(err error) error {
	if err == nil {
		return nil
	}
	if cerr := h.ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// request sends one request and reads the server's OKAY or FAIL.
func (h *hostConn) request(req string) error {
	if len(req) > 0xffff {
		return fmt.Errorf("adb request too long (%d bytes)", len(req))
	}
	if _, err := io.WriteString(h.nc, fmt.Sprintf("%04x%s", len(req), req)); err != nil {
		return h.wrap(fmt.Errorf("sending %s: %w", short(req), err))
	}
	var status [4]byte
	if _, err := io.ReadFull(h.nc, status[:]); err != nil {
		return h.wrap(fmt.Errorf("reading the answer to %s: %w", short(req), err))
	}
	switch string(status[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := h.readString()
		if err != nil {
			return h.wrap(fmt.Errorf("reading the failure of %s: %w", short(req), err))
		}
		return &FailError{Request: short(req), Message: msg}
	default:
		return fmt.Errorf("adb server answered %q to %s: not an adb server?", status[:], short(req))
	}
}

// readString reads a length-prefixed (4 hex digits) string.
func (h *hostConn) readString() (string, error) {
	var l [4]byte
	if _, err := io.ReadFull(h.nc, l[:]); err != nil {
		return "", h.wrap(err)
	}
	n, err := strconv.ParseUint(string(l[:]), 16, 32)
	if err != nil {
		return "", fmt.Errorf("bad length %q from the adb server", l[:])
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(h.nc, buf); err != nil {
		return "", h.wrap(err)
	}
	return string(buf), nil
}

// short bounds a request for error messages.
func short(req string) string {
	const max = 80
	if len(req) > max {
		return req[:max] + "…"
	}
	return req
}

// query sends a host request whose answer is one length-prefixed string (host:version,
// host:devices-l, ...).
func (c *Client) query(ctx context.Context, req string) (string, error) {
	cctx, cancel := c.callContext(ctx)
	defer cancel()
	h, err := dial(cctx, c.addr)
	if err != nil {
		return "", c.serverErr(ctx, err)
	}
	defer h.Close()
	if err := h.request(req); err != nil {
		return "", c.serverErr(ctx, err)
	}
	s, err := h.readString()
	return s, c.serverErr(ctx, err)
}

// serverErr words the client's own timeout as what it is: a server that accepted the
// connection and never answered ("context deadline exceeded" says nothing to a user).
func (c *Client) serverErr(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || !(errors.Is(err, context.DeadlineExceeded) || isTimeout(err)) {
		return err
	}
	// The wrapped error is kept for errors.Is, out of the sentence.
	return &troubleError{fmt.Sprintf("the adb server at %s did not answer within %s", c.addr, seconds(c.timeout())),
		"adb server not answering", err}
}

// seconds words a duration in seconds ("15 s", "0.1 s").
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// openService switches a new connection to the device's transport and opens service on it
// (e.g. "shell:dumpsys display"). The serial travels in host:transport: and never in the
// service text. The handshake is bounded by the client's call timeout; the returned connection
// lives until ctx ends or it is closed.
func (c *Client) openService(ctx context.Context, serial, service string) (*hostConn, error) {
	if err := checkSerial(serial); err != nil {
		return nil, err
	}
	h, err := dial(ctx, c.addr)
	if err != nil {
		return nil, err
	}
	_ = h.nc.SetDeadline(time.Now().Add(c.timeout()))
	if err := h.request("host:transport:" + serial); err != nil {
		h.Close()
		return nil, c.deviceErr(serial, err)
	}
	if err := h.request(service); err != nil {
		h.Close()
		return nil, c.deviceErr(serial, err)
	}
	_ = h.nc.SetDeadline(time.Time{})
	return h, nil
}

// deviceErr words a failure to reach a device.
func (c *Client) deviceErr(serial string, err error) error {
	switch {
	case errors.Is(err, ErrOffline):
		return &troubleError{fmt.Sprintf("device %s is offline (unplugged or not responding): %v", serial, err), "phone disconnected", err}
	case errors.Is(err, ErrUnauthorized):
		return &troubleError{fmt.Sprintf("device %s is unauthorized: %s: %v", serial, Help("unauthorized"), err),
			"phone unauthorized: accept the USB debugging prompt on it", err}
	case errors.Is(err, ErrDeviceNotFound):
		return &troubleError{fmt.Sprintf("device %s is not connected: %v", serial, err), "phone disconnected", err}
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return &troubleError{fmt.Sprintf("device %s did not answer within %s: %v", serial, c.timeout(), err), "phone not answering", err}
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// checkSerial accepts any serial adb could print (letters, digits, punctuation such as
// "127.0.0.1:5555" or "adb-XYZ._adb-tls-connect._tcp") and refuses empty ones and control
// characters or blanks, which no adb serial contains.
func checkSerial(serial string) error {
	if serial == "" {
		return errors.New("no device serial given")
	}
	if len(serial) > 255 {
		return fmt.Errorf("device serial %.40q… is too long", serial)
	}
	for _, r := range serial {
		if r <= ' ' || r == 0x7f {
			return fmt.Errorf("invalid device serial %q", serial)
		}
	}
	return nil
}
