package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/metrics"
)

// Live sessions are bounded: a few at once, each for a limited time, so a forgotten session
// neither runs forever nor piles up.
const (
	maxSessions          = 4
	defaultSessionLimitS = 300
	maxSessionLimitS     = 1800
	startWait            = 30 * time.Second
)

// StartSessionInput is start_session's arguments.
type StartSessionInput struct {
	SourceInput
	MaxDurationS float64 `json:"max_duration_s,omitempty" jsonschema:"the session stops by itself after this many seconds (default 300, at most 1800)"`
	RecordDir    string  `json:"record_dir,omitempty" jsonschema:"directory for the recording (inside the working directory or a --root; default fpstop-mcp/DATE-TIME-N)"`
}

// SessionInput names a session.
type SessionInput struct {
	SessionID string `json:"session_id" jsonschema:"the id start_session returned"`
}

// SessionOutput is what the session tools return.
type SessionOutput struct {
	Summary   string      `json:"summary"`
	SessionID string      `json:"session_id"`
	State     string      `json:"state" jsonschema:"running, ended (its time ran out or the source ended) or stopped"`
	ElapsedS  float64     `json:"elapsed_s" jsonschema:"seconds since the session started"`
	LimitS    float64     `json:"limit_s" jsonschema:"seconds after which it stops by itself"`
	Recording string      `json:"recording" jsonschema:"the recording's path (complete once stopped)"`
	Run       *RunSummary `json:"run" jsonschema:"the figures so far (live_snapshot) or of the whole session (stop_session); null before the first report"`
}

// liveSession is one headless run in the background.
type liveSession struct {
	id        string
	started   time.Time
	limit     time.Duration
	recording string
	cancel    context.CancelFunc
	done      chan struct{} // closed when the run has returned

	mu      sync.Mutex
	live    func() *metrics.Report
	ready   chan struct{} // closed once live is set
	stdout  []byte
	errText string
	code    int
}

type sessions struct {
	mu  sync.Mutex
	m   map[string]*liveSession
	seq int
}

func newSessions() *sessions { return &sessions{m: map[string]*liveSession{}} }

// stopAll stops every session (the server is going away) and waits for them.
func (ss *sessions) stopAll() {
	ss.mu.Lock()
	all := make([]*liveSession, 0, len(ss.m))
	for _, l := range ss.m {
		all = append(all, l)
	}
	ss.mu.Unlock()
	for _, l := range all {
		l.cancel()
		<-l.done
	}
}

