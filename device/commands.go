package device

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Getprop reads one system property (`getprop KEY`); "" when unset.
func (c *Client) Getprop(ctx context.Context, serial, key string) (string, error) {
	if err := ValidPropKey(key); err != nil {
		return "", err
	}
	out, err := c.Shell(ctx, serial, "getprop "+key)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// SetProp sets a system property (`setprop KEY VALUE`). fpstop changes nothing on a device
// unless the user asked for it with a flag: call this only then.
func (c *Client) SetProp(ctx context.Context, serial, key, value string) error {
	if err := ValidPropKey(key); err != nil {
		return err
	}
	if err := ValidPropValue(value); err != nil {
		return err
	}
	if value == "" {
		value = "''"
	}
	out, err := c.Shell(ctx, serial, "setprop "+key+" "+value)
	if err != nil {
		return err
	}
	if msg := strings.TrimSpace(string(out)); msg != "" {
		// setprop prints nothing on success; anything else is its complaint.
		return fmt.Errorf("setprop %s on %s: %s", key, serial, msg)
	}
	return nil
}

// Gfxinfo returns `dumpsys gfxinfo PKG framestats` (with ` reset` appended only when reset is
// true: it clears the app's counters for everyone reading them). The output is returned as the
// device printed it, including dumpsys's own complaints ("No process found for: PKG" when the
// app is not running), which the gfxinfo parser reports; errors are adb's (device offline,
// timeout, refused package name).
func (c *Client) Gfxinfo(ctx context.Context, serial, pkg string, reset bool) ([]byte, error) {
	if err := ValidPackage(pkg); err != nil {
		return nil, err
	}
	cmd := "dumpsys gfxinfo " + pkg + " framestats"
	if reset {
		cmd += " reset"
	}
	return c.Shell(ctx, serial, cmd)
}

// GfxinfoCounters returns `dumpsys gfxinfo PKG` without framestats: the app's counters and
// summaries without its frame rows, a tenth of a framestats dump's bytes. The gfxinfo poller
// reads it while the app is idle, to see from "Total frames rendered" when it draws again.
func (c *Client) GfxinfoCounters(ctx context.Context, serial, pkg string) ([]byte, error) {
	if err := ValidPackage(pkg); err != nil {
		return nil, err
	}
	return c.Shell(ctx, serial, "dumpsys gfxinfo "+pkg)
}

// Logcat streams `logcat ARGS...` (see ValidLogcatArgs for what is allowed; e.g.
// []string{"-v", "monotonic", "-v", "usec", "--pid=1234"}). Reading and closing as for Stream.
func (c *Client) Logcat(ctx context.Context, serial string, args []string) (io.ReadCloser, error) {
	cmd, err := LogcatCommand(args)
	if err != nil {
		return nil, err
	}
	return c.Stream(ctx, serial, cmd)
}

// LogcatDump runs `logcat ARGS...` to its end and returns the output (ARGS must make logcat
// exit by itself: -d or -t N; see ValidLogcatArgs for what is allowed).
func (c *Client) LogcatDump(ctx context.Context, serial string, args []string) ([]byte, error) {
	cmd, err := LogcatCommand(args)
	if err != nil {
		return nil, err
	}
	return c.Shell(ctx, serial, cmd)
}

// LogcatCommand returns the shell command Logcat sends for args, after ValidLogcatArgs.
func LogcatCommand(args []string) (string, error) {
	if err := ValidLogcatArgs(args); err != nil {
		return "", err
	}
	words := []string{"logcat"}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " "), nil
}

// Pidof returns the pid of the app's main process: `pidof PKG` (Android 7+), falling back to
// scanning `ps -A` (and plain `ps` on older devices). Not running is an error wrapping
// ErrNotRunning.
func (c *Client) Pidof(ctx context.Context, serial, pkg string) (int, error) {
	if err := ValidPackage(pkg); err != nil {
		return 0, err
	}
	out, err := c.Shell(ctx, serial, "pidof "+pkg)
	if err != nil {
		return 0, err
	}
	if pid, ok := parsePidof(out); ok {
		return pid, nil
	}
	// pidof is missing (Android 6 and older) or found nothing (some vendor builds miss app
	// processes): confirm with ps.
	for _, ps := range []string{"ps -A", "ps"} {
		out, err := c.Shell(ctx, serial, ps)
		if err != nil {
			return 0, err
		}
		if pid, ok := ParsePs(out, pkg); ok {
			return pid, nil
		}
		if bytes.Count(out, []byte("\n")) > 5 {
			break // ps worked and listed processes: the app is not among them
		}
	}
	return 0, fmt.Errorf("%w: no process named %s on %s", ErrNotRunning, pkg, serial)
}

// parsePidof reads pidof's output: one or more pids separated by blanks; the first wins.
func parsePidof(out []byte) (int, bool) {
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return 0, false
	}
	for _, f := range fields {
		if !isDigits(f) {
			return 0, false
		}
	}
	pid, err := strconv.Atoi(fields[0])
	return pid, err == nil && pid > 0
}

