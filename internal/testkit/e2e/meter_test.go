package e2e

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// meter counts what reaches a fake phone: every shell command the handler serves (getprop, which
// the fake answers itself, is counted from its command log) and every byte the phone sends back,
// with the wall time of each, so a window of a run can be costed.
type meter struct {
	mu   sync.Mutex
	cmds []meterCmd
	out  []meterBytes
}

type meterCmd struct {
	at  time.Time
	cmd string
}

type meterBytes struct {
	at time.Time
	n  int
}

// wrap counts h's commands and output.
func (m *meter) wrap(h fakeadb.Handler) fakeadb.Handler {
	return func(ctx context.Context, cmd string, w io.Writer) error {
		m.mu.Lock()
		m.cmds = append(m.cmds, meterCmd{time.Now(), cmd})
		m.mu.Unlock()
		return h(ctx, cmd, meterWriter{m, w})
	}
}

type meterWriter struct {
	m *meter
	w io.Writer
}

func (mw meterWriter) Write(p []byte) (int, error) {
	n, err := mw.w.Write(p)
	mw.m.mu.Lock()
	mw.m.out = append(mw.m.out, meterBytes{time.Now(), n})
	mw.m.mu.Unlock()
	return n, err
}

// cost is what a window of a run asked of the phone.
type cost struct {
	seconds float64
	cmds    map[string]int // by kind (cmdKind)
	bytes   int64
}

func (c cost) perSecond() float64 {
	n := 0
	for _, v := range c.cmds {
		n += v
	}
	return float64(n) / c.seconds
}

func (c cost) String() string {
	kinds := make([]string, 0, len(c.cmds))
	for k := range c.cmds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %.2f/s", k, float64(c.cmds[k])/c.seconds))
	}
	return fmt.Sprintf("%.2f commands/s (%s), %.1f kB/s over %.0f s", c.perSecond(), strings.Join(parts, ", "),
		float64(c.bytes)/c.seconds/1000, c.seconds)
}

// window is the cost between from and to; getprops are the fake's getprop commands counted at
// from and at to (the fake answers them without the handler).
func (m *meter) window(from, to time.Time, getpropsFrom, getpropsTo int) cost {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := cost{seconds: to.Sub(from).Seconds(), cmds: map[string]int{}}
	for _, x := range m.cmds {
		if !x.at.Before(from) && x.at.Before(to) {
			c.cmds[cmdKind(x.cmd)]++
		}
	}
	for _, x := range m.out {
		if !x.at.Before(from) && x.at.Before(to) {
			c.bytes += int64(x.n)
		}
	}
	if n := getpropsTo - getpropsFrom; n > 0 {
		c.cmds["getprop"] += n
	}
	return c
}

// times are the arrival times of the commands of kind (cmdKind) from from on.
func (m *meter) times(kind string, from time.Time) []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []time.Time
	for _, x := range m.cmds {
		if !x.at.Before(from) && cmdKind(x.cmd) == kind {
			out = append(out, x.at)
		}
	}
	return out
}

// cmdKind names a command without its package, pid or layer: "dumpsys gfxinfo framestats",
// "dumpsys gfxinfo", "pidof", "logcat", "dumpsys SurfaceFlinger --latency", "getprop".
func cmdKind(cmd string) string {
	if strings.Contains(cmd, "| perfetto --background") {
		return "perfetto start"
	}
	var keep []string
	for i, w := range fakeadb.Args(cmd) {
		if i > 0 && (strings.ContainsAny(w, "./=:$+") || w[0] >= '0' && w[0] <= '9') {
			continue
		}
		if w == "-v" || w == "monotonic" || w == "usec" || w == "-T" {
			continue
		}
		keep = append(keep, w)
	}
	return strings.Join(keep, " ")
}

// getprops counts the getprop commands a fake phone received.
func getprops(d *fakeadb.Device) int {
	n := 0
	for _, c := range d.Commands() {
		if strings.HasPrefix(c, "getprop") {
			n++
		}
	}
	return n
}
