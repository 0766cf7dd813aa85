#!/usr/bin/env bash
# Live CPU of a headless session: the real fpstop binary follows one simulated 120 Hz phone (the
# in-repo fake phone behind Debian's adb server on a private port; nothing touches port 5037)
# (scenario janky, or FPSTOP_LIVE_CPU_SCENARIO; logcat clock 37.5 ms off) with --source
# gfxinfo+logcat, then with --source gfxinfo, and prints the CPU time of fpstop
# and every process it started (the adb server excepted) over SECONDS (default 30) as a share
# of one core. Targets (issue 14): gfxinfo+logcat <= 3 %, gfxinfo <= 2 %. Linux only.
# Usage: scripts/measure-live-cpu.sh [SECONDS] [COUNT]
set -euo pipefail
secs=${1:-30}
count=${2:-1}
cd "$(dirname "$0")/.."
command -v adb >/dev/null || { echo "needs adb: apt-get install adb" >&2; exit 2; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
FPSTOP_LIVE_CPU_SECONDS=$secs go test -run '^$' -bench '^BenchmarkLiveCPU$' -benchtime 1x -count "$count" \
  -timeout 0 -v ./internal/testkit/e2e/ 2>&1 | grep -E 'cpu%|of one core|FAIL|panic|^ok|livecpu_test'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
