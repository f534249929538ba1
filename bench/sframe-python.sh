#!/bin/bash
# Instructions per deferred user stack of Debian's own python3, walked with
# SFrame sections generated from .eh_frame (the registrar), beside a
# frame-pointer walk (callchain-sframe, sections unregistered), two depths
# each, in one boot under the TCG instruction counter; prints frames, cost
# per stack and per frame (tests/guest/bench-python.sh says how).  Fails
# when a run lost stacks or took the wrong unwinder.
#
#   bench/sframe-python.sh [run-guest.sh options]
#   BENCH_N (default 1000), BENCH_ROUNDS (default 3), BENCH_PY_DEPTHS
#   (default "0 6"), BENCH_FP_DEPTHS (default "0 34"), BENCH_CPU
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-python "$@"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" callchain-sframe libsframe-unreg.so insn-marker
make -s -C "$here/sframe-gen"
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-1000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
[ -n "${BENCH_PY_DEPTHS:-}" ] && env+=("BENCH_PY_DEPTHS='$BENCH_PY_DEPTHS'")
[ -n "${BENCH_FP_DEPTHS:-}" ] && env+=("BENCH_FP_DEPTHS='$BENCH_FP_DEPTHS'")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-1800}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" \
	--cmd "${env[*]} $here/tests/guest/bench-python.sh"
