package gfxinfo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// KeepProcess wraps a gfxinfo source (a captured dump of several processes, `dumpsys gfxinfo`
// without a package) so that only process name's windows are reported: its frames, its window
// and process summaries and its polls. Frames and summaries carry the process name; polls carry
// only a pid, which the process's summaries in the same batch (a batch is one dump) give. When
// no process of that name appears in the whole input, a warning Notice says so and lists the
// processes the input has — -p is never silently ignored. Session, refresh, notices and ticks
// pass through; the Session's Package becomes name.
func KeepProcess(src source.Source, name string) source.Source {
	if fs, ok := src.(*fileSource); ok {
		fs.dumpPerBatch = true // (a capture's dumps are otherwise gathered into larger batches)
	}
	return &keepSource{src: src, name: name}
}

type keepSource struct {
	src  source.Source
	name string
}

// maxListed bounds the process names a "no such process" warning lists.
const maxListed = 12

// Run implements source.Source.
func (k *keepSource) Run(ctx context.Context, out chan<- []source.Event) error {
	in := make(chan []source.Event, 4)
	errc := make(chan error, 1)
	go func() { errc <- k.src.Run(ctx, in); close(in) }()
	pids := map[int]bool{}
	var others []string
	seen, said := false, false // the process appeared; the warning was sent
	var lastAt int64
	for b := range in {
		for _, ev := range b {
			if s, ok := ev.(*source.AndroidSummary); ok && s.Process == k.name && s.Pid != 0 {
				pids[s.Pid] = true
			}
		}
		kept := make([]source.Event, 0, len(b))
		for _, ev := range b {
			switch e := ev.(type) {
			case *source.Frame:
				others = noteProcess(others, e.Process, k.name)
				if e.Process != k.name {
					continue
				}
				seen = true
			case *source.AndroidSummary:
				others = noteProcess(others, e.Process, k.name)
				if e.Process != k.name {
					continue
				}
				seen = true
			case *source.Poll:
				if !pids[e.Pid] {
					continue
				}
			case *source.Session:
				cp := *e
				cp.Package = k.name
				ev = &cp
			case *source.Notice:
				lastAt = max(lastAt, e.AtNs)
				if e.State == source.StateEnded && !seen && !said {
					kept = append(kept, k.missing(e.AtNs, others))
					said = true
				}
			}
			kept = append(kept, ev)
		}
		if len(kept) > 0 {
			select {
			case out <- kept:
			case <-ctx.Done():
				for range in { // let the inner source finish
				}
				return ctx.Err()
			}
		}
	}
	err := <-errc
	if err == nil && !seen && !said {
		select {
		case out <- []source.Event{k.missing(lastAt, others)}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

// missing is the warning for a process the input does not have.
func (k *keepSource) missing(at int64, others []string) *source.Notice {
	slices.Sort(others)
	list := strings.Join(others, ", ")
	if len(others) == 0 {
		list = "none named"
	} else if len(others) >= maxListed {
		list += ", …"
	}
	return warning(at, fmt.Sprintf("-p %s: no process of that name in the input (it has: %s); nothing of the others is reported", k.name, list))
}

// noteProcess remembers another process's name for the warning (bounded).
func noteProcess(list []string, p, want string) []string {
	if p == "" || p == want || len(list) >= maxListed || slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}
