package gfxinfo

import (
	"fmt"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// Process tracking: which of a dump's process blocks are the app's, and whether a pid that
// differs from the last one is a restart or a damaged "** Graphics info for pid" line.

// procState is what the tracker remembers of one app process (one pid).
type procState struct {
	pid     int
	name    string
	sinceNs int64
	// fresh: the process started during the session, so its counters counted from 0 there and
	// the frames it drew before its first poll were drawn during the session (frames_lost).
	fresh bool
	polls int // polls of this process so far
	wins  []*winState
	total counter // the process-wide "Total frames rendered"
	acct  int     // frames accounted since the last accepted process counter
	// winLost: frames its windows' reported counters charged as lost since the last accepted
	// process counter; short: process counters in a row deferred for outgrowing acct+winLost.
	winLost, short int
	lastAt         int64 // device time of its last poll before the current dump
	at             int64 // device time of the current (or last) dump
	// polledBefore: the process was polled in an earlier dump than the current one.
	polledBefore bool
	seen         int64 // procTable poll number when last seen
	// windows: how many windows its last poll printed; replaced: a window of this dump is a new
	// view root under a remembered title (a popup shown again). Either way a window closed since
	// the last poll, and the process counter rightly outgrows the windows' own.
	windows  int
	replaced bool
	// roots: the view-root ids the current dump prints for the process (a remembered window
	// whose root is among them is that window, never a new one under its title)
	roots []string
}

// procTable holds the per-pid states, bounded: the least recently seen is forgotten.
type procTable struct {
	byPid map[int]*procState
	polls int64
}

const (
	maxProcs   = 16
	maxWindows = 64
)

// get returns the state of pid, creating it (and forgetting the stalest) when new.
func (pt *procTable) get(pid int) *procState {
	pt.polls++
	ps := pt.byPid[pid]
	if ps == nil {
		if len(pt.byPid) >= maxProcs {
			var old *procState
			for _, s := range pt.byPid {
				if old == nil || s.seen < old.seen {
					old = s
				}
			}
			delete(pt.byPid, old.pid)
		}
		ps = &procState{pid: pid}
		pt.byPid[pid] = ps
	}
	ps.seen = pt.polls
	return ps
}

// ofPackage reports whether a process named name belongs to the tracked package.
func (t *tracker) ofPackage(name string) bool {
	return t.pkg == "" || name == t.pkg || strings.HasPrefix(name, t.pkg+":")
}

// selectProcesses returns the dump's processes of the tracked package (the package itself and
// its ":sub" processes; all of them when no package is set). A block whose name line was
// damaged is still the app's when its pid is one the app had.
func (t *tracker) selectProcesses(evs []source.Event, d *Dump, at int64) ([]source.Event, []*Process) {
	var out []*Process
	for i := range d.Processes {
		pr := &d.Processes[i]
		switch {
		case t.ofPackage(pr.Name) || (pr.Name == "" && len(d.Processes) == 1):
			out = append(out, pr)
		case pr.Pid != 0 && t.procs.byPid[pr.Pid] != nil && t.procs.byPid[pr.Pid].name != "":
			evs = append(evs, warning(at, "gfxinfo: damaged process line (name read as \""+clip(pr.Name)+"\"; its pid says which app it is)"))
			pr.Name = t.procs.byPid[pr.Pid].name
			out = append(out, pr)
		case t.pkg != "" && t.pid != 0:
			evs = append(evs, warning(at, "gfxinfo: a process block of another or a damaged name skipped"))
		}
	}
	return evs, out
}

// clip shortens damaged text quoted in a warning.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// trackProcesses selects the app's processes, tells a restart from a damaged pid line and
// emits the Session events (at the start, when the app starts later, when it restarts).
func (t *tracker) trackProcesses(evs []source.Event, d *Dump, at int64) ([]source.Event, []*Process) {
	evs = t.placePidless(evs, d, at)
	evs, procs := t.selectProcesses(evs, d, at)
	for _, pr := range procs {
		// A process first seen without a readable pid (its line damaged) is this one when
		// the rows say so: its memory moves to the real pid (no new process, no new session).
		if old := t.procs.byPid[0]; pr.Pid != 0 && old != nil && t.procs.byPid[pr.Pid] == nil && (t.sameProcess(pr, old) || t.onlyPidless(pr)) {
			delete(t.procs.byPid, 0)
			old.pid = pr.Pid
			t.procs.byPid[pr.Pid] = old
			if t.pid == 0 {
				t.pid = pr.Pid
			}
		}
	}
	for _, pr := range procs {
		if old := t.damagedPid(pr); old != 0 {
			evs = append(evs, warning(at, fmt.Sprintf("gfxinfo: damaged pid line (read %d; its rows are those of pid %d)", pr.Pid, old)))
			pr.Pid = old
			if ps := t.procs.byPid[old]; pr.Name == "" && ps != nil {
				// (The app's pid may be known with nothing remembered: its first block had
				// neither summary nor rows.)
				pr.Name = ps.name
			}
		}
	}
	// A second block of the app's process in one dump (two dumps run together) is the
	// current process whatever pid it prints.
	hasCurrent, curName := false, t.pkg
	for _, pr := range procs {
		hasCurrent = hasCurrent || (t.pid != 0 && pr.Pid == t.pid)
	}
	if cur := t.procs.byPid[t.pid]; curName == "" && cur != nil {
		curName = cur.name
	}
	for _, pr := range procs {
		if hasCurrent && pr.Pid != t.pid && (pr.Name == curName || pr.Name == "") && t.procs.byPid[pr.Pid] == nil {
			evs = append(evs, warning(at, fmt.Sprintf("gfxinfo: damaged pid line (read %d; its rows are those of pid %d)", pr.Pid, t.pid)))
			pr.Pid = t.pid
		}
	}
	var main *Process
	if !d.NotRunning && d.Failure == "" && len(procs) > 0 {
		main = procs[0]
		for _, pr := range procs {
			if pr.Name == t.pkg {
				main = pr
			}
		}
	}
	pid := 0
	if main != nil {
		pid = main.Pid
	}
	session := func() {
		pkg := t.pkg
		if pkg == "" && len(procs) > 0 {
			pkg = procs[0].Name
		}
		evs = append(evs, &source.Session{Source: source.KindGfxinfo, Device: t.device, Package: pkg,
			Pid: pid, CostBasis: source.CostFrame, StartMonoNs: d.UptimeNs, Input: t.input})
	}
	switch {
	case !t.started:
		t.started, t.pid = true, pid
		session()
	case pid != 0 && t.pid == 0:
		t.pid = pid // the app started after the session began
		ps := t.procs.get(pid)
		// Its counters started during the session when it says so, or when a dump said it
		// was not running (a damaged name line is not a start).
		ps.fresh = !t.reset && ((main.SinceNs > 0 && t.startNs > 0 && main.SinceNs >= t.startNs) ||
			(main.SinceNs == 0 && t.sawAbsent))
		session()
	case pid != 0 && pid != t.pid && t.pkg != "":
		evs = append(evs, warning(at, fmt.Sprintf("app restarted (pid %d → %d)", t.pid, pid)))
		t.pid = pid
		ps := t.procs.get(pid)
		ps.fresh = !t.reset && ps.polls == 0
		session()
	}
	for _, pr := range procs {
		if ps := t.procs.byPid[pr.Pid]; ps != nil && ps.name == "" {
			ps.name, ps.sinceNs = pr.Name, pr.SinceNs
		}
	}
	return evs, procs
}

// onlyPidless reports whether pr is, without a doubt, the process the session has known only
// without a pid (its "** Graphics info for pid" line was damaged): the app's only process so
// far, never seen absent, and pr's counters did not start after the session. Its rows may not
// overlap (the ring turned over while dumps were damaged), but a new memory for it would take
// its counters for a first sight while metrics charges them against the pidless ones by window
// (+165 frames lost in a damaged capture).
func (t *tracker) onlyPidless(pr *Process) bool {
	return t.pid == 0 && !t.sawAbsent && len(t.procs.byPid) == 1 && t.ofPackage(pr.Name) &&
		(pr.SinceNs == 0 || t.startNs == 0 || pr.SinceNs < t.startNs)
}

// placePidless gives a block without a readable pid the pid of the one other block of the app
// (of its name, when it has one) in the same dump: two dumps run together when the line
// between them was damaged, so it is an older copy of that process. Left without a pid, it
// would be dropped or get a memory of its own, and the rows it holds would be new again to the
// real pid's memory in the next dump (counted twice).
func (t *tracker) placePidless(evs []source.Event, d *Dump, at int64) []source.Event {
	for i := range d.Processes {
		pr := &d.Processes[i]
		if pr.Pid != 0 || (pr.Name != "" && !t.ofPackage(pr.Name)) {
			continue
		}
		pid, name := 0, ""
		for j := range d.Processes {
			q := &d.Processes[j]
			if q.Pid == 0 || q.Pid == pid || !t.ofPackage(q.Name) || (pr.Name != "" && q.Name != pr.Name) {
				continue
			}
			if pid != 0 {
				pid = -1 // two candidates: left to the pid memory (damagedPid)
				break
			}
			pid, name = q.Pid, q.Name
		}
		if pid == 0 && pr.Name != "" {
			// Its name damaged too ("com.example.xeed"): the block printing the same frames.
			pid, name = sharedRows(d, pr)
		}
		if pid > 0 {
			evs = append(evs, warning(at, fmt.Sprintf("gfxinfo: damaged pid line (its rows are those of pid %d)", pid)))
			pr.Pid = pid
			if pr.Name == "" {
				pr.Name = name
			}
		}
	}
	return evs
}

// sharedRows returns the pid and name of the one process of d that printed a frame (vsync id
// and FrameCompleted) pr printed too, (0, "") when none or several did: two dumps run together
// print the same frames, two processes never do.
func sharedRows(d *Dump, pr *Process) (int, string) {
	ids := map[[2]int64]bool{}
	for wi := range pr.Windows {
		for _, f := range pr.Windows[wi].Frames {
			if f.VsyncID > 0 {
				ids[[2]int64{f.VsyncID, f.DoneNs}] = true
			}
		}
	}
	pid, name := 0, ""
	for j := range d.Processes {
		q := &d.Processes[j]
		if q.Pid == 0 || q.Pid == pid || len(ids) == 0 {
			continue
		}
		for wi := range q.Windows {
			for _, f := range q.Windows[wi].Frames {
				if !ids[[2]int64{f.VsyncID, f.DoneNs}] {
					continue
				}
				if pid != 0 {
					return 0, ""
				}
				pid, name = q.Pid, q.Name
				break
			}
			if pid == q.Pid {
				break
			}
		}
	}
	return pid, name
}

// damagedPid returns the pid a process block printed with an unknown pid really has (0 when
// it is what it says): a known process of the app with the same "Stats since" or the same
// rows. A block with no readable pid is the app's current process.
func (t *tracker) damagedPid(pr *Process) int {
	if t.pid == 0 || pr.Pid == t.pid {
		return 0
	}
	if pr.Pid == 0 || t.sameProcess(pr, t.procs.byPid[t.pid]) {
		return t.pid
	}
	if t.procs.byPid[pr.Pid] != nil {
		return 0
	}
	for pid, old := range t.procs.byPid {
		if t.sameProcess(pr, old) {
			return pid
		}
	}
	return 0
}

// sameProcess reports whether pr (printed with another pid) is the process old: the same
// "Stats since", or rows that old already reported.
func (t *tracker) sameProcess(pr *Process, old *procState) bool {
	if old == nil {
		return false
	}
	if pr.SinceNs != 0 && pr.SinceNs == old.sinceNs {
		return true
	}
	for wi := range pr.Windows {
		w := &pr.Windows[wi]
		for _, ws := range old.wins {
			for i := range w.Frames {
				if ws.has(&w.Frames[i]) {
					return true
				}
			}
		}
	}
	return false
}
