package fakeadb

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// SFStyle is the Android release whose `dumpsys SurfaceFlinger` a SurfaceFlinger fake imitates.
type SFStyle int

// SurfaceFlinger naming styles (see ../shared/notes/surfaceflinger.md).
const (
	// SFAndroid11: `SurfaceView - pkg/Act#0`; windows `pkg/Act#1`.
	SFAndroid11 SFStyle = iota
	// SFAndroid12: the buffers are on `SurfaceView[pkg/Act](BLAST)#N`; its parent
	// `SurfaceView[pkg/Act]#N` prints only unwritten `0 0 0` rows.
	SFAndroid12
	// SFAndroid14: `<hex> SurfaceView[pkg/Act]@0(BLAST)#<seq>` (identity-hash prefix); windows
	// `<hex> pkg/Act#<seq>`.
	SFAndroid14
	// SFAndroid15: the Android 14 names wrapped in `RequestedLayerState{<name> parentId=N z=N}`.
	SFAndroid15
	// SFAndroid16: Android 15's list, and `--latency` prints only the period (FrameTimeline-backed);
	// frames are counted by `--timestats` only.
	SFAndroid16
)

// sfRing is how many records SurfaceFlinger's FrameTracker keeps (it prints one fewer).
const sfRing = 128

type sfRecord struct{ desired, actual, ready int64 }

type sfLayer struct {
	name, list string // --latency name; --list line
	pkg        string
	ring       [sfRing]sfRecord
	next       int // slot the next frame goes to
	gone       bool
	// timestats, counted while enabled
	total, dropped int64
	p2p            map[int]int64
	lastPresent    int64
}

// SurfaceFlinger is a fake phone's SurfaceFlinger: layers, their latency rings and timestats,
// served as `dumpsys SurfaceFlinger --list | --latency NAME | --timestats OP` print them in the
// chosen Android release. Safe for concurrent use: a simulator feeds Present while the fake
// device serves dumps.
type SurfaceFlinger struct {
	mu       sync.Mutex
	style    SFStyle
	periodNs int64
	seq      int
	layers   []*sfLayer
	extra    []string // raw --list lines (a hostile name, other apps)

	tsOn, tsEver     bool
	tsStart, tsEnd   int64 // seconds (statsStart, statsEnd as printed)
	clock            func() time.Time
	latencyRequested []string
}

// NewSurfaceFlinger returns a SurfaceFlinger of the given style on a display of hz.
func NewSurfaceFlinger(style SFStyle, hz float64) *SurfaceFlinger {
	return &SurfaceFlinger{style: style, periodNs: int64(1e9/hz + 0.5), seq: 400, clock: time.Now}
}

// AddLayer adds the layers Android creates for an activity of pkg drawing into a SurfaceView
// (surfaceView true: a game, a video, Flutter) or through its window only, and returns the name
// of the layer that holds its frames.
func (sf *SurfaceFlinger) AddLayer(pkg, activity string, surfaceView bool) string {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	comp := pkg + "/" + activity
	sf.seq += 7
	win := sf.window(comp)
	var frames *sfLayer
	if surfaceView {
		for _, name := range sf.surfaceViewNames(comp) {
			l := &sfLayer{name: name, pkg: pkg}
			sf.layers = append(sf.layers, l)
			frames = l // the last name is the one with buffers
		}
	}
	sf.layers = append(sf.layers, win)
	if frames == nil {
		frames = win
	}
	for _, l := range sf.layers {
		l.list = sf.listLine(l.name)
	}
	return frames.name
}

func (sf *SurfaceFlinger) window(comp string) *sfLayer {
	name := fmt.Sprintf("%s#%d", comp, sf.seq)
	if sf.style >= SFAndroid14 {
		name = fmt.Sprintf("%x %s", 0x54dfae7+sf.seq, name)
	}
	pkg, _, _ := strings.Cut(comp, "/")
	return &sfLayer{name: name, pkg: pkg}
}

