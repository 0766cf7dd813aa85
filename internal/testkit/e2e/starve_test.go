package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// runQueueWait is how long process pid's threads have waited for a CPU so far, summed over
// them: the second field of /proc/PID/task/*/schedstat (0 where the kernel keeps none). On a
// loaded machine it says how much of a delay was the process waiting its turn, not its own
// doing. Summed threads may wait at once, so it can exceed the wall time that passed.
func runQueueWait(pid int) time.Duration {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that ended
		}
		if w := strings.Fields(string(b)); len(w) >= 2 {
			v, _ := strconv.ParseInt(w[1], 10, 64)
			sum += v
		}
	}
	return time.Duration(sum)
}

// waitLog follows a process's runQueueWait every 50 ms until the test ends, so that a late
// event can be logged with its cause: how long the process waited for a CPU around it.
type waitLog struct {
	mu   sync.Mutex
	at   []time.Time
	wait []time.Duration
}

func logWaits(t testing.TB, pid int) *waitLog {
	l := &waitLog{}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			w := runQueueWait(pid)
			l.mu.Lock()
			l.at, l.wait = append(l.at, time.Now()), append(l.wait, w)
			l.mu.Unlock()
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
	return l
}

// between is how long the process waited for a CPU from the last sample at or before from to
// the first at or after to (a little more than the interval, never less).
func (l *waitLog) between(from, to time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var w0, w1 time.Duration
	found := false
	for i, at := range l.at {
		if !at.After(from) {
			w0 = l.wait[i]
		}
		if !at.Before(to) {
			w1, found = l.wait[i], true
			break
		}
	}
	if !found && len(l.wait) > 0 {
		w1 = l.wait[len(l.wait)-1]
	}
	return max(w1-w0, 0)
}

// stalls records how late a test-process loop woke (the fake phone's own lateness: a starved
// test process draws, logs and answers late, as no real phone does).
type stalls struct {
	mu   sync.Mutex
	list []stallAt
}

type stallAt struct {
	at time.Time     // when the loop woke
	d  time.Duration // how much later than its period it woke
}

// woke notes a wake at now, period after the previous one was due; only lateness over 20 ms
// is kept (a loaded machine's scheduling noise below that says nothing).
func (s *stalls) woke(now time.Time, late time.Duration) {
	if late <= 20*time.Millisecond {
		return
	}
	s.mu.Lock()
	s.list = append(s.list, stallAt{now, late})
	s.mu.Unlock()
}

// between is the summed lateness of the wakes in (from, to].
func (s *stalls) between(from, to time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var d time.Duration
	for _, x := range s.list {
		if x.at.After(from) && !x.at.After(to) {
			d += x.d
		}
	}
	return d
}

// pid is the process id of the program the pane runs (fpstop: env execs it in place).
func (p *pane) pid() int {
	p.t.Helper()
	out, err := exec.Command("tmux", "-L", p.sock, "display-message", "-p", "-t", p.target, "#{pane_pid}").Output()
	if err != nil {
		p.t.Fatalf("tmux pane_pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		p.t.Fatalf("tmux pane_pid %q: %v", out, err)
	}
	return pid
}
