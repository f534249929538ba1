#!/bin/bash
# Instructions per deferred user stack, SFrame against frame pointers, at
# three user depths (3, 7/6, 40/39), in one boot under the TCG
# instruction counter (tests/guest/bench-sframe.sh; Documentation/sframe.md).
#
#   bench/sframe.sh [run-guest.sh options]     (BENCH_N, BENCH_CPU)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
out=
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[ "${args[i]}" = --out ] && out=${args[i + 1]:-}
done
extra=()
if [ -z "$out" ]; then
	ensure_cache
	out=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-bench-sframe-$$
	extra+=(--out "$out")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/insn-count.log"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" callchain sframe
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-400}")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-900}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" \
	--cmd "${env[*]} $here/tests/guest/bench-sframe.sh"