// ParsePs finds the pid of the process named exactly name in `ps` or `ps -A` output (toybox:
// "USER PID PPID VSZ RSS WCHAN ADDR S NAME"; old toolbox: "USER PID PPID VSIZE RSS WCHAN PC
// NAME"): the PID column is found from the header, the name is the last column.
func ParsePs(out []byte, name string) (int, bool) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	pidCol := 1
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		if f[0] == "USER" || f[0] == "UID" {
			for i, h := range f {
				if h == "PID" {
					pidCol = i
				}
			}
			continue
		}
		if f[len(f)-1] != name || pidCol >= len(f) {
			continue
		}
		if pid, err := strconv.Atoi(f[pidCol]); err == nil && pid > 0 {
			return pid, true
		}
	}
	return 0, false
}

// ForegroundApp returns the package and activity on screen, from `dumpsys activity
// activities` (mResumedActivity / topResumedActivity / ResumedActivity), falling back to
// `dumpsys window` (mCurrentFocus, mFocusedApp, then the app window on screen). The activity
// is fully qualified ("com.example/.Main" gives "com.example.Main").
func (c *Client) ForegroundApp(ctx context.Context, serial string) (pkg, activity string, err error) {
	out, err := c.Shell(ctx, serial, "dumpsys activity activities")
	if err != nil {
		return "", "", err
	}
	if pkg, activity, ok := ParseResumedActivity(out); ok {
		return pkg, activity, nil
	}
	out, err = c.Shell(ctx, serial, "dumpsys window")
	if err != nil {
		return "", "", err
	}
	if pkg, activity, ok := ParseFocusedWindow(out); ok {
		return pkg, activity, nil
	}
	return "", "", fmt.Errorf("no app in the foreground on %s (screen off or locked?)", serial)
}

// component matches "pkg/activity" inside ActivityRecord{…} and Window{…} descriptions;
// compiled on first use, so a run that never asks for the foreground app never pays for it.
var component = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)/(\.?[A-Za-z_$][A-Za-z0-9_$.]*)`)
})

// splitComponent reads the first "pkg/activity" in s.
func splitComponent(s string) (pkg, activity string, ok bool) {
	m := component().FindStringSubmatch(s)
	if m == nil || ValidPackage(m[1]) != nil {
		return "", "", false
	}
	pkg, activity = m[1], m[2]
	if strings.HasPrefix(activity, ".") {
		activity = pkg + activity
	}
	return pkg, activity, true
}

// ParseResumedActivity reads the resumed activity from `dumpsys activity activities`:
// "topResumedActivity=ActivityRecord{…}" (Android 10+), "mResumedActivity: ActivityRecord{…}"
// or "ResumedActivity: ActivityRecord{…}".
func ParseResumedActivity(out []byte) (pkg, activity string, ok bool) {
	for _, key := range []string{"topResumedActivity=", "mResumedActivity:", "mResumedActivity=", "ResumedActivity:"} {
		for _, line := range lines(out) {
			if i := strings.Index(line, key); i >= 0 {
				if pkg, activity, ok := splitComponent(line[i+len(key):]); ok {
					return pkg, activity, true
				}
			}
		}
	}
	return "", "", false
}

// ParseFocusedWindow reads the foreground app from `dumpsys window` or `dumpsys window
// windows`: mCurrentFocus=Window{… pkg/activity}, else mFocusedApp=…ActivityRecord{… pkg/activity
// …}, else (captures such as Samsung's `dumpsys window windows`, which print neither) the
// first window bound to an activity (mActivityRecord=) that is on screen (isOnScreen=true).
func ParseFocusedWindow(out []byte) (pkg, activity string, ok bool) {
	ls := lines(out)
	for _, key := range []string{"mCurrentFocus=", "mFocusedApp="} {
		for _, line := range ls {
			if i := strings.Index(line, key); i >= 0 {
				if pkg, activity, ok := splitComponent(line[i+len(key):]); ok {
					return pkg, activity, true
				}
			}
		}
	}
	// Window blocks start with "  Window #N Window{…}:"; within one, mActivityRecord= names
	// its activity and isOnScreen=true says it is showing.
	var cur string
	for _, line := range ls {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Window #"):
			cur = ""
		case strings.HasPrefix(t, "mActivityRecord="):
			cur = t
		case t == "isOnScreen=true" && cur != "":
			if pkg, activity, ok := splitComponent(cur); ok {
				return pkg, activity, true
			}
		}
	}
	return "", "", false
}

func lines(out []byte) []string {
	return strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n")
}

// RefreshRate returns the display's current refresh rate in Hz from `dumpsys display`
// (see ParseRefreshRate).
func (c *Client) RefreshRate(ctx context.Context, serial string) (float64, error) {
	out, err := c.Shell(ctx, serial, "dumpsys display")
	if err != nil {
		return 0, err
	}
	hz, ok := ParseRefreshRate(out)
	if !ok {
		return 0, fmt.Errorf("no refresh rate in `dumpsys display` of %s", serial)
	}
	return hz, nil
}

// refreshForms are the forms of `dumpsys display` ParseRefreshRate reads.
type refreshForms struct{ renderRate, modeID, activeMode, mode, refresh, oldFps *regexp.Regexp }

