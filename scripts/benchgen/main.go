// Command benchgen writes the deterministic inputs scripts/bench-peers.sh times fpstop and its
// peers on (anchors-perf.md describes the mix). Nothing it writes is committed: the script puts
// its output in a temporary directory.
//
//	benchgen logcat -mb 200 -o log.txt         # threadtime logcat; prints the Looper pairs written
//	benchgen framestats -layout 17 -rows 1000000 -o fs.txt   # concatenated framestats dumps
//
// The generators are package internal/testkit/benchgen's, which source/logcat's benchmarks use too.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fpstop/fpstop/internal/testkit/benchgen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: benchgen logcat|framestats [flags]")
	}
	fs := flag.NewFlagSet("benchgen "+args[0], flag.ContinueOnError)
	out := fs.String("o", "", "output file (default stdout)")
	mb := fs.Int("mb", 200, "logcat: size in MiB")
	layout := fs.Int("layout", 17, "framestats: 17 (Android 10/11) or 23 (Android 12+)")
	rows := fs.Int("rows", 1_000_000, "framestats: PROFILEDATA rows (128 per dump)")
	seed := fs.Int64("seed", 1, "random seed")
	distinct := fs.Bool("distinct", false, "logcat: a distinct handler class for every main-thread message")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("creating output: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var summary string
	switch args[0] {
	case "logcat":
		pairs, err := benchgen.Logcat(bw, int64(*mb)<<20, *seed, *distinct)
		if err != nil {
			return err
		}
		summary = fmt.Sprintf("pairs=%d", pairs)
	case "framestats":
		if *layout != 17 && *layout != 23 {
			return fmt.Errorf("-layout %d: want 17 or 23", *layout)
		}
		n, err := benchgen.Framestats(bw, *layout, *rows)
		if err != nil {
			return err
		}
		summary = fmt.Sprintf("rows=%d", n)
	default:
		return fmt.Errorf("unknown input %q: want logcat or framestats", args[0])
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	if *out != "" {
		fmt.Fprintln(stdout, summary)
	}
	return nil
}
