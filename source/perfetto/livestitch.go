package perfetto

import (
	"fmt"
	"time"

	"github.com/fpstop/fpstop/source"
)

// emitFrom is where session s's joiner sends its events: the frames and sections another
// session already sent are dropped (sessions overlap), the session and refresh events go out
// once, and each notice text once per run.
func (r *liveRun) emitFrom(s *liveSession) func(source.Event) {
	return func(e source.Event) {
		switch e := e.(type) {
		case *source.Session:
			return
		case *source.Refresh:
			if e.Hz == r.hz {
				return
			}
			r.hz = e.Hz
		case *source.Frame:
			if !r.newFrame(e) {
				return
			}
			r.lag(s, e)
		case *source.Section:
			k := sectionKey{e.Tid, e.StartNs, e.EndNs, e.Name}
			if _, dup := r.sections[k]; dup {
				return
			}
			r.sections[k] = e.EndNs
			r.prune(e.EndNs)
		case *source.Notice:
			if r.noticed[e.Text] {
				return
			}
			r.noticed[e.Text] = true
		}
		r.evs = append(r.evs, e)
	}
}

func (r *liveRun) newFrame(f *source.Frame) bool {
	k := frameKey{layer: f.Window, token: f.VsyncID}
	if f.Timeline != nil {
		k.layer = f.Timeline.Layer
	}
	if _, dup := r.frames[k]; dup {
		return false
	}
	r.frames[k] = f.DoneNs
	r.prune(f.DoneNs)
	return true
}

// prune forgets the keys far behind the newest event once there are many.
func (r *liveRun) prune(t int64) {
	r.newest = max(r.newest, t)
	if len(r.frames)+len(r.sections) < dedupPruneAt {
		return
	}
	for k, at := range r.frames {
		if at < r.newest-dedupMemoryNs {
			delete(r.frames, k)
		}
	}
	for k, at := range r.sections {
		if at < r.newest-dedupMemoryNs {
			delete(r.sections, k)
		}
	}
}

// lag measures how long after its end (on the phone) a frame goes out, through the least
// delay seen between a trace time and its arrival: a lower bound, short by the quickest write.
func (r *liveRun) lag(s *liveSession, f *source.Frame) {
	if !r.haveOffset || f.DoneNs == 0 {
		return
	}
	end := f.DoneNs - s.p.ToMono(0) // back to the trace clock
	d := r.now().UnixNano() - (end + r.offset)
	if d >= 0 {
		r.lagSum += d
		r.lagN++
	}
}

func (r *liveRun) meanLag() time.Duration {
	if r.lagN == 0 {
		return 0
	}
	return time.Duration(r.lagSum / r.lagN)
}

// decide says, once the first session has run a while, whether the phone writes the trace as
// it goes (streaming) or only at the end (older tracing services): then the sessions become
// consecutive short ones, read as each ends, and the screen says so with the lag.
func (r *liveRun) decide(now time.Time) {
	first := r.first
	if r.decided || first == nil {
		return
	}
	if now.Sub(first.started) < min(decideAfter, first.dur/2) {
		return
	}
	r.decided = true
	lag := r.meanLag()
	if first.growths >= 2 && lag < maxStreamLag {
		r.notice(source.LevelInfo, fmt.Sprintf("perfetto: streaming — the trace file grows every %d ms and is read as it grows; frames show about %s after the phone finished them",
			r.l.opts.WritePeriodMs, (lag+r.l.opts.Poll).Round(100*time.Millisecond)))
		return
	}
	r.fallback = true
	for _, s := range r.sessions {
		r.end(s) // its file shows nothing until it ends: the short sessions start now
	}
	r.sessions = nil
	why := "the trace file did not grow while the session ran"
	if first.growths >= 2 {
		why = fmt.Sprintf("the trace file's frames arrived %s late", lag.Round(100*time.Millisecond))
	}
	r.notice(source.LevelWarn, fmt.Sprintf("perfetto: fallback — %s (an older tracing service): consecutive %d s sessions, each read as it ends; frames show %d–%d s late",
		why, r.l.opts.FallbackMs/1000, r.l.opts.FallbackMs/1000, r.l.opts.FallbackMs/1000+int(endGrace/time.Second)))
}
