package source

import (
	"bytes"
	"encoding/json"
	"fmt"
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
func ParseLine(line []byte) (typ string, ev Event, err error) {
	typ, err = peekType(line)
	if err != nil {
		return "", nil, err
	}
	switch typ {
	case LineFrame:
		ev = &Frame{}
	case LineMessage:
		ev = &Message{}
	case LineUnpaired:
		ev = &UnpairedLine{}
	case LineSkipped:
		ev = &Skipped{}
	case LineSlowLooper:
		ev = &SlowLooper{}
	case LineAndroidSummary:
		ev = &AndroidSummary{}
	case LinePoll:
		ev = &Poll{}
	case LineRefresh:
		ev = &Refresh{}
	case LineTick:
		ev = &Tick{}
	case LineGap:
		ev = &Gap{}
	case LineNotice:
		ev = &Notice{}
	case LineSession:
		ev = &Session{}
	case LineLayerFrame:
		ev = &LayerFrame{}
	case LineLayerSample:
		ev = &LayerSample{}
	case LineDispatch:
		ev = &Dispatch{}
	case LineLayerPoll:
		ev = &LayerPoll{}
	case LineLayerList:
		ev = &LayerList{}
	case LineSection:
		ev = &Section{}
	default:
		return typ, nil, nil
	}
	if err := json.Unmarshal(line, ev); err != nil {
		return typ, nil, fmt.Errorf("decoding %s line: %w", typ, err)
	}
	return typ, ev, nil
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
