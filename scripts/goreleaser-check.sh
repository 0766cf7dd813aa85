#!/usr/bin/env bash
# goreleaser-check.sh — prove the release configuration works, without publishing anything.
#
#   1. find goreleaser v2.15.1 (on PATH or in the cache) or build it from the Go module proxy in a
#      scratch module outside the repository (newer releases cannot be built here: anchors-tui §6.1);
#   2. `goreleaser check` (exit 2 = deprecated keys, which fails too);
#   3. `goreleaser build --snapshot --single-target --clean` into dist/ (gitignored);
#   4. run the built binary's `version` and check it names a version and a commit;
#   5. fail if any of this changed `git status --porcelain`.
#
# Called by .ci/run. Needs only the module proxy. Environment:
#   FPSTOP_CI_CACHE   where goreleaser is built and kept (default $XDG_CACHE_HOME/fpstop-ci or
#                     ~/.cache/fpstop-ci)
#   GORELEASER        use this goreleaser binary instead (must be v2.15.1)
#   FPSTOP_GORELEASER_FULL=1
#                     also run `goreleaser release --snapshot --clean --skip=publish` (archives,
#                     checksums, deb/rpm) — slower, for checking packaging changes by hand.
set -euo pipefail

want=v2.15.1
cd "$(dirname "$0")/.."
repo=$(pwd)
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
cache=${FPSTOP_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpstop-ci}

t0=$(date +%s)
lap=$t0
timing() { # label: print the seconds since the last lap
  local now
  now=$(date +%s)
  printf 'goreleaser-check: %-38s %4ds (total %ds)\n' "$1" $((now - lap)) $((now - t0))
  lap=$now
}
die() { echo "goreleaser-check: $*" >&2; exit 1; }

# is_wanted BIN: BIN runs and reports the pinned version.
is_wanted() {
  [ -x "$1" ] || return 1
  "$1" --version 2>/dev/null | grep -E "GitVersion:[[:space:]]*${want}\$|^goreleaser version ${want#v}\$|${want}\$" >/dev/null
}

find_goreleaser() {
  local c
  for c in "${GORELEASER:-}" "$(command -v goreleaser || true)" "$cache/goreleaser-$want/goreleaser"; do
    if [ -n "$c" ] && is_wanted "$c"; then
      echo "$c"
      return 0
    fi
  done
  return 1
}

# build_goreleaser: build the pinned goreleaser in a scratch module under the cache, never in
# the repository (it must not touch fpstop's go.mod/go.sum).
build_goreleaser() {
  local dir="$cache/goreleaser-$want"
  local scratch="$dir/src"
  mkdir -p "$scratch"
  echo "goreleaser-check: building goreleaser $want in $scratch (first run takes a few minutes)" >&2
  (
    cd "$scratch"
    export GOWORK=off GOFLAGS=-mod=mod
    [ -f go.mod ] || go mod init goreleaser-build >/dev/null 2>&1
    go get "github.com/goreleaser/goreleaser/v2@$want" >&2
    go build -trimpath -o "$dir/goreleaser.tmp.$$" github.com/goreleaser/goreleaser/v2 >&2
  )
  mv "$dir/goreleaser.tmp.$$" "$dir/goreleaser"
  is_wanted "$dir/goreleaser" || die "built $dir/goreleaser but it does not report $want"
  echo "$dir/goreleaser"
}

before=$(git status --porcelain)

# Without a git remote goreleaser ignores the whole git state in snapshot mode (commit "none",
# date 0001-01-01), so the version check below could not pass. Give this process tree (only) a
# remote through git's environment configuration (git >= 2.31) rather than touching .git/config.
if [ -z "$(git remote)" ]; then
  n=${GIT_CONFIG_COUNT:-0}
  export GIT_CONFIG_COUNT=$((n + 1))
  export "GIT_CONFIG_KEY_$n=remote.origin.url" "GIT_CONFIG_VALUE_$n=https://github.com/fpstop/fpstop.git"
  echo "goreleaser-check: no git remote; using https://github.com/fpstop/fpstop.git for goreleaser's git state"
fi

gr=$(find_goreleaser || build_goreleaser)
echo "goreleaser-check: using $gr ($("$gr" --version 2>/dev/null | grep -E 'GitVersion' | tr -s ' ' || true))"
timing "goreleaser $want ready"

rc=0
"$gr" check || rc=$?
case $rc in
  0) ;;
  2) die "goreleaser check: the configuration uses deprecated properties (exit 2); see its output above" ;;
  *) die "goreleaser check failed (exit $rc)" ;;
esac
timing "goreleaser check"

"$gr" build --snapshot --single-target --clean
timing "goreleaser build --snapshot --single-target"

bin=$(jq -r '.[] | select(.type == "Binary") | .path' dist/artifacts.json | sed -n 1p)
[ -n "$bin" ] && [ -x "$bin" ] || die "no binary in dist/artifacts.json"
out=$("$bin" version) || die "$bin version failed"
echo "goreleaser-check: $bin version -> $out"
# `fpstop 0.0.1-next (commit abc1234, built 2026-…, go1.26.8, linux/amd64)`
version=$(sed -nE 's/^fpstop ([^ ]+) \(commit ([^,]+),.*$/\1/p' <<<"$out")
commit=$(sed -nE 's/^fpstop ([^ ]+) \(commit ([^,]+),.*$/\2/p' <<<"$out")
[ -n "$version" ] && [ "$version" != dev ] || die "version output names no release version: $out"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "version $version is not the goreleaser snapshot version"
[ -n "$commit" ] && [ "$commit" != unknown ] || die "version output names no commit: $out"
git rev-parse --verify -q "$commit^{commit}" >/dev/null || die "commit $commit is not a commit of this repository"
timing "version output"

if [ "${FPSTOP_GORELEASER_FULL:-}" = 1 ]; then
  "$gr" release --snapshot --clean --skip=publish
  ls -l dist/*.tar.gz dist/*.zip dist/*.deb dist/*.rpm dist/checksums.txt
  timing "goreleaser release --snapshot --skip=publish"
fi

after=$(git status --porcelain)
if [ "$before" != "$after" ]; then
  echo "goreleaser-check: the release steps changed the working tree:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "goreleaser-check: ok ($repo, $(($(date +%s) - t0))s)"
