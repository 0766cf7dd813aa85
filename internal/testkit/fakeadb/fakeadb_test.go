package fakeadb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// guard bounds every wait in these tests so that a bug fails the test instead of hanging it;
// nothing here asserts how long anything takes.
const guard = 10 * time.Second

// host plays the adb server's side of the transport protocol against the fake.
type host struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialHost(t *testing.T, d *Device, maxdata uint32) (*host, message) {
	t.Helper()
	nc, err := net.Dial("tcp", d.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	h := &host{t: t, nc: nc, br: bufio.NewReader(nc)}
	h.send(cmdCNXN, protocolVersion, maxdata, []byte("host::features=cmd\x00"))
	m := h.read()
	if m.cmd != cmdCNXN {
		t.Fatalf("got %v, want CNXN", m)
	}
	return h, m
}

func (h *host) send(cmd, a0, a1 uint32, data []byte) {
	h.t.Helper()
	var hdr [headerLen]byte
	encodeHeader(&hdr, cmd, a0, a1, data)
	if _, err := h.nc.Write(append(hdr[:], data...)); err != nil {
		h.t.Fatalf("host send: %v", err)
	}
}

func (h *host) read() message {
	h.t.Helper()
	_ = h.nc.SetReadDeadline(time.Now().Add(guard))
	m, err := readMessage(h.br)
	if err != nil {
		h.t.Fatalf("host read: %v", err)
	}
	return m
}

// open opens service as stream local and returns the fake's id for it.
func (h *host) open(local uint32, service string) uint32 {
	h.t.Helper()
	h.send(cmdOPEN, local, 0, []byte(service+"\x00"))
	m := h.read()
	if m.cmd != cmdOKAY || m.arg1 != local || m.arg0 == 0 {
		h.t.Fatalf("OPEN %q: got %v", service, m)
	}
	return m.arg0
}

// collect reads stream local to its CLSE, acknowledging every WRTE, and returns the data.
func (h *host) collect(local, remote uint32, maxdata int) []byte {
	h.t.Helper()
	var out []byte
	for {
		m := h.read()
		if m.arg1 != local {
			h.t.Fatalf("message for another stream: %v", m)
		}
		switch m.cmd {
		case cmdWRTE:
			if len(m.data) > maxdata {
				h.t.Fatalf("WRTE of %d bytes exceeds maxdata %d", len(m.data), maxdata)
			}
			out = append(out, m.data...)
			h.send(cmdOKAY, local, remote, nil)
		case cmdCLSE:
			return out
		default:
			h.t.Fatalf("unexpected %v", m)
		}
	}
}

func start(t *testing.T, cfg Config) *Device {
	t.Helper()
	d, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestBannerAndGetprop(t *testing.T) {
	d := start(t, Config{Model: "Pixel 7", Product: "panther", Device: "panther", Android: "13", SDK: 33,
		Props: map[string]string{"debug.x": "y"}})
	h, cnxn := dialHost(t, d, 4096)
	want := "device::ro.product.name=panther;ro.product.model=Pixel 7;ro.product.device=panther;features="
	if string(cnxn.data) != want || cnxn.arg0 != protocolVersion || cnxn.arg1 != DefaultMaxData {
		t.Errorf("CNXN = %v %q", cnxn, cnxn.data)
	}
	cases := map[string]string{
		"getprop ro.product.model":          "Pixel 7\n",
		"getprop ro.build.version.release":  "13\n",
		"getprop ro.build.version.sdk":      "33\n",
		"getprop debug.x":                   "y\n",
		"getprop no.such.prop":              "\n",
		"getprop no.such.prop fallback":     "fallback\n",
		"getprop 'ro.build.version.sdk'":    "33\n",
		"nosuchcmd --flag":                  "/system/bin/sh: nosuchcmd: inaccessible or not found\n",
		"getprop ro.product.model; reboot":  "/system/bin/sh: getprop: inaccessible or not found\n",
		"getprop ro.product.model | cat -v": "/system/bin/sh: getprop: inaccessible or not found\n",
	}
	var id uint32 = 100
	for cmd, want := range cases {
		id++
		remote := h.open(id, "shell:"+cmd)
		if got := string(h.collect(id, remote, 4096)); got != want {
			t.Errorf("%q: got %q, want %q", cmd, got, want)
		}
	}
	id++
	all := h.collect(id, h.open(id, "shell:getprop"), 4096)
	if !bytes.Contains(all, []byte("[ro.build.version.sdk]: [33]\n")) || !bytes.Contains(all, []byte("[debug.x]: [y]\n")) {
		t.Errorf("getprop (all):\n%s", all)
	}
	if got := d.Commands(); len(got) != len(cases)+1 {
		t.Errorf("Commands() has %d entries, want %d: %q", len(got), len(cases)+1, got)
	}
}

func TestChunkingAndFlowControl(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789"), 500) // 5000 bytes
	written := make(chan struct{})
	d := start(t, Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		_, err := w.Write(payload)
		close(written)
		return err
	}})
	const maxdata = 1000
	h, _ := dialHost(t, d, maxdata)
	remote := h.open(1, "shell:big")
	var got []byte
	for len(got) < len(payload) {
		m := h.read()
		if m.cmd != cmdWRTE || m.arg0 != remote || m.arg1 != 1 {
			t.Fatalf("got %v", m)
		}
		if len(m.data) > maxdata {
			t.Fatalf("WRTE of %d bytes > maxdata %d", len(m.data), maxdata)
		}
		got = append(got, m.data...)
		if len(got) == len(payload) {
			// The last chunk is not acknowledged yet: Write cannot have returned.
			select {
			case <-written:
				t.Fatal("Write returned before the host acknowledged its last WRTE")
			default:
			}
		}
		h.send(cmdOKAY, 1, remote, nil)
	}
	if m := h.read(); m.cmd != cmdCLSE || m.arg0 != remote || m.arg1 != 1 {
		t.Fatalf("got %v, want CLSE", m)
	}
	if !bytes.Equal(got, payload) {
		t.Error("payload mismatch")
	}
}

