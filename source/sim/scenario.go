package sim

import (
	"math/rand/v2"
	"slices"
)

// Scenarios lists the simulator's scenarios; the first is the default.
var Scenarios = []string{"demo", "smooth", "janky", "frozen", "stress"}

// ScenarioHelp describes each scenario in one line (for --help and the docs).
var ScenarioHelp = map[string]string{
	"demo":   "mostly smooth scrolling with occasional jank, a slow click handler opening a popup, GC pauses, an ~800 ms freeze now and then, idle gaps",
	"smooth": "a steady pipelined scroll from the first frame: each frame takes about 1.25 periods from its vsync to GPU completion (9–13 ms at 120 Hz) but every stage fits in a period, so every frame is on time; no idle gaps, popups, GC stalls or freezes",
	"janky":  "heavy frames, frequent spikes, long GC pauses, buffer stuffing and slow image callbacks on the main thread",
	"frozen": "scrolling interrupted every few seconds by a 0.8–2.5 s main-thread freeze",
	"stress": "continuous scrolling at the full refresh rate, four always-animating windows plus the popup, many messages, no idle",
}

// fixedWork is the factor of the frame's small fixed phases (1 unless --work-scale).
func (p *profile) fixedWork() float64 {
	if p.work == 0 {
		return 1
	}
	return p.work
}

// profile is a scenario's parameters. Work amounts are fractions of the frame interval T, so a
// scenario looks the same at every refresh rate; times are in ms.
type profile struct {
	trav, draw, issue, gpu float64 // mean phase work (× T) for a weight-1 window
	sigma                  float64 // log-normal spread of every phase
	spikeP                 float64 // chance a frame's traversal has a spike
	spikeLo, spikeHi       float64 // spike size (× T)
	stuffP                 float64 // chance of a long dequeueBuffer wait
	// work multiplies the frame's small fixed phases (input, animation, the sync) as
	// Config.WorkScale multiplies the others (0: 1)
	work float64

	idleP                    float64 // chance the next segment is idle
	idleLo, idleHi           int64
	scrollLo, scrollHi       int64
	flingLo, flingHi         int64
	popupP                   float64 // chance the next segment is a click that opens the popup
	clickLo, clickHi         int64   // slow click handler
	gcP                      float64 // chance of a GC pause per scroll segment
	gcLo, gcHi               int64
	freezeLo, freezeHi       int64 // freeze length (0: no freezes)
	freezeGapLo, freezeGapHi int64 // virtual time between freezes
	imgEvery                 int64 // mean gap between ImageLoader callbacks while scrolling
	imgLo, imgHi             int64 // their duration, in µs
	extraWindows             int
	serviceEvery             int64 // mean gap between service starts (0: none)
	// steady: the run begins in the middle of a scroll (the activity already drawing on every
	// vsync, its pipeline stuffed, no launch) and scrolls without a pause: each drag starts
	// before the previous fling ends.
	steady bool
}

var profiles = map[string]*profile{
	"demo": {
		trav: 0.16, draw: 0.09, issue: 0.42, gpu: 0.4, sigma: 0.28,
		spikeP: 0.025, spikeLo: 0.8, spikeHi: 3.5, stuffP: 0.005,
		idleP: 0.3, idleLo: 800, idleHi: 3000,
		scrollLo: 700, scrollHi: 2500, flingLo: 300, flingHi: 1400,
		popupP: 0.2, clickLo: 120, clickHi: 320,
		gcP: 0.25, gcLo: 25, gcHi: 110,
		freezeLo: 760, freezeHi: 900, freezeGapLo: 12_000, freezeGapHi: 25_000,
		imgEvery: 90, imgLo: 300, imgHi: 2500,
		serviceEvery: 20_000,
	},
	"smooth": {
		trav: 0.3, draw: 0.19, issue: 0.34, gpu: 0.33, sigma: 0.07,
		scrollLo: 800, scrollHi: 2500, flingLo: 300, flingHi: 1200,
		imgEvery: 150, imgLo: 200, imgHi: 800,
		steady: true,
	},
	"janky": {
		trav: 0.3, draw: 0.18, issue: 0.38, gpu: 0.38, sigma: 0.38,
		spikeP: 0.1, spikeLo: 1, spikeHi: 6, stuffP: 0.04,
		idleP: 0.2, idleLo: 500, idleHi: 1500,
		scrollLo: 800, scrollHi: 2500, flingLo: 300, flingHi: 1200,
		popupP: 0.2, clickLo: 200, clickHi: 600,
		gcP: 0.8, gcLo: 60, gcHi: 250,
		freezeLo: 760, freezeHi: 1100, freezeGapLo: 15_000, freezeGapHi: 30_000,
		imgEvery: 60, imgLo: 4000, imgHi: 30_000,
		serviceEvery: 15_000,
	},
	"frozen": {
		trav: 0.26, draw: 0.15, issue: 0.3, gpu: 0.3, sigma: 0.28,
		spikeP: 0.02, spikeLo: 0.8, spikeHi: 3, stuffP: 0.005,
		idleP: 0.15, idleLo: 500, idleHi: 1500,
		scrollLo: 1500, scrollHi: 3000, flingLo: 300, flingHi: 1000,
		popupP: 0.1, clickLo: 150, clickHi: 400,
		gcP: 0.3, gcLo: 30, gcHi: 120,
		freezeLo: 800, freezeHi: 2500, freezeGapLo: 2000, freezeGapHi: 5000,
		imgEvery: 90, imgLo: 300, imgHi: 2500,
		serviceEvery: 20_000,
	},
	"stress": {
		trav: 0.07, draw: 0.04, issue: 0.07, gpu: 0.08, sigma: 0.25,
		spikeP: 0.01, spikeLo: 0.5, spikeHi: 2,
		scrollLo: 1500, scrollHi: 4000, flingLo: 500, flingHi: 1500,
		popupP: 0.25, clickLo: 3, clickHi: 12,
		gcP: 0.3, gcLo: 5, gcHi: 30,
		imgEvery: 12, imgLo: 100, imgHi: 1500,
		extraWindows: 3,
		serviceEvery: 5_000,
	},
}