// surfaceViewNames are a SurfaceView's layers, the one with buffers last.
func (sf *SurfaceFlinger) surfaceViewNames(comp string) []string {
	switch sf.style {
	case SFAndroid11:
		return []string{fmt.Sprintf("SurfaceView - %s#0", comp)}
	case SFAndroid12:
		return []string{fmt.Sprintf("SurfaceView[%s]#%d", comp, sf.seq+1), fmt.Sprintf("SurfaceView[%s](BLAST)#%d", comp, sf.seq+2)}
	}
	return []string{
		fmt.Sprintf("%x SurfaceView[%s]@0#%d", 0x632a464+sf.seq, comp, sf.seq+1),
		fmt.Sprintf("%x SurfaceView[%s]@0(BLAST)#%d", 0x632a465+sf.seq, comp, sf.seq+2),
	}
}

func (sf *SurfaceFlinger) listLine(name string) string {
	if sf.style >= SFAndroid15 {
		return fmt.Sprintf("RequestedLayerState{%s parentId=%d z=0}", name, sf.seq-3)
	}
	return name
}

// RemoveLayers takes pkg's layers away (the activity was destroyed; AddLayer again recreates it
// under new names).
func (sf *SurfaceFlinger) RemoveLayers(pkg string) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	for _, l := range sf.layers {
		if l.pkg == pkg {
			l.gone = true
		}
	}
}

// AddListLine adds a raw line to `--list` (another app's layer, or a hostile name).
func (sf *SurfaceFlinger) AddListLine(line string) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	sf.extra = append(sf.extra, line)
}

// Present records a frame the display showed on the layer called name.
func (sf *SurfaceFlinger) Present(name string, desired, actual, ready int64) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	for _, l := range sf.layers {
		if l.name != name || l.gone {
			continue
		}
		l.ring[l.next] = sfRecord{desired, actual, ready}
		l.next = (l.next + 1) % sfRing
		if sf.tsOn {
			l.total++
			if l.lastPresent > 0 {
				if l.p2p == nil {
					l.p2p = map[int]int64{}
				}
				l.p2p[timestatsBucket((actual-l.lastPresent)/1_000_000)]++
			}
		}
		l.lastPresent = actual
	}
}

// timestatsBucket is the histogram bucket AOSP's TimeStats puts a delta of ms into: 0–33 by
// 1, 34–50 by 2, 54–150 by 4, 200–1000 by 50, larger in 1000.
func timestatsBucket(ms int64) int {
	switch {
	case ms < 34:
		return int(max(ms, 0))
	case ms < 52:
		return int(ms - ms%2)
	case ms < 154:
		return int(54 + (ms-54)/4*4)
	case ms < 1000:
		return int(max(200, ms-ms%50))
	}
	return 1000
}

// SetClock replaces the wall clock timestats prints its statsStart/statsEnd seconds from.
func (sf *SurfaceFlinger) SetClock(now func() time.Time) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	sf.clock = now
}

// TimestatsOn reports whether timestats is enabled now.
func (sf *SurfaceFlinger) TimestatsOn() bool {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.tsOn
}

// SetTimestats turns timestats on or off, as statsd or another tool would.
func (sf *SurfaceFlinger) SetTimestats(on bool) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	sf.setTimestats(on)
}

func (sf *SurfaceFlinger) setTimestats(on bool) {
	now := sf.clock().Unix()
	if on && !sf.tsOn {
		sf.tsStart, sf.tsEnd, sf.tsEver = now, 0, true
	}
	if !on && sf.tsOn {
		sf.tsEnd = now
	}
	sf.tsOn = on
}

// LatencyRequests returns the layer names `--latency` was asked for, in order.
func (sf *SurfaceFlinger) LatencyRequests() []string {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return append([]string(nil), sf.latencyRequested...)
}

// Serve is a Handler for `dumpsys SurfaceFlinger ...` (route "dumpsys SurfaceFlinger" to it
// in a Mux).
func (sf *SurfaceFlinger) Serve(ctx context.Context, cmd string, w io.Writer) error {
	args := Args(cmd)
	if len(args) < 3 || args[0] != "dumpsys" || args[1] != "SurfaceFlinger" {
		_, err := io.WriteString(w, "usage: dumpsys SurfaceFlinger [--list | --latency NAME | --timestats OPTS]\n")
		return err
	}
	sf.mu.Lock()
	var out string
	switch args[2] {
	case "--list":
		out = sf.list()
	case "--latency":
		name := ""
		if len(args) > 3 {
			name = strings.Join(args[3:], " ")
		}
		sf.latencyRequested = append(sf.latencyRequested, name)
		out = sf.latency(name)
	case "--timestats":
		out = sf.timestats(args[3:])
	}
	sf.mu.Unlock()
	_, err := io.WriteString(w, out)
	return err
}

