#!/bin/bash
# Issue 37's python3-real row: instructions per deferred user stack at
# every system call of Debian's own python3 doing real standard-library
# work (tests/workload/pyreal.py), SFrame sections from the registrar,
# beside perf fp,defer and perf dwarf on the same work, in one boot
# under the TCG instruction counter; with the stacks' frames, distinct
# addresses and the kept-rule table's hit rate (an upper bound).
# tests/guest/bench-python-real.sh says how; it refuses lossy runs and
# stacks not walked by SFrame.
#
#   bench/python-real.sh [run-guest.sh options]
#   BENCH_WORKLOAD=cc1plus: the same for Debian's g++ compiling
#   tests/workload/cxxreal.cc (cc1plus: 49,002 FDEs)
#   BENCH_ROUNDS (default 3), BENCH_PY_ROUNDS (default 20), BENCH_CPU,
#   BENCH_PERF (perf binary; default rig/build-perf.sh's; 0: no perf rows)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-python-real "$@"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" insn-marker
make -s -C "$here/sframe-gen"
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_ROUNDS=${BENCH_ROUNDS:-3}" "BENCH_PY_ROUNDS=${BENCH_PY_ROUNDS:-20}")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
[ -n "${BENCH_KEEP:-}" ] && env+=("BENCH_KEEP=1")
[ -n "${BENCH_WORKLOAD:-}" ] && env+=("BENCH_WORKLOAD=$BENCH_WORKLOAD")
if [ "${BENCH_PERF:-}" != 0 ]; then
	if perf=${BENCH_PERF:-$("$here/rig/build-perf.sh")}; then
		env+=("BENCH_PERF=$perf")
	else
		log "perf did not build: no perf rows"
	fi
fi
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-2400}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" \
	--cmd "${env[*]} $here/tests/guest/bench-python-real.sh"