// action is something the user or the app does at a point in virtual time.
type action struct {
	at int64
	do func(e *engine, at int64)
}

// director writes the scenario's script, one segment at a time, from its own random stream (so
// the script does not depend on how the model consumes randomness).
type director struct {
	prof *profile
	rng  *rand.Rand
	e    *engine
	pkg  string
	t    int64 // end of the script written so far
	buf  []action

	started     bool
	lastIdle    bool
	popupShown  bool
	nextFreeze  int64
	nextService int64
	nextTick3   int64 // next FeedActivity$3 routine run

	feed3     string
	gapWorker string
}

func newDirector(cfg Config, prof *profile, e *engine, t0 int64) *director {
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6670_7374_6f70_0001))
	d := &director{prof: prof, rng: r, e: e, pkg: cfg.Package, t: t0}
	d.feed3 = "com.example.feed.FeedActivity$3@1f2e3d"
	d.gapWorker = "androidx.recyclerview.widget.GapWorker@" + hashFrom(r)
	if prof.freezeLo > 0 {
		d.nextFreeze = t0 + ms*uniform(r, prof.freezeGapLo/2, prof.freezeGapHi/2)
	}
	d.nextService = never
	if prof.serviceEvery > 0 {
		d.nextService = t0 + ms*uniform(r, prof.serviceEvery/3, prof.serviceEvery)
	}
	d.nextTick3 = t0 + ms*uniform(r, 1500, 4000)
	return d
}

func (d *director) peek() int64 {
	for len(d.buf) == 0 {
		d.segment()
	}
	return d.buf[0].at
}

func (d *director) apply() {
	a := d.buf[0]
	d.buf = d.buf[1:]
	a.do(d.e, a.at)
}

func (d *director) add(at int64, do func(e *engine, at int64)) {
	d.buf = append(d.buf, action{at: at, do: do})
}

// postAt adds an action that posts a printed message.
func (d *director) postAt(at int64, handler, callback string, what int, dur int64, fn func(e *engine, start, end int64)) {
	d.add(at, func(e *engine, at int64) {
		e.post(&qmsg{when: at, kind: kMessage, handler: handler, callback: callback, what: what, dur: dur, fn: fn})
	})
}

func (d *director) ms(lo, hi int64) int64 { return ms * uniform(d.rng, lo, hi+1) }

