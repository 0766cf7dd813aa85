#!/usr/bin/env bash
# bench-peers.sh: whole-process timings of fpstop beside the tools people use for the same job
# and beside the physical floor, on generated inputs, in alternating runs; prints ratios.
#
#   scripts/bench-peers.sh [logcat|framestats|rss|distinct|all]   (default: logcat framestats)
#
#   logcat      a 200 MiB threadtime logcat (per-object hashes in the Looper lines): fpstop
#               --source logcat vs the awk pairing script of issue 14 run by mawk, vs lnav with a
#               logcat format and a pairing query, vs the floor (a Go bufio.Scanner line count,
#               1 MiB buffer, and wc -l). Checks fpstop's messages.paired = awk's messages.
#   framestats  1,000,064 framestats rows (7,813 dumps), once in the Android 10/11 17-column layout
#               and once in the Android 12+ 23-column one: fpstop --input vs alibaba/mobileperf's
#               FPS collector and ARM devlib's GfxinfoFrameCollector (their own Python code, driven
#               by scripts/peers/*.py), vs a naive plain-Go reader (scripts/naivereader:
#               Scanner, strings.Split, ParseInt, a per-window dedupe), vs the floor; also
#               fpstop with two cores.
#   distinct    fpstop on the 200 MiB logcat against the same size with a distinct handler class
#               per main-thread message (benchgen -distinct): the per-line cost ratio (issue 13).
#   rss         peak RSS (/usr/bin/time -v) of fpstop on a 1.2 GB framestats capture and a 1 GiB
#               logcat (BIG_MB changes the logcat size).
#
# Environment: PAIRS (rounds, default 5), WORK (scratch directory for binaries and inputs,
# default a new /tmp/fpstop-bench.XXXX, removed at the end unless KEEP=1), MOBILEPERF_SRC and
# DEVLIB_SRC (checkouts of github.com/alibaba/mobileperf and github.com/ARM-software/devlib;
# default: extracted from the mirrors the session's fetch tool leaves in /work/.mirror). A peer
# that cannot be found is reported as missing, never as a result.
#
# Every timed process runs with GOMAXPROCS=1 (Go) on a warm page cache; each round runs every
# tool once, in an order that rotates from round to round. Per tool: best, median and max wall
# time and peak RSS; per peer: the ratio peer ÷ fpstop within each round (min–max over rounds)
# and best ÷ best. For the floor the ratio is fpstop ÷ floor (how far above the floor fpstop is).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
PAIRS=${PAIRS:-5}
BIG_MB=${BIG_MB:-1024}
jobs=("$@")
[ ${#jobs[@]} -eq 0 ] && jobs=(logcat framestats)
[ "${jobs[0]}" = all ] && jobs=(logcat framestats rss distinct)

if [ -z "${WORK:-}" ]; then
	WORK=$(mktemp -d /tmp/fpstop-bench.XXXXXX)
fi
mkdir -p "$WORK/bin" "$WORK/runs"
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"; }
trap cleanup EXIT

timebin=/usr/bin/time
[ -x "$timebin" ] || { echo "bench-peers: $timebin (GNU time) is needed for peak RSS" >&2; exit 2; }

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(go version | cut -d' ' -f3-)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== build"
(cd "$repo" && go build -o "$WORK/bin/fpstop" . && go build -o "$WORK/bin/benchgen" ./scripts/benchgen &&
	go build -o "$WORK/bin/linecount" ./scripts/linecount && go build -o "$WORK/bin/naivereader" ./scripts/naivereader)

# run NAME CMD...: one timed run; appends "round name wall_ms rss_kb cpu_s" to $WORK/times.
round=0
run() {
	local name=$1
	shift
	local out="$WORK/runs/$name.out" tf="$WORK/runs/$name.time" t0 t1
	t0=$(date +%s%N)
	if ! "$timebin" -f '%M %U %S' -o "$tf" "$@" >"$out" 2>"$WORK/runs/$name.err"; then
		echo "bench-peers: $name failed:" >&2
		tail -5 "$WORK/runs/$name.err" >&2
		exit 1
	fi
	t1=$(date +%s%N)
	read -r rss us ss < <(tail -1 "$tf")
	echo "$round $name $(((t1 - t0) / 1000)) $rss $(echo "$us + $ss" | bc)" >>"$WORK/times"
}

# bench REF FLOOR NAME=CMD...: PAIRS rounds of every command, rotating the order.
bench() {
	local ref=$1 floor=$2
	shift 2
	local specs=("$@") n=${#specs[@]} i k spec
	: >"$WORK/times"
	for spec in "${specs[@]}"; do # warm the page cache and each binary once, untimed
		eval "${spec#*=}" >/dev/null 2>&1 || true
	done
	for ((round = 1; round <= PAIRS; round++)); do
		for ((k = 0; k < n; k++)); do
			i=$(((k + round - 1) % n))
			spec=${specs[$i]}
			eval "run ${spec%%=*} ${spec#*=}"
		done
	done
	summarise "$ref" "$floor"
}

# summarise REF FLOOR: per tool best/median/max wall time, best CPU time (user+system, less
# sensitive to other load on the machine) and peak RSS; ratios against REF, per round (min-max)
# and best/best, for wall and CPU time.
summarise() {
	awk -v ref="$1" -v floor="$2" '
	{ w[$2, $1] = $3 / 1000; c[$2, $1] = $5 * 1000; rss[$2] = ($4 > rss[$2] ? $4 : rss[$2])
	  if (!($2 in seen)) { seen[$2] = 1; order[++nt] = $2 }; nr = ($1 > nr ? $1 : nr) }
	function sorted(m, t, a,   r, i, j, x) { for (r = 1; r <= nr; r++) a[r] = m[t, r]
		for (i = 2; i <= nr; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
	function ratios(m, t, below,   r, q, lo, hi, a, b) { lo = 1e18; hi = 0
		for (r = 1; r <= nr; r++) { q = below ? m[ref, r] / m[t, r] : m[t, r] / m[ref, r]; lo = (q < lo ? q : lo); hi = (q > hi ? q : hi) }
		sorted(m, t, a); sorted(m, ref, b)
		return sprintf("%.2f-%.2f (%.2f)", lo, hi, below ? b[1] / a[1] : a[1] / b[1]) }
	END {
		printf "%-14s %8s %8s %8s %8s %7s   %-22s %s\n", "tool", "wall ms", "median", "max", "CPU ms", "RSS MB", "wall ratio (best/best)", "CPU ratio (best/best)"
		for (k = 1; k <= nt; k++) {
			t = order[k]; sorted(w, t, a); sorted(c, t, cc)
			line = sprintf("%-14s %8.0f %8.0f %8.0f %8.0f %7.1f", t, a[1], a[int((nr + 1) / 2)], a[nr], cc[1], rss[t] / 1024)
			if (t != ref) {
				below = (t == floor || t == "wc-l")
				line = line sprintf("   %-22s %s", ratios(w, t, below), ratios(c, t, below)) (below ? "   <- fpstop is x above it" : "   <- x fpstop")
			}
			print line
		}
		printf "(%d rounds; ratios per round are min-max over the rounds)\n", nr
	}' "$WORK/times"
}

gen() { # gen FILE ARGS...: generate once per WORK
	local f=$1
	shift
	[ -s "$f" ] || nice "$WORK/bin/benchgen" "$@" -o "$f" >"$f.summary"
	echo "$(basename "$f"): $(stat -c %s "$f") bytes, $(cat "$f.summary")"
}

field() { # field JSONFILE KEY.SUB: a number from fpstop's JSON report
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$1" "$2"
}

mirror_src() { # mirror_src VAR OWNER+NAME PATHS...: a peer checkout in $WORK/peers
	local var=$1 m=/work/.mirror/$2/repo dir="$WORK/peers/$2"
	shift 2
	if [ -n "${!var:-}" ]; then
		echo "${!var}"
		return
	fi
	[ -d "$m" ] || return 0
	mkdir -p "$dir"
	# (the mirrors lack some binary blobs elsewhere in the tree: git complains, the paths asked for come)
	git --git-dir="$m" archive HEAD "$@" 2>/dev/null | tar -x -C "$dir" 2>/dev/null || true
	for p in "$@"; do [ -e "$dir/$p" ] || { rm -rf "$dir"; return 0; }; done
	echo "$dir"
}

pair_awk() { # the awk pairing script of issue 14, in $WORK/pair.awk
	cat >"$WORK/pair.awk" <<'AWK'
/ (>>>>> Dispatching|<<<<< Finished) to / {
    split($2, t, ":"); ms = (t[1] * 3600 + t[2] * 60 + t[3]) * 1000
    if (index($0, ">>>>> Dispatching")) { start[$4] = ms; open_[$4] = 1 }
    else if (open_[$4]) { d = ms - start[$4]; open_[$4] = 0; n++; sum += d; if (d > mx) mx = d }
}
END { printf "messages,max_ms,mean_ms\n%d,%.1f,%.3f\n", n, mx, (n ? sum / n : 0) }
AWK
}

job_logcat() {
	echo
	echo "== logcat: parse + pair Looper lines"
	local log="$WORK/logcat.txt"
	gen "$log" logcat -mb 200
	local specs=(
		"fpstop=env GOMAXPROCS=1 $WORK/bin/fpstop --source logcat --input $log --headless --json"
		"awk-mawk=mawk -f $WORK/pair.awk $log"
		"floor-scanner=env GOMAXPROCS=1 $WORK/bin/linecount $log"
		"wc-l=wc -l $log"
	)
	pair_awk
	if command -v lnav >/dev/null; then
		mkdir -p "$WORK/lnavhome"
		HOME="$WORK/lnavhome" lnav -i "$repo/scripts/peers/lnav-logcat-threadtime.json" >/dev/null 2>&1
		grep -v '^--' "$repo/scripts/peers/lnav-pairing.sql" | tr '\n' ' ' >"$WORK/pairing.sql"
		specs+=("lnav=env HOME=$WORK/lnavhome lnav -n -c \";\$(cat $WORK/pairing.sql)\" $log")
	else
		echo "lnav: MISSING (apt-get install lnav)"
	fi
	bench fpstop floor-scanner "${specs[@]}"
	local paired awkn
	paired=$(field "$WORK/runs/fpstop.out" messages.paired)
	awkn=$(tail -1 "$WORK/runs/awk-mawk.out" | cut -d, -f1)
	echo "check: fpstop messages.paired=$paired, awk messages=$awkn$([ -s "$WORK/runs/lnav.out" ] && echo ", lnav: $(tail -1 "$WORK/runs/lnav.out" | awk '{print $1}')")"
	[ "$paired" = "$awkn" ] || { echo "bench-peers: MISMATCH: fpstop paired $paired messages, awk $awkn" >&2; exit 1; }
}

job_framestats() {
	local mp dl layout fs
	mp=$(mirror_src MOBILEPERF_SRC alibaba+mobileperf mobileperf)
	dl=$(mirror_src DEVLIB_SRC ARM-software+devlib devlib/utils/rendering.py devlib/utils/csvutil.py devlib/utils/__init__.py devlib/exception.py)
	for layout in 17 23; do
		echo
		echo "== framestats: 1 M rows, ${layout}-column layout"
		fs="$WORK/framestats$layout.txt"
		gen "$fs" framestats -layout "$layout" -rows 1000000
		local specs=(
			"fpstop=env GOMAXPROCS=1 $WORK/bin/fpstop --input $fs --headless --json"
			"fpstop-2cores=$WORK/bin/fpstop --input $fs --headless --json"
			"floor-scanner=env GOMAXPROCS=1 $WORK/bin/linecount $fs"
			"wc-l=wc -l $fs"
			"naive-go=env GOMAXPROCS=1 $WORK/bin/naivereader $fs"
		)
		if [ -n "$mp" ]; then specs+=("mobileperf=python3 $repo/scripts/peers/mobileperf_fps.py $mp $fs"); else echo "mobileperf: MISSING (set MOBILEPERF_SRC)"; fi
		if [ -n "$dl" ]; then specs+=("devlib=python3 $repo/scripts/peers/devlib_gfxinfo.py $dl $fs"); else echo "devlib: MISSING (set DEVLIB_SRC)"; fi
		bench fpstop floor-scanner "${specs[@]}"
		echo "check: fpstop frames=$(field "$WORK/runs/fpstop.out" frames) fps=$(field "$WORK/runs/fpstop.out" fps)$([ -n "$mp" ] && echo "; mobileperf: $(tail -1 "$WORK/runs/mobileperf.out")")$([ -n "$dl" ] && echo "; devlib: $(tail -1 "$WORK/runs/devlib.out")")"
	done
}

job_rss() {
	echo
	echo "== peak RSS on big inputs (/usr/bin/time -v, one run each)"
	local fs="$WORK/big-framestats.txt" log="$WORK/big-logcat.txt" f
	gen "$fs" framestats -layout 23 -rows 3900000
	gen "$log" logcat -mb "$BIG_MB"
	for f in "$fs:" "$log:--source logcat"; do
		GOMAXPROCS=1 "$timebin" -v "$WORK/bin/fpstop" ${f#*:} --input "${f%%:*}" --headless --json \
			>/dev/null 2>"$WORK/runs/rss.err"
		echo "$(basename "${f%%:*}"): $(grep -E 'Maximum resident' "$WORK/runs/rss.err" | sed 's/^[[:space:]]*//'), $(grep -E 'Elapsed' "$WORK/runs/rss.err" | sed 's/^[[:space:]]*//')"
		rm -f "${f%%:*}"
	done
}

job_distinct() {
	echo
	echo "== logcat with a distinct handler class per message (issue 13): per-line cost against ordinary logcat"
	local log="$WORK/logcat.txt" dist="$WORK/logcat-distinct.txt"
	gen "$log" logcat -mb 200
	gen "$dist" logcat -mb 200 -distinct
	pair_awk
	echo "lines: ordinary $(wc -l <"$log"), distinct $(wc -l <"$dist")"
	bench fpstop floor-scanner \
		"fpstop=env GOMAXPROCS=1 $WORK/bin/fpstop --source logcat --input $log --headless --json" \
		"fpstop-distinct=env GOMAXPROCS=1 $WORK/bin/fpstop --source logcat --input $dist --headless --json"
	echo "(the fpstop-distinct ratio is its time over fpstop's on the ordinary file of the same size: target <= 2)"
	local paired awkn
	paired=$(field "$WORK/runs/fpstop-distinct.out" messages.paired)
	awkn=$(mawk -f "$WORK/pair.awk" "$dist" | tail -1 | cut -d, -f1)
	echo "check: fpstop-distinct messages.paired=$paired, awk messages=$awkn"
	[ "$paired" = "$awkn" ] || { echo "bench-peers: MISMATCH: fpstop paired $paired messages, awk $awkn" >&2; exit 1; }
}

for j in "${jobs[@]}"; do
	case $j in
	logcat | framestats | rss | distinct) "job_$j" ;;
	*)
		echo "bench-peers: unknown job $j (logcat, framestats, rss, distinct, all)" >&2
		exit 2
		;;
	esac
done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
