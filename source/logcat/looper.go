package logcat

import (
	"bytes"

	"github.com/fpstop/fpstop/source"
)

// msgKind is what a log message is to fpstop.
type msgKind uint8

const (
	kindNone        msgKind = iota
	kindDispatch            // ">>>>> Dispatching to …" (anywhere in the message)
	kindFinish              // "<<<<< Finished to …" (anywhere in the message)
	kindSkipped             // Choreographer "Skipped N frames!"
	kindSlow                // Looper "Slow dispatch/delivery took", "Dispatch took", "Drained", vendor "Slow Looper main:"
	kindDebugLooper         // vendor "DebugLooper: set default …" set-up lines: recognised, ignored
	kindDavey               // hwui "Davey! duration=…ms; …": a frame of 700 ms or more
)

var (
	dispatchMark = []byte(">>>>> Dispatching to ")
	finishMark   = []byte("<<<<< Finished to ")
	skippedMark  = []byte("Skipped ")
	slowMark     = []byte("Slow ")
	slowLooper   = []byte("Slow Looper ")
	dispatchTook = []byte("Dispatch took ")
	drained      = []byte("Drained")
	debugLooper  = []byte("DebugLooper")
)

// classify tells what a message is. For printer lines it also returns the text after the
// marker; for the others the message with leading spaces removed. It allocates nothing.
func classify(msg []byte) (msgKind, []byte) {
	// The printer's own lines start with their marker: what the loops below would find first.
	if len(msg) > 0 {
		switch msg[0] {
		case '>':
			if bytes.HasPrefix(msg, dispatchMark) {
				return kindDispatch, msg[len(dispatchMark):]
			}
		case '<':
			if bytes.HasPrefix(msg, finishMark) && bytes.IndexByte(msg, '>') < 0 {
				return kindFinish, msg[len(finishMark):]
			}
		}
	}
	// Printer lines may be wrapped by the app ("println : >>>>> Dispatching to …").
	if rest, ok := afterMark(msg, '>', dispatchMark); ok {
		return kindDispatch, rest
	}
	if rest, ok := afterMark(msg, '<', finishMark); ok {
		return kindFinish, rest
	}
	m := msg
	for len(m) > 0 && m[0] == ' ' {
		m = m[1:]
	}
	if len(m) == 0 {
		return kindNone, nil
	}
	// "Skipped N frames!" needs a '!': one byte search spares most messages the word search
	if bytes.IndexByte(m, '!') >= 0 {
		if s, ok := findSkipped(m); ok {
			return kindSkipped, s
		}
		if s, ok := findDavey(m); ok {
			return kindDavey, s
		}
	}
	switch m[0] {
	case 'S':
		if bytes.HasPrefix(m, slowMark) && isSlow(m) {
			return kindSlow, m
		}
	case 'D':
		if isDispatchTook(m) || (bytes.HasPrefix(m, drained) && len(trimRight(m)) == len(drained)) {
			return kindSlow, m
		}
		if bytes.HasPrefix(m, debugLooper) {
			return kindDebugLooper, m
		}
	}
	return kindNone, nil
}

// findSkipped finds Choreographer's "Skipped N frames!" anywhere in a message, whatever
// precedes it: a tag the line parser could not split off ("Choreographer:Skipped 173 frames!"
// has no space after the colon), a thread name, a layout fpstop does not know. The word must
// start the message or follow a byte that is not a letter or digit ("unSkipped 3 frames!" is not
// Choreographer's). It returns the text from "Skipped".
func findSkipped(m []byte) ([]byte, bool) {
	for i := 0; i < len(m); {
		k := bytes.Index(m[i:], skippedMark)
		if k < 0 {
			return nil, false
		}
		k += i
		if k == 0 || !isWordByte(m[k-1]) {
			if _, ok := parseSkipped(m[k:]); ok {
				return m[k:], true
			}
		}
		i = k + 1
	}
	return nil, false
}

func isWordByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// parseSkipped reads "Skipped N frames!".
func parseSkipped(m []byte) (int, bool) {
	i := len(skippedMark)
	n, j := atoi(m, i)
	if j == i || !bytes.HasPrefix(m[j:], []byte(" frames!")) {
		return 0, false
	}
	return n, true
}

