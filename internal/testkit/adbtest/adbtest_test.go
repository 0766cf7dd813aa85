package adbtest

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// TestStartAndCleanup: the harness gives an online device, and its cleanup stops the private
// server (process reaped, port closed) and the fake device.
func TestStartAndCleanup(t *testing.T) {
	var env *Env
	t.Run("session", func(t *testing.T) {
		env = Start(t, fakeadb.Config{})
		if env.Port == 5037 {
			t.Fatal("the private server uses the default port")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if st, err := env.State(ctx); err != nil || st != "device" {
			t.Fatalf("State = %q, %v", st, err)
		}
		if out, err := env.Client.Shell(ctx, env.Serial, "getprop ro.build.version.sdk"); err != nil || string(out) != "34\n" {
			t.Fatalf("Shell = %q, %v", out, err)
		}
	})
	if env == nil {
		return
	}
	select {
	case <-env.exited:
	default:
		t.Error("the private adb server process is still running after cleanup")
	}
	for _, addr := range []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(env.Port)), env.Fake.Addr()} {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after cleanup", addr)
		}
	}
}
