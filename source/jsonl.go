package source

import (
	"bytes"
	"encoding/json"
	"fmt"

	segjson "github.com/segmentio/encoding/json"
)

// Line types of the JSON Lines shapes shared by recordings and the simulator's --truth file
// (DESIGN §7). Each event is one object whose "type" comes first.
const (
	LineFrame          = "frame"
	LineMessage        = "message"
	LineUnpaired       = "unpaired"
	LineSkipped        = "skipped"
	LineSlowLooper     = "slow_looper"
	LineAndroidSummary = "android_summary"
	LinePoll           = "poll"
	LineRefresh        = "refresh"
	LineTick           = "tick"
	LineGap            = "gap"
	LineNotice         = "notice"
	LineSession        = "session"
	LineDispatch       = "dispatch"
)

// LineType returns the "type" value an event is written with, or "" for events that are not
// written as lines (Raw).
func LineType(ev Event) string {
	switch ev.(type) {
	case *Frame:
		return LineFrame
	case *Message:
		return LineMessage
	case *UnpairedLine:
		return LineUnpaired
	case *Skipped:
		return LineSkipped
	case *SlowLooper:
		return LineSlowLooper
	case *AndroidSummary:
		return LineAndroidSummary
	case *Poll:
		return LinePoll
	case *Refresh:
		return LineRefresh
	case *Tick:
		return LineTick
	case *Gap:
		return LineGap
	case *Notice:
		return LineNotice
	case *Session:
		return LineSession
	case *LayerFrame:
		return LineLayerFrame
	case *LayerSample:
		return LineLayerSample
	case *Dispatch:
		return LineDispatch
	case *LayerPoll:
		return LineLayerPoll
	case *LayerList:
		return LineLayerList
	case *Section:
		return LineSection
	}
	return ""
}

// AppendLine appends ev as one JSON object (no newline) to dst: {"type":"<type>", fields...}.
// Events without a line type are an error.
func AppendLine(dst []byte, ev Event) ([]byte, error) {
	typ := LineType(ev)
	if typ == "" {
		return dst, fmt.Errorf("event %T has no line form", ev)
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return dst, fmt.Errorf("encoding %s: %w", typ, err)
	}
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, '"')
	if len(body) > 2 { // body is {...}; splice its fields after the type
		dst = append(dst, ',')
	}
	dst = append(dst, body[1:]...)
	return dst, nil
}

// ParseLine decodes one line written by AppendLine. It returns the line's type and the event;
// for a type it does not know (e.g. a recording's "header" or "end"), ev is nil and err is nil,
// so callers can handle their own types.
//
// Lines are decoded with segmentio/encoding (the MCP SDK's JSON package too): a report of a
// long recording spends most of its time here, and encoding/json takes about three times as
// long (BENCHMARKS.md). A line it refuses is decoded again by encoding/json, which then decides,
// so damaged lines get the standard library's answer and wording.
func ParseLine(line []byte) (typ string, ev Event, err error) {
	typ, err = peekType(line)
	if err != nil {
		return "", nil, err
	}
	ev = newEvent(typ)
	if ev == nil {
		return typ, nil, nil
	}
	if segjson.Unmarshal(line, ev) == nil {
		return typ, ev, nil
	}
	ev = newEvent(typ) // what the refused decode left half-filled is not reused
	if err := json.Unmarshal(line, ev); err != nil {
		return typ, nil, fmt.Errorf("decoding %s line: %w", typ, err)
	}
	return typ, ev, nil
}

// newEvent returns a new, empty event of a line type; nil for a type that is not an event's.
func newEvent(typ string) Event {
	switch typ {
	case LineFrame:
		return &Frame{}
	case LineMessage:
		return &Message{}
	case LineUnpaired:
		return &UnpairedLine{}
	case LineSkipped:
		return &Skipped{}
	case LineSlowLooper:
		return &SlowLooper{}
	case LineAndroidSummary:
		return &AndroidSummary{}
	case LinePoll:
		return &Poll{}
	case LineRefresh:
		return &Refresh{}
	case LineTick:
		return &Tick{}
	case LineGap:
		return &Gap{}
	case LineNotice:
		return &Notice{}
	case LineSession:
		return &Session{}
	case LineLayerFrame:
		return &LayerFrame{}
	case LineLayerSample:
		return &LayerSample{}
	case LineDispatch:
		return &Dispatch{}
	case LineLayerPoll:
		return &LayerPoll{}
	case LineLayerList:
		return &LayerList{}
	case LineSection:
		return &Section{}
	}
	return nil
}

var typePrefix = []byte(`{"type":"`)

// peekType reads the "type" value, fast when it is the first key (as AppendLine writes it).
func peekType(line []byte) (string, error) {
	line = bytes.TrimSpace(line)
	if bytes.HasPrefix(line, typePrefix) {
		rest := line[len(typePrefix):]
		if i := bytes.IndexByte(rest, '"'); i > 0 {
			return string(rest[:i]), nil
		}
	}
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return "", fmt.Errorf("not a JSON object: %w", err)
	}
	if probe.Type == "" {
		return "", fmt.Errorf("line has no \"type\"")
	}
	return probe.Type, nil
}