func TestConcurrentStreams(t *testing.T) {
	d := start(t, Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		for i := range 5 {
			if _, err := io.WriteString(w, strings.Repeat(cmd, 3)+string(rune('0'+i))+"\n"); err != nil {
				return err
			}
		}
		return nil
	}})
	h, _ := dialHost(t, d, 4096)
	h.send(cmdOPEN, 1, 0, []byte("shell:a\x00"))
	h.send(cmdOPEN, 2, 0, []byte("shell:b\x00"))
	// Serve both streams as their messages arrive, interleaved.
	got := map[uint32]*bytes.Buffer{1: {}, 2: {}}
	remote := map[uint32]uint32{}
	open := 2
	for open > 0 {
		m := h.read()
		if _, ok := got[m.arg1]; !ok {
			t.Fatalf("message for unknown stream: %v", m)
		}
		switch m.cmd {
		case cmdOKAY:
			remote[m.arg1] = m.arg0
		case cmdWRTE:
			if remote[m.arg1] != m.arg0 {
				t.Fatalf("WRTE before OKAY or from the wrong id: %v", m)
			}
			got[m.arg1].Write(m.data)
			h.send(cmdOKAY, m.arg1, m.arg0, nil)
		case cmdCLSE:
			open--
		default:
			t.Fatalf("unexpected %v", m)
		}
	}
	if remote[1] == remote[2] {
		t.Errorf("both streams got id %d", remote[1])
	}
	if want := "aaa0\naaa1\naaa2\naaa3\naaa4\n"; got[1].String() != want {
		t.Errorf("stream a: %q", got[1])
	}
	if want := "bbb0\nbbb1\nbbb2\nbbb3\nbbb4\n"; got[2].String() != want {
		t.Errorf("stream b: %q", got[2])
	}
}

