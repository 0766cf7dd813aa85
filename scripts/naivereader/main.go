// Command naivereader is the plain Go reader scripts/bench-peers.sh times fpstop against
// (issue 28): what a developer would write in an afternoon to get frames and fps out of
// concatenated `dumpsys gfxinfo <pkg> framestats` output — bufio.Scanner, strings.Split,
// strconv.ParseInt and a per-window set of the rows seen. It computes far less than fpstop
// (no drop levels, no summaries, no damage handling).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: naivereader FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "naivereader:", err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]map[int64]bool{} // window → IntendedVsync of the rows counted
	window, inBlock, vsCol, doneCol := "", false, -1, -1
	var frames, janky, sumNs int64
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "Window:"):
			window = strings.TrimSpace(strings.TrimPrefix(line, "Window:"))
		case line == "---PROFILEDATA---":
			inBlock, vsCol, doneCol = !inBlock, -1, -1
		case inBlock && strings.HasPrefix(line, "Flags,"):
			for i, name := range strings.Split(line, ",") {
				switch name {
				case "IntendedVsync":
					vsCol = i
				case "FrameCompleted":
					doneCol = i
				}
			}
		case inBlock && vsCol >= 0 && doneCol >= 0:
			fields := strings.Split(line, ",")
			if len(fields) <= max(vsCol, doneCol) {
				continue
			}
			vs, err1 := strconv.ParseInt(fields[vsCol], 10, 64)
			done, err2 := strconv.ParseInt(fields[doneCol], 10, 64)
			if err1 != nil || err2 != nil || done <= vs {
				continue
			}
			if seen[window] == nil {
				seen[window] = map[int64]bool{}
			}
			if seen[window][vs] {
				continue
			}
			seen[window][vs] = true
			frames++
			sumNs += done - vs
			if done-vs > 16_666_667 {
				janky++
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "naivereader:", err)
		os.Exit(1)
	}
	mean := 0.0
	if frames > 0 {
		mean = float64(sumNs) / float64(frames) / 1e6
	}
	fmt.Printf("frames=%d janky=%d mean_ms=%.2f\n", frames, janky, mean)
}