// isSlow reports whether m (starting with "Slow ") is a Looper slow line: "Slow Looper <t>:" or
// "Slow <word> took <N>ms …" (AOSP dispatch/delivery, and the newest "Slow <what> took" form).
// Other "Slow …" lines ("Slow Binder:", "Slow operation:") are not.
func isSlow(m []byte) bool {
	if bytes.HasPrefix(m, slowLooper) {
		return bytes.IndexByte(m[len(slowLooper):], ':') > 0
	}
	i := len(slowMark)
	j := i
	for j < len(m) && m[j] != ' ' {
		j++
	}
	if j == i || !bytes.HasPrefix(m[j:], []byte(" took ")) {
		return false
	}
	k := j + len(" took ")
	_, e := atoi(m, k)
	return e > k && bytes.HasPrefix(m[e:], []byte("ms"))
}

// isDispatchTook reports whether m is Android 8's "Dispatch took <N>ms on <thread>, …".
func isDispatchTook(m []byte) bool {
	if !bytes.HasPrefix(m, dispatchTook) {
		return false
	}
	_, e := atoi(m, len(dispatchTook))
	return e > len(dispatchTook) && bytes.HasPrefix(m[e:], []byte("ms"))
}

// dispatch is a parsed Dispatching line.
type dispatch struct {
	target []byte // "<handler> <callback>" as printed (before the last ": ")
	what   int
}

// parseDispatch parses what follows ">>>>> Dispatching to ":
// "Handler (<class>) {<hex>} <callback>: <what>". A handler that overrides toString is split
// on the last ": " (what), then on the last space (callback).
func parseDispatch(rest []byte) (d dispatch, ok bool) {
	e := len(rest)
	for e > 0 && (rest[e-1] == ' ' || rest[e-1] == '\t') {
		e--
	}
	// Backwards over the what: up to ten digits (read as they go), an optional '-', then ": ".
	i, v, scale := e, 0, 1
	for i > 0 && e-i <= 10 {
		c := rest[i-1] - '0'
		if c > 9 {
			break
		}
		v += int(c) * scale
		scale *= 10
		i--
	}
	if i == e || e-i > 10 {
		return d, false
	}
	if i > 0 && rest[i-1] == '-' {
		v = -v
		i--
	}
	if i < 2 || rest[i-1] != ' ' || rest[i-2] != ':' {
		return d, false
	}
	d.target, d.what = rest[:i-2], v
	return d, true
}

// splitTarget finds the handler class and the callback in "Handler (<class>) {<hex>} <callback>".
func splitTarget(t []byte) (hs, he, cs int) {
	const pre = "Handler ("
	if len(t) > len(pre) && string(t[:len(pre)]) == pre {
		if e := bytes.IndexByte(t[len(pre):], ')'); e >= 0 {
			e += len(pre)
			if e+2 < len(t) && t[e+1] == ' ' && t[e+2] == '{' {
				c := e + 3 // the hash's '}'
				for c < len(t) && t[c] != '}' {
					c++
				}
				if c+1 < len(t) && t[c+1] == ' ' {
					return len(pre), e, c + 2
				}
			}
		}
	}
	sp := bytes.LastIndexByte(t, ' ')
	if sp < 0 {
		return 0, len(t), len(t)
	}
	return 0, sp, sp + 1
}

