package device

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestValidPerfettoPath(t *testing.T) {
	good := []string{
		"/data/misc/perfetto-traces/fpstop-a.pftrace",
		"/data/misc/perfetto-traces/fpstop-4242-1.pftrace",
		"/data/misc/perfetto-traces/fpstop-" + strings.Repeat("a", 63) + ".pftrace",
	}
	for _, p := range good {
		if err := ValidPerfettoPath(p); err != nil {
			t.Errorf("ValidPerfettoPath(%q) = %v", p, err)
		}
	}
	bad := []string{
		"", "fpstop-a.pftrace", "/data/local/tmp/fpstop-a.pftrace",
		"/data/misc/perfetto-traces/", "/data/misc/perfetto-traces/trace.pftrace",
		"/data/misc/perfetto-traces/fpstop-.pftrace", "/data/misc/perfetto-traces/fpstop--x.pftrace",
		"/data/misc/perfetto-traces/fpstop-A.pftrace", "/data/misc/perfetto-traces/fpstop-a.pftrace.x",
		"/data/misc/perfetto-traces/../fpstop-a.pftrace", "/data/misc/perfetto-traces/x/fpstop-a.pftrace",
		"/data/misc/perfetto-traces/fpstop-a;rm.pftrace", "/data/misc/perfetto-traces/fpstop-a b.pftrace",
		"/data/misc/perfetto-traces/fpstop-a'.pftrace", "/data/misc/perfetto-traces/fpstop-a.pftrace\n",
		"/data/misc/perfetto-traces/fpstop-" + strings.Repeat("a", 64) + ".pftrace",
		"/data/misc/perfetto-traces//fpstop-a.pftrace",
	}
	for _, p := range bad {
		if err := ValidPerfettoPath(p); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidPerfettoPath(%q) = %v; want a refusal", p, err)
		}
	}
}

const testConfig = `buffers { size_kb: 4096 }
data_sources { config { name: "android.surfaceflinger.frametimeline" } }
duration_ms: 20000
write_into_file: true
file_write_period_ms: 250
unique_session_name: "fpstop-a"
`

func TestValidPerfettoConfig(t *testing.T) {
	if err := ValidPerfettoConfig(testConfig); err != nil {
		t.Fatal(err)
	}
	bad := []string{
		"", " \n\t", "-n x", "a'b", `a\nb`, "a\x00b", "a\rb", "a\x1bb", "näme", "a`b" + strings.Repeat("x", MaxPerfettoConfig),
	}
	for _, c := range bad {
		if err := ValidPerfettoConfig(c); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidPerfettoConfig(%.20q) = %v; want a refusal", c, err)
		}
	}
}

func TestPerfettoCommands(t *testing.T) {
	path := "/data/misc/perfetto-traces/fpstop-a.pftrace"
	cmd, err := PerfettoStartCommand(testConfig, path)
	if err != nil {
		t.Fatal(err)
	}
	want := "echo '" + testConfig + "' | perfetto --background --txt -c - -o " + path
	if cmd != want {
		t.Errorf("start command\n got %q\nwant %q", cmd, want)
	}
	if _, err := PerfettoStartCommand(testConfig, "/sdcard/fpstop-a.pftrace"); !errors.Is(err, ErrInvalid) {
		t.Errorf("a path outside the trace directory: %v", err)
	}
	if _, err := PerfettoStartCommand("x' ; reboot ; echo '", path); !errors.Is(err, ErrInvalid) {
		t.Errorf("a config closing its quote: %v", err)
	}
	for _, c := range []struct {
		off  int64
		want string
	}{
		{0, "stat -c %s " + path + " 2>/dev/null && tail -c +1 " + path + " 2>/dev/null | head -c 8388608"},
		{4096, "stat -c %s " + path + " 2>/dev/null && tail -c +4097 " + path + " 2>/dev/null | head -c 8388608"},
	} {
		got, err := PerfettoReadCommand(path, c.off)
		if err != nil || got != c.want {
			t.Errorf("PerfettoReadCommand(%d) = %q, %v; want %q", c.off, got, err, c.want)
		}
	}
	if _, err := PerfettoReadCommand(path, -1); !errors.Is(err, ErrInvalid) {
		t.Errorf("a negative offset: %v", err)
	}
	if _, err := PerfettoReadCommand("/data/misc/perfetto-traces/other.pftrace", 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("another tool's trace: %v", err)
	}
}

// TestParsePerfettoRead: the size line, then the bytes (which may hold newlines and digits of
// their own); nothing at all is no file; anything else where the size belongs is an error.
func TestParsePerfettoRead(t *testing.T) {
	for _, c := range []struct {
		out    string
		size   int64
		data   string
		exists bool
		bad    bool
	}{
		{"", 0, "", false, false},
		{"0\n", 0, "", true, false},
		{"4096\n", 4096, "", true, false},
		{"5000\n\n\x0812\n34", 5000, "\n\x0812\n34", true, false},
		{"stat: bad option -c\n", 0, "", false, true},
		{"12", 0, "", false, true},
		{"-3\n", 0, "", false, true},
	} {
		size, data, exists, err := ParsePerfettoRead([]byte(c.out))
		if (err != nil) != c.bad || size != c.size || string(data) != c.data || exists != c.exists {
			t.Errorf("ParsePerfettoRead(%q) = %d, %q, %v, %v", c.out, size, data, exists, err)
		}
	}
}

