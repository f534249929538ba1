#!/bin/bash
# Instructions per deferred user stack, SFrame against frame pointers, on
# one binary (tests/workload/callchain-sframe: frame pointers and
# .sframe) run with its sections registered and unregistered, at two
# depths, repeated, in one boot under the TCG instruction counter; prints
# the frames each walk returned, the cost per stack, the cost per frame
# of each unwinder (slope between the two depths) and the goals
# (tests/guest/bench-sframe.sh says how; Documentation/sframe.md).  Fails
# when a run lost stacks or took the wrong unwinder.
#
#   bench/sframe.sh [run-guest.sh options]
#   BENCH_N (default 1000), BENCH_ROUNDS (default 3), BENCH_DEPTHS
#   (default "0 34"), BENCH_CPU, BENCH_PROF=1 (profile, see below),
#   BENCH_WAYS="sframe fp file" to add the section attached to the file
#   (PR_ATTACH_SFRAME_FILE) beside the one per mm
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-sframe "$@"
rm -f "$out/insn-count.log"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" callchain-sframe libsframe-preload.so libsframe-unreg.so
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-1000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
[ -n "${BENCH_DEPTHS:-}" ] && env+=("BENCH_DEPTHS='$BENCH_DEPTHS'")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
[ -n "${BENCH_WAYS:-}" ] && env+=("BENCH_WAYS='$BENCH_WAYS'")
# BENCH_PROF=1: the plugin also writes where the instructions went
# (bench/profile.sh PROF_LOG=... maps it; the counts come per round,
# depth, way in BENCH_WAYS' order, untraced then traced)
popt=
[ "${BENCH_PROF:-0}" = 1 ] && popt=",prof=$out/prof.log" && rm -f "$out/prof.log"
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-1800}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log$popt" \
	--cmd "${env[*]} $here/tests/guest/bench-sframe.sh"