func (sf *SurfaceFlinger) list() string {
	var b strings.Builder
	for _, l := range sf.layers {
		if !l.gone {
			b.WriteString(l.list + "\n")
		}
	}
	for _, x := range sf.extra {
		b.WriteString(x + "\n")
	}
	return b.String()
}

// latency prints FrameTracker's dump: the period, then 127 records oldest first (unwritten
// slots as 0 0 0), then a blank line; Android 16 prints the period only.
func (sf *SurfaceFlinger) latency(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", sf.periodNs)
	if sf.style >= SFAndroid16 {
		return b.String()
	}
	var l *sfLayer
	for _, x := range sf.layers {
		if x.name == name && !x.gone {
			l = x
		}
	}
	if l == nil {
		return b.String() // an unknown name prints the period only on every release
	}
	for i := 1; i < sfRing; i++ { // the slot after the newest is in progress: not printed
		r := l.ring[(l.next+i)%sfRing]
		fmt.Fprintf(&b, "%d\t%d\t%d\n", r.desired, r.actual, r.ready)
	}
	b.WriteString("\n")
	return b.String()
}

func (sf *SurfaceFlinger) timestats(ops []string) string {
	var out string
	has := func(s string) bool {
		for _, o := range ops {
			if o == s {
				return true
			}
		}
		return false
	}
	// AOSP processes the options in this order, whatever order they were given in
	if has("-disable") {
		sf.setTimestats(false)
	}
	if has("-dump") && sf.tsEver {
		out = sf.timestatsDump()
	}
	if has("-clear") {
		for _, l := range sf.layers {
			l.total, l.dropped, l.p2p = 0, 0, nil
		}
	}
	if has("-enable") {
		sf.setTimestats(true)
	}
	return out
}

func (sf *SurfaceFlinger) timestatsDump() string {
	end := sf.tsEnd
	if sf.tsOn {
		end = sf.clock().Unix()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SurfaceFlinger TimeStats:\nLegacy stats are as follows:\nstatsStart = %d\nstatsEnd = %d\n", sf.tsStart, end)
	var total int64
	for _, l := range sf.layers {
		total += l.total
	}
	fmt.Fprintf(&b, "totalFrames = %d\nmissedFrames = 0\nclientCompositionFrames = 0\n", total)
	b.WriteString("presentToPresent histogram is as below:\n0ms=0\n")
	hz := int(1e9/float64(sf.periodNs) + 0.5)
	for _, l := range sf.layers {
		if l.total == 0 {
			continue
		}
		name := stripHex(l.name)
		fmt.Fprintf(&b, "displayRefreshRate = %d fps\nrenderRate = %d fps\nuid = 10234\nlayerName = %s\npackageName = %s\n", hz, hz, name, l.pkg)
		fmt.Fprintf(&b, "totalFrames = %d\ndroppedFrames = %d\nlateAcquireFrames = 0\nbadDesiredPresentFrames = 0\n", l.total, l.dropped)
		b.WriteString("Jank payload for this layer:\ntotalTimelineFrames = 0\njankyFrames = 0\naverageFPS = 0.000\n")
		b.WriteString("present2present histogram is as below:\n")
		keys := make([]int, 0, len(l.p2p))
		for k := range l.p2p {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		parts := make([]string, 0, len(keys)+1)
		parts = append(parts, "0ms=0")
		for _, k := range keys {
			if k != 0 {
				parts = append(parts, fmt.Sprintf("%dms=%d", k, l.p2p[k]))
			}
		}
		b.WriteString(strings.Join(parts, " ") + "\npost2present histogram is as below:\n0ms=0\n")
	}
	return b.String()
}

func stripHex(name string) string {
	if i := strings.IndexByte(name, ' '); i > 0 && i <= 10 && !strings.ContainsAny(name[:i], "[/") {
		return name[i+1:]
	}
	return name
}
