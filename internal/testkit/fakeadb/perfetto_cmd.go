package fakeadb

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/simtext"
)

// Serve serves the commands of the tracing service (see Tracing) and reports whether cmd was
// one of them: perfetto (alone or fed by echo), pidof perfetto, ps, kill, and stat, tail, head, cat,
// ls and rm of the trace directory.
func (t *Tracing) Serve(ctx context.Context, cmd string, w io.Writer) (bool, error) {
	if base, ok := strings.CutSuffix(cmd, "; echo exit $?"); ok {
		return t.serveStatus(ctx, base, w)
	}
	stages := splitPipe(Args(cmd))
	if len(stages) == 0 || len(stages[0]) == 0 {
		return false, nil
	}
	first := stages[0]
	switch {
	case len(stages) == 2 && first[0] == "echo" && len(stages[1]) > 0 && stages[1][0] == "perfetto":
		// mksh's echo: the words joined by blanks, then a newline
		return true, t.perfetto(ctx, stages[1][1:], strings.Join(first[1:], " ")+"\n", true, w)
	case len(stages) == 1 && first[0] == "perfetto":
		return true, t.perfetto(ctx, first[1:], "", false, w)
	case len(stages) == 1 && len(first) == 2 && first[0] == "pidof" && first[1] == "perfetto":
		return true, t.pidof(w)
	case len(stages) == 1 && first[0] == "logcat" && logsPerfetto(first[1:]):
		return true, t.logcat(w)
	case len(stages) == 1 && first[0] == "ps":
		return true, t.ps(w)
	case len(stages) == 1 && first[0] == "kill":
		return true, t.kill(first[1:], w)
	case len(stages) == 1 && first[0] == "rm" && touchesTraceDir(first[1:]):
		return true, t.rm(first[1:], w)
	case len(stages) == 1 && first[0] == "ls" && touchesTraceDir(first[1:]):
		return true, t.ls(first[1:], w)
	case (first[0] == "tail" || first[0] == "cat") && touchesTraceDir(first[1:]):
		return true, t.read(stages, w)
	case first[0] == "stat" && touchesTraceDir(first[1:]):
		return true, t.stat(stages, w)
	}
	return false, nil
}

// serveStatus serves `CMD; echo exit $?` for the tracing commands: CMD's output, then its
// exit status as the shell prints it ("exit N"): pidof fails when nothing matches, the others
// when the fake refused them.
func (t *Tracing) serveStatus(ctx context.Context, cmd string, w io.Writer) (bool, error) {
	var out strings.Builder
	ok, err := t.Serve(ctx, cmd, &out)
	if !ok || ctx.Err() != nil {
		return ok, err
	}
	status := 0
	if err != nil || (strings.HasPrefix(cmd, "pidof ") && out.Len() == 0) {
		status = 1
	}
	_, werr := fmt.Fprintf(w, "%sexit %d\n", out.String(), status)
	return true, werr
}

// logsPerfetto reports whether logcat's arguments ask for perfetto's tag alone (-s perfetto).
func logsPerfetto(args []string) bool {
	silent, tag := false, false
	for _, a := range args {
		silent = silent || a == "-s"
		tag = tag || a == "perfetto" || strings.HasPrefix(a, "perfetto:")
	}
	return silent && tag
}

func splitPipe(args []string) [][]string {
	var out [][]string
	cur := []string{}
	for _, a := range args {
		if a == "|" {
			out = append(out, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, a)
	}
	return append(out, cur)
}

func touchesTraceDir(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, TraceDir) || strings.HasPrefix(a, strings.TrimSuffix(TraceDir, "/")) {
			return true
		}
	}
	return false
}

// perfettoArgs are the options of the perfetto command line the fake understands.
type perfettoArgs struct {
	background, txt bool
	config, out     string
}

func parsePerfettoArgs(args []string, sdk int) (perfettoArgs, error) {
	var a perfettoArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("perfetto: option requires an argument -- '%s'", strings.TrimLeft(arg, "-"))
			}
			i++
			return args[i], nil
		}
		var err error
		switch {
		case arg == "--background" || arg == "-d":
			a.background = true
		case arg == "--txt" && sdk >= 29:
			a.txt = true
		case arg == "-c" || arg == "--config":
			a.config, err = value()
		case arg == "-o" || arg == "--out":
			a.out, err = value()
		default:
			err = fmt.Errorf("perfetto: unrecognized option '%s'", arg)
		}
		if err != nil {
			return a, err
		}
	}
	return a, nil
}

