package perfetto

import (
	"strconv"
	"strings"
)

// Slice is one atrace section: a B/E pair on a thread (Tid set) or an async S/F pair on a
// process (Async, Tid 0), in the trace's own clock. EndNs is -1 for a section still open when
// the trace ended. Depth is the section's nesting on its thread (0 = outermost).
type Slice struct {
	Pid, Tid int32
	Name     string
	Depth    int
	StartNs  int64
	EndNs    int64
	Async    bool
}

// DurNs is the section's length, -1 when it never ended.
func (s *Slice) DurNs() int64 {
	if s.EndNs < 0 {
		return -1
	}
	return s.EndNs - s.StartNs
}

// slicer pairs atrace begin and end lines into Slices, per thread for B/E (an E closes the
// thread's innermost open section) and per (process, name, cookie) for async S/F (a second S
// while one is open is ignored, as trace_processor does for catapult's back-to-back begins).
type slicer struct {
	names  *names
	stacks map[uint64][]*Slice // per thread (ftrace) or per track (track events)
	async  map[asyncKey]*Slice
	emit   func(*Slice)
	// counted problems
	Unpaired, Malformed, Counters, Dropped int
}

type asyncKey struct {
	pid    int32
	name   string
	cookie int64
}

const (
	maxDepth   = 255
	maxStacks  = 1 << 15
	maxAsync   = 1 << 14
	trackSpace = 1 << 62 // track-event stacks are keyed apart from thread ids
)

func newSlicer(n *names, emit func(*Slice)) *slicer {
	return &slicer{names: n, stacks: map[uint64][]*Slice{}, async: map[asyncKey]*Slice{}, emit: emit}
}

// print handles one atrace line printed by thread tid at ts.
func (s *slicer) print(ts int64, tid int32, buf string) {
	buf = strings.TrimRight(buf, "\n\x00")
	if buf == "" {
		return
	}
	kind := buf[0]
	rest := ""
	if len(buf) > 2 {
		rest = buf[2:]
	}
	if kind == 'E' {
		s.end(ts, uint64(uint32(tid)))
		return
	}
	pidStr, body, _ := strings.Cut(rest, "|")
	pid64, err := strconv.ParseInt(pidStr, 10, 32)
	if err != nil {
		s.Malformed++
		return
	}
	pid := int32(pid64)
	switch kind {
	case 'B':
		if s.names.tgid(tid) == 0 {
			s.names.thread(tid, pid, "")
		}
		s.begin(ts, uint64(uint32(tid)), pid, tid, body)
	case 'S', 'F':
		i := strings.LastIndexByte(body, '|')
		if i < 0 {
			s.Malformed++
			return
		}
		cookie, err := strconv.ParseInt(body[i+1:], 10, 64)
		if err != nil {
			s.Malformed++
			return
		}
		s.asyncLine(kind == 'S', ts, asyncKey{pid, body[:i], cookie})
	case 'G', 'H': // async on a named track: G|pid|track|name|cookie
		parts := strings.Split(body, "|")
		if len(parts) < 3 {
			s.Malformed++
			return
		}
		cookie, err := strconv.ParseInt(parts[len(parts)-1], 10, 64)
		if err != nil {
			s.Malformed++
			return
		}
		s.asyncLine(kind == 'G', ts, asyncKey{pid, strings.Join(parts[1:len(parts)-1], "|"), cookie})
	case 'C', 'U':
		s.Counters++
	}
}

func (s *slicer) begin(ts int64, key uint64, pid, tid int32, name string) {
	st, ok := s.stacks[key]
	if !ok && len(s.stacks) >= maxStacks {
		s.Dropped++
		return
	}
	if len(st) >= maxDepth {
		s.Dropped++
		return
	}
	sl := &Slice{Pid: pid, Tid: tid, Name: name, Depth: len(st), StartNs: ts, EndNs: -1}
	s.stacks[key] = append(st, sl)
}

func (s *slicer) end(ts int64, key uint64) {
	st := s.stacks[key]
	if len(st) == 0 {
		s.Unpaired++
		return
	}
	sl := st[len(st)-1]
	st[len(st)-1] = nil
	s.stacks[key] = st[:len(st)-1]
	sl.EndNs = ts
	s.emit(sl)
}

func (s *slicer) asyncLine(begin bool, ts int64, k asyncKey) {
	if begin {
		if _, open := s.async[k]; open || len(s.async) >= maxAsync {
			return
		}
		s.async[k] = &Slice{Pid: k.pid, Name: k.name, StartNs: ts, EndNs: -1, Async: true}
		return
	}
	sl, ok := s.async[k]
	if !ok {
		s.Unpaired++
		return
	}
	delete(s.async, k)
	sl.EndNs = ts
	s.emit(sl)
}

// finish emits the sections still open, unfinished (EndNs -1).
func (s *slicer) finish() {
	for k, st := range s.stacks {
		for _, sl := range st {
			s.emit(sl)
		}
		delete(s.stacks, k)
	}
	for k, sl := range s.async {
		s.emit(sl)
		delete(s.async, k)
	}
}

// FrameToken reads the vsync token from a section named prefix + digits
// ("Choreographer#doFrame 123", "DrawFrames 123"); anything else after the prefix (e.g.
// "Choreographer#doFrame - resynced to 13 in 0.0s") is not a frame.
func FrameToken(name, prefix string) (int64, bool) {
	if !strings.HasPrefix(name, prefix) {
		return 0, false
	}
	v, err := strconv.ParseInt(name[len(prefix):], 10, 64)
	return v, err == nil && v >= 0
}
