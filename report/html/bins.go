package html

import (
	"fmt"
	"maps"
	"slices"
)

// maxBins bounds the time bins of a long recording: 32 per pixel column of the timeline,
// so a column's summary is drawn from bins far narrower than itself.
const maxBins = timelineCols * 32

// bin summarises the frames of one stretch of time the way a timeline column does: the on-time
// frames' count and cost range, and per janky class the count and the costliest frame.
type bin struct {
	onTime
	jankyCount [numCls]int32
	worst      [numCls]frameRec
}

// onTime is the on-time frames' count and cost range, a column's band and a bin's alike.
type onTime struct {
	n      int32
	lo, hi float32
}

func (r *onTime) add(costMs float32) {
	r.merge(onTime{n: 1, lo: costMs, hi: costMs})
}

// merge adds o, the on-time frames of a later stretch of time, to r.
func (r *onTime) merge(o onTime) {
	if o.n == 0 {
		return
	}
	if r.n == 0 || o.lo < r.lo {
		r.lo = o.lo
	}
	if r.n == 0 || o.hi > r.hi {
		r.hi = o.hi
	}
	r.n += o.n
}

func (b *bin) add(f frameRec) {
	if f.cls == clsOK {
		b.onTime.add(f.costMs)
		return
	}
	if b.jankyCount[f.cls] == 0 || b.worst[f.cls].costMs < f.costMs {
		b.worst[f.cls] = f
	}
	b.jankyCount[f.cls]++
}

// merge adds o, a later stretch of time, to b.
func (b *bin) merge(o *bin) {
	b.onTime.merge(o.onTime)
	for c := range o.jankyCount {
		if o.jankyCount[c] == 0 {
			continue
		}
		if b.jankyCount[c] == 0 || b.worst[c].costMs < o.worst[c].costMs {
			b.worst[c] = o.worst[c]
		}
		b.jankyCount[c] += o.jankyCount[c]
	}
}

// binSet is a recording's frames summarised per stretch of vsync time while it is read. The
// page's time axis is known only at the end, so the bins start narrow and double in width
// (merging pairs) whenever the recording's span would need more than maxBins of them.
type binSet struct {
	widthNs int64
	bins    map[int64]*bin
	lo, hi  int64 // the smallest and largest key in bins
}

func newBinSet() *binSet {
	return &binSet{widthNs: 1e6, bins: make(map[int64]*bin)}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (bs *binSet) add(f frameRec) {
	k := floorDiv(f.vsync, bs.widthNs)
	for len(bs.bins) > 0 && max(bs.hi, k)-min(bs.lo, k) >= maxBins {
		bs.coarsen()
		k = floorDiv(f.vsync, bs.widthNs)
	}
	b := bs.bins[k]
	if b == nil {
		b = &bin{}
		bs.bins[k] = b
		if len(bs.bins) == 1 || k < bs.lo {
			bs.lo = k
		}
		if len(bs.bins) == 1 || k > bs.hi {
			bs.hi = k
		}
	}
	b.add(f)
}

// coarsen doubles the bins' width, merging each pair in time order.
func (bs *binSet) coarsen() {
	old := bs.bins
	bs.widthNs *= 2
	bs.bins = make(map[int64]*bin, len(old)/2+1)
	for _, k := range slices.Sorted(maps.Keys(old)) {
		nk := floorDiv(k, 2)
		if b := bs.bins[nk]; b != nil {
			b.merge(old[k])
		} else {
			bs.bins[nk] = old[k]
		}
	}
	bs.lo, bs.hi = floorDiv(bs.lo, 2), floorDiv(bs.hi, 2)
}

// toBins turns the frames kept one by one into the binned summary, once there are too many.
func (fs *frameSet) toBins() {
	fs.bins = newBinSet()
	for _, f := range fs.frames {
		fs.bin(f)
	}
	fs.frames = nil
}

// bin adds one frame to the binned summary, keeping frozen frames and (up to detailJanky)
// janky ones single.
func (fs *frameSet) bin(f frameRec) {
	fs.bins.add(f)
	switch {
	case f.cls == clsFrozen:
		fs.frozen = append(fs.frozen, f)
	case f.cls != clsOK && !fs.jankyOver:
		fs.janky = append(fs.janky, f)
		if len(fs.janky) > detailJanky {
			fs.janky, fs.jankyOver = nil, true
		}
	}
}

// drawBins draws the timeline of a binned recording like drawColumns: each column's on-time
// frames as one bar, every frozen frame, and every janky frame or (past detailJanky) the worst
// of each level per column. A bin belongs to the column holding its middle.
func drawBins(s *svg, fs *frameSet, xs linScale, ys logScale, toS func(int64) float64) string {
	cols := make([]bin, timelineCols)
	w := fs.bins.widthNs
	var spans [timelineCols][2]int64 // the first and last bin key of each column
	for _, k := range slices.Sorted(maps.Keys(fs.bins.bins)) {
		i := columnOf(xs, toS, k*w+w/2)
		if cols[i].n == 0 && cols[i].jankyCount == [numCls]int32{} {
			spans[i][0] = k
		}
		spans[i][1] = k
		cols[i].merge(fs.bins.bins[k])
	}
	s.group("frames")
	for i := range cols {
		if cols[i].n > 0 {
			// The tooltip names the time its bins cover, so its count is exact for that span.
			drawBand(s, xs, ys, i, &cols[i].onTime, toS(spans[i][0]*w), toS((spans[i][1]+1)*w))
		}
	}
	point := func(f *frameRec, title string) {
		framePoint(s, f, xs.at(toS(f.vsync)), ys.at(float64(f.costMs)), title)
	}
	for i := range fs.frozen {
		point(&fs.frozen[i], frameTitle(&fs.frozen[i], toS))
	}
	drawn := len(fs.frozen)
	if !fs.jankyOver {
		for i := range fs.janky {
			point(&fs.janky[i], frameTitle(&fs.janky[i], toS))
		}
	} else {
		for i := range cols {
			for cls := clsJ1; cls < clsFrozen; cls++ {
				n := cols[i].jankyCount[cls]
				if n == 0 {
					continue
				}
				f := &cols[i].worst[cls]
				title := frameTitle(f, toS)
				if n > 1 {
					title = fmt.Sprintf("%s — the worst of %d %s frames in this column", title, n, clsLabels[cls])
				}
				point(f, title)
				drawn++
			}
		}
	}
	s.endGroup()
	return jankyNote(fmt.Sprintf("%d frames: on-time frames are drawn as one bar per column (fastest to slowest; columns gathered from %s s bins as the recording was read); every frozen frame is drawn", fs.n, ms2(float64(w)/1e9)), !fs.jankyOver, fs, drawn)
}
