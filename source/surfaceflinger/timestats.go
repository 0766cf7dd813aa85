package surfaceflinger

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// TimestatsLayer is one layer's counters in a `--timestats -dump` (summed over the layer's
// records: Android 12+ prints one per display refresh rate and render rate).
type TimestatsLayer struct {
	Name          string
	Package       string
	TotalFrames   int64
	DroppedFrames int64
	// RefreshHz is the first `displayRefreshRate` printed for it (0: none, before Android 12).
	RefreshHz float64
	// Present2Present is the present-to-present histogram: bucket (ms) → frames, ascending.
	Present2Present []source.Bucket
}

// Timestats is one parsed `--timestats -dump`.
type Timestats struct {
	// Empty is set when the dump printed nothing: timestats has never been enabled.
	Empty bool
	// StatsEnd is the printed `statsEnd` (seconds): it stands still while timestats is off.
	StatsEnd string
	// StatsStart is the printed `statsStart` (seconds).
	StatsStart string
	Layers     []TimestatsLayer
}

// Layer returns the counters of the layer called name: the exact name, else the same name
// without its `#<seq>` suffix (releases differ in whether timestats keeps it); nil when absent.
func (t *Timestats) Layer(name string) *TimestatsLayer {
	base := trimSeq(name)
	var loose *TimestatsLayer
	for i := range t.Layers {
		l := &t.Layers[i]
		if l.Name == name {
			return l
		}
		if loose == nil && trimSeq(l.Name) == base {
			loose = l
		}
	}
	return loose
}

func trimSeq(name string) string {
	name = stripHexPrefix(name)
	if i := strings.LastIndexByte(name, '#'); i >= 0 {
		return name[:i]
	}
	return name
}

// ParseTimestats reads `dumpsys SurfaceFlinger --timestats -dump` text: the global block is
// skipped; each `layerName = …` line opens a layer, whose `packageName`, `totalFrames`,
// `droppedFrames` and `present2present` histogram are read. Records of the same layer are summed.
func ParseTimestats(data []byte) *Timestats {
	t := &Timestats{Empty: len(bytes.TrimSpace(data)) == 0}
	idx := map[string]int{}
	cur := -1
	wantHist := false
	var pendingHz float64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if wantHist {
			wantHist = false
			if cur >= 0 {
				l := &t.Layers[cur]
				l.Present2Present = addBuckets(l.Present2Present, parseHistogram(line))
			}
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			wantHist = cur >= 0 && line == "present2present histogram is as below:"
			continue
		}
		switch k {
		case "statsEnd":
			if cur < 0 {
				t.StatsEnd = v
			}
		case "statsStart":
			if cur < 0 {
				t.StatsStart = v
			}
		case "displayRefreshRate":
			// printed before the layerName of the record it belongs to
			if hz, err := strconv.ParseFloat(strings.TrimSuffix(v, " fps"), 64); err == nil && hz > 0 {
				pendingHz = hz
			}
		case "layerName":
			i, seen := idx[v]
			if !seen {
				i = len(t.Layers)
				idx[v] = i
				t.Layers = append(t.Layers, TimestatsLayer{Name: v})
			}
			cur = i
			if t.Layers[i].RefreshHz == 0 {
				t.Layers[i].RefreshHz = pendingHz
			}
		case "packageName":
			if cur >= 0 {
				t.Layers[cur].Package = v
			}
		case "totalFrames", "droppedFrames":
			if cur < 0 {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			if k == "totalFrames" {
				t.Layers[cur].TotalFrames += n
			} else {
				t.Layers[cur].DroppedFrames += n
			}
		}
	}
	return t
}

// parseHistogram reads "0ms=0 1ms=3 … 1000ms=2" (buckets with zero counts dropped).
func parseHistogram(line string) []source.Bucket {
	var out []source.Bucket
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		ms, err1 := strconv.Atoi(strings.TrimSuffix(k, "ms"))
		n, err2 := strconv.ParseInt(v, 10, 64)
		if !ok || err1 != nil || err2 != nil || n <= 0 || ms < 0 {
			continue
		}
		out = append(out, source.Bucket{Ms: ms, Count: n})
	}
	return out
}

// addBuckets merges b into a (both ascending by Ms).
func addBuckets(a, b []source.Bucket) []source.Bucket {
	m := map[int]int64{}
	for _, x := range a {
		m[x.Ms] += x.Count
	}
	for _, x := range b {
		m[x.Ms] += x.Count
	}
	return sortedBuckets(m)
}

func sortedBuckets(m map[int]int64) []source.Bucket {
	out := make([]source.Bucket, 0, len(m))
	for ms, n := range m {
		if n > 0 {
			out = append(out, source.Bucket{Ms: ms, Count: n})
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Ms < out[j-1].Ms; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// DiffBuckets returns now − before per bucket (negative growth, a cleared histogram, yields
// nil: the caller re-bases).
func DiffBuckets(now, before []source.Bucket) ([]source.Bucket, bool) {
	m := map[int]int64{}
	for _, x := range now {
		m[x.Ms] += x.Count
	}
	for _, x := range before {
		m[x.Ms] -= x.Count
		if m[x.Ms] < 0 {
			return nil, false
		}
	}
	return sortedBuckets(m), true
}
