#!/usr/bin/env bash
# First-figure latency: the real fpstop binary (auto mode, in tmux) starts against a fake 120 Hz
# phone behind a private adb server (Debian's adb; never port 5037); the screen is read every
# 20 ms. Prints, per run, how long after the phone answered its first gfxinfo dump the first
# FPS figure showed, then the median. Needs adb and tmux.
# Usage: scripts/first-figure.sh [RUNS]     (default 10)
set -euo pipefail
runs=${1:-10}
cd "$(dirname "$0")/.."
command -v adb >/dev/null || { echo "needs adb: apt-get install adb" >&2; exit 2; }
command -v tmux >/dev/null || { echo "needs tmux: apt-get install tmux" >&2; exit 2; }
echo "loadavg before: $(cat /proc/loadavg 2>/dev/null || echo n/a)"
go test -count="$runs" -run '^TestFirstFigure$' -v ./internal/testkit/e2e/ 2>&1 |
  grep -o 'first figure .*' | tee /dev/stderr |
  awk '{for (i = 1; i <= NF; i++) if ($(i+1) == "ms" && $(i+2) == "after" && $(i+4) == "first") print $i}' |
  sort -n | awk '{a[NR] = $1} END {if (NR) printf "median %s ms over %d runs (min %s, max %s)\n", a[int((NR+1)/2)], NR, a[1], a[NR]}'
