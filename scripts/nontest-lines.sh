#!/usr/bin/env bash
# nontest-lines.sh [REV...]: non-test Go lines (every line of every .go file but *_test.go) in
# source/gfxinfo, source/logcat, metrics and record (subpackages included), at each git
# revision given, or in the work tree without one; issue 28 measures its cut with it.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=(source/gfxinfo source/logcat metrics record)
count() { # count REV DIR: lines at REV ("" = the work tree)
  if [ -z "$1" ]; then
    find "$2" -name '*.go' ! -name '*_test.go' -print0 | xargs -0 -r cat | wc -l
  else
    git ls-tree -r --name-only "$1" -- "$2" | grep '\.go$' | grep -v '_test\.go$' |
      while read -r f; do git show "$1:$f"; done | wc -l
  fi
}
revs=("$@"); [ ${#revs[@]} -gt 0 ] || revs=("")
for rev in "${revs[@]}"; do
  total=0; line="${rev:-worktree}:"
  for d in "${dirs[@]}"; do n=$(count "$rev" "$d"); total=$((total + n)); line+=" $d $n"; done
  echo "$line total $total"
done