func TestHostCloseEndsHandler(t *testing.T) {
	returned := make(chan error, 1)
	d := start(t, Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		if _, err := io.WriteString(w, "started\n"); err != nil {
			return err
		}
		<-ctx.Done()
		_, err := w.Write([]byte("too late"))
		returned <- err
		return nil
	}})
	h, _ := dialHost(t, d, 4096)
	// A CLSE for a stream the fake never had is ignored.
	h.send(cmdCLSE, 77, 12345, nil)
	remote := h.open(1, "shell:logcat")
	if m := h.read(); m.cmd != cmdWRTE || string(m.data) != "started\n" {
		t.Fatalf("got %v", m)
	}
	h.send(cmdOKAY, 1, remote, nil)
	h.send(cmdCLSE, 1, remote, nil)
	select {
	case err := <-returned:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("write after close = %v", err)
		}
	case <-time.After(guard):
		t.Fatal("handler still running after the host closed its stream")
	}
	// The connection still serves new streams.
	if got := string(h.collect(2, h.open(2, "shell:getprop ro.build.version.sdk"), 4096)); got != "34\n" {
		t.Errorf("after close: %q", got)
	}
}

func TestRefusedServices(t *testing.T) {
	d := start(t, Config{})
	h, _ := dialHost(t, d, 4096)
	for i, svc := range []string{"sync:", "shell,v2,raw:ls", "jdwp:123", "shell:", "framebuffer:"} {
		local := uint32(10 + i)
		h.send(cmdOPEN, local, 0, []byte(svc+"\x00"))
		if m := h.read(); m.cmd != cmdCLSE || m.arg0 != 0 || m.arg1 != local {
			t.Errorf("OPEN %q: got %v, want CLSE(0, %d)", svc, m, local)
		}
	}
	if got, want := d.Services(), []string{"sync:", "shell,v2,raw:ls", "jdwp:123", "shell:", "framebuffer:"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Services() = %q", got)
	}
	if got := d.Commands(); len(got) != 1 || got[0] != "" {
		t.Errorf("Commands() = %q", got)
	}
}

