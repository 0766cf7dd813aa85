package device

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PerfettoTraceDir is the one directory where the shell user's perfetto may write a trace
// (SELinux lets perfetto create files nowhere else on a non-rooted phone).
const PerfettoTraceDir = "/data/misc/perfetto-traces/"

// PerfettoMinSDK is the first Android release whose tracing service records FrameTimeline
// (Android 12, SDK 31): on older phones a session would run but show no frames.
const PerfettoMinSDK = 31

// MaxPerfettoConfig bounds a text config: it travels inside the shell command line, which
// older adbd accept up to a few kilobytes and newer ones up to their maxdata.
const MaxPerfettoConfig = 8 << 10

// MaxPerfettoRead bounds what one PerfettoRead returns; the caller reads on from where it got.
const MaxPerfettoRead = 8 << 20

// Errors of the perfetto calls, for errors.Is.
var (
	// ErrPerfettoUnsupported: the phone cannot record FrameTimeline (before Android 12, or no
	// perfetto binary / an old one without the options fpstop uses).
	ErrPerfettoUnsupported = errors.New("FrameTimeline tracing not supported")
	// ErrTracingBusy: the tracing service refused the session (another session with the same
	// unique name, too many sessions) or ended it at once.
	ErrTracingBusy = errors.New("tracing busy")
	// ErrPerfettoRefused: perfetto refused the config or the output file.
	ErrPerfettoRefused = errors.New("the phone refused the tracing session")
)

// perfettoFileName is the only file name fpstop gives a trace on the phone: its own prefix, so
// it never reads, stops or removes another tool's trace. Compiled on first use: the counted
// repeat makes it one of the costlier patterns to build, and only Perfetto runs need it.
var perfettoFileName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^fpstop-[a-z0-9][a-z0-9-]{0,62}\.pftrace$`)
})

// ValidPerfettoPath checks a trace path before it reaches a shell: PerfettoTraceDir followed by
// a name of fpstop-, then 1 to 63 lowercase letters, digits and '-', then .pftrace. Anything
// else (another directory, "..", blanks, quotes, another tool's file) is refused with ErrInvalid.
func ValidPerfettoPath(path string) error {
	name, ok := strings.CutPrefix(path, PerfettoTraceDir)
	if !ok {
		return invalidf("invalid trace path %.80q: must be in %s", path, PerfettoTraceDir)
	}
	if !perfettoFileName().MatchString(name) {
		return invalidf("invalid trace path %.80q: the name must look like fpstop-NAME.pftrace (lowercase letters, digits, '-')", path)
	}
	return nil
}

// ValidPerfettoConfig checks a text config before it is placed in a shell command: 1 to
// MaxPerfettoConfig bytes of printable ASCII, tabs and newlines, without a single quote (it is
// sent single-quoted), a backslash (echo may read escapes) or a leading '-' (echo would read an
// option). A text-format TraceConfig needs none of them.
func ValidPerfettoConfig(config string) error {
	switch {
	case strings.TrimSpace(config) == "":
		return invalidf("invalid perfetto config: empty")
	case len(config) > MaxPerfettoConfig:
		return invalidf("invalid perfetto config: longer than %d bytes", MaxPerfettoConfig)
	case strings.HasPrefix(config, "-"):
		return invalidf("invalid perfetto config: starts with '-'")
	}
	for i := 0; i < len(config); i++ {
		ch := config[i]
		if ch == '\'' || ch == '\\' || (ch < ' ' && ch != '\n' && ch != '\t') || ch > '~' {
			return invalidf("invalid perfetto config: contains %q at byte %d (printable ASCII without ' and \\ only)", rune(ch), i)
		}
	}
	return nil
}

// PerfettoStartCommand is the shell command that starts a background session writing into
// path with the text config on perfetto's stdin. adb's shell protocol v1 (what fpstop speaks)
// cannot close a command's stdin without closing its output, so the phone's own shell feeds
// it: `echo 'CONFIG' | perfetto --background --txt -c - -o PATH` — the pipe Perfetto's docs
// use for configs kept on the phone. ValidPerfettoConfig allows no quote, so the quoting
// cannot be escaped.
func PerfettoStartCommand(config, path string) (string, error) {
	if err := ValidPerfettoConfig(config); err != nil {
		return "", err
	}
	if err := ValidPerfettoPath(path); err != nil {
		return "", err
	}
	return "echo '" + config + "' | perfetto --background --txt -c - -o " + path, nil
}

// PerfettoReadCommand is the one shell command that reads path from offset on: `stat -c %s
// PATH 2>/dev/null && tail -c +N PATH 2>/dev/null | head -c MAX` prints the file's size on a
// line of its own, then its bytes from offset on (at most MaxPerfettoRead; tail counts from 1);
// a file that is not there prints nothing. So one call per read tells "nothing new" (the size
// alone) from "no file" (nothing), where tail alone would need an ls after every empty read
// (shell protocol v1 mixes stderr into the bytes, so both complaints are dropped).
func PerfettoReadCommand(path string, offset int64) (string, error) {
	if err := ValidPerfettoPath(path); err != nil {
		return "", err
	}
	if offset < 0 {
		return "", invalidf("invalid trace offset %d", offset)
	}
	return "stat -c %s " + path + " 2>/dev/null && tail -c +" + strconv.FormatInt(offset+1, 10) + " " + path +
		" 2>/dev/null | head -c " + strconv.Itoa(MaxPerfettoRead), nil
}

