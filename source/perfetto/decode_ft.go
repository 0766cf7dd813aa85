package perfetto

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// ftKind is which FrameTimeline timeline a slice is on.
type ftKind uint8

// FrameTimelineEvent oneof field numbers.
const (
	ExpectedDisplay ftKind = 1
	ActualDisplay   ftKind = 2
	ExpectedSurface ftKind = 3
	ActualSurface   ftKind = 4
	ftFrameEnd             = 5
)

// ftStart is the start of one FrameTimeline slice, as SurfaceFlinger wrote it.
type ftStart struct {
	Kind         ftKind
	Cookie       int64
	Token        int64
	DisplayToken int64 // surface frames: the display frame they were presented in
	Pid          int32
	Layer        string
	// actual frames only
	PresentType    int32
	OnTimeFinish   bool
	GpuComposition bool
	JankType       int64
	PredictionType int32
	Severity       int32 // -1 when the trace did not say
	IsBuffer       bool
	hasIsBuffer    bool
}

// frameTimeline reads one FrameTimelineEvent.
func (d *decoder) frameTimeline(ts int64, v []byte) {
	d.sub(v, "FrameTimeline event", func(num protowire.Number, typ protowire.Type, m []byte, _ uint64) {
		if typ != protowire.BytesType {
			return
		}
		if num == ftFrameEnd {
			var cookie int64
			d.sub(m, "frame_end", func(n protowire.Number, _ protowire.Type, _ []byte, x uint64) {
				if n == 1 {
					cookie = int64(x)
				}
			})
			d.push(event{ts: ts, kind: evFTEnd, cookie: cookie})
			return
		}
		if num < 1 || num > 4 {
			return
		}
		s := &ftStart{Kind: ftKind(num), Severity: -1}
		display := s.Kind == ExpectedDisplay || s.Kind == ActualDisplay
		d.sub(m, "FrameTimeline start", func(n protowire.Number, t protowire.Type, b []byte, x uint64) {
			s.set(display, n, t, b, x)
		})
		d.push(event{ts: ts, kind: evFTStart, cookie: s.Cookie, ft: s})
	})
}

// set stores one field of a start message. Display and surface starts number their fields
// differently after the token (surface frames carry a display token and a layer).
func (s *ftStart) set(display bool, n protowire.Number, t protowire.Type, b []byte, x uint64) {
	if t == protowire.BytesType {
		if !display && n == 5 {
			s.Layer = string(b)
		}
		return
	}
	switch n {
	case 1:
		s.Cookie = int64(x)
		return
	case 2:
		s.Token = int64(x)
		return
	}
	if !display {
		switch n {
		case 3:
			s.DisplayToken = int64(x)
			return
		case 4:
			s.Pid = int32(x)
			return
		case 11:
			s.IsBuffer, s.hasIsBuffer = x != 0, true
			return
		}
		n -= 2 // surface fields 6.. are the display fields 4..
	} else if n == 3 {
		s.Pid = int32(x)
		return
	}
	switch n {
	case 4:
		s.PresentType = int32(x)
	case 5:
		s.OnTimeFinish = x != 0
	case 6:
		s.GpuComposition = x != 0
	case 7:
		s.JankType = int64(x)
	case 8:
		s.PredictionType = int32(x)
	case 9: // display jank_severity_type
		if display {
			s.Severity = int32(x)
		}
	case 10: // surface jank_severity_type (12)
		if !display {
			s.Severity = int32(x)
		}
	}
}

// trackDescriptor remembers which thread or process a track belongs to.
func (d *decoder) trackDescriptor(v []byte) {
	var uuid uint64
	var info trackInfo
	d.sub(v, "track descriptor", func(n protowire.Number, t protowire.Type, b []byte, x uint64) {
		switch {
		case n == 1 && t == protowire.VarintType:
			uuid = x
		case n == 3 && t == protowire.BytesType: // ProcessDescriptor
			var name string
			d.sub(b, "process descriptor", func(pn protowire.Number, pt protowire.Type, pb []byte, px uint64) {
				switch {
				case pn == 1 && pt == protowire.VarintType:
					info.pid = int32(px)
				case pn == 6 && pt == protowire.BytesType:
					name = string(pb)
				}
			})
			d.names.process(info.pid, name)
		case n == 4 && t == protowire.BytesType: // ThreadDescriptor
			var name string
			d.sub(b, "thread descriptor", func(tn protowire.Number, tt protowire.Type, tb []byte, tx uint64) {
				switch {
				case tn == 1 && tt == protowire.VarintType:
					info.pid = int32(tx)
				case tn == 2 && tt == protowire.VarintType:
					info.tid = int32(tx)
				case tn == 5 && tt == protowire.BytesType:
					name = string(tb)
				}
			})
			d.names.thread(info.tid, info.pid, name)
		}
	})
	if uuid != 0 && len(d.tracks) < maxTracks {
		d.tracks[uuid] = info
	}
}

// maxTracks bounds the track table (a trace has tens to thousands of tracks).
const maxTracks = 1 << 16

// internedData remembers the event names a sequence interned.
func (d *decoder) internedData(seq uint64, v []byte) {
	d.sub(v, "interned data", func(n protowire.Number, t protowire.Type, b []byte, _ uint64) {
		if n != 2 || t != protowire.BytesType { // InternedData.event_names
			return
		}
		var iid uint64
		var name string
		d.sub(b, "interned name", func(en protowire.Number, et protowire.Type, eb []byte, ex uint64) {
			switch {
			case en == 1 && et == protowire.VarintType:
				iid = ex
			case en == 2 && et == protowire.BytesType:
				name = string(eb)
			}
		})
		m := d.interned[seq]
		if m == nil {
			if len(d.interned) >= 1024 {
				return
			}
			m = map[uint64]string{}
			d.interned[seq] = m
		}
		if len(m) < 1<<16 {
			m[iid] = name
		}
	})
}

// TrackEvent types.
const (
	teSliceBegin = 1
	teSliceEnd   = 2
	teInstant    = 3
)

// trackEvent reads a TrackEvent slice begin or end (atrace written through the Perfetto SDK,
// Android Studio's and Macrobenchmark's own sections).
func (d *decoder) trackEvent(ts int64, seq uint64, v []byte) {
	var typ, track, iid uint64
	var name string
	d.sub(v, "track event", func(n protowire.Number, t protowire.Type, b []byte, x uint64) {
		switch {
		case n == 9 && t == protowire.VarintType:
			typ = x
		case n == 11 && t == protowire.VarintType:
			track = x
		case n == 10 && t == protowire.VarintType:
			iid = x
		case n == 23 && t == protowire.BytesType:
			name = string(b)
		}
	})
	if name == "" && iid != 0 {
		name = d.interned[seq][iid]
		if name == "" {
			name = "iid " + strconv.FormatUint(iid, 10)
		}
	}
	info := d.tracks[track]
	switch typ {
	case teSliceBegin:
		d.push(event{ts: ts, kind: evBegin, track: track, tid: info.tid, pid: info.pid, text: name})
	case teSliceEnd:
		d.push(event{ts: ts, kind: evEnd, track: track, tid: info.tid, pid: info.pid})
	}
}