// perfetto runs the perfetto command line with stdin (closed at its end when closed is true:
// a pipe; otherwise adb's shell protocol v1 keeps it open until the host hangs up).
func (t *Tracing) perfetto(ctx context.Context, args []string, stdin string, closed bool, w io.Writer) error {
	sdk := t.sdk()
	if sdk < 28 {
		_, err := io.WriteString(w, "/system/bin/sh: perfetto: inaccessible or not found\n")
		return err
	}
	a, err := parsePerfettoArgs(args, sdk)
	if err != nil {
		_, err = fmt.Fprintf(w, "%v\nUsage: perfetto [--background] [--txt] -c CONFIG -o OUT_FILE\n", err)
		return err
	}
	switch {
	case a.config != "-":
		_, err = fmt.Fprintf(w, "%s perfetto_cmd.cc:412 The fake phone reads configs from stdin only (-c -)\n", t.stamp(""))
		return err
	case !closed:
		// perfetto reads its config to the end of stdin, which never comes over shell v1
		<-ctx.Done()
		return nil
	case a.out == "" || !a.background:
		_, err = fmt.Fprintf(w, "%s perfetto_cmd.cc:530 fpstop's fake serves --background sessions into a file only\n", t.stamp(""))
		return err
	case !inTraceDir(a.out):
		_, err = fmt.Fprintf(w, "%s perfetto_cmd.cc:1130 Failed to open %s: Permission denied\n", t.stamp(""), a.out)
		return err
	}
	cfg, err := parseTraceConfig(stdin, a.txt)
	if err != nil {
		_, err = fmt.Fprintf(w, "%s perfetto_cmd.cc:640 The trace config is malformed: %v\n", t.stamp(""), err)
		return err
	}
	pid := t.start(cfg, a.out)
	_, err = fmt.Fprintf(w, "%d\n", pid)
	return err
}

// start starts a session (or the process that ends at once because the service refused it)
// and returns its pid.
func (t *Tracing) start(cfg traceConfig, path string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.cfg.Now()
	t.advance(now)
	t.nextPid += 7
	pid := t.nextPid
	f := &tfile{} // perfetto creates the file before it asks the service
	t.files[path] = f
	live := 0
	for _, s := range t.sessions {
		if s.done {
			continue
		}
		live++
		if cfg.uniqueName != "" && s.name == cfg.uniqueName {
			t.logf(pid, "perfetto_cmd.cc:1238 A trace with this unique session name (%s) already exists", cfg.uniqueName)
			return pid
		}
	}
	switch {
	case t.busy:
		t.logf(pid, "perfetto_cmd.cc:1238 Failed to enable tracing: the tracing service is busy")
		return pid
	case live >= t.cfg.MaxSessions:
		t.logf(pid, "perfetto_cmd.cc:1238 Too many concurrent tracing sesions (%d)", live)
		return pid
	}
	s := &tsession{pid: pid, name: cfg.uniqueName, path: path, file: f, start: now, inFile: cfg.writeIntoFile,
		period: time.Duration(max(cfg.writePeriodMs, 100)) * time.Millisecond}
	if cfg.writePeriodMs == 0 {
		s.period = 5 * time.Second
	}
	if cfg.durationMs > 0 {
		s.end = now.Add(time.Duration(cfg.durationMs) * time.Millisecond)
	}
	s.stream = simtext.NewTraceStream(&s.pending, t.traceOptions())
	s.stream.NoFrameTimeline = !cfg.sources["android.surfaceflinger.frametimeline"] || t.cfg.SDK < 31
	s.stream.NoSections = !cfg.sources["linux.ftrace"] || !(cfg.apps[t.cfg.Package] || cfg.apps["*"])
	s.render(now, nil) // the clock snapshot and process names open the file
	t.sessions = append(t.sessions, s)
	return pid
}

func (t *Tracing) pidof(w io.Writer) error {
	pids := t.Running()
	if len(pids) == 0 {
		return nil // toybox pidof prints nothing when nothing matches
	}
	words := make([]string, len(pids))
	for i, p := range pids {
		words[i] = strconv.Itoa(p)
	}
	_, err := io.WriteString(w, strings.Join(words, " ")+"\n")
	return err
}

