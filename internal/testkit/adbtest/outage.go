//go:build unix

package adbtest

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/electricbubble/gadb"
)

// Stall freezes the private adb server for d (SIGSTOP, then SIGCONT), as a starved host does:
// every stream through it goes silent, then delivers what waited in a burst, late.
func (e *Env) Stall(d time.Duration) error {
	if e.server == nil || e.server.Process == nil {
		return fmt.Errorf("no adb server to stall")
	}
	if err := e.server.Process.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("stopping the adb server: %w", err)
	}
	time.Sleep(d)
	if err := e.server.Process.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("resuming the adb server: %w", err)
	}
	return nil
}

// KillServer stops the private adb server (`adb kill-server`) and waits for it to exit, as a
// user or an IDE does mid-session.
func (e *Env) KillServer() { e.stopServer() }

// RestartServer starts the private server again on the same port and reconnects the fake
// device (`adb start-server`, `adb connect`), waiting until it is online.
func (e *Env) RestartServer(ctx context.Context) error {
	e.startServer()
	if err := e.awaitServer(ctx); err != nil {
		return err
	}
	gc, err := gadb.NewClientWith("127.0.0.1", e.Port)
	if err != nil {
		return fmt.Errorf("gadb: %w", err)
	}
	if err := gc.Connect("127.0.0.1", e.Fake.Port()); err != nil {
		return fmt.Errorf("adb connect %s: %w", e.Serial, err)
	}
	return e.WaitState(ctx, "device")
}
