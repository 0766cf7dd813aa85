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
cd "$(dirname "$0")/.."
command -v adb >/dev/null || { echo "needs adb: apt-get install adb" >&2; exit 2; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
FPSTOP_LAG_SECONDS=$secs go test -run '^$' -bench "^BenchmarkSourceLag\$${filter:+/$filter}" -benchtime 1x \
  -timeout 0 -v ./internal/testkit/e2e/ 2>&1 | grep -E 'present → fpstop|FAIL|panic|^ok'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
