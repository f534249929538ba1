#!/bin/bash
# Benchmark: cost per event of no stack, stacktrace, stacktrace plus the
# in-place userstacktrace option, and stacktrace:defer, measured side by
# side in one boot of the test kernel.  Prints a table with ratios to
# plain stacktrace and the ring-buffer bytes written per syscall, and a
# second one with instructions per event, counted by the QEMU TCG plugin
# bench/tcg-plugin/insn-count.c (built on the way; the boot is then TCG,
# as plugins need it).  Without the plugin (BENCH_INSN=0, FTD_ACCEL=kvm,
# or it did not build) the second table is left out.
#
#   bench/kernel.sh [--debug] [rig/run-guest.sh options]
#
# BENCH_N, BENCH_ROUNDS tune the run; BENCH_CPU is the guest CPU the
# workload is pinned to (default the last), BENCH_MODES a subset of the
# modes.  perf (rig/build-perf.sh, or BENCH_PERF=PATH; BENCH_PERF=0 for
# none) adds perf's rows on the same loop; BENCH_DEPTH=D runs the loop D
# frames deeper (a user stack of D + 6 frames); BENCH_PERF_N is the
# length of perf's loops (default BENCH_N / 10).  The plugin's log is insn-count.log in the run's output directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
make -s -C "$here/tests/workload" >&2

args=("$@") out='' extra=()
for ((i = 0; i < ${#args[@]}; i++)); do
	[ "${args[i]}" = --out ] && out=${args[i + 1]:-}
done
if [ -z "$out" ]; then
	ensure_cache
	out=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-bench-$$
	mkdir -p "$out"
	ln -sfn "$out" "$CACHE/runs/latest"
	extra+=(--out "$out")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/insn-count.log"
if [ "${BENCH_INSN:-1}" = 0 ]; then
	log "instruction counts off (BENCH_INSN=0): ns only"
elif [ "${FTD_ACCEL:-}" = kvm ]; then
	log "FTD_ACCEL=kvm: no TCG plugin, ns only"
elif so=$("$here/bench/tcg-plugin/build.sh"); then
	popt=
	# BENCH_PROF=1: the plugin also writes where the instructions went
	# (bench/profile.sh reads it)
	[ "${BENCH_PROF:-0}" = 1 ] && popt=",prof=$out/prof.log" && rm -f "$out/prof.log"
	extra+=(--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log$popt")
	export FTD_ACCEL=tcg
else
	log "the TCG plugin did not build: ns only"
fi
env=("BENCH_N=${BENCH_N:-20000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-7}")
# perf beside ftrace: the perf of the same tree (BENCH_PERF=0: none)
if [ "${BENCH_PERF:-}" != 0 ]; then
	if perf=${BENCH_PERF:-$("$here/rig/build-perf.sh")}; then
		env+=("BENCH_PERF=$perf")
	else
		log "perf did not build: no perf rows"
	fi
fi
[ -n "${BENCH_DEPTH:-}" ] && env+=("BENCH_DEPTH=$BENCH_DEPTH")
[ -n "${BENCH_PERF_N:-}" ] && env+=("BENCH_PERF_N=$BENCH_PERF_N")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
[ -n "${BENCH_MODES:-}" ] && env+=("BENCH_MODES='$BENCH_MODES'")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout ${BENCH_TIMEOUT:-3600} \
	--cmd "${env[*]} $here/tests/guest/bench-guest.sh"