func (t *Tracing) ps(w io.Writer) error {
	var b strings.Builder
	b.WriteString("USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n")
	b.WriteString("root             1     0 2290228  12640 do_epoll_wait       0 S init\n")
	if t.cfg.Package != "" {
		fmt.Fprintf(&b, "u0_a234      %5d   812 16785128 189320 do_epoll_wait      0 S %s\n", t.cfg.Pid(), t.cfg.Package)
	}
	for _, pid := range t.Running() {
		fmt.Fprintf(&b, "shell        %5d     1 2162468   9804 do_epoll_wait      0 S perfetto\n", pid)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// kill serves `kill [-TERM|-15|-s TERM|-INT|-2] PID...`: a perfetto session ends, writing the
// rest of its trace; other pids are not the shell user's to signal.
func (t *Tracing) kill(args []string, w io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "-TERM", "-15", "-INT", "-2", "-SIGTERM":
			args = args[1:]
		case "-s":
			if len(args) > 1 && (args[1] == "TERM" || args[1] == "INT") {
				args = args[2:]
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.cfg.Now()
	t.advance(now)
	var out strings.Builder
	for _, a := range args {
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			fmt.Fprintf(&out, "/system/bin/sh: kill: %s: arguments must be process or job IDs\n", a)
			continue
		}
		found := false
		for _, s := range t.sessions {
			if s.pid == pid && !s.done {
				found = true
				if !s.other {
					s.flush(now, true)
				}
				s.done = true
			}
		}
		switch {
		case found:
		case pid == t.cfg.Pid() || pid == 1:
			fmt.Fprintf(&out, "/system/bin/sh: kill: %d: Operation not permitted\n", pid)
		default:
			fmt.Fprintf(&out, "/system/bin/sh: kill: %d: No such process\n", pid)
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func (t *Tracing) rm(args []string, w io.Writer) error {
	force := len(args) > 0 && args[0] == "-f"
	if force {
		args = args[1:]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(t.cfg.Now())
	var out strings.Builder
	for _, p := range args {
		if _, ok := t.files[p]; ok && inTraceDir(p) {
			delete(t.files, p)
			continue
		}
		if !force {
			fmt.Fprintf(&out, "rm: %s: No such file or directory\n", p)
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func (t *Tracing) ls(args []string, w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(t.cfg.Now())
	var out strings.Builder
	for _, p := range args {
		if _, ok := t.files[p]; ok {
			fmt.Fprintf(&out, "%s\n", p)
		} else {
			fmt.Fprintf(&out, "ls: %s: No such file or directory\n", p)
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// stat serves `stat -c %s PATH [2>/dev/null]`, optionally followed by `&& ` and a read (see
// read): the file's size on a line, then, when it exists, what the read prints.
func (t *Tracing) stat(stages [][]string, w io.Writer) error {
	args, then, and := cutWord(stages[0], "&&")
	quiet := false
	var path string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "2>/dev/null":
			quiet = true
		case a == "-c" && i+1 < len(args) && args[i+1] == "%s":
			i++
		case strings.HasPrefix(a, "-"):
			_, err := fmt.Fprintf(w, "stat: unknown option %s\n", a)
			return err
		default:
			path = a
		}
	}
	t.mu.Lock()
	t.advance(t.cfg.Now())
	f, ok := t.files[path]
	size := 0
	if ok {
		size = len(f.data)
	}
	t.mu.Unlock()
	if !ok {
		if quiet {
			return nil
		}
		_, err := fmt.Fprintf(w, "stat: '%s': No such file or directory\n", path)
		return err
	}
	if _, err := fmt.Fprintf(w, "%d\n", size); err != nil || !and {
		return err
	}
	if len(then) == 0 || (then[0] != "tail" && then[0] != "cat") {
		return nil
	}
	return t.read(append([][]string{then}, stages[1:]...), w)
}

// cutWord splits words at the first sep: before it, after it, and whether it was there.
func cutWord(words []string, sep string) (before, after []string, found bool) {
	for i, w := range words {
		if w == sep {
			return words[:i], words[i+1:], true
		}
	}
	return words, nil, false
}

// read serves `cat PATH`, `tail -c +N PATH [2>/dev/null]` and either piped into `head -c N`.
func (t *Tracing) read(stages [][]string, w io.Writer) error {
	args := stages[0]
	quiet := false
	var path string
	from := int64(0)
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "2>/dev/null":
			quiet = true
		case args[0] == "tail" && a == "-c" && i+1 < len(args) && strings.HasPrefix(args[i+1], "+"):
			n, err := strconv.ParseInt(args[i+1][1:], 10, 64)
			if err != nil || n < 0 {
				_, err = fmt.Fprintf(w, "tail: bad -c %q\n", args[i+1])
				return err
			}
			from = max(n-1, 0)
			i++
		default:
			path = a
		}
	}
	limit := int64(-1)
	if len(stages) == 2 && len(stages[1]) == 3 && stages[1][0] == "head" && stages[1][1] == "-c" {
		n, err := strconv.ParseInt(stages[1][2], 10, 64)
		if err != nil || n < 0 {
			return nil
		}
		limit = n
	} else if len(stages) > 1 {
		return nil
	}
	t.mu.Lock()
	t.advance(t.cfg.Now())
	f, ok := t.files[path]
	var data []byte
	if ok && from < int64(len(f.data)) {
		data = append([]byte(nil), f.data[from:]...)
	}
	t.mu.Unlock()
	if !ok {
		if quiet {
			return nil
		}
		_, err := fmt.Fprintf(w, "%s: %s: No such file or directory\n", args[0], path)
		return err
	}
	if limit >= 0 && int64(len(data)) > limit {
		data = data[:limit]
	}
	_, err := w.Write(data)
	return err
}
