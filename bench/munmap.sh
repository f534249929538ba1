#!/bin/bash
# What an munmap() that drops no .sframe section costs a process with N
# sections (issue 35: the kernel's munmap hook), in instructions from the
# TCG plugin: tests/workload/sfmaps mmap()s and munmap()s an anonymous page
# and a file page BENCH_N times each, with 0, 1 and 64 sections
# registered (tests/guest/bench-munmap.sh says how).  With --before, a
# second kernel image is booted the same way, and the two are printed side
# by side with their ratio (after / before) and each one's cost over a
# process with no section.
#
#   bench/munmap.sh [--before BZIMAGE] [run-guest.sh options]
#   BENCH_N (default 2000), BENCH_ROUNDS (default 3), BENCH_MUNMAP_NS
#   (default "0 1 64"), BENCH_CPU
# The image measured is run-guest.sh's (--kernel BZIMAGE, or the rig's
# build); its run is in after/ of the output directory, --before's in
# before/, each with its output.log and insn-count.log.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
before= args=()
while [ $# -gt 0 ]; do
	case $1 in
	--before) before=$2; shift ;;
	--out) args+=("$1" "$2"); shift ;;
	*) args+=("$1") ;;
	esac
	shift
done
[ -z "$before" ] || [ -f "$before" ] || die "no kernel image $before"
bench_out bench-munmap "${args[@]}"
# our own --out per boot
for ((i = 0; i < ${#args[@]}; i++)); do
	[ "${args[i]}" = --out ] && unset 'args[i]' 'args[i+1]' && break
done
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" sfmaps
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-2000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
[ -n "${BENCH_MUNMAP_NS:-}" ] && env+=("BENCH_MUNMAP_NS='$BENCH_MUNMAP_NS'")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")

boot() { # DIR [--kernel IMG]
	local d=$out/$1
	shift
	mkdir -p "$d"
	: > "$d/insn-count.log"
	"$here/rig/run-guest.sh" "${args[@]}" "$@" --out "$d" --timeout "${BENCH_TIMEOUT:-1800}" \
		--qemu-arg -plugin --qemu-arg "$so,out=$d/insn-count.log" \
		--cmd "${env[*]} $here/tests/guest/bench-munmap.sh" >&2
}
rc=0
if [ -n "$before" ]; then
	boot before --kernel "$before" || rc=1
fi
boot after || rc=1

# rows DIR: "KIND N PER_OP" from the guest's machine-readable lines
rows() { sed -n 's/^munmap \([a-z]*\) n=\([0-9]*\) per_op=\([0-9-]*\) .*/\1 \2 \3/p' "$out/$1/output.log" 2>/dev/null; }
echo "instructions per mmap()+munmap() of a page that drops no section (median of ${BENCH_ROUNDS:-3} runs of ${BENCH_N:-2000})"
if [ -z "$before" ]; then
	rows after | awk '$2 == 0 { b[$1] = $3 } { r[NR] = $0 } END {
		printf "%-6s %8s %10s %10s\n", "map", "sections", "per_op", "over_n=0"
		for (i = 1; i <= NR; i++) { split(r[i], f, " ")
			printf "%-6s %8s %10s %10s\n", f[1], f[2], f[3],
				(f[3] ~ /^[0-9]+$/ && b[f[1]] ~ /^[0-9]+$/) ? f[3] - b[f[1]] : "-" } }'
else
	echo "before: $before"
	echo "after:  ${args[*]}"
	join -j1 <(rows before | awk '{ print $1 ":" $2, $3 }' | sort) \
		<(rows after | awk '{ print $1 ":" $2, $3 }' | sort) |
	sort -t: -k1,1 -k2n | awk '{ split($1, k, ":"); r[NR] = k[1] " " k[2] " " $2 " " $3
		if (k[2] == 0) { b0[k[1]] = $2; a0[k[1]] = $3 } } END {
		printf "%-6s %8s %10s %10s %12s %14s %14s\n", "map", "sections", "before", "after",
			"after/before", "before-over-0", "after-over-0"
		for (i = 1; i <= NR; i++) { split(r[i], f, " ")
			ok = f[3] ~ /^[0-9]+$/ && f[4] ~ /^[0-9]+$/
			ratio = (ok && f[3] > 0) ? sprintf("%.3f", f[4] / f[3]) : "-"
			printf "%-6s %8s %10s %10s %12s %14s %14s\n", f[1], f[2], f[3], f[4], ratio,
				(ok ? f[3] - b0[f[1]] : "-"), (ok ? f[4] - a0[f[1]] : "-") } }'
fi
[ $rc = 0 ] || echo "a boot failed: see $out"
exit $rc
