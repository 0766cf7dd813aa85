#!/usr/bin/env bash
# Measures the CPU the real fpstop binary uses while its dashboard runs the simulator at 120 Hz
# with the default refresh (250 ms), over 30 s, in a 120×40 tmux pane: utime+stime from
# /proc/<pid>/stat at the start and end of the window, as a share of one core. Also measures
# how long the dashboard takes to appear, and the same run while recording (--record).
# Usage: scripts/measure-cpu.sh [seconds]   (needs tmux; Linux /proc)
set -euo pipefail
secs=${1:-30}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
sock="fpstop-cpu-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/fpstop" .
hz=$(getconf CLK_TCK)

measure() { # label, extra args...
  local label=$1; shift
  tmux -L "$sock" kill-server 2>/dev/null || true
  local t0; t0=$(date +%s.%N)
  tmux -L "$sock" new-session -d -x 120 -y 40 -c "$tmp" \
    "HOME=$tmp XDG_CONFIG_HOME=$tmp/.config XDG_CACHE_HOME=$tmp/.cache exec $tmp/fpstop --scenario demo --hz 120 $*"
  local shown=""
  for _ in $(seq 1 100); do
    if tmux -L "$sock" capture-pane -p | grep -q "FPS"; then shown=$(echo "$(date +%s.%N) - $t0" | bc); break; fi
    sleep 0.05
  done
  local pid; pid=$(pgrep -f "^$tmp/fpstop --scenario" | head -1)
  sleep 2
  read -r a b < <(awk '{print $14, $15}' "/proc/$pid/stat")
  sleep "$secs"
  read -r c d < <(awk '{print $14, $15}' "/proc/$pid/stat")
  local rss; rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  tmux -L "$sock" send-keys q
  local ticks=$(( (c + d) - (a + b) ))
  printf '%-22s dashboard shown after %5.2f s; CPU %5.2f %% of one core over %d s; RSS %d MB\n' \
    "$label" "${shown:-99}" "$(echo "scale=4; $ticks * 100 / ($hz * $secs)" | bc)" "$secs" $(( rss / 1024 ))
  sleep 0.5
}

measure "live (sim, 120 Hz)"
measure "live + recording" --record "$tmp/rec.jsonl.gz"