// ParsePerfettoRead splits what PerfettoReadCommand printed into the file's size and its
// bytes; exists is false when it printed nothing (no file). A first line that is not a size
// (a shell complaint, a toybox without stat -c) is an error.
func ParsePerfettoRead(out []byte) (size int64, data []byte, exists bool, err error) {
	if len(out) == 0 {
		return 0, nil, false, nil
	}
	line, rest, ok := bytes.Cut(out, []byte("\n"))
	word := string(bytes.TrimSuffix(line, []byte("\r")))
	n, perr := strconv.ParseInt(word, 10, 64)
	if !ok || perr != nil || !isDigits(word) {
		return 0, nil, false, fmt.Errorf("the phone answered %q where the file's size was due", short(string(line)))
	}
	return n, rest, true, nil
}

// PerfettoStart starts a background tracing session on the phone (see PerfettoStartCommand)
// and returns the pid of its perfetto process. It refuses phones before Android 12
// (ErrPerfettoUnsupported) and reports a session the service refused or ended at once as
// ErrTracingBusy; perfetto's own complaint, when it printed one, ends the error's sentence.
// An error with a pid (> 0) means perfetto printed it and then the phone stopped answering:
// that session may be running, and only PerfettoStop with that pid ends it before its
// duration_ms.
func (c *Client) PerfettoStart(ctx context.Context, serial, config, path string) (int, error) {
	cmd, err := PerfettoStartCommand(config, path)
	if err != nil {
		return 0, err
	}
	sdk, err := c.Getprop(ctx, serial, "ro.build.version.sdk")
	if err != nil {
		return 0, fmt.Errorf("tracing: reading the Android version: %w", err)
	}
	if n, err := strconv.Atoi(sdk); err != nil || n < PerfettoMinSDK {
		release, _ := c.Getprop(ctx, serial, "ro.build.version.release")
		return 0, fmt.Errorf("%w on %s: it needs Android 12 (SDK %d) or later, the phone runs Android %s (SDK %s)",
			ErrPerfettoUnsupported, serial, PerfettoMinSDK, orUnknown(release), orUnknown(sdk))
	}
	out, err := c.Shell(ctx, serial, cmd)
	if err != nil {
		return 0, fmt.Errorf("starting a tracing session: %w", err)
	}
	pid, err := ParsePerfettoStart(out)
	if err != nil {
		c.removeTrace(ctx, serial, path)
		return 0, fmt.Errorf("%w (%s)", err, serial)
	}
	// perfetto prints the pid before its background process has asked the tracing service for
	// the session: a refusal shows as that process gone a moment later.
	select {
	case <-ctx.Done():
		return pid, ctx.Err()
	case <-time.After(startSettle):
	}
	alive, err := c.PerfettoRunning(ctx, serial, pid)
	if err != nil {
		return pid, fmt.Errorf("checking that the tracing session (pid %d) runs: %w", pid, err)
	}
	if !alive {
		c.removeTrace(ctx, serial, path)
		if why := c.perfettoSaid(ctx, serial, pid); why != "" {
			return 0, fmt.Errorf("%w on %s: the session (pid %d) ended at once: %s", ErrTracingBusy, serial, pid, why)
		}
		return 0, fmt.Errorf("%w on %s: the session (pid %d) ended at once — another tracing session may hold the name, or the phone runs too many sessions (adb logcat -s perfetto says which)",
			ErrTracingBusy, serial, pid)
	}
	return pid, nil
}

