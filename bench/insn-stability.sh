#!/bin/bash
# Do instruction counts repeat?  Runs bench/kernel.sh in two boots, one
# after the other, of one kernel image (built once and copied, so a
# rebuild in between cannot change it), prints both runs' output and, per
# row (depth, event set, mode), the relative difference of insn/entry
# and insn/event between them.  Exits 1 when the largest difference is above BENCH_INSN_TOL
# percent (default 1).
#
#   bench/insn-stability.sh [--debug] [--out DIR]
#
# BENCH_N (default 10000) and BENCH_ROUNDS (default 3) as for
# bench/kernel.sh; the runs go to DIR/run1 and DIR/run2 (default
# $CACHE/runs/<time>-insn-stability).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"

debug=() out=
while [ $# -gt 0 ]; do
	case $1 in
	--debug) debug=(--debug) ;;
	--out) out=$2; shift ;;
	*) die "unknown argument: $1" ;;
	esac
	shift
done
ensure_cache
: "${out:=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-insn-stability}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
export BENCH_N=${BENCH_N:-10000} BENCH_ROUNDS=${BENCH_ROUNDS:-3}
tol=${BENCH_INSN_TOL:-1}

kernel=$("$here/rig/build-kernel.sh" "${debug[@]}") || die "kernel build failed"
cp "$kernel" "$out/bzImage"
log "kernel $kernel copied to $out/bzImage"
"$here/bench/tcg-plugin/build.sh" >/dev/null || die "the TCG plugin did not build"

for r in 1 2; do
	log "run $r of 2: BENCH_N=$BENCH_N BENCH_ROUNDS=$BENCH_ROUNDS"
	"$here/bench/kernel.sh" "${debug[@]}" --kernel "$out/bzImage" --quiet \
		--out "$out/run$r" >&2 || die "run $r failed (see $out/run$r)"
	grep -q 'cost in insn$' "$out/run$r/output.log" ||
		die "run $r has no instruction counts (see $out/run$r/output.log)"
done

for r in 1 2; do
	echo "== run $r ($out/run$r)"
	sed '/^samples (/,/^goals/{/^goals/!d}' "$out/run$r/output.log"
done
# the rows of the tables: depth.events.mode insn/entry insn/event
rows() {
	awk '/^== callchain bench N / { dp = $5; sub(":", "", dp); print dp ".off", $9, $9; t = 0 }
	     /^-- [0-9]+ asking/ { k = $2; t = 1; getline; next }
	     /^$/ || /^frames:/ { t = 0 }
	     t && NF >= 4 && $2 != "REFUSED:" { print dp "." k "." $1, $3, $4 }' "$1"
}
echo "== run 1 against run 2, relative difference |a - b| / min(a, b)"
join <(rows "$out/run1/output.log" | sort) <(rows "$out/run2/output.log" | sort) |
awk -v tol="$tol" '
	function rel(a, b) { m = a < b ? a : b; return m > 0 ? (a > b ? a - b : b - a) / m * 100 : -1 }
	BEGIN { printf "%-18s %12s %12s %7s %10s %10s %7s\n", "row", "insn/en 1", "insn/en 2", "diff%", "insn/ev 1", "insn/ev 2", "diff%" }
	{
		d1 = rel($2, $4); d2 = rel($3, $5)
		printf "%-18s %12s %12s %7s %10s %10s %7s\n", $1, $2, $4,
			(d1 < 0 ? "-" : sprintf("%.3f", d1)), $3, $5, (d2 < 0 ? "-" : sprintf("%.3f", d2))
		if (d1 > max) max = d1
		if (d2 > max) max = d2
	}
	END {
		printf "max difference %.3f%% (limit %s%%): %s\n", max, tol, max <= tol ? "agree" : "DISAGREE"
		exit max <= tol ? 0 : 1
	}'
