// Command calibrate measures how often `fpstop compare` calls two runs of the same build
// different (its false-positive rate) and how often it finds a known regression (its power),
// on the simulator in virtual time with fixed seeds, so it prints the same figures every time.
// docs/compare.md shows them; calibrate_test.go runs a tenth of the plan under -short and the
// whole plan otherwise (CI), and fails when a promise of the docs is broken.
//
//	go run ./scripts/calibrate           # the full plan (docs/compare.md's figures)
//	go run ./scripts/calibrate -short    # a tenth of it
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	short := flag.Bool("short", false, "run a tenth of the plan")
	flag.Parse()
	p := fullPlan
	if *short {
		p = shortPlan
	}
	start := time.Now()
	res, err := calibrate(context.Background(), p, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(2)
	}
	res.write(os.Stdout, p)
	fmt.Fprintf(os.Stderr, "calibrate: %v\n", time.Since(start).Round(time.Millisecond))
	if bad := res.check(p); len(bad) > 0 {
		for _, b := range bad {
			fmt.Fprintln(os.Stderr, "calibrate:", b)
		}
		os.Exit(1)
	}
}