// refreshRateForms compiles them on first use: most runs never read a display.
var refreshRateForms = sync.OnceValue(func() (f refreshForms) {
	f.renderRate = regexp.MustCompile(`\brenderFrameRate ([0-9]+(?:\.[0-9]+)?)`)
	f.modeID = regexp.MustCompile(`\bmodeId (\d+)`)
	f.activeMode = regexp.MustCompile(`\bmActiveModeId=(\d+)`)
	f.mode = regexp.MustCompile(`\{id=(\d+), [^{}]*?\bfps=([0-9]+(?:\.[0-9]+)?)`)
	f.refresh = regexp.MustCompile(`\bmRefreshRate=([0-9]+(?:\.[0-9]+)?)`)
	f.oldFps = regexp.MustCompile(`, ([0-9]+(?:\.[0-9]+)?) fps,`)
	return f
})

// ParseRefreshRate reads the current refresh rate of the default display from `dumpsys
// display` (or a grep of it), trying in order: renderFrameRate (Android 14+); the fps of the
// active mode (DisplayDeviceInfo's "modeId N" or mActiveModeId=N, looked up in supportedModes
// "{id=N, … fps=F"); a single supported mode; mRefreshRate=F; the old "…, 60.0 fps, …" form.
// The value is returned as printed (60.000004, 120.00001): round it where a whole number is
// wanted.
func ParseRefreshRate(out []byte) (float64, bool) {
	s := string(out)
	re := refreshRateForms()
	parse := func(v string) (float64, bool) {
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && f >= 1 && f <= 1000
	}
	if m := re.renderRate.FindStringSubmatch(s); m != nil {
		if f, ok := parse(m[1]); ok {
			return f, true
		}
	}
	modes := map[string]string{}
	for _, m := range re.mode.FindAllStringSubmatch(s, -1) {
		if _, seen := modes[m[1]]; !seen {
			modes[m[1]] = m[2]
		}
	}
	for _, form := range []*regexp.Regexp{re.modeID, re.activeMode} {
		if m := form.FindStringSubmatch(s); m != nil {
			if fps, ok := modes[m[1]]; ok {
				if f, ok := parse(fps); ok {
					return f, true
				}
			}
		}
	}
	if len(modes) == 1 {
		for _, fps := range modes {
			if f, ok := parse(fps); ok {
				return f, true
			}
		}
	}
	for _, form := range []*regexp.Regexp{re.refresh, re.oldFps} {
		if m := form.FindStringSubmatch(s); m != nil {
			if f, ok := parse(m[1]); ok {
				return f, true
			}
		}
	}
	return 0, false
}

// Packages lists the third-party packages installed on the device (`pm list packages -3`),
// sorted; names that are not valid package names are skipped.
func (c *Client) Packages(ctx context.Context, serial string) ([]string, error) {
	out, err := c.Shell(ctx, serial, "pm list packages -3")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, line := range lines(out) {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "package:")
		if ok && ValidPackage(name) == nil {
			pkgs = append(pkgs, name)
		}
	}
	if len(pkgs) == 0 && len(bytes.TrimSpace(out)) > 0 && !bytes.Contains(out, []byte("package:")) {
		return nil, fmt.Errorf("pm list packages on %s: %s", serial, firstLine(out))
	}
	sort.Strings(pkgs)
	return pkgs, nil
}

func firstLine(out []byte) string {
	s := strings.TrimSpace(string(out))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return short(s)
}

var (
	reUIDFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\buid:(\d+)`) })
	reUserID  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(?:userId|appId)=(\d+)`) })
)

// UID returns the Linux uid of an installed package (the N in setprop log.looper.N.main.slow):
// `pm list packages -U PKG` ("package:PKG uid:N"), falling back to `dumpsys package PKG`
// ("userId=N").
func (c *Client) UID(ctx context.Context, serial, pkg string) (int, error) {
	if err := ValidPackage(pkg); err != nil {
		return 0, err
	}
	out, err := c.Shell(ctx, serial, "pm list packages -U "+pkg)
	if err != nil {
		return 0, err
	}
	if uid, ok := ParsePackagesUID(out, pkg); ok {
		return uid, nil
	}
	out, err = c.Shell(ctx, serial, "dumpsys package "+pkg)
	if err != nil {
		return 0, err
	}
	if m := reUserID().FindSubmatch(out); m != nil && bytes.Contains(out, []byte(pkg)) {
		if uid, err := strconv.Atoi(string(m[1])); err == nil {
			return uid, nil
		}
	}
	return 0, fmt.Errorf("package %s is not installed on %s", pkg, serial)
}

// ParsePackagesUID finds pkg's uid in `pm list packages -U` output ("package:PKG uid:N";
// a shared uid may print "uid:N,M": the first is taken).
func ParsePackagesUID(out []byte, pkg string) (int, bool) {
	for _, line := range lines(out) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "package:"+pkg {
			continue
		}
		if m := reUIDFlag().FindStringSubmatch(line); m != nil {
			uid, err := strconv.Atoi(m[1])
			return uid, err == nil
		}
	}
	return 0, false
}