func TestUnplugReplug(t *testing.T) {
	handlerDone := make(chan struct{})
	d := start(t, Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		<-ctx.Done()
		close(handlerDone)
		return nil
	}})
	h, _ := dialHost(t, d, 4096)
	h.open(1, "shell:logcat")
	d.Unplug()
	select {
	case <-handlerDone:
	default:
		t.Fatal("Unplug returned with a handler still running")
	}
	_ = h.nc.SetReadDeadline(time.Now().Add(guard))
	if _, err := readMessage(h.br); err == nil {
		t.Fatal("connection survived Unplug")
	}
	if c, err := net.Dial("tcp", d.Addr()); err == nil {
		c.Close()
		t.Fatal("still listening after Unplug")
	}
	if err := d.Replug(); err != nil {
		t.Fatal(err)
	}
	h2, _ := dialHost(t, d, 4096)
	if got := string(h2.collect(1, h2.open(1, "shell:getprop ro.build.version.release"), 4096)); got != "14\n" {
		t.Errorf("after replug: %q", got)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Replug(); err == nil {
		t.Error("Replug after Close succeeded")
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Start(ctx, Config{Handler: func(ctx context.Context, cmd string, w io.Writer) error {
		for ctx.Err() == nil {
			if _, err := io.WriteString(w, "line\n"); err != nil {
				return err
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := dialHost(t, d, 4096)
	for i := uint32(1); i <= 3; i++ {
		h.send(cmdOPEN, i, 0, []byte("shell:logcat\x00"))
	}
	h2, _ := dialHost(t, d, 4096)
	h2.open(1, "shell:logcat")
	h2.read() // the first WRTE is sent; it is never acknowledged
	d.Unplug()
	if err := d.Replug(); err != nil {
		t.Fatal(err)
	}
	h3, _ := dialHost(t, d, 4096)
	h3.open(1, "shell:logcat")
	cancel() // ending Start's context closes the device
	deadline := time.Now().Add(guard)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	// Closing again is harmless.
	if err := d.Close(); err != nil {
		t.Error(err)
	}
}

func TestEmulatorRangeRefused(t *testing.T) {
	if _, err := Start(context.Background(), Config{Addr: "127.0.0.1:5555"}); err == nil {
		t.Fatal("listening on 5555 was allowed")
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"dumpsys gfxinfo com.example.app framestats", []string{"dumpsys", "gfxinfo", "com.example.app", "framestats"}},
		{`export ANDROID_LOG_TAGS="''"; exec logcat '-v' 'threadtime'`, []string{"export", "ANDROID_LOG_TAGS='';", "exec", "logcat", "-v", "threadtime"}},
		{`logcat -s '*:S' a\ b "x \"y\" \$z"`, []string{"logcat", "-s", "*:S", "a b", `x "y" $z`}},
		{"  ", nil},
		{"''", []string{""}},
	}
	for _, tt := range tests {
		if got := Args(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Args(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnauthorized(t *testing.T) {
	d := start(t, Config{Unauthorized: true})
	nc, err := net.Dial("tcp", d.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	h := &host{t: t, nc: nc, br: bufio.NewReader(nc)}
	h.send(cmdCNXN, protocolVersion, 4096, []byte("host::\x00"))
	if m := h.read(); m.cmd != cmdAUTH || m.arg0 != authToken || len(m.data) != 20 {
		t.Fatalf("got %v, want AUTH TOKEN", m)
	}
	h.send(cmdAUTH, authSignature, 0, make([]byte, 256))
	if m := h.read(); m.cmd != cmdAUTH || m.arg0 != authToken {
		t.Fatalf("got %v, want another AUTH TOKEN", m)
	}
	h.send(cmdAUTH, authRSAPublicKey, 0, []byte("QAAAA... host@key\x00"))
	// Not online yet: services are refused.
	h.send(cmdOPEN, 1, 0, []byte("shell:getprop ro.build.version.sdk\x00"))
	if m := h.read(); m.cmd != cmdCLSE || m.arg1 != 1 {
		t.Fatalf("got %v, want CLSE", m)
	}
	d.Authorize()
	if m := h.read(); m.cmd != cmdCNXN {
		t.Fatalf("got %v, want CNXN after Authorize", m)
	}
	if got := string(h.collect(2, h.open(2, "shell:getprop ro.build.version.sdk"), 4096)); got != "34\n" {
		t.Errorf("after Authorize: %q", got)
	}
	// Later connections are not asked again.
	dialHost(t, d, 4096)
}

func TestMux(t *testing.T) {
	var got []string
	rec := func(name string) Handler {
		return func(ctx context.Context, cmd string, w io.Writer) error {
			got = append(got, name+":"+cmd)
			return nil
		}
	}
	m := Mux{
		"logcat":                rec("logcat"),
		"dumpsys gfxinfo":       rec("gfx"),
		"dumpsys gfxinfo com.a": rec("gfx-a"),
		"pidof com.a":           Text("42\n"),
	}
	var out bytes.Buffer
	for _, cmd := range []string{"logcat -v monotonic", "logcat", "logcatx", "dumpsys gfxinfo com.b framestats",
		"dumpsys gfxinfo com.a framestats", "dumpsys gfxinfo com.ab", "pidof com.a"} {
		if err := m.Serve(context.Background(), cmd, &out); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"logcat:logcat -v monotonic", "logcat:logcat", "gfx:dumpsys gfxinfo com.b framestats",
		"gfx-a:dumpsys gfxinfo com.a framestats", "gfx:dumpsys gfxinfo com.ab"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routed:\n%q\nwant\n%q", got, want)
	}
	if w := "/system/bin/sh: logcatx: inaccessible or not found\n42\n"; out.String() != w {
		t.Errorf("output %q, want %q", out.String(), w)
	}
}
