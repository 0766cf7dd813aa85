package gfxinfo

import (
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// refEmit is the frame emitRow makes of a complete row, written as composite literals: the
// definition the field-by-field writes must match (Window and Process are finish's).
func refEmit(r *[source.NumCols]int64) (source.Frame, source.Phases) {
	var period, start int64
	a, b := r[source.ColFrameInterval], r[source.ColFrameStart]
	switch {
	case a >= minPeriodNs && a <= maxPeriodNs:
		period, start = a, b
	case b >= minPeriodNs && b <= maxPeriodNs:
		period, start = b, a
	case a > maxPeriodNs:
		start = a
	case b > maxPeriodNs:
		start = b
	}
	deadline := r[source.ColDeadline]
	if deadline == int64Max || deadline <= 0 {
		deadline = 0
	}
	ph := source.Phases{
		Vsync: r[source.ColVsync], HandleInputStart: r[source.ColHandleInput], AnimationStart: r[source.ColAnimation],
		PerformTraversalsStart: r[source.ColTraversals], DrawStart: r[source.ColDrawStart],
		SyncQueued: r[source.ColSyncQueued], SyncStart: r[source.ColSyncStart], IssueDrawCommandsStart: r[source.ColIssueDraw],
		SwapBuffers: r[source.ColSwapBuffers], FrameCompleted: r[source.ColFrameCompleted],
		DequeueBufferDuration: r[source.ColDequeue], QueueBufferDuration: r[source.ColQueue],
		GpuCompleted: r[source.ColGpuCompleted], SwapBuffersCompleted: r[source.ColSwapCompleted],
		DisplayPresentTime: r[source.ColPresent], CommandSubmissionCompleted: r[source.ColCommandSubmission],
		FrameStartTime: start, WorkloadTarget: r[source.ColWorkload],
	}
	f := source.Frame{VsyncNs: r[source.ColIntendedVsync], DoneNs: r[source.ColFrameCompleted], UIDoneNs: r[source.ColSyncStart],
		IntervalNs: period, Flags: r[source.ColFlags], DeadlineNs: deadline, VsyncID: r[source.ColVsyncID]}
	return f, ph
}

// junk sets every field of the struct v points to a value no emitted frame has (a field added
// to Frame or Phases that emitRow does not write keeps it).
func junk(v any) {
	e := reflect.ValueOf(v).Elem()
	for i := 0; i < e.NumField(); i++ {
		switch f := e.Field(i); f.Kind() {
		case reflect.Int64:
			f.SetInt(-12345)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("junk")
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			panic("junk: a field of kind " + f.Kind().String())
		}
	}
}

// TestEmitRowFields: emitRow writes every field of a frame and its phases into storage that
// held another dump's (junk), as the composite literals of refEmit do.
func TestEmitRowFields(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for n := 0; n < 500; n++ {
		p := &parser{ps: &Parser{}, d: &Dump{}, proc: -1, win: -1}
		w := p.newWindow("w", 0)
		frames, slab := make([]source.Frame, 1), make([]source.Phases, 1)
		junk(&frames[0])
		junk(&slab[0])
		w.Frames, p.slab = frames[:0], slab[:0]
		var r [source.NumCols]int64
		for c := range r {
			r[c] = rng.Int63n(1 << uint(rng.Intn(63)))
			if rng.Intn(8) == 0 {
				r[c] = []int64{-1, 0, minPeriodNs, maxPeriodNs, int64Max}[rng.Intn(5)]
			}
		}
		r[source.ColIntendedVsync] = 1 + rng.Int63n(1<<50)
		r[source.ColFrameCompleted] = r[source.ColIntendedVsync] + 1 + rng.Int63n(maxFrameNs-1)
		p.emitRow(w, &r)
		if len(w.Frames) != 1 || w.Frames[0].Phases != &p.slab[0] {
			t.Fatalf("row %v: frames %v", r, w.Frames)
		}
		got, gph := w.Frames[0], *w.Frames[0].Phases
		got.Phases, got.Window, got.Process = nil, "", "" // (finish's to write)
		want, wph := refEmit(&r)
		if got != want || gph != wph {
			t.Fatalf("row %v:\n got %+v %+v\nwant %+v %+v", r, got, gph, want, wph)
		}
	}
}

// TestDoneCut: the bound setUptime leaves for emitRow rejects exactly the FrameCompleted values
// impossibleDone (the plain check) does, on the edges and at random; a parser without an
// Uptime line rejects only negative ones.
func TestDoneCut(t *testing.T) {
	const slack = 10_000_000_000
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -slack, -1, 0, 1, 2, slack - 1, slack, slack + 1,
		1 << 40, math.MaxInt64 - slack - 1, math.MaxInt64 - slack, math.MaxInt64 - slack + 1,
		math.MaxInt64 - 1, math.MaxInt64}
	rng := rand.New(rand.NewSource(5))
	ups := append([]int64{}, edges...)
	for i := 0; i < 200; i++ {
		ups = append(ups, rng.Int63()>>uint(rng.Intn(63))*int64(1-2*rng.Intn(2)))
	}
	check := func(p *parser, up int64) {
		dones := append([]int64{}, edges...)
		dones = append(dones, up+slack-1, up+slack, up+slack+1, up, up-1)
		for i := 0; i < 200; i++ {
			dones = append(dones, rng.Int63()>>uint(rng.Intn(63))*int64(1-2*rng.Intn(2)))
		}
		for _, done := range dones {
			if got, want := uint64(done) >= p.doneCut^(1<<63), impossibleDone(done, up); got != want {
				t.Fatalf("uptime %d, done %d: bound says %v, plain check %v", up, done, got, want)
			}
		}
	}
	check(&parser{d: &Dump{}}, 0)
	for _, up := range ups {
		p := &parser{d: &Dump{}}
		p.setUptime(up, 7)
		if p.d.UptimeNs != up || p.d.RealtimeNs != 7 {
			t.Fatalf("setUptime(%d): dump has %d %d", up, p.d.UptimeNs, p.d.RealtimeNs)
		}
		check(p, up)
	}
}

// impossibleDone reports whether no frame of a dump printed at Uptime up (ns, 0 unknown) can
// have completed at done: it is negative, or more than 10 s after the dump. (On an Uptime so
// large that the bound wraps negative, every row is impossible, as always.)
func impossibleDone(done, up int64) bool {
	return done < 0 || (up > 0 && done > up+10_000_000_000)
}
