#!/usr/bin/env bash
# The shared start of the scripts that measure the real fpstop against the in-repo fake phone
# (measure-live-lag.sh, measure-device-cost.sh): each is a Go benchmark in
# internal/testkit/e2e that builds the binary, starts Debian's adb server on a private port
# (never 5037) and the fake phone, and prints its figures; this file runs it from the
# repository's root with the load average before and after. Sourced, not run.
# Usage (from a script): . "$(dirname "$0")/e2e-bench.sh"; e2e_bench ENV SECONDS BENCH FILTER PATTERN
set -euo pipefail
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "e2e-bench.sh is sourced by the measure-*.sh scripts, not run" >&2
  exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v adb >/dev/null || { echo "needs adb: apt-get install adb" >&2; exit 2; }

# e2e_bench ENV SECONDS BENCH FILTER PATTERN: runs benchmark BENCH (its sub-benchmark FILTER,
# "" for all) once with ENV=SECONDS (how long it measures) and prints the lines of its output
# that match PATTERN, failures and panics.
e2e_bench() {
  local env=$1 secs=$2 bench=$3 filter=$4 pattern=$5
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  env "$env=$secs" go test -run '^$' -bench "^$bench\$${filter:+/$filter}" -benchtime 1x \
    -timeout 0 -v ./internal/testkit/e2e/ 2>&1 | grep -E "$pattern|FAIL|panic|^ok"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
