#!/usr/bin/env bash
# Key latency under load: the real fpstop binary (the simulator's stress scenario, 120×40) runs
# in a private tmux server beside BURNERS busy-looping shells (default 2: both cores busy);
# `?` is pressed PRESSES times (default 20) and the pane is read every 2 ms until the help
# overlay shows; each press's latency (key sent → overlay on screen) is printed, then the
# median. Then the same for top's help (`h`) under the same load: the floor a terminal program
# gets on this machine. Keys and reads go through one tmux control-mode client
# (scripts/keylatency), not a tmux process per read.
# Usage: scripts/key-latency.sh [PRESSES] [BURNERS] [FPSTOP_BINARY]
set -euo pipefail
presses=${1:-20}
burners=${2:-2}
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "needs tmux: apt-get install tmux" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=${3:-}
if [ -z "$bin" ]; then
  bin=$dir/fpstop
  go build -o "$bin" .
fi
go build -o "$dir/keylatency" ./scripts/keylatency
"$dir/keylatency" -presses "$presses" -burners "$burners" -- "$bin" --scenario stress --no-mouse
if command -v top >/dev/null; then
  "$dir/keylatency" -presses "$presses" -burners "$burners" -key h -want 'Help for Interactive' \
    -close q -ready 'load average' -- top
fi
