#!/bin/bash
# Instructions per frame of the SFrame walk, the section of a process's
# own (per mm, PR_ADD_SFRAME) against the same section attached to the
# file (PR_ATTACH_SFRAME_FILE, kernel series 6-sframe-file), on one binary
# (tests/workload/callchain-sframe) at two depths, repeated, in one boot
# under the TCG instruction counter; prints the cost per stack and per
# frame of each, side by side, and their ratio
# (tests/guest/bench-sframe-file.sh says how).  Fails when a run lost
# stacks or did not walk by SFrame.
#
#   bench/sframe-file.sh [run-guest.sh options]
#   BENCH_N (default 1000), BENCH_ROUNDS (default 3), BENCH_DEPTHS
#   (default "0 34"), BENCH_CPU
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-sframe-file "$@"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" callchain-sframe libsframe-preload.so libsframe-unreg.so
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-1000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
[ -n "${BENCH_DEPTHS:-}" ] && env+=("BENCH_DEPTHS='$BENCH_DEPTHS'")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-1800}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" \
	--cmd "${env[*]} $here/tests/guest/bench-sframe-file.sh"
