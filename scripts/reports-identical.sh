#!/usr/bin/env bash
# reports-identical.sh BASE [NEW]: builds fpstop at two commits (NEW defaults to the work tree)
# and compares their reports (JSON, Markdown and the per-frame CSV) on every real capture in
# ../shared/realdata and on generated framestats and logcat inputs. Refactoring that claims
# "nothing a user sees changed" runs this.
# Exit 0 when every report is byte-identical; otherwise lists the inputs whose reports differ.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: reports-identical.sh BASE [NEW]}
new=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"; git worktree remove --force "$tmp/base-src" >/dev/null 2>&1 || true' EXIT
git worktree add -q --detach "$tmp/base-src" "$base"
(cd "$tmp/base-src" && go build -o "$tmp/fpstop-base" .)
if [ -n "$new" ]; then
  git worktree add -q --detach "$tmp/new-src" "$new"
  (cd "$tmp/new-src" && go build -o "$tmp/fpstop-new" .); git worktree remove --force "$tmp/new-src"
else
  go build -o "$tmp/fpstop-new" .
fi
inputs=()
if [ -d ../shared/realdata ]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(find ../shared/realdata/gfxinfo ../shared/realdata/logcat ../shared/realdata/surfaceflinger -type f ! -name '*.md' | sort)
fi
go run ./scripts/benchgen framestats -layout 17 -rows 20000 -o "$tmp/fs17.txt" >/dev/null
go run ./scripts/benchgen framestats -layout 23 -rows 20000 -o "$tmp/fs23.txt" >/dev/null
go run ./scripts/benchgen logcat -mb 4 -o "$tmp/log.txt" >/dev/null
inputs+=("$tmp/fs17.txt" "$tmp/fs23.txt" "$tmp/log.txt")
# report MODE BIN FILE: one of the reports a user reads of FILE, without the version line
report() {
  case $1 in
    json) "$2" --input "$3" --headless --json 2>&1 | grep -v '"fpstop_version"' || true ;;
    md) "$2" report "$3" --format md 2>&1 | sed 's/ · fpstop [^ ]*$//' || true ;;
    csv) "$2" report "$3" --format csv 2>&1 || true ;;
  esac
}
differ=0
for f in "${inputs[@]}"; do
  for mode in json md csv; do
    report $mode "$tmp/fpstop-base" "$f" >"$tmp/a"
    report $mode "$tmp/fpstop-new" "$f" >"$tmp/b"
    if ! cmp -s "$tmp/a" "$tmp/b"; then echo "DIFFERS ($mode): $f"; differ=$((differ+1)); fi
  done
done
echo "${#inputs[@]} inputs × json, md and csv (one row per classified frame), $differ reports differ"
[ "$differ" -eq 0 ]
