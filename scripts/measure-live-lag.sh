#!/usr/bin/env bash
# Each live source beside the others at the in-repo fake phone (issue 33): the device commands
# and bytes per second it asks of the phone, and the delay from a frame's present on the phone
# to its arrival at fpstop (median, p95, max), for --source perfetto, gfxinfo and
# SurfaceFlinger, each over SECONDS (default 20) after 5 s of start-up, behind Debian's adb
# server on a private port (nothing touches port 5037). The screen adds its two 250 ms
# refreshes on top; TestPerfettoScreen measures Perfetto's rows on screen. Linux only.
# Usage: scripts/measure-live-lag.sh [SECONDS] [FILTER]
set -euo pipefail
secs=${1:-20}
filter=${2:-}
. "$(dirname "$0")/e2e-bench.sh"
e2e_bench FPSTOP_LAG_SECONDS "$secs" BenchmarkSourceLag "$filter" 'present → fpstop'
