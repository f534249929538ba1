#!/bin/bash
# Benchmark: what a stack costs per asking event and per kernel entry,
# ftrace (stacktrace, userstacktrace, stacktrace:defer) and perf (no
# callchain, fp, fp,defer, dwarf) on the same tracepoints with the same
# number of asking events per kernel entry (1 and 4 by default), at two
# loop depths, side by side in one boot of the test kernel.  The guest
# half is tests/guest/bench-guest.sh (its header says what each column
# is).  Instructions come from the QEMU TCG plugin
# bench/tcg-plugin/insn-count.c (built on the way; the boot is then TCG);
# without it (BENCH_INSN=0, FTD_ACCEL=kvm, or it did not build) the cost
# is ns.  Each row prints the user depth it measured; a run that lost data
# (perf lost or throttled samples, ftrace overruns or dropped events)
# gives no row, and the command fails.
#
#   bench/kernel.sh [--debug] [rig/run-guest.sh options]
#
# BENCH_N (ftrace loop, default 10000), BENCH_PERF_N (perf loop, default
# 1000), BENCH_ROUNDS (default 3), BENCH_DEPTHS (loop depths, default
# "0 34"), BENCH_EVENTS (asking events per entry, default "1 4"),
# BENCH_MODES, BENCH_CPU, BENCH_BYTES=0 (no byte columns), BENCH_FTRACE_KB,
# BENCH_PERF_MMAP, BENCH_PERF_MMAP_DWARF: see the guest script.  perf comes from rig/build-perf.sh (BENCH_PERF=PATH to choose
# one, BENCH_PERF=0 for none).  The plugin's log is insn-count.log in the
# run's output directory; the table is output.log there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
make -s -C "$here/tests/workload" >&2

. "$here/bench/lib.sh"
bench_out bench "$@"
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
env=("BENCH_N=${BENCH_N:-10000}" "BENCH_ROUNDS=${BENCH_ROUNDS:-3}")
# perf beside ftrace: the perf of the same tree (BENCH_PERF=0: none)
if [ "${BENCH_PERF:-}" != 0 ]; then
	if perf=${BENCH_PERF:-$("$here/rig/build-perf.sh")}; then
		env+=("BENCH_PERF=$perf")
	else
		log "perf did not build: no perf rows"
	fi
fi
[ -n "${BENCH_DEPTH:-}" ] && env+=("BENCH_DEPTH=$BENCH_DEPTH")
[ -n "${BENCH_DEPTHS:-}" ] && env+=("BENCH_DEPTHS='$BENCH_DEPTHS'")
[ -n "${BENCH_EVENTS:-}" ] && env+=("BENCH_EVENTS='$BENCH_EVENTS'")
[ -n "${BENCH_PERF_N:-}" ] && env+=("BENCH_PERF_N=$BENCH_PERF_N")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
[ -n "${BENCH_BYTES:-}" ] && env+=("BENCH_BYTES=$BENCH_BYTES")
[ -n "${BENCH_FTRACE_KB:-}" ] && env+=("BENCH_FTRACE_KB=$BENCH_FTRACE_KB")
[ -n "${BENCH_PERF_MMAP:-}" ] && env+=("BENCH_PERF_MMAP=$BENCH_PERF_MMAP")
[ -n "${BENCH_PERF_MMAP_DWARF:-}" ] && env+=("BENCH_PERF_MMAP_DWARF=$BENCH_PERF_MMAP_DWARF")
[ -n "${BENCH_MODES:-}" ] && env+=("BENCH_MODES='$BENCH_MODES'")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout ${BENCH_TIMEOUT:-3600} \
	--cmd "${env[*]} $here/tests/guest/bench-guest.sh"