// perfettoSaid returns the last line the perfetto process pid logged (`logcat -d -s
// perfetto`, threadtime: date, time, pid, tid, level, "perfetto:", text), without its source
// position; "" when it logged nothing or the log cannot be read. Its background process logs
// why the service refused the session there, its stderr being gone.
func (c *Client) perfettoSaid(ctx context.Context, serial string, pid int) string {
	out, err := c.LogcatDump(ctx, serial, []string{"-d", "-t", "200", "-s", "perfetto"})
	if err != nil {
		return ""
	}
	return ParsePerfettoLog(out, pid)
}

// ParsePerfettoLog finds the last line of pid in perfetto's logcat lines (threadtime format)
// and returns its text without perfetto's "file.cc:NNN " source position.
func ParsePerfettoLog(out []byte, pid int) string {
	last := ""
	for _, line := range lines(out) {
		f := strings.Fields(line)
		if len(f) < 7 || f[2] != strconv.Itoa(pid) || !strings.HasPrefix(f[5], "perfetto") {
			continue
		}
		_, text, ok := strings.Cut(line, f[5])
		if !ok {
			continue
		}
		text = strings.TrimSpace(text)
		if w, rest, ok := strings.Cut(text, " "); ok && strings.Contains(w, ".cc:") {
			text = rest
		}
		last = text
	}
	return short(last)
}

// removeTrace removes the file a refused session left (perfetto creates it before it asks the
// service), so a refusal leaves the phone as it was; a failure here changes nothing the caller
// can act on.
func (c *Client) removeTrace(ctx context.Context, serial, path string) {
	_, _ = c.Shell(ctx, serial, "rm -f "+path)
}

// startSettle is how long PerfettoStart waits before checking that the session still runs:
// perfetto asks the tracing service within milliseconds of printing its pid.
const startSettle = 300 * time.Millisecond

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// ParsePerfettoStart reads what `perfetto --background` printed: the background process's pid
// on a line of its own (log lines may come before it, stderr being mixed in). Anything else is
// perfetto's complaint, returned as an error wrapping ErrTracingBusy (a session name in use,
// too many sessions), ErrPerfettoUnsupported (no perfetto, an unknown option) or
// ErrPerfettoRefused.
func ParsePerfettoStart(out []byte) (int, error) {
	var pid int
	var other []string
	for _, line := range lines(out) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if isDigits(t) {
			if n, err := strconv.Atoi(t); err == nil && n > 0 {
				pid = n
				continue
			}
		}
		other = append(other, t)
	}
	if pid > 0 {
		return pid, nil
	}
	msg := strings.Join(other, " ")
	if msg == "" {
		return 0, fmt.Errorf("%w: no pid printed", ErrPerfettoRefused)
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "unique session name") || strings.Contains(low, "already exists") ||
		strings.Contains(low, "too many concurrent") || strings.Contains(low, "busy"):
		return 0, fmt.Errorf("%w: %s", ErrTracingBusy, short(msg))
	case strings.Contains(low, "inaccessible or not found") || strings.Contains(low, "unrecognized option") ||
		strings.Contains(low, "invalid option") || strings.Contains(low, "unknown option"):
		return 0, fmt.Errorf("%w: %s", ErrPerfettoUnsupported, short(msg))
	}
	return 0, fmt.Errorf("%w: %s", ErrPerfettoRefused, short(msg))
}

// PerfettoRead returns path's bytes from offset on (at most MaxPerfettoRead; empty when the
// file has not grown), in one shell command. A file that is not there is an error wrapping
// fs.ErrNotExist; one shorter than offset (not the file read so far) is an error too.
func (c *Client) PerfettoRead(ctx context.Context, serial, path string, offset int64) ([]byte, error) {
	cmd, err := PerfettoReadCommand(path, offset)
	if err != nil {
		return nil, err
	}
	out, err := c.Shell(ctx, serial, cmd)
	if err != nil {
		return nil, err
	}
	size, data, exists, err := ParsePerfettoRead(out)
	switch {
	case err != nil:
		return nil, fmt.Errorf("trace %s on %s: %w", path, serial, err)
	case !exists:
		return nil, fmt.Errorf("trace %s on %s: %w", path, serial, fs.ErrNotExist)
	case size < offset:
		return nil, fmt.Errorf("trace %s on %s: %d bytes, shorter than the %d already read (not the same file)", path, serial, size, offset)
	}
	if len(data) == 0 {
		return nil, nil
	}
	return data, nil
}

// PerfettoRunning reports whether pid is a running perfetto process (`pidof perfetto`).
func (c *Client) PerfettoRunning(ctx context.Context, serial string, pid int) (bool, error) {
	if pid <= 0 {
		return false, invalidf("invalid pid %d", pid)
	}
	out, _, err := c.shellStatus(ctx, serial, "pidof perfetto")
	if err != nil {
		return false, err
	}
	for _, f := range strings.Fields(string(out)) {
		if f == strconv.Itoa(pid) {
			return true, nil
		}
	}
	return false, nil
}

