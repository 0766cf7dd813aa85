package record

import (
	"unicode/utf8"

	"github.com/fpstop/fpstop/source"
)

// A hand-written decoder for the two line types that make up nearly all of a recording, frame
// and message lines, as source.AppendLine writes them. encoding/json spends most of a report's
// time on them; this decoder reads the same bytes into the same structs much faster (BENCHMARKS.md).
// It accepts only a strict subset of JSON — keys it knows, spelled exactly, strings without
// escapes, plain integers, no nulls — and gives up (ok=false) on anything else, so the caller
// falls back to source.ParseLine, which defines the result. A fuzz test checks that whenever it
// answers, it answers exactly what ParseLine does.

// decoder holds allocation slabs and an intern table for repeated strings (window, handler and
// callback names repeat on almost every line).
type decoder struct {
	frames []source.Frame
	msgs   []source.Message
	phases []source.Phases
	intern map[string]string
}

const (
	slabSize   = 256
	internMax  = 8192
	internLen  = 256
	maxIntDigs = 18 // at most 18 digits never overflows int64
)

func newDecoder() *decoder { return &decoder{intern: make(map[string]string)} }

// str interns b.
func (d *decoder) str(b []byte) string {
	if len(b) > internLen {
		return string(b)
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.intern) < internMax {
		d.intern[s] = s
	}
	return s
}

// take hands out the next element of a slab, allocating slabSize at a time: one allocation per
// slab instead of one per decoded line.
func take[T any](slab *[]T) *T {
	if len(*slab) == 0 {
		*slab = make([]T, slabSize)
	}
	p := &(*slab)[0]
	*slab = (*slab)[1:]
	return p
}

func (d *decoder) newFrame() *source.Frame { return take(&d.frames) }

func (d *decoder) newMessage() *source.Message { return take(&d.msgs) }

func (d *decoder) newPhases() *source.Phases { return take(&d.phases) }

var (
	prefixFrame   = []byte(`{"type":"frame"`)
	prefixMessage = []byte(`{"type":"message"`)
)

// decodeFast decodes a frame or message line; ok=false means "use source.ParseLine".
func (d *decoder) decodeFast(line []byte) (typ string, ev source.Event, ok bool) {
	switch {
	case hasPrefixBytes(line, prefixFrame):
		s := scanner{b: line, i: len(prefixFrame)}
		var f source.Frame
		if !s.frame(d, &f) {
			return "", nil, false
		}
		nf := d.newFrame()
		*nf = f
		return source.LineFrame, nf, true
	case hasPrefixBytes(line, prefixMessage):
		s := scanner{b: line, i: len(prefixMessage)}
		var m source.Message
		if !s.message(d, &m) {
			return "", nil, false
		}
		nm := d.newMessage()
		*nm = m
		return source.LineMessage, nm, true
	}
	return "", nil, false
}

func hasPrefixBytes(b, p []byte) bool {
	if len(b) < len(p) {
		return false
	}
	for i := range p {
		if b[i] != p[i] {
			return false
		}
	}
	return true
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// keyTable lists an object's keys in the order source.AppendLine writes them (struct field
// order), with their quoted forms `"key":` for a direct comparison.
type keyTable struct {
	names  []string
	quoted [][]byte
}

func newKeyTable(names ...string) *keyTable {
	t := &keyTable{names: names}
	for _, n := range names {
		t.quoted = append(t.quoted, []byte(`"`+n+`":`))
	}
	return t
}

// key reads a member's key and its colon and returns the key's index in t, looking for the
// keys in their written order from *next first (one comparison per key for a line written
// by AppendLine), then in any order; ok=false for an unknown key or bad syntax.
func (s *scanner) key(t *keyTable, next *int) (int, bool) {
	rest := s.b[s.i:]
	for i := *next; i < len(t.quoted); i++ {
		q := t.quoted[i]
		if len(rest) >= len(q) && string(rest[:len(q)]) == string(q) {
			s.i += len(q)
			*next = i + 1
			s.ws()
			return i, true
		}
	}
	key, ok := s.rawString()
	if !ok {
		return -1, false
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return -1, false
	}
	s.i++
	s.ws()
	for i, n := range t.names {
		if n == string(key) {
			*next = i + 1
			return i, true
		}
	}
	return -1, false
}

// members walks the rest of an object whose first member was already read (the type), calling
// fn with each key's index; fn reads the value. It checks that only whitespace follows.
func (s *scanner) members(t *keyTable, fn func(k int) bool) bool {
	next := 0
	for {
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case '}':
			s.i++
			s.ws()
			return s.i == len(s.b)
		case ',':
			s.i++
		default:
			return false
		}
		s.ws()
		k, ok := s.key(t, &next)
		if !ok || !fn(k) {
			return false
		}
	}
}

// rawString reads a string without escapes and returns its bytes (valid UTF-8, no control
// characters), else ok=false.
func (s *scanner) rawString() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			str := s.b[start:j]
			if !ascii && !utf8.Valid(str) {
				return nil, false
			}
			return str, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// int reads a JSON integer (no fraction, no exponent, no leading zeros) that fits in int64.