func TestParsePerfettoStart(t *testing.T) {
	for _, c := range []struct {
		out  string
		pid  int
		want error
	}{
		{"12345\n", 12345, nil},
		{"[259.123]  perfetto_cmd.cc:1024 Connected to the Perfetto traced service, TTL: 20s\n31337\n", 31337, nil},
		{"31337\r\n", 31337, nil},
		{"", 0, ErrPerfettoRefused},
		{"0\n", 0, ErrPerfettoRefused},
		{"[1.0] perfetto_cmd.cc:655 The TraceConfig is empty\n", 0, ErrPerfettoRefused},
		{"A trace with this unique session name (fpstop-a) already exists\n", 0, ErrTracingBusy},
		{"Too many concurrent tracing sesions (5)\n", 0, ErrTracingBusy},
		{"/system/bin/sh: perfetto: inaccessible or not found\n", 0, ErrPerfettoUnsupported},
		{"perfetto: unrecognized option '--txt'\nUsage: ...\n", 0, ErrPerfettoUnsupported},
	} {
		pid, err := ParsePerfettoStart([]byte(c.out))
		if pid != c.pid || !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("ParsePerfettoStart(%q) = %d, %v; want %d, %v", c.out, pid, err, c.pid, c.want)
		}
		if first := strings.TrimSpace(strings.SplitN(c.out, "\n", 2)[0]); err != nil && len(first) > 10 && !strings.Contains(err.Error(), first[:10]) {
			t.Errorf("error %q does not quote perfetto's words %q", err, c.out)
		}
	}
}

func TestParsePerfettoLog(t *testing.T) {
	out := []byte(`--------- beginning of main
12-07 16:40:01.123  4000  4000 I perfetto: perfetto_cmd.cc:700 Connected to the Perfetto traced service
12-07 16:40:01.124 31007 31007 I perfetto: perfetto_cmd.cc:700 Connected to the Perfetto traced service
12-07 16:40:01.125 31007 31007 E perfetto: perfetto_cmd.cc:1238 A trace with this unique session name (fpstop-a) already exists
12-07 16:40:01.126  4000  4000 E perfetto: perfetto_cmd.cc:1238 Something else
`)
	if got := ParsePerfettoLog(out, 31007); got != "A trace with this unique session name (fpstop-a) already exists" {
		t.Errorf("ParsePerfettoLog = %q", got)
	}
	if got := ParsePerfettoLog(out, 1); got != "" {
		t.Errorf("a pid that logged nothing: %q", got)
	}
}

// TestPerfettoRefusesBeforeAnyCall: bad paths, configs, offsets and pids are refused before
// a connection is made (the client points at an address where nothing listens).
func TestPerfettoRefusesBeforeAnyCall(t *testing.T) {
	addr, _ := closedPort(t)
	c := &Client{addr: addr, opts: Options{NoStartServer: true}}
	ctx := context.Background()
	good := "/data/misc/perfetto-traces/fpstop-a.pftrace"
	for name, err := range map[string]error{
		"start, bad path":   func() error { _, err := c.PerfettoStart(ctx, "s", testConfig, "/data/local/tmp/x"); return err }(),
		"start, bad config": func() error { _, err := c.PerfettoStart(ctx, "s", "a'$(reboot)'", good); return err }(),
		"read, bad path":    func() error { _, err := c.PerfettoRead(ctx, "s", "/sdcard/fpstop-a.pftrace", 0); return err }(),
		"read, bad offset":  func() error { _, err := c.PerfettoRead(ctx, "s", good, -5); return err }(),
		"stop, bad path":    c.PerfettoStop(ctx, "s", 42, good+";reboot"),
		"stop, bad pid":     c.PerfettoStop(ctx, "s", -1, good),
		"running, bad pid":  func() error { _, err := c.PerfettoRunning(ctx, "s", -1); return err }(),
	} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v; want a refusal before any call", name, err)
		}
	}
}

// TestParseStatus: a command's output then its exit status on the last line; an answer cut
// before the status (a phone that stopped answering: shell protocol v1 ends it like a finished
// command) is not a status, whatever it holds.
func TestParseStatus(t *testing.T) {
	for _, c := range []struct {
		out, body string
		status    int
		ok        bool
	}{
		{"exit 1\n", "", 1, true},
		{"31007 31014\nexit 0\n", "31007 31014\n", 0, true},
		{"31007\r\nexit 0\r\n", "31007\r\n", 0, true},
		{"rm: /data/misc/perfetto-traces/x: Permission denied\nexit 1\n", "rm: /data/misc/perfetto-traces/x: Permission denied\n", 1, true},
		{"", "", 0, false},
		{"\n", "", 0, false},
		{"31007 31014\n", "", 0, false},
		{"31007\n", "", 0, false},
		{"0\n", "", 0, false},
		{"exit -1\n", "", 0, false},
		{"exit\n", "", 0, false},
	} {
		body, status, ok := parseStatus([]byte(c.out))
		if ok != c.ok || (ok && (string(body) != c.body || status != c.status)) {
			t.Errorf("parseStatus(%q) = %q, %d, %v; want %q, %d, %v", c.out, body, status, ok, c.body, c.status, c.ok)
		}
	}
}
