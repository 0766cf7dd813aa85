package trace

import (
	"errors"
	"fmt"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// A day-long recording exports to a JSON trace of gigabytes, and Perfetto UI opens about 2 GB
// in a browser. Export therefore takes a time window (--from/--to) and estimates the output
// size before writing, so the user cuts the trace instead of waiting for a file nothing opens.

// TimeBound is one end of an export window: an offset from the recording's start, or a wall
// clock time (RFC 3339). The zero value is open (the recording's start or end).
type TimeBound struct {
	Offset time.Duration
	At     time.Time
	Set    bool
}

// ParseTimeBound reads "10m", "1h5m" (from the recording's start) or an RFC 3339 time.
func ParseTimeBound(s string) (TimeBound, error) {
	if s == "" {
		return TimeBound{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return TimeBound{}, fmt.Errorf("%q: a time from the recording's start cannot be negative", s)
		}
		return TimeBound{Offset: d, Set: true}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return TimeBound{At: t, Set: true}, nil
	}
	return TimeBound{}, fmt.Errorf("%q is neither a duration from the recording's start (10m, 1h5m) nor an RFC 3339 time (2026-11-23T08:15:00Z)", s)
}

// Options select what Export writes.
type Options struct {
	Config   metrics.Config
	From, To TimeBound
	// Perfetto writes Perfetto's native protobuf trace (TrackEvents) instead of JSON.
	Perfetto bool
}

// window is a resolved export window in device ns; [from, to), 0 = open.
type window struct {
	from, to int64
	resolved bool
}

// has reports whether device time at is inside the window (an event without a time always is).
func (w window) has(at int64) bool {
	if at <= 0 {
		return true
	}
	return (w.from == 0 || at >= w.from) && (w.to == 0 || at < w.to)
}

// Margins around an export window: the pipeline starts classifying warmUpNs before it (a
// window's usual frame budget is learned from its recent frames), and reading goes on tailNs
// past its end (frames complete after their vsync; Looper-derived frames are released late).
const (
	warmUpNs = 60_000_000_000
	tailNs   = 30_000_000_000
)

// before reports whether a whole batch lies more than warmUpNs before the window.
func (w window) before(evs []source.Event) bool {
	if w.from == 0 {
		return false
	}
	for _, ev := range evs {
		if at := ev.At(); at <= 0 || at >= w.from-warmUpNs {
			return false
		}
	}
	return true
}

// after reports whether a batch reached tailNs past the window's end: reading can stop.
func (w window) after(evs []source.Event) bool {
	if w.to == 0 || len(evs) == 0 {
		return false
	}
	return evs[len(evs)-1].At() >= w.to+tailNs
}

// resolve turns the bounds into device times from the recording's start: on the device clock
// the header's, else what the first batch shows; on the wall clock the header's.
func (o Options) resolve(h record.Header, first []source.Event) window {
	startMono, startUTC := h.StartMonoNs, h.StartUTC
	if startMono <= 0 {
		startMono = firstTime(first)
	}
	w := window{resolved: true}
	at := func(b TimeBound) int64 {
		switch {
		case !b.Set:
			return 0
		case !b.At.IsZero():
			if startUTC.IsZero() {
				return startMono // no wall-clock start recorded: from the beginning
			}
			return max(1, startMono+int64(b.At.Sub(startUTC)))
		}
		return max(1, startMono+int64(b.Offset))
	}
	w.from, w.to = at(o.From), at(o.To)
	return w
}

// firstTime is the recording's start on the device clock as the first batch shows it: the
// Session's, else the first timed event's.
func firstTime(evs []source.Event) int64 {
	for _, ev := range evs {
		if s, ok := ev.(*source.Session); ok && s.StartMonoNs > 0 {
			return s.StartMonoNs
		}
	}
	for _, ev := range evs {
		if at := ev.At(); at > 0 {
			return at
		}
	}
	return 0
}

// Bytes each trace event takes, measured on exports of simulator recordings (a frame slice
// with its args, a Looper message slice, an instant, a counter pair per slice).
const (
	traceFrameBytes   = 195
	traceMessageBytes = 210
	traceOtherBytes   = 160
	traceSliceBytes   = 165
)

// ErrTooLarge is returned (wrapped in a *SizeError) when an export would exceed its
// size limit.
var ErrTooLarge = errors.New("trace too large")

// SizeError says how large the trace would be and what window it covers.
type SizeError struct {
	Bytes, Limit int64
	Span         time.Duration // the window's length in the recording
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("the trace would be about %s (over %s) for %s of recording", source.ByteSize(e.Bytes),
		source.ByteSize(e.Limit), e.Span.Round(time.Second))
}

func (e *SizeError) Unwrap() error { return ErrTooLarge }

// Estimate reads the recording once and estimates the size of the trace the options
// select, without classifying anything; it returns a *SizeError when that exceeds limit
// (limit ≤ 0: no limit).
func Estimate(path string, opts Options, limit int64) (int64, error) {
	h, err := readHeader(path)
	if err != nil {
		return 0, err
	}
	var win window
	var bytes, first, last int64
	sliceNs := opts.Config.SliceNs
	if sliceNs <= 0 {
		sliceNs = 1e9
	}
	_, err = record.ReadBatchesWhile(path, func(evs []source.Event) bool {
		if !win.resolved {
			win = opts.resolve(h, evs)
		}
		for _, ev := range evs {
			at := ev.At()
			if !win.has(at) || at <= 0 {
				continue
			}
			if first == 0 || at < first {
				first = at
			}
			last = max(last, at)
			switch ev.(type) {
			case *source.Frame:
				bytes += traceFrameBytes
			case *source.Message:
				bytes += traceMessageBytes
			case *source.Skipped, *source.SlowLooper, *source.Gap, *source.Notice:
				bytes += traceOtherBytes
			}
		}
		return !win.after(evs)
	})
	if err != nil {
		return 0, err
	}
	span := last - first
	bytes += span / sliceNs * traceSliceBytes
	if opts.Perfetto {
		bytes = bytes * 2 / 5 // the protobuf trace of the same events: 0.38 of the JSON (tested)
	}
	if limit > 0 && bytes > limit {
		return bytes, &SizeError{Bytes: bytes, Limit: limit, Span: time.Duration(span)}
	}
	return bytes, nil
}

// readHeader returns a recording's header (zero when it has none).
func readHeader(path string) (record.Header, error) {
	r, err := record.Open(path)
	if err != nil {
		return record.Header{}, err
	}
	defer r.Close()
	return r.Header, nil
}
