#!/bin/bash
# Instructions per deferred user stack and per frame, SFrame against frame
# pointers, when the addresses looked up are many and new (issue 37): the
# rows sframe-cold (every kept rule forgotten before each stack, with the
# binary's own small section and with one of python3's size) and
# sframe-rotate (K paths round robin over 64 to 4096 distinct addresses,
# with the kept-rule table's hit rate), sframe-nofde (frames in code
# with no FDE: the failed lookup before the frame-pointer fallback, per
# stack and per such frame), sframe-procs (200 short-lived processes, a
# fresh mm each: the first stacks' cost) and sframe-threads (T threads of
# one process rotating concurrently over a shared kept-rule table), one
# binary for both unwinders, in one boot under the TCG instruction
# counter (tests/guest/bench-sframe-rows.sh says how).  Fails when a run
# lost stacks or took the wrong unwinder.
#
#   bench/sframe-rows.sh [run-guest.sh options]
#   BENCH_N (default 1000), BENCH_ROUNDS (default 3), BENCH_ROWS (default
#   "cold rotate nofde procs threads"), BENCH_COLD_DEPTHS (default "2 32"),
#   BENCH_ROTATE_DEPTHS (default "4 16"), BENCH_ROTATE_ADDRS (default
#   "64 256 1024 4096"), BENCH_NOFDE_FRAMES (default "0 1 16"),
#   BENCH_NOFDE_DEPTH (default 4), BENCH_NOFDE_BINS (default "small big"),
#   BENCH_PROCS (default 200), BENCH_PROCS_STACKS (default 1),
#   BENCH_PROCS_DEPTHS (default "2 32"), BENCH_THREADS (default "1 4 16"),
#   BENCH_THREADS_ADDRS (default 256), BENCH_THREADS_DEPTH (default 4),
#   BENCH_CPU, BENCH_PROF=1 (profile: bench/profile.sh),
#   BENCH_NOIDX=0 (no "sframe0" runs: SFrame without the rules decoded
#   into kernel memory, sframe.decode=0, beside the runs with them)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-sframe-rows "$@"
rm -f "$out/insn-count.log"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" sfchain-small sfchain-big sfchain-more-small sfchain-more-big \
	libsframe-preload.so libsframe-unreg.so
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_N=${BENCH_N:-1000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
for v in BENCH_ROWS BENCH_COLD_DEPTHS BENCH_ROTATE_DEPTHS BENCH_ROTATE_ADDRS BENCH_CPU BENCH_NOIDX \
	BENCH_NOFDE_FRAMES BENCH_NOFDE_DEPTH BENCH_NOFDE_BINS BENCH_PROCS BENCH_PROCS_STACKS \
	BENCH_PROCS_DEPTHS BENCH_THREADS BENCH_THREADS_ADDRS BENCH_THREADS_DEPTH; do
	[ -n "${!v:-}" ] && env+=("$v='${!v}'")
done
popt=
[ "${BENCH_PROF:-0}" = 1 ] && popt=",prof=$out/prof.log" && rm -f "$out/prof.log"
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-3600}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log$popt" \
	--cmd "${env[*]} $here/tests/guest/bench-sframe-rows.sh"
