package perfetto

import "strconv"

// names holds process and thread names from process_tree and track descriptors. Bounded: a
// phone has a few thousand threads; past maxNames new ones are not remembered.
type names struct {
	procs   map[int32]string
	threads map[int32]threadName
}

type threadName struct {
	tgid int32
	name string
}

const maxNames = 1 << 17

func newNames() *names {
	return &names{procs: map[int32]string{}, threads: map[int32]threadName{}}
}

func (n *names) process(pid int32, name string) {
	if pid <= 0 || name == "" {
		return
	}
	if _, ok := n.procs[pid]; ok || len(n.procs) < maxNames {
		n.procs[pid] = name
	}
}

// processIfUnknown names a process only when nothing named it yet (systrace's main-thread
// task name is a guess, 15 characters at most; a process dump's name is better).
func (n *names) processIfUnknown(pid int32, name string) {
	if _, ok := n.procs[pid]; !ok {
		n.process(pid, name)
	}
}

func (n *names) thread(tid, tgid int32, name string) {
	if tid <= 0 {
		return
	}
	old, ok := n.threads[tid]
	if !ok && len(n.threads) >= maxNames {
		return
	}
	if name == "" {
		name = old.name
	}
	if tgid == 0 {
		tgid = old.tgid
	}
	n.threads[tid] = threadName{tgid: tgid, name: name}
}

// processName is the process's name (its cmdline's first word as Android prints it), or
// "pid N" when the trace did not name it.
func (n *names) processName(pid int32) string {
	if s, ok := n.procs[pid]; ok {
		return s
	}
	return "pid " + strconv.Itoa(int(pid))
}

// threadName names a thread: "main" for a process's main thread (tid = pid), else its name,
// else "tid N".
func (n *names) threadName(pid, tid int32) string {
	if t, ok := n.threads[tid]; ok && t.name != "" {
		if tid == pid {
			return "main"
		}
		return t.name
	}
	if tid == pid && tid != 0 {
		return "main"
	}
	return "tid " + strconv.Itoa(int(tid))
}

// tgid is the process a thread belongs to (0 unknown).
func (n *names) tgid(tid int32) int32 { return n.threads[tid].tgid }
