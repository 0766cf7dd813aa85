#!/usr/bin/env bash
# deadcode-check.sh — every function in a product package is reachable from a binary.
#
# Runs golang.org/x/tools' deadcode (pinned below) over the module with the binaries as roots
# (fpstop and the maintainers' tools under scripts/), without the tests. A function it lists
# outside internal/testkit/ is one only tests reach, or nothing does: it would ship in the binary
# without a user. Fix it by moving it into a _test.go/export_test.go file or a harness under
# internal/testkit/ when tests need it, deleting it when nothing does, or wiring it where a user
# reaches it. The harnesses themselves are test code and not checked.
#
# Called by .ci/run; run it by hand the same way. Needs only the Go module proxy.
set -euo pipefail

want=v0.52.0
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
t0=$(date +%s)
bin="$(go env GOPATH)/bin/deadcode"
go install "golang.org/x/tools/cmd/deadcode@$want"
t1=$(date +%s)
out=$("$bin" ./...) # a load or type error fails the check (set -e)
t2=$(date +%s)
dead=$(grep -v '^internal/testkit/' <<<"$out" || true)
echo "deadcode $want: install $((t1 - t0)) s, run $((t2 - t1)) s"
if [ -n "$dead" ]; then
  n=$(grep -c . <<<"$dead")
  echo "FAIL deadcode: $n function(s) in product packages are not reachable from fpstop or scripts/* (only tests reach them, or nothing does):"
  printf '  %s\n' "$dead"
  echo "Move what tests need into a _test.go/export_test.go file or a harness under internal/testkit/,"
  echo "delete what nothing uses, or wire it where a user reaches it (docs/architecture.md, CONTRIBUTING.md)."
  exit 1
fi
echo "deadcode: every function in the product packages is reachable from a binary"