// PerfettoStop ends a session fpstop started: `kill -TERM PID` when pid is still a perfetto
// process (perfetto then finishes its file and exits; a pid gone or reused by something else
// is left alone), then `rm -f PATH`. Pid 0 removes the file alone (a start whose pid never
// arrived). The path must pass ValidPerfettoPath, so only fpstop's own files are removed.
func (c *Client) PerfettoStop(ctx context.Context, serial string, pid int, path string) error {
	if err := ValidPerfettoPath(path); err != nil {
		return err
	}
	if pid < 0 {
		return invalidf("invalid pid %d", pid)
	}
	alive := false
	if pid > 0 {
		var err error
		if alive, err = c.PerfettoRunning(ctx, serial, pid); err != nil {
			return err
		}
	}
	if alive {
		out, err := c.Shell(ctx, serial, "kill -TERM "+strconv.Itoa(pid))
		if err != nil {
			return fmt.Errorf("stopping perfetto (pid %d): %w", pid, err)
		}
		if msg := bytes.TrimSpace(out); len(msg) > 0 && !bytes.Contains(msg, []byte("No such process")) {
			return fmt.Errorf("stopping perfetto (pid %d) on %s: %s", pid, serial, short(string(msg)))
		}
	}
	out, status, err := c.shellStatus(ctx, serial, "rm -f "+path)
	if err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	if msg := bytes.TrimSpace(out); len(msg) > 0 || status != 0 {
		return fmt.Errorf("removing %s on %s (status %d): %s", path, serial, status, short(string(msg)))
	}
	return nil
}

// shellStatus runs cmd followed by `; echo exit $?` and returns its output and exit status. Shell
// protocol v1 carries no exit status, and a command the phone stopped answering in the middle
// of (adbd gone, a cable pulled) ends its output as a finished one does: "" from pidof would
// read as "not running", and a session that runs on would be forgotten. Without the status
// line the answer is an error.
func (c *Client) shellStatus(ctx context.Context, serial, cmd string) ([]byte, int, error) {
	out, err := c.Shell(ctx, serial, cmd+statusSuffix)
	if err != nil {
		return nil, 0, err
	}
	body, status, ok := parseStatus(out)
	if !ok {
		return nil, 0, fmt.Errorf("adb shell %s on %s: the answer ended before the command's exit status (the phone stopped answering?): %q",
			short(cmd), serial, short(string(out)))
	}
	return body, status, nil
}

// parseStatus splits what a command followed by statusSuffix printed into its output and its
// exit status, the last line ("exit N"); ok is false without that line (the answer was cut).
func parseStatus(out []byte) (body []byte, status int, ok bool) {
	trimmed := bytes.TrimRight(out, "\r\n")
	last := trimmed
	if i := bytes.LastIndexByte(trimmed, '\n'); i >= 0 {
		body, last = trimmed[:i+1], trimmed[i+1:]
	}
	word, found := strings.CutPrefix(string(last), "exit ")
	n, err := strconv.Atoi(word)
	if !found || err != nil || !isDigits(word) {
		return nil, 0, false
	}
	return body, n, true
}

// statusSuffix is what shellStatus appends to a command: the shell then prints the command's
// exit status on a line of its own, marked so that a cut answer's last line is never taken for it.
const statusSuffix = "; echo exit $?"

// PerfettoStart starts a background session on the target (source/perfetto's Tracer).
func (t Target) PerfettoStart(ctx context.Context, config, path string) (int, error) {
	return t.Client.PerfettoStart(ctx, t.Serial, config, path)
}

// PerfettoRead reads the target's trace file from offset on (source/perfetto's Tracer).
func (t Target) PerfettoRead(ctx context.Context, path string, offset int64) ([]byte, error) {
	return t.Client.PerfettoRead(ctx, t.Serial, path, offset)
}

// PerfettoStop stops the target's session and removes its file (source/perfetto's Tracer).
func (t Target) PerfettoStop(ctx context.Context, pid int, path string) error {
	return t.Client.PerfettoStop(ctx, t.Serial, pid, path)
}

// PerfettoRunning reports whether pid is still a perfetto process on the target.
func (t Target) PerfettoRunning(ctx context.Context, pid int) (bool, error) {
	return t.Client.PerfettoRunning(ctx, t.Serial, pid)
}
