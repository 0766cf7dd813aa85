package source

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// gatedBase sends a session and a frame, waits for release, then an app restart's session and
// another frame, and ends.
type gatedBase struct{ release chan struct{} }

func (g gatedBase) Run(ctx context.Context, out chan<- []Event) error {
	send := func(b []Event) error {
		select {
		case out <- b:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := send([]Event{&Session{Source: KindGfxinfo, Package: "p", Pid: 1, CostBasis: CostFrame}, &Frame{VsyncNs: 10, DoneNs: 20}}); err != nil {
		return err
	}
	select {
	case <-g.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return send([]Event{&Session{Source: KindGfxinfo, Package: "p", Pid: 2, CostBasis: CostFrame}, &Frame{VsyncNs: 30, DoneNs: 40}})
}

// extraSource sends its session and a message, closes sent, and runs until ctx ends (then closes
// stopped) or returns fail.
type extraSource struct {
	sent, stopped chan struct{}
	fail          error
}

func (e extraSource) Run(ctx context.Context, out chan<- []Event) error {
	select {
	case out <- []Event{&Session{Source: KindLogcat, Package: "p", CostBasis: CostMainThread}, &Message{Handler: "h", StartNs: 25, EndNs: 26}}:
	case <-ctx.Done():
		return ctx.Err()
	}
	close(e.sent)
	if e.fail != nil {
		return e.fail
	}
	<-ctx.Done()
	close(e.stopped)
	return ctx.Err()
}

// TestJoiningAfterFailedAndNegativeLooks: the first look fails (a timeout on a busy machine),
// the second finds nothing yet, the third finds the lines: Extra joins, every session from then
// on (the one before the join said again, Extra's, Base's next) is the merged kind's, and the
// looks were spaced First, then doubling up to Max.
func TestJoiningAfterFailedAndNegativeLooks(t *testing.T) {
	release := make(chan struct{})
	ex := extraSource{sent: make(chan struct{}), stopped: make(chan struct{})}
	go func() { <-ex.sent; close(release) }()
	seen := make(chan struct{})
	var mu sync.Mutex
	var slept []time.Duration
	var heard []JoinProgress
	answers := []struct {
		ok  bool
		err error
	}{{false, context.DeadlineExceeded}, {false, nil}, {true, nil}}
	j := &Joining{
		Kind: KindGfxinfoLogcat, Base: gatedBase{release: release}, Extra: func() Source { return ex },
		Ready: func(_ context.Context, attempt int) (bool, error) {
			a := answers[attempt-1]
			return a.ok, a.err
		},
		First: time.Second, Max: 3 * time.Second, Note: "the app logs its Looper messages",
		Sleep: func(ctx context.Context, d time.Duration) error {
			<-seen // the first look comes after Base's first batch went out
			mu.Lock()
			slept = append(slept, d)
			mu.Unlock()
			return ctx.Err()
		},
		Progress: func(p JoinProgress) { mu.Lock(); heard = append(heard, p); mu.Unlock() },
	}
	out, errc := make(chan []Event), make(chan error, 1)
	go func() { errc <- j.Run(context.Background(), out); close(out) }()
	var evs []Event
	for b := range out {
		evs = append(evs, b...)
		if len(evs) == len(b) {
			close(seen)
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	select {
	case <-ex.stopped:
	default:
		t.Error("Extra still runs after Run returned")
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !equalDurations(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}
	if len(heard) != 3 || !errors.Is(heard[0].Err, context.DeadlineExceeded) || heard[1].Err != nil || heard[1].Joined || !heard[2].Joined {
		t.Errorf("progress %+v, want a failure, a no, a join", heard)
	}
	var sessions []*Session
	noted, joinedAt, msgs, frames := false, -1, 0, 0
	for i, ev := range evs {
		switch e := ev.(type) {
		case *Session:
			sessions = append(sessions, e)
		case *Notice:
			if joinedAt >= 0 {
				t.Errorf("a second notice %q", e.Text)
			}
			noted = e.Text == j.Note && e.Level == LevelInfo && e.AtNs == 10
			joinedAt = i
		case *Message:
			msgs++
		case *Frame:
			frames++
		}
	}
	if !noted || joinedAt < 2 {
		for _, ev := range evs {
			t.Logf("%T %+v", ev, ev)
		}
		t.Errorf("no join notice after Base's first batch (at the newest event time seen)")
	}
	if msgs != 1 || frames != 2 {
		t.Errorf("%d messages, %d frames; want Extra's 1 and Base's 2", msgs, frames)
	}
	// Base's first session as it was; then the same again merged, Extra's and Base's next merged
	if len(sessions) != 4 || sessions[0].Source != KindGfxinfo || sessions[1].Pid != 1 {
		t.Fatalf("sessions %+v", sessions)
	}
	for _, s := range sessions[1:] {
		if s.Source != KindGfxinfoLogcat || s.CostBasis != CostFrame {
			t.Errorf("session after the join %+v, want %s with the frame cost basis", s, KindGfxinfoLogcat)
		}
	}
}

// TestJoiningNeverReady: an app that never prints the lines keeps Base as it is, looked at
// while Base runs, and Run ends with Base.
func TestJoiningNeverReady(t *testing.T) {
	release := make(chan struct{})
	looks := 0
	j := &Joining{
		Kind: KindGfxinfoLogcat, Base: gatedBase{release: release},
		Extra: func() Source { t.Error("Extra started"); return script{} },
		Ready: func(context.Context, int) (bool, error) {
			if looks++; looks == 5 {
				close(release)
			}
			return false, nil
		},
		First: time.Millisecond, Max: time.Millisecond,
	}
	evs, err := collect(t, j, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if s, ok := ev.(*Session); ok && s.Source != KindGfxinfo {
			t.Errorf("session %+v relabeled without a join", s)
		}
	}
	if len(evs) != 4 {
		t.Errorf("%d events, want Base's 4", len(evs))
	}
}

// TestJoiningExtraFails: Extra's failure stops Base and is Run's error.
func TestJoiningExtraFails(t *testing.T) {
	boom := errors.New("logcat: boom")
	ex := extraSource{sent: make(chan struct{}), stopped: make(chan struct{}), fail: boom}
	j := &Joining{
		Kind: KindGfxinfoLogcat, Base: gatedBase{release: make(chan struct{})}, Extra: func() Source { return ex },
		Ready: func(context.Context, int) (bool, error) { return true, nil },
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	}
	if _, err := collect(t, j, context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Run: %v, want %v", err, boom)
	}
}

// TestJoiningCancelled: the caller's cancel ends Run with its error, the looks stopped.
func TestJoiningCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	j := &Joining{
		Kind: KindGfxinfoLogcat, Base: gatedBase{release: make(chan struct{})}, Extra: func() Source { return script{} },
		Ready: func(context.Context, int) (bool, error) { cancel(); return false, nil },
		First: time.Millisecond, Max: time.Millisecond,
	}
	if _, err := collect(t, j, ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestJoiningPerfettoLogcat: --source perfetto's composition, the trace taking on the app's
// logcat once a look finds its Looper lines: every session after the first (which the join may
// precede) is perfetto+logcat
// (still traced, its messages on a clock of their own), the trace's frames keep FrameTimeline.
func TestJoiningPerfettoLogcat(t *testing.T) {
	ex := extraSource{sent: make(chan struct{}), stopped: make(chan struct{})}
	base := tracedBase{batch: []Event{&Session{Source: KindPerfetto, Package: "p", CostBasis: CostFrame},
		&Frame{VsyncNs: 10, DoneNs: 20, Timeline: &FrameTimeline{Token: 1}}}, until: ex.sent}
	j := &Joining{Kind: KindPerfettoLogcat, Base: base, Extra: func() Source { return ex },
		Ready: func(context.Context, int) (bool, error) { return true, nil },
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
	out, errc := make(chan []Event), make(chan error, 1)
	go func() { errc <- j.Run(context.Background(), out); close(out) }()
	var sessions []Kind
	msgs, traced := 0, 0
	for b := range out {
		for _, ev := range b {
			switch e := ev.(type) {
			case *Session:
				sessions = append(sessions, e.Source)
			case *Message:
				msgs++
			case *Frame:
				if e.Timeline != nil {
					traced++
				}
			}
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if msgs != 1 || traced != 1 || len(sessions) < 2 {
		t.Fatalf("sessions %v, %d messages, %d traced frames", sessions, msgs, traced)
	}
	for _, k := range sessions[1:] {
		if k != KindPerfettoLogcat || !k.Traced() || !k.TwoClocks() {
			t.Errorf("session after the join %q, want %q (traced, two clocks)", k, KindPerfettoLogcat)
		}
	}
	if KindPerfetto.TwoClocks() || KindGfxinfoLogcat.Traced() {
		t.Error("perfetto alone has one clock; gfxinfo+logcat is not traced")
	}
}

// tracedBase sends its batch and ends once until is closed (the joined source has sent).
type tracedBase struct {
	batch []Event
	until chan struct{}
}

func (b tracedBase) Run(ctx context.Context, out chan<- []Event) error {
	if err := Send(ctx, out, b.batch); err != nil {
		return err
	}
	select {
	case <-b.until:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
