#!/bin/bash
# What the mmap:exec_mapping event (kernel series 7-exec-mapping) costs an
# mmap() of an executable file page, off (a static branch) and on (a
# PATH_MAX buffer, d_path(), the build ID from the page cache, the
# record), in instructions from the TCG plugin, in one boot:
# tests/guest/bench-exec-mapping.sh says how; a PROT_READ page of the
# same file (never an event) is the floor.
#
#   bench/exec-mapping.sh [run-guest.sh options]
#   BENCH_N (default 2000), BENCH_ROUNDS (default 3), BENCH_CPU
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-exec-mapping "$@"
rm -f "$out/insn-count.log"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" execmap
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-2000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-1800}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" \
	--cmd "${env[*]} $here/tests/guest/bench-exec-mapping.sh"
