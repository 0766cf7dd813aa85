package adbtest

import (
	"context"
	"fmt"
	"time"

	"github.com/electricbubble/gadb"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// Extra is one more fake device on an Env's server (device-lab tests: several phones behind
// one adb server).
type Extra struct {
	Fake   *fakeadb.Device
	Serial string
	env    *Env
}

// Connect starts another fake device described by cfg, connects it to e's server and waits
// until it is online. It is closed when the test ends.
func (e *Env) Connect(cfg fakeadb.Config) *Extra {
	e.t.Helper()
	fake, err := fakeadb.Start(context.Background(), cfg)
	if err != nil {
		e.t.Fatalf("starting another fake device: %v", err)
	}
	e.t.Cleanup(func() { _ = fake.Close() })
	x := &Extra{Fake: fake, Serial: fake.Serial(), env: e}
	gc, err := gadb.NewClientWith("127.0.0.1", e.Port)
	if err != nil {
		e.t.Fatalf("gadb: %v", err)
	}
	if err := gc.Connect("127.0.0.1", fake.Port()); err != nil {
		e.t.Fatalf("adb connect %s: %v", x.Serial, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.waitStateOf(ctx, x.Serial, device.StateDevice); err != nil {
		e.t.Fatalf("fake device %s never came online: %v", x.Serial, err)
	}
	return x
}

// Unplug drops the device and waits until the server lists it offline (or not at all).
func (x *Extra) Unplug(ctx context.Context) error {
	x.Fake.Unplug()
	for {
		st, err := x.env.stateOf(ctx, x.Serial)
		if err == nil && st != device.StateDevice {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("device %s still listed online: %w", x.Serial, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (e *Env) stateOf(ctx context.Context, serial string) (string, error) {
	infos, err := e.Client.Devices(ctx)
	if err != nil {
		return "", err
	}
	for _, in := range infos {
		if in.Serial == serial {
			return in.State, nil
		}
	}
	return "", nil
}

func (e *Env) waitStateOf(ctx context.Context, serial, state string) error {
	for {
		st, err := e.stateOf(ctx, serial)
		if err == nil && st == state {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("device %s is %q, not %q: %w", serial, st, state, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