func (s *scanner) int() (int64, bool) {
	j := s.i
	neg := false
	if j < len(s.b) && s.b[j] == '-' {
		neg = true
		j++
	}
	start := j
	var v int64
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		v = v*10 + int64(s.b[j]-'0')
		j++
	}
	n := j - start
	if n == 0 || n > maxIntDigs || (n > 1 && s.b[start] == '0') {
		return 0, false
	}
	if j < len(s.b) {
		switch s.b[j] {
		case ',', '}', ' ', '\t', '\n', '\r':
		default:
			return 0, false
		}
	}
	s.i = j
	if neg {
		v = -v
	}
	return v, true
}

func (s *scanner) intTo(p *int64) bool {
	v, ok := s.int()
	*p = v
	return ok
}

// boolTo reads a JSON true or false.
func (s *scanner) boolTo(p *bool) bool {
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*p, s.i = true, s.i+4
		return true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*p, s.i = false, s.i+5
		return true
	}
	return false
}

func (s *scanner) intToInt(p *int) bool {
	v, ok := s.int()
	*p = int(v)
	return ok
}

func (s *scanner) strTo(d *decoder, p *string) bool {
	b, ok := s.rawString()
	if !ok {
		return false
	}
	*p = d.str(b)
	return true
}

// Keys of the two fast line types and of Phases, in source.AppendLine's order.
var (
	frameKeys = newKeyTable("window", "process", "vsync_ns", "done_ns", "ui_done_ns", "interval_ns", "flags",
		"deadline_ns", "vsync_id", "start_vsync_ns", "present_ns", "history", "logged", "phases")
	phaseKeys = newKeyTable("vsync_actual_ns", "handle_input_start_ns", "animation_start_ns",
		"perform_traversals_start_ns", "draw_start_ns", "sync_queued_ns", "sync_start_ns",
		"issue_draw_commands_start_ns", "swap_buffers_ns", "frame_completed_ns",
		"dequeue_buffer_duration_ns", "queue_buffer_duration_ns", "gpu_completed_ns",
		"swap_buffers_completed_ns", "display_present_ns", "command_submission_completed_ns",
		"frame_start_ns", "workload_target_ns")
	messageKeys = newKeyTable("pid", "tid", "thread", "handler", "callback", "what", "start_ns", "end_ns")
)

func (s *scanner) frame(d *decoder, f *source.Frame) bool {
	return s.members(frameKeys, func(k int) bool {
		switch k {
		case 0:
			return s.strTo(d, &f.Window)
		case 1:
			return s.strTo(d, &f.Process)
		case 2:
			return s.intTo(&f.VsyncNs)
		case 3:
			return s.intTo(&f.DoneNs)
		case 4:
			return s.intTo(&f.UIDoneNs)
		case 5:
			return s.intTo(&f.IntervalNs)
		case 6:
			return s.intTo(&f.Flags)
		case 7:
			return s.intTo(&f.DeadlineNs)
		case 8:
			return s.intTo(&f.VsyncID)
		case 9:
			return s.intTo(&f.StartVsyncNs)
		case 10:
			return s.intTo(&f.PresentNs)
		case 11:
			return s.boolTo(&f.History)
		case 12:
			return s.boolTo(&f.Logged)
		case 13:
			if f.Phases == nil {
				f.Phases = d.newPhases()
			}
			return s.phases(f.Phases)
		}
		return false
	})
}

// phaseField returns the field of p that phaseKeys.names[i] names.
func phaseField(p *source.Phases, i int) *int64 {
	switch i {
	case 0:
		return &p.Vsync
	case 1:
		return &p.HandleInputStart
	case 2:
		return &p.AnimationStart
	case 3:
		return &p.PerformTraversalsStart
	case 4:
		return &p.DrawStart
	case 5:
		return &p.SyncQueued
	case 6:
		return &p.SyncStart
	case 7:
		return &p.IssueDrawCommandsStart
	case 8:
		return &p.SwapBuffers
	case 9:
		return &p.FrameCompleted
	case 10:
		return &p.DequeueBufferDuration
	case 11:
		return &p.QueueBufferDuration
	case 12:
		return &p.GpuCompleted
	case 13:
		return &p.SwapBuffersCompleted
	case 14:
		return &p.DisplayPresentTime
	case 15:
		return &p.CommandSubmissionCompleted
	case 16:
		return &p.FrameStartTime
	case 17:
		return &p.WorkloadTarget
	}
	return nil
}

// phases reads the phases object.
func (s *scanner) phases(p *source.Phases) bool {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	next := 0
	for {
		k, ok := s.key(phaseKeys, &next)
		if !ok {
			return false
		}
		if !s.intTo(phaseField(p, k)) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case '}':
			s.i++
			return true
		case ',':
			s.i++
			s.ws()
		default:
			return false
		}
	}
}

func (s *scanner) message(d *decoder, m *source.Message) bool {
	return s.members(messageKeys, func(k int) bool {
		switch k {
		case 0:
			return s.intToInt(&m.Pid)
		case 1:
			return s.intToInt(&m.Tid)
		case 2:
			return s.strTo(d, &m.Thread)
		case 3:
			return s.strTo(d, &m.Handler)
		case 4:
			return s.strTo(d, &m.Callback)
		case 5:
			return s.intToInt(&m.What)
		case 6:
			return s.intTo(&m.StartNs)
		case 7:
			return s.intTo(&m.EndNs)
		}
		return false
	})
}
