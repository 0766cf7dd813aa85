package devsource

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/logcat"
)

// Auto looks at the app's recent logcat for Looper lines when it starts and, while none are
// found, again looperFirst later, then twice as long after each no, up to looperMax: the first
// look may come before the app has logged anything or fail on a busy phone or host, and an app
// may turn its printer on at any time.
const (
	looperFirst = 2 * time.Second
	looperMax   = 60 * time.Second
)

// looperTimeout is how long look number attempt may take: longer each time, so that a phone or
// host too busy to answer in the first look's time is given more.
func looperTimeout(attempt int) time.Duration {
	return min(time.Duration(attempt)*3*time.Second, 15*time.Second)
}

// probeLooper reads what the app logged recently (logcat -d of its pid) and reports whether it
// prints Looper lines (printer or slow-dispatch ones); an error is a look that could not tell
// (the app not running, an old logcat, a slow device).
func (o *Opener) probeLooper(ctx context.Context, t *Target, attempt int) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, looperTimeout(attempt))
	defer cancel()
	start := time.Now()
	pid, err := t.Client.Pidof(ctx, t.Info.Serial, t.Pkg)
	if err != nil {
		o.Log.Info("looper probe: no pid", "pkg", t.Pkg, "attempt", attempt, "took", time.Since(start), "err", err)
		return false, fmt.Errorf("pidof: %w", err)
	}
	out, err := t.Client.LogcatDump(ctx, t.Info.Serial, logcat.ProbeArgs(strconv.Itoa(pid)))
	if err != nil {
		o.Log.Info("looper probe: logcat failed", "attempt", attempt, "took", time.Since(start), "err", err)
		return false, fmt.Errorf("logcat -d: %w", err)
	}
	found := logcat.LogsLooper(out)
	o.Log.Info("looper probe", "pkg", t.Pkg, "pid", pid, "attempt", attempt, "took", time.Since(start),
		"bytes", len(out), "looper_lines", found)
	return found, nil
}

// LogsLooper is auto's first look for the app's Looper lines, its failure a no.
func (o *Opener) LogsLooper(ctx context.Context, t *Target) bool {
	found, _ := o.probeLooper(ctx, t, 1)
	return found
}

// looperNote says why auto reads gfxinfo+logcat.
func looperNote(pkg string) string {
	return pkg + " logs its Looper messages: reading gfxinfo+logcat, which names the messages behind janky frames (and its SurfaceView layer through SurfaceFlinger when that is what draws)"
}

// looperJoining is auto's window source when the first look found no Looper lines (t.probeErr
// is why it could not tell, nil for a plain no): gfx, which takes on the app's logcat stream as
// soon as a later look finds them. t.probe (made here when nil) says what auto is doing.
func (o *Opener) looperJoining(t *Target, gfx source.Source) source.Source {
	if t.probe == nil {
		t.probe = &ProbeNote{pkg: t.Pkg}
	}
	note := t.probe
	note.heard(source.JoinProgress{Err: t.probeErr, Next: looperFirst}, time.Now())
	return o.logcatJoining(t, gfx, source.KindGfxinfoLogcat, looperNote(t.Pkg), note.heard)
}

// logcatJoining is base, which takes on the app's logcat stream under kind as soon as a look
// after the start (the caller has looked once) finds the app's Looper lines; text says so when
// it does, and heard, when set, hears every look's answer.
func (o *Opener) logcatJoining(t *Target, base source.Source, kind source.Kind, text string,
	heard func(source.JoinProgress, time.Time)) *source.Joining {
	return &source.Joining{
		Kind: kind, Base: base,
		Extra: func() source.Source { return o.logcatLive(t) },
		Ready: func(ctx context.Context, attempt int) (bool, error) {
			return o.probeLooper(ctx, t, attempt+1) // (the first look was before the source started)
		},
		First: looperFirst, Max: looperMax, Note: text,
		Progress: func(p source.JoinProgress) {
			if heard != nil {
				heard(p, time.Now())
			}
			if p.Joined {
				o.Log.Info("logcat joins", "kind", kind, "pkg", t.Pkg, "look", p.Attempt+1)
				if o.SayJoin != nil {
					o.SayJoin(text)
				}
			}
		},
	}
}

// perfettoLooperNote says why --source perfetto reads the app's logcat too.
func perfettoLooperNote(pkg string) string {
	return pkg + " logs its Looper messages: reading perfetto+logcat, which names the sections and the messages behind janky frames"
}

// ProbeNote is one auto source's looks for the app's Looper lines, as the user reads them (the
// dashboard's status line, on every refresh).
type ProbeNote struct {
	pkg    string
	mu     sync.Mutex
	last   source.JoinProgress
	looks  int
	nextAt time.Time
}

func (n *ProbeNote) heard(p source.JoinProgress, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last, n.looks, n.nextAt = p, n.looks+1, now.Add(p.Next)
}

// Joined reports whether a look found the app's Looper lines (auto reads its logcat too now).
func (n *ProbeNote) Joined() bool {
	if n == nil {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last.Joined
}

// Text says what auto is doing about the app's Looper lines at now ("" for a nil note).
func (n *ProbeNote) Text(now time.Time) string {
	if n == nil {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.last.Joined {
		return looperNote(n.pkg)
	}
	in := "now"
	if d := n.nextAt.Sub(now); d > 0 {
		in = "in " + strconv.Itoa(int((d+time.Second-1)/time.Second)) + " s" // (never "in 0 s")
	}
	if n.last.Err != nil {
		why, _, _ := strings.Cut(n.last.Err.Error(), "\n")
		return fmt.Sprintf("auto: could not look for %s's Looper lines (%s); looking again %s", n.pkg, why, in)
	}
	return fmt.Sprintf("auto: no Looper lines from %s yet; looking again %s (looked %d×)", n.pkg, in, n.looks)
}