func (s *server) addSessionTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "start_session", Title: "Start a live measurement",
		Description: fmt.Sprintf("Starts measuring an app (or the simulator) in the background and returns a session_id: drive the app yourself, "+
			"then call live_snapshot for the figures so far and stop_session for the final ones. At most %d sessions at once; each stops by itself after max_duration_s.", maxSessions)},
		s.startSession)
	mcp.AddTool(srv, &mcp.Tool{Name: "live_snapshot", Title: "Figures of a live session so far",
		Description: "The figures of a running session so far (the same summary as measure), without stopping it.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.liveSnapshot)
	mcp.AddTool(srv, &mcp.Tool{Name: "stop_session", Title: "Stop a live session",
		Description: "Stops a session and returns its final figures and its recording's path (pass it to report or compare)."},
		s.stopSession)
}

func (s *server) startSession(ctx context.Context, _ *mcp.CallToolRequest, in StartSessionInput) (*mcp.CallToolResult, *SessionOutput, error) {
	src, err := sourceArgs(in.SourceInput)
	if err != nil {
		return nil, nil, err
	}
	limitS := in.MaxDurationS
	if limitS == 0 {
		limitS = defaultSessionLimitS
	}
	if !(limitS >= 1 && limitS <= maxSessionLimitS) {
		return nil, nil, fmt.Errorf("max_duration_s %v: want 1 to %d seconds", in.MaxDurationS, maxSessionLimitS)
	}
	ss := s.sessions
	ss.mu.Lock()
	running := 0
	for _, l := range ss.m {
		select {
		case <-l.done:
		default:
			running++
		}
	}
	if running >= maxSessions {
		ss.mu.Unlock()
		return nil, nil, fmt.Errorf("%d sessions are running, the most this server keeps: stop one with stop_session first", running)
	}
	ss.seq++
	id := fmt.Sprintf("s%d", ss.seq)
	ss.mu.Unlock()
	dir, err := s.recordDir(in.RecordDir, "session")
	if err != nil {
		return nil, nil, err
	}
	rec := filepath.Join(dir, "session-"+id+".jsonl.gz")
	if _, err := os.Stat(rec); err == nil {
		return nil, nil, fmt.Errorf("%s already exists: choose another record_dir", rec)
	}
	runCtx, cancel := context.WithCancel(context.Background()) // outlives this call
	l := &liveSession{id: id, started: time.Now(), limit: time.Duration(limitS * float64(time.Second)), recording: rec,
		cancel: cancel, done: make(chan struct{}), ready: make(chan struct{})}
	args := append([]string{"--headless", "--json", "--duration=" + durationArg(limitS), "--record=" + rec}, src...)
	args = append(args, s.adbArgs()...)
	go func() {
		defer close(l.done)
		out, errText, code := s.run(runCtx, args, l.setLive, nil)
		l.mu.Lock()
		l.stdout, l.errText, l.code = out, errText, code
		l.mu.Unlock()
	}()
	select { // a session that cannot start (no device, bad package) fails this call
	case <-l.ready:
	case <-l.done:
		cancel()
		return nil, nil, s.withForeground(ctx, in.SourceInput, cliError("the session", l.errText, l.code))
	case <-time.After(startWait):
		cancel()
		<-l.done
		return nil, nil, errors.New("the session did not start within 30 s: check list_devices")
	case <-ctx.Done():
		cancel()
		<-l.done
		return nil, nil, fmt.Errorf("start_session cancelled: %w", ctx.Err())
	}
	ss.mu.Lock()
	ss.m[id] = l
	ss.mu.Unlock()
	out := l.output("running", nil)
	out.Summary = fmt.Sprintf("Session %s is measuring (it stops by itself after %s s). Drive the app, then call live_snapshot or stop_session with session_id %q.",
		id, num(limitS), id)
	return textResult(out.Summary, out), out, nil
}

func (l *liveSession) setLive(f func() *metrics.Report) {
	l.mu.Lock()
	l.live = f
	l.mu.Unlock()
	close(l.ready)
}

func (l *liveSession) output(state string, run *RunSummary) *SessionOutput {
	return &SessionOutput{SessionID: l.id, State: state, ElapsedS: time.Since(l.started).Seconds(), LimitS: l.limit.Seconds(),
		Recording: l.recording, Run: run}
}

// find returns a session, with an error listing the known ones.
func (ss *sessions) find(id string) (*liveSession, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if l, ok := ss.m[id]; ok {
		return l, nil
	}
	ids := make([]string, 0, len(ss.m))
	for k := range ss.m {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	known := "none"
	if len(ids) > 0 {
		known = strings.Join(ids, ", ")
	}
	return nil, fmt.Errorf("no session %q (sessions: %s): start one with start_session", id, known)
}

func (s *server) liveSnapshot(_ context.Context, _ *mcp.CallToolRequest, in SessionInput) (*mcp.CallToolResult, *SessionOutput, error) {
	l, err := s.sessions.find(in.SessionID)
	if err != nil {
		return nil, nil, err
	}
	select {
	case <-l.done:
		out, err := l.final("ended")
		if err != nil {
			return nil, nil, err
		}
		return textResult(out.Summary, out), out, nil
	default:
	}
	l.mu.Lock()
	live := l.live
	l.mu.Unlock()
	run, err := summarise(live())
	if err != nil {
		return nil, nil, err
	}
	out := l.output("running", run)
	out.Summary = fmt.Sprintf("Session %s, running for %.0f s: %s", l.id, out.ElapsedS, run.Summary)
	return textResult(out.Summary, out), out, nil
}

// final is the figures of a session whose run has returned.
func (l *liveSession) final(state string) (*SessionOutput, error) {
	l.mu.Lock()
	stdout, errText, code := l.stdout, l.errText, l.code
	l.mu.Unlock()
	var r metrics.Report
	if len(stdout) == 0 || json.Unmarshal(stdout, &r) != nil {
		return nil, cliError("session "+l.id, errText, code)
	}
	run, err := summarise(&r)
	if err != nil {
		return nil, err
	}
	out := l.output(state, run)
	out.Summary = fmt.Sprintf("Session %s %s: %s Recording: %s.", l.id, state, run.Summary, l.recording)
	return out, nil
}

func (s *server) stopSession(ctx context.Context, _ *mcp.CallToolRequest, in SessionInput) (*mcp.CallToolResult, *SessionOutput, error) {
	l, err := s.sessions.find(in.SessionID)
	if err != nil {
		return nil, nil, err
	}
	state := "stopped"
	select {
	case <-l.done:
		state = "ended"
	default:
	}
	l.cancel()
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("stop_session cancelled while the session was finishing: %w", ctx.Err())
	}
	s.sessions.mu.Lock()
	delete(s.sessions.m, l.id)
	s.sessions.mu.Unlock()
	out, err := l.final(state)
	if err != nil {
		return nil, nil, err
	}
	return textResult(out.Summary, out), out, nil
}
