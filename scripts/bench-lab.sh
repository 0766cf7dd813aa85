#!/usr/bin/env bash
# Device-lab benchmark: the real fpstop binary measures four simulated phones at once behind a
# private adb server (Debian's adb; nothing touches port 5037) with --all-devices and the
# Prometheus endpoint on, for DURATION (default 10m). Prints CPU (share of one core, in total
# and per device) and RSS every tenth of the run, from /proc. Linux only.
# Usage: scripts/bench-lab.sh [DURATION]     e.g. scripts/bench-lab.sh 10m
set -euo pipefail
dur=${1:-10m}
cd "$(dirname "$0")/.."
command -v adb >/dev/null || { echo "needs adb: apt-get install adb" >&2; exit 2; }
FPSTOP_LAB_BENCH_DURATION=$dur go test -run '^$' -bench '^BenchmarkLab4Devices$' -benchtime 1x \
  -timeout 0 -v ./internal/testkit/e2e/ 2>&1 | grep -v '^goos\|^goarch\|^pkg\|^cpu'
