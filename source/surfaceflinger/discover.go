package surfaceflinger

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source"
)

// Candidates lists pkg's frame-carrying layers in a `--list` dump whose names the device layer
// accepts (best kind first), and the refused ones with the reason.
func Candidates(list []byte, pkg string) (ok []Layer, refused map[string]error) {
	for _, l := range ListLayers(list, pkg) {
		if err := device.ValidLayerName(l.Name); err != nil {
			if refused == nil {
				refused = map[string]error{}
			}
			refused[l.Name] = err
			continue
		}
		ok = append(ok, l)
	}
	return ok, refused
}

// discover lists the layers and keeps, or changes to, the package's layer that presents now:
// the measured layer stays while it is listed and advancing; otherwise every candidate is
// probed twice and the best kind whose newest present time moved wins (a SurfaceView's BLAST
// layer over a plain SurfaceView over a window), so a game's recreated layer is followed.
func (r *run) discover(ctx context.Context) (err error) {
	r.lastList = r.p.cfg.Now()
	list, lerr := r.p.d.SFList(ctx)
	if lerr != nil {
		return lerr
	}
	cands, refused := Candidates(list, r.p.cfg.Package)
	if r.p.cfg.SurfaceViewsOnly {
		svs := cands[:0]
		for _, c := range cands {
			if c.Kind <= KindSurfaceView {
				svs = append(svs, c)
			}
		}
		cands = svs
	}
	for name, e := range refused {
		r.refuse(name, e)
	}
	if r.p.cfg.Layer != "" {
		return r.fixed(cands)
	}
	listed := false
	for _, c := range cands {
		listed = listed || c.Name == r.layer.Name
	}
	advancing := r.presenting()
	defer func() {
		// Once the presenting layer is known, its candidates' rings are not read again until
		// it stops presenting or the list changes (DESIGN §7 "Observer effect").
		if err == nil && !(advancing && listed && sameNames(cands, r.listed)) {
			err = r.listLayers(ctx, cands)
		}
	}()
	if listed && (advancing || r.periodOnly > 0) {
		return nil
	}
	if len(cands) == 0 {
		if r.layer.Name != "" && !listed {
			r.evs = append(r.evs, source.Notef(r.now(), source.LevelInfo, "surfaceflinger: layer %s is gone", r.layer.Name))
			r.layer = Layer{}
			r.session()
		}
		r.evs = append(r.evs, &source.Notice{AtNs: r.now(), Level: source.LevelInfo, State: source.StateWaiting,
			Text: fmt.Sprintf("waiting for a SurfaceFlinger layer of %s", r.p.cfg.Package)})
		return nil
	}
	best, perr := r.pick(ctx, cands, listed)
	if perr != nil {
		return perr
	}
	if best.Name != r.layer.Name {
		r.use(best)
	}
	return nil
}

// fixed uses the layer the user chose, once it is listed.
func (r *run) fixed(cands []Layer) error {
	if r.layer.Name == r.p.cfg.Layer {
		return nil
	}
	if err := device.ValidLayerName(r.p.cfg.Layer); err != nil {
		return err
	}
	l := Layer{Name: r.p.cfg.Layer, Kind: KindWindow}
	for _, c := range cands {
		if c.Name == l.Name {
			l = c
		}
	}
	if k, ok := ClassifyLayer(l.Name, r.p.cfg.Package); ok {
		l = k
	}
	r.use(l)
	return nil
}

// use starts measuring l: its frames are new from the newest present already emitted on.
func (r *run) use(l Layer) {
	from := r.layer.Name
	r.layer = l
	if _, ok := r.last[l.Name]; !ok && r.newest > 0 {
		r.last[l.Name] = r.newest
	}
	r.lastAdvance = r.p.cfg.Now()
	r.periodOnly = 0
	text := fmt.Sprintf("surfaceflinger: measuring %s", l.Describe())
	if from != "" {
		text = fmt.Sprintf("surfaceflinger: layer changed from %s to %s", from, l.Describe())
	}
	r.evs = append(r.evs, &source.Notice{AtNs: r.now(), Level: source.LevelInfo, State: source.StateLive, Text: text})
	r.session()
}

// pick probes the candidates' latency twice and returns the best presenting one; when none
// advances, the current layer if still listed, else the best kind that has frames at all,
// else the best kind.
func (r *run) pick(ctx context.Context, cands []Layer, listed bool) (Layer, error) {
	if len(cands) > maxProbe {
		cands = cands[:maxProbe]
	}
	first := make([]int64, len(cands))
	for i, c := range cands {
		n, err := r.newestPresent(ctx, c.Name)
		if err != nil {
			return Layer{}, err
		}
		first[i] = n
	}
	if err := r.p.cfg.Sleep(ctx, probeGap); err != nil {
		return Layer{}, err
	}
	withFrames := -1
	for i, c := range cands {
		n, err := r.newestPresent(ctx, c.Name)
		if err != nil {
			return Layer{}, err
		}
		if n > first[i] {
			return c, nil // kinds are in order: the first advancing one is the best
		}
		if n > 0 && withFrames < 0 {
			withFrames = i
		}
	}
	switch {
	case listed:
		return r.layer, nil
	case withFrames >= 0:
		return cands[withFrames], nil
	}
	return cands[0], nil
}

// newestPresent is the newest actual present time in a layer's ring (0 none); refused names
// count as empty.
func (r *run) newestPresent(ctx context.Context, name string) (int64, error) {
	data, err := r.p.d.SFLatency(ctx, name)
	if err != nil {
		if errors.Is(err, device.ErrInvalid) {
			r.refuse(name, err)
			return 0, nil
		}
		return 0, err
	}
	l := ParseLatency(data)
	if l.PeriodOnly() {
		r.probePeriodOnly++
	}
	var n int64
	for _, rec := range l.Records {
		n = max(n, rec.Actual)
	}
	if n > 0 {
		r.observe(n)
	}
	return n, nil
}

// sameNames reports whether cands are the layers names lists, in order.
func sameNames(cands []Layer, names []string) bool {
	if len(cands) != len(names) {
		return false
	}
	for i, c := range cands {
		if c.Name != names[i] {
			return false
		}
	}
	return true
}

// maxListed is how many of the app's layers the picker is told about.
const maxListed = 6

// listLayers reads each candidate's ring once and reports the app's layers with their newest
// present times, for the layer picker.
func (r *run) listLayers(ctx context.Context, cands []Layer) error {
	ll := &source.LayerList{AtNs: r.now(), Layers: []source.ListedLayer{}}
	r.listed = r.listed[:0]
	for _, c := range cands {
		r.listed = append(r.listed, c.Name)
	}
	for i, c := range cands {
		if i == maxListed {
			break
		}
		data, err := r.p.d.SFLatency(ctx, c.Name)
		if err != nil {
			if errors.Is(err, device.ErrInvalid) {
				continue
			}
			return err
		}
		l := ParseLatency(data)
		var newest int64
		for _, rec := range l.Records {
			newest = max(newest, rec.Actual)
		}
		var ps []int64
		for _, rec := range l.Records {
			if rec.Actual > newest-1_000_000_000 {
				ps = append(ps, rec.Actual)
			}
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		ll.Layers = append(ll.Layers, source.ListedLayer{Name: c.Name, Kind: c.Kind.String(), PresentsNs: ps})
	}
	r.evs = append(r.evs, ll)
	return nil
}
