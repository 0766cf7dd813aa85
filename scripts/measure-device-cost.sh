#!/usr/bin/env bash
# What each mode asks of the phone (DESIGN §7 "Observer effect"): the real fpstop binary runs
# headless against in-repo fake phones behind Debian's adb server on a private port (nothing
# touches port 5037), and every shell command the phone serves and every byte it sends back are
# counted over SECONDS (default 30) after start-up: gfxinfo at 120 and 60 Hz, an idle app (after
# 5 s of idleness), gfxinfo+logcat, SurfaceFlinger, and --all-devices per phone.
# Targets (issue 30): idle app <= 0.3 commands/s and <= 5 kB/s; a 60 Hz app <= 1.1 dumps/s;
# --all-devices <= 0.1 command/s per phone more than one device alone. Linux only.
# Usage: scripts/measure-device-cost.sh [SECONDS] [FILTER]
set -euo pipefail
secs=${1:-30}
filter=${2:-}
. "$(dirname "$0")/e2e-bench.sh"
e2e_bench FPSTOP_COST_SECONDS "$secs" BenchmarkDeviceCost "$filter" 'commands/s'