// parseSlow turns a kindSlow message into a SlowLooper event (AtNs left to the caller).
func parseSlow(m []byte) *source.SlowLooper {
	m = trimRight(m)
	s := &source.SlowLooper{Kind: "other", Text: string(m)}
	switch {
	case bytes.HasPrefix(m, drained):
		s.Kind = "drained"
	case isDispatchTook(m):
		// Android 8: "Dispatch took <N>ms on <thread>, h=<Handler.toString()> cb=<cb> msg=<what>".
		s.Kind = "dispatch"
		s.Ms = msAt(m, len(dispatchTook))
		if i := bytes.Index(m, []byte(" on ")); i >= 0 {
			t := m[i+4:]
			if e := bytes.IndexByte(t, ','); e >= 0 {
				s.Thread = string(t[:e])
			}
		}
		h := between(m, " h=", " cb=")
		if bytes.HasPrefix(h, []byte("Handler (")) {
			if e := bytes.IndexByte(h, ')'); e > 0 {
				h = h[len("Handler ("):e]
			}
		}
		s.Handler = string(h)
		s.Callback = callback(between(m, " cb=", " msg="))
		s.What = whatField(m, " msg=")
	case bytes.HasPrefix(m, slowLooper) && bytes.IndexByte(m[len(slowLooper):], ':') > 0:
		// Vendor: "Slow Looper <thread>: <what happened> …".
		rest := m[len(slowLooper):]
		c := bytes.IndexByte(rest, ':')
		s.Thread = string(rest[:c])
		rest = bytes.TrimLeft(rest[c+1:], " ")
		parseVendorSlow(s, rest)
	case bytes.HasPrefix(m, slowMark) && isSlow(m):
		// AOSP: "Slow <dispatch|delivery> took <N>ms <thread> [app=… main=… group=…] h=<class> c=<cb> m=<what>".
		w := m[len(slowMark):]
		sp := bytes.IndexByte(w, ' ')
		switch string(w[:sp]) {
		case "dispatch":
			s.Kind = "dispatch"
		case "delivery":
			s.Kind = "delivery"
		}
		k := sp + len(" took ")
		s.Ms = msAt(w, k)
		_, e := atoi(w, k)
		t := bytes.TrimLeft(w[e+2:], " ")
		if e := bytes.IndexByte(t, ' '); e > 0 {
			t = t[:e]
		}
		if !bytes.Contains(t, []byte("=")) {
			s.Thread = string(t)
		}
		s.Handler = string(field(w, "h="))
		s.Callback = callback(field(w, "c="))
		s.What = whatField(w, " m=")
	}
	return s
}

// parseVendorSlow reads what follows "Slow Looper <thread>: ". Every form of the family prints
// a duration ("doFrame is <N>ms late", "Long Msg: … wall=<N>ms", "Activity … is <N>ms late",
// "MotionEvent is <N>ms late"); a line without one was cut off (logd's line limit, a copy) and
// is marked Truncated rather than read as a 0 ms message. A line cut inside its "(…)" details
// is Truncated too, and a handler or callback that runs into the cut is dropped, not reported
// as a shorter name.
func parseVendorSlow(s *source.SlowLooper, rest []byte) {
	ok := false
	switch {
	case bytes.HasPrefix(rest, []byte("doFrame is ")):
		s.Kind = "doframe_late"
		s.Ms, ok = durationAt(rest, len("doFrame is "))
	case bytes.HasPrefix(rest, []byte("Long Msg:")):
		s.Kind = "long_msg"
		if i := bytes.Index(rest, []byte("wall=")); i >= 0 {
			s.Ms, ok = durationAt(rest, i+len("wall="))
		}
	case bytes.HasPrefix(rest, []byte("Activity ")):
		s.Kind = "activity_late"
		s.Ms, ok = lateDuration(rest)
	case bytes.HasPrefix(rest, []byte("MotionEvent is ")):
		s.Kind = "motion_event_late"
		s.Ms, ok = lateDuration(rest)
	default:
		s.Ms, ok = lateDuration(rest)
	}
	cut := bytes.Count(rest, []byte("(")) > bytes.Count(rest, []byte(")"))
	s.Truncated = !ok || cut
	if !ok {
		s.Ms = 0
	}
	h, c := field(rest, "h="), field(rest, "c=")
	if cut && h != nil && endsAt(h, rest) {
		h = nil
	}
	if cut && c != nil && endsAt(c, rest) {
		c = nil
	}
	s.Handler = string(h)
	s.Callback = callback(c)
	s.What = whatField(rest, "w=")
}

// endsAt reports whether v (a sub-slice of m) runs to m's end.
func endsAt(v, m []byte) bool {
	return len(v) > 0 && len(m) > 0 && &v[len(v)-1] == &m[len(m)-1]
}

// callback is a printed callback: "null" is Message.callback's toString when the message has
// none — no callback, not one named "null".
func callback(c []byte) string {
	if string(c) == "null" {
		return ""
	}
	return string(c)
}

// durationAt reads "<N>ms" at m[i:] and reports whether it was there in full.
func durationAt(m []byte, i int) (int64, bool) {
	v, e := atoi(m, i)
	if e == i || !bytes.HasPrefix(m[e:], []byte("ms")) {
		return 0, false
	}
	return int64(v), true
}

// lateDuration reads the N of "… is <N>ms late".
func lateDuration(m []byte) (int64, bool) {
	i := bytes.Index(m, []byte(" is "))
	if i < 0 {
		return 0, false
	}
	return durationAt(m, i+4)
}

