// Command fpstop is "top for Android frame rate": a live terminal dashboard of how smoothly an
// Android app renders, read over adb, from a capture or recording, or from its simulator.
//
// Everything lives in internal/cli; main only collects what the process was started with.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/mattn/go-isatty"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/outfile"
)

// Set by the release build (goreleaser ldflags:
// -X main.version={{.Version}} -X main.commit={{.ShortCommit}} -X main.date={{.CommitDate}}).
// Empty in a plain `go build`/`go install`; buildinfo.Get then falls back to what the toolchain
// recorded.
var version, commit, date string

func main() {
	// SIGINT/SIGTERM cancel the context, so recordings are flushed and closed and the terminal is
	// restored before exiting (the dashboard handles Ctrl-C itself while it owns the terminal).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := cpuProfile(os.Getenv("FPSTOP_CPUPROFILE"))
	code := cli.Main(ctx, os.Args[1:], cli.Env{
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Build:            buildinfo.Get(version, commit, date),
		StdoutIsTerminal: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
	})
	stop()
	stopProfile()
	os.Exit(code)
}

// cpuProfile starts a CPU profile of the whole process into path when it is set (the
// FPSTOP_CPUPROFILE environment variable: how BENCHMARKS.md's whole-process profiles were taken,
// `go tool pprof fpstop FILE` reads them); it returns the function that ends it.
func cpuProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := outfile.Create(path, true)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		os.Stderr.WriteString("fpstop: FPSTOP_CPUPROFILE: " + err.Error() + "\n")
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