// segment appends the next segment of the script.
func (d *director) segment() {
	r, p := d.rng, d.prof
	start := d.t
	switch {
	case !d.started && p.steady:
		d.started = true
		d.midScroll()
	case !d.started:
		d.started = true
		d.startup()
	case p.idleP > 0 && !d.lastIdle && r.Float64() < p.idleP:
		d.lastIdle = true
		d.idle()
	case !d.popupShown && r.Float64() < p.popupP:
		d.lastIdle = false
		d.popupSegment()
	default:
		d.lastIdle = false
		d.scroll()
	}
	if d.t >= d.nextService {
		at := start + d.ms(5, 50)
		d.postAt(at, handlerActivityH, "null", whatCreateService, d.ms(3, 12), nil)
		d.postAt(at+ms, handlerActivityH, "null", whatServiceArgs, ms/2+d.ms(0, 4), nil)
		d.nextService = d.t + d.ms(p.serviceEvery/2, p.serviceEvery*3/2)
	}
	tick3Hi := int64(4000) // µs
	if p.steady {
		tick3Hi = 1500
	}
	for d.nextTick3 < d.t { // the activity's periodic refresh runnable
		// never before the segment's start: the model may already have run up to it
		at := max(d.nextTick3, start)
		d.postAt(at, handlerMain, d.feed3, 0, us*uniform(r, 600, tick3Hi), nil)
		d.nextTick3 = at + d.ms(2000, 5000)
	}
	slices.SortStableFunc(d.buf, func(a, b action) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
}

// startup: BIND_APPLICATION, then the activity launch transaction, which attaches the activity
// window (first frame flagged) with its enter animation; stress also opens its extra windows.
func (d *director) startup() {
	t := d.t + d.ms(20, 60)
	d.postAt(t, handlerActivityH, "null", whatBindApplication, d.ms(90, 220), nil)
	t += ms
	d.postAt(t, handlerActivityH, "null", whatExecuteTransation, d.ms(60, 160), func(e *engine, _, end int64) {
		e.attach(e.activity, end, 350*ms)
		for i := 0; i < d.prof.extraWindows; i++ {
			w := e.newWindow("PopupWindow:"+e.hash(), 0.5, false)
			e.attach(w, end, never)
		}
	})
	d.t = t + 900*ms
}

// midScroll: the run begins while the activity scrolls (the steady profiles): it is attached
// already (no launch, no first-frame flag), draws on every vsync and its pipeline is stuffed.
func (d *director) midScroll() {
	d.add(d.t, func(e *engine, at int64) {
		w := e.activity
		e.attach(w, at, 0)
		w.first = false
		w.pipe.warm = true
	})
	d.scroll()
}

// idle: nothing animates; at most a background message that draws nothing.
func (d *director) idle() {
	dur := d.ms(d.prof.idleLo, d.prof.idleHi)
	if d.rng.IntN(2) == 0 {
		d.postAt(d.t+dur/3, handlerMain, "com.example.feed.FeedRepository$$ExternalSyntheticLambda2@"+hashFrom(d.rng), 0, us*uniform(d.rng, 200, 1500), nil)
	}
	d.t += dur
}

// popupSegment: a click whose handler (slow in demo/janky/frozen) shows the popup with its
// enter animation; it stays up, then a second click dismisses it (exit animation, then removal).
func (d *director) popupSegment() {
	p, r := d.prof, d.rng
	t := d.t + d.ms(50, 200)
	click := "android.view.View$PerformClick@" + hashFrom(r)
	d.popupShown = true
	d.postAt(t, handlerViewRoot, click, 0, d.ms(p.clickLo, p.clickHi), func(e *engine, _, end int64) {
		if e.popup.attached {
			return
		}
		e.attach(e.popup, end, 220*ms)
	})
	t += d.ms(1200, 3000)
	click2 := "android.view.View$PerformClick@" + hashFrom(r)
	d.postAt(t, handlerViewRoot, click2, 0, d.ms(2, 8), func(e *engine, _, end int64) {
		if !e.popup.attached {
			return
		}
		exit := 180 * ms
		e.popup.animUntil = end + exit
		e.post(&qmsg{when: end + exit + 5*ms, kind: kTrigger, fn: func(e *engine, s, _ int64) {
			e.detach(e.popup, s)
			d.popupShown = false
		}})
	})
	d.t = t + 500*ms
}

// scroll: a touch drag then a fling of the feed, with image callbacks, RecyclerView prefetch,
// maybe a GC pause and, when one is due, a freeze of the FeedActivity$3 runnable.
func (d *director) scroll() {
	p, r := d.prof, d.rng
	t := d.t + d.ms(0, 30)
	if p.steady && d.t > d.e.t0 {
		t = d.t - d.ms(50, 150) // the next drag catches the fling before it stops
	}
	drag := d.ms(p.scrollLo, p.scrollHi)
	fling := d.ms(p.flingLo, p.flingHi)
	d.add(t, func(e *engine, at int64) {
		e.post(&qmsg{when: at, kind: kTrigger, fn: func(e *engine, s, _ int64) {
			w := e.activity
			if !w.attached {
				return
			}
			w.touchUntil = s + drag
			w.animUntil = max(w.animUntil, s+drag+fling)
		}})
	})
	end := t + drag + fling
	if p.imgEvery > 0 {
		for at := t + d.ms(0, p.imgEvery); at < end; at += d.ms(p.imgEvery/2, p.imgEvery*3/2) {
			cb := "com.example.feed.ImageLoader$$ExternalSyntheticLambda0@" + hashFrom(r)
			d.postAt(at, handlerMain, cb, 0, us*uniform(r, p.imgLo, p.imgHi), nil)
		}
		gapHi := int64(2500) // µs
		if p.steady {
			gapHi = 1200
		}
		for at := t + d.ms(50, 200); at < end; at += d.ms(150, 400) {
			d.postAt(at, handlerViewRoot, d.gapWorker, 0, us*uniform(r, 300, gapHi), nil)
		}
	}
	if p.gcP > 0 && r.Float64() < p.gcP {
		at := t + int64(r.Float64()*float64(drag+fling))
		pause := d.ms(p.gcLo, p.gcHi)
		d.add(at, func(e *engine, at int64) { e.post(&qmsg{when: at, kind: kStall, dur: pause}) })
	}
	if p.freezeLo > 0 && t >= d.nextFreeze {
		at := t + int64((0.2+0.4*r.Float64())*float64(drag))
		d.postAt(at, handlerMain, d.feed3, 0, d.ms(p.freezeLo, p.freezeHi), nil)
		d.nextFreeze = at + d.ms(p.freezeGapLo, p.freezeGapHi)
		end = max(end, at+p.freezeHi*ms)
	}
	if p.idleP == 0 {
		d.t = end
	} else {
		d.t = end + d.ms(100, 400)
	}
}
