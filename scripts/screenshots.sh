#!/usr/bin/env bash
# Regenerates docs/screenshots/dashboard.svg from the dashboard's TrueColor golden file
# (ui/colortest/testdata/TestDarkTrueColor.golden, written by the real UI model with a fixed
# clock), so the README's picture cannot drift from the code: update the goldens first
# (go test ./ui/... -update), then run this. freeze v0.2.2 is built in a scratch module outside
# the repository (it is a developer tool, not a dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=${FPSTOP_TOOLS:-$HOME/.cache/fpstop-tools}
freeze=$tools/freeze
if [ ! -x "$freeze" ]; then
  mkdir -p "$tools/freeze-src"
  (cd "$tools/freeze-src" && { [ -f go.mod ] || go mod init freezebuild >/dev/null; } &&
    go get github.com/charmbracelet/freeze@v0.2.2 && go build -o "$freeze" github.com/charmbracelet/freeze)
fi
mkdir -p docs/screenshots
# rsvg-convert on PATH would make freeze ignore its embedded font: keep it off for this call.
PATH=$(dirname "$(command -v go)"):/usr/bin:/bin "$freeze" ui/colortest/testdata/TestDarkTrueColor.golden \
  -o docs/screenshots/dashboard.svg --window --padding 20
echo "wrote docs/screenshots/dashboard.svg"