// msAt reads "<N>ms" at m[i:] (0 when absent).
func msAt(m []byte, i int) int64 {
	v, e := atoi(m, i)
	if e == i {
		return 0
	}
	return int64(v)
}

// field returns the value of "<key>" (e.g. "h=") when preceded by a space or '(' — up to the
// next space, ')' or ','.
func field(m []byte, key string) []byte {
	for i := 0; ; {
		k := bytes.Index(m[i:], []byte(key))
		if k < 0 {
			return nil
		}
		k += i
		if k > 0 && (m[k-1] == ' ' || m[k-1] == '(') {
			v := m[k+len(key):]
			e := 0
			for e < len(v) && v[e] != ' ' && v[e] != ')' && v[e] != ',' {
				e++
			}
			return v[:e]
		}
		i = k + 1
	}
}

// between returns the text after start up to end (or to the end of m).
func between(m []byte, start, end string) []byte {
	i := bytes.Index(m, []byte(start))
	if i < 0 {
		return nil
	}
	v := m[i+len(start):]
	if e := bytes.Index(v, []byte(end)); e >= 0 {
		v = v[:e]
	}
	return v
}

// whatField reads an integer field ("m=0", "w=32", "msg=1").
func whatField(m []byte, key string) *int {
	var v []byte
	if key[0] == ' ' {
		v = between(m, key, " ")
	} else {
		v = field(m, key)
	}
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if !allDigits(v) || len(v) > 10 {
		return nil
	}
	n, _ := atoi(v, 0)
	if neg {
		n = -n
	}
	return &n
}

// lateMsgs splits a vendor "… is <N>ms late … because of <K> msg, msg 1 took <X>ms (…), msg 2
// took <Y>ms (…)" line into one entry per listed message: its "took" value, and the handler,
// callback and what of its own "(…)"; nil for any other line. So the slowest message of the
// line is found, not only the first.
func lateMsgs(s *source.SlowLooper, m []byte) []*source.SlowLooper {
	i := bytes.Index(m, []byte(" because of "))
	if i < 0 || !bytes.HasPrefix(m, slowLooper) {
		return nil
	}
	var out []*source.SlowLooper
	for rest := m[i:]; ; {
		k := bytes.Index(rest, []byte("msg "))
		if k < 0 {
			break
		}
		rest = rest[k+len("msg "):]
		_, e := atoi(rest, 0)
		if e == 0 || !bytes.HasPrefix(rest[e:], []byte(" took ")) {
			continue
		}
		e += len(" took ")
		ms, ok := durationAt(rest, e)
		one := &source.SlowLooper{Kind: s.Kind, Thread: s.Thread, Text: s.Text, Ms: ms, Truncated: !ok}
		if det, whole, ok := details(rest[e:]); ok {
			one.Truncated = one.Truncated || !whole
			one.Handler = string(field(det, "h="))
			one.Callback = callback(field(det, "c="))
			one.What = whatField(det, "w=")
		}
		out = append(out, one)
	}
	return out
}

// details returns the "(…)" that follows a message's duration, from its '(' (so every field in
// it follows a space or the '('): whole is false when the line was cut inside it, and then the
// last field, which may run into the cut, is left out.
func details(m []byte) (det []byte, whole, ok bool) {
	o := bytes.IndexByte(m, '(')
	if o < 0 || bytes.IndexByte(m[:o], ',') >= 0 {
		return nil, false, false
	}
	det = m[o:]
	if c := bytes.IndexByte(det, ')'); c >= 0 {
		return det[:c], true, true
	}
	return det[:max(1, bytes.LastIndexByte(det, ' '))], false, true
}

// afterMark finds mark anywhere in msg, looking only where a run of c (mark's first byte)
// starts, and returns what follows it.
func afterMark(msg []byte, c byte, mark []byte) ([]byte, bool) {
	for i := 0; i < len(msg); {
		k := bytes.IndexByte(msg[i:], c)
		if k < 0 {
			return nil, false
		}
		k += i
		if bytes.HasPrefix(msg[k:], mark) {
			return msg[k+len(mark):], true
		}
		i = k + 1
		for i < len(msg) && msg[i] == c {
			i++
		}
	}
	return nil, false
}
