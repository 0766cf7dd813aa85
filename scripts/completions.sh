#!/usr/bin/env bash
# completions.sh — generate the shell completions and the man page shipped in releases
# (goreleaser before-hook). Writes, from the repository root:
#
#   completions/fpstop.bash  completions/fpstop.zsh  completions/fpstop.fish  completions/fpstop.ps1
#   manpages/fpstop.1.gz
#
# Both directories are generated and gitignored; never commit them. Equivalent to
# `go run . completion <shell>` and `go run . man | gzip -9`, with one build instead of five.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/fpstop" .

rm -rf completions manpages
mkdir -p completions manpages
for sh in bash zsh fish powershell; do
  ext=$sh
  [ "$sh" = powershell ] && ext=ps1
  "$tmp/fpstop" completion "$sh" >"completions/fpstop.$ext"
  [ -s "completions/fpstop.$ext" ] || { echo "completions.sh: empty $sh completion" >&2; exit 1; }
done
# -n: no file name or time stamp in the gzip header, so the page is reproducible.
"$tmp/fpstop" man | gzip -9 -n >manpages/fpstop.1.gz
[ -n "$(gzip -dc manpages/fpstop.1.gz)" ] || { echo "completions.sh: empty man page" >&2; exit 1; }
