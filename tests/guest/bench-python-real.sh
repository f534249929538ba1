#!/bin/bash
# In-guest half of bench/python-real.sh: the cost of a deferred user
# stack at every system call of Debian's own python3 doing real work
# (tests/workload/pyreal.py: its start-up imports, then json, re,
# difflib, decimal, email, ElementTree and a file, ROUNDS times), walked
# with SFrame sections the registrar generates from .eh_frame (LD_AUDIT,
# warm cache), beside perf on the same run:
#   off           untraced
#   defer         stacktrace:defer on raw_syscalls:sys_enter (set_event_pid
#                 holds the workload), one stack per kernel entry
#   perf-fpdefer  perf record -c 1 -e raw_syscalls:sys_enter --call-graph
#                 fp,defer (the same kernel unwinder, SFrame included)
#   perf-dwarf    --call-graph dwarf (8 KB of stack a sample, unwound later)
# Instructions (TCG plugin, between the markers of ID 51 around the
# workload on one CPU; perf's own process runs on CPU 0 and is not
# counted, as in bench-guest.sh) per event: (median traced - median off)
# / events of the run.  Each traced run must lose nothing (ftrace
# overruns, perf LOST records or throttling) and give a stack per event;
# defer's stacks must be walked by SFrame.  Also the stacks' frames
# (median), their distinct addresses and the kept-rule table's hit rate
# replayed on them (benchtool.py table: an upper bound).
# BENCH_WORKLOAD=cc1plus instead: g++ -O1 -c tests/workload/cxxreal.cc,
# Debian's cc1plus (49,002 FDEs) walked the same way (ftrace follows the
# driver's children with event-fork, perf by default); the kept-rule
# table on cc1plus's stacks.  Events are those of every process of the
# workload but the launchers (taskset, env, insn-marker).
#   BENCH_ROUNDS (default 3), BENCH_PY_ROUNDS (pyreal.py's, default 20),
#   BENCH_CPU (default the last CPU), BENCH_PERF (perf binary; empty: no
#   perf rows), BENCH_WORKLOAD (python3 or cc1plus)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
ROUNDS=${BENCH_ROUNDS:-3}
PYR=${BENCH_PY_ROUNDS:-20}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
PERF=${BENCH_PERF:-}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
REG=$REPO/sframe-gen/build/libsframe-register.so
TOOL="python3 $REPO/bench/benchtool.py"
PY=/usr/bin/python3
ID=51
WORKLOAD=${BENCH_WORKLOAD:-python3}
case $WORKLOAD in
python3) CMD=($PY $WL/pyreal.py $PYR $TMP/work) MAIN=python3 ;;
cc1plus) CMD=(/usr/bin/g++ -std=c++17 -O1 -c $WL/cxxreal.cc -o $TMP/work/cxxreal.o) MAIN=cc1plus ;;
*) echo "BENCH_WORKLOAD: python3 or cc1plus"; exit 1 ;;
esac
# the events counted: every process's but the launchers'
LAUNCHERS='^ *(taskset|env|insn-marker)-[0-9]'
TMP=/tmp/bench-pyreal.$$
mkdir -p $TMP/cache $TMP/work
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/python-real.sh)"; exit 1; }
for f in $REG $WL/insn-marker $WL/pyreal.py $WL/cxxreal.cc; do
	[ -f $f ] || { echo "no $f"; exit 1; }
done
MODES="off defer"
if [ -n "$PERF" ]; then
	MODES+=" perf-fpdefer perf-dwarf"
	echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null || true
	echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || true
fi
WORK=(env PYTHONHASHSEED=0 SFREG_CACHE_DIR=$TMP/cache LD_AUDIT=$REG)
# warm the registrar's cache, so that no run generates sections
"${WORK[@]}" "${CMD[@]}" > /dev/null

# one MODE: prints "insns events bytes check [table]"
one() {
	local m=$1 d=$TRACEFS/instances/bpr l i ok=ok ev=- by=- st c tab=
	local data=$TMP/perf.data cg=() mm=16M all nl nls nth
	reset_tracing >/dev/null
	rm -f $data
	case $m in
	off|defer)
		mkdir $d && echo 16384 > $d/buffer_size_kb
		[ $m = defer ] && echo stacktrace:defer > $d/events/raw_syscalls/sys_enter/trigger
		echo 1 > $d/options/event-fork
		l=$(wc -l < "$ICLOG")
		taskset -c $CPU "${WORK[@]}" $WL/insn-marker run $ID -p $d/set_event_pid \
			"${CMD[@]}" > /dev/null || ok=workload-exit-$?
		i=$(bench_insns "$l" $ID)
		echo 0 > $d/tracing_on
		st=$(bench_lost $d)
		[ "$st" = 0 ] || ok=ftrace-lost-$st
		if [ $m = defer ]; then
			cat $d/trace > $TMP/trace
			[ -n "${BENCH_KEEP:-}" ] && cp $TMP/trace $FTD_RESULTS/defer-trace.txt
			tab=$($TOOL table $TMP/trace $MAIN)
			ev=$(grep ' user_stack_cookie: ' $TMP/trace | grep -Evc "$LAUNCHERS")
			by=$(awk '/^bytes:/ { b += $2 } END { print b + 0 }' $d/per_cpu/cpu*/stats)
			c=$(grep ' user_stack_deferred: ' $TMP/trace | grep -Evc "$LAUNCHERS")
			[ "$ev" -gt 0 ] && [ "${c:-0}" -ge "$ev" ] || ok=stacks-missing-${c:-0}-of-$ev
			[[ $tab == *unwinder=*sframe* ]] || ok=not-walked-by-sframe
		fi ;;
	perf-*)
		[ $m = perf-fpdefer ] && cg=(--call-graph fp,defer)
		[ $m = perf-dwarf ] && cg=(--call-graph dwarf) mm=128M
		l=$(wc -l < "$ICLOG")
		taskset -c 0 "$PERF" record -o $data -c 1 -m $mm --no-buildid \
			-e raw_syscalls:sys_enter "${cg[@]}" -- taskset -c $CPU "${WORK[@]}" \
			$WL/insn-marker run $ID "${CMD[@]}" \
			> /dev/null 2> $TMP/perf.err || ok=perf-record-failed
		i=$(bench_insns "$l" $ID)
		if c=$($TOOL perfdata $data); then
			# samples=N deferred=N lost=N lost_samples=N throttle=N bytes=N
			read -r all nl nls nth by < <(tr ' =' '\n ' <<< "$c" | awk '{ v[$1] = $2 }
				END { print v["samples"], v["lost"], v["lost_samples"], v["throttle"], v["bytes"] }')
			[ "$nl" = 0 ] && [ "$nls" = 0 ] && [ "$nth" = 0 ] || ok=perf-lost-$nl-$nls-$nth
			# the launchers' samples before the workload are not counted
			ev=$("$PERF" script -i $data -G -F comm,tid 2> $TMP/script.err |
				sed 's/ *\([0-9]*\) *$/-\1/' | grep -Evc "$LAUNCHERS")
			[ -n "${BENCH_KEEP:-}" ] && cp $TMP/script.err $TMP/perf.err $FTD_RESULTS/ &&
				"$PERF" script -i $data -G -F comm 2>/dev/null | head -50 > $FTD_RESULTS/perf-comm.txt
			by=$((by * ev / all))
		else
			ok=perf-data-unreadable
		fi
		grep -qi 'lost\|throttl' $TMP/perf.err && [ $ok = ok ] && ok=perf-warned ;;
	esac
	[ "$i" = - ] && ok=no-instruction-count
	echo "$i $ev $by $ok $tab"
}

declare -A ins evs bys why tabs
failed=0
for r in $(seq 1 $ROUNDS); do
	for m in $MODES; do
		read -r i ev by ok tab < <(one $m)
		ins[$m]+="$i " evs[$m]=$ev bys[$m]=$by
		[ -n "$tab" ] && tabs[$m]=$tab
		bench_refuse $m "$ok"
	done
done
reset_tracing >/dev/null
rm -rf $TMP

if [ $WORKLOAD = python3 ]; then
	echo "deferred user stacks at every system call of Debian's python3 running"
	echo "  tests/workload/pyreal.py $PYR (start-up, json, re, difflib, decimal, email,"
	echo "  ElementTree, a file),"
else
	echo "deferred user stacks at every system call of Debian's g++ -O1 -c"
	echo "  tests/workload/cxxreal.cc (the driver, cc1plus, as),"
fi
echo "  SFrame from .eh_frame (registrar as LD_AUDIT, warm cache);"
echo "  median of $ROUNDS rounds; instructions (TCG plugin), CPU $CPU"
b=$(echo ${ins[off]} | median)
printf '%-13s %12s %7s %12s %10s %9s\n' mode insns events insns/event x-fpdefer B/event
declare -A per
for m in $MODES; do
	if [ -n "${why[$m]:-}" ]; then
		printf '%-13s REFUSED: %s\n' $m "${why[$m]}"
		continue
	fi
	t=$(echo ${ins[$m]} | median)
	if [ $m = off ]; then
		printf '%-13s %12s\n' $m $t
		continue
	fi
	if [ "${evs[$m]:-0}" -gt 0 ] 2>/dev/null; then
		per[$m]=$(( (t - b) / ${evs[$m]} ))
	else
		printf '%-13s REFUSED: no events counted\n' $m
		failed=1
	fi
done
for m in $MODES; do
	[ $m = off ] || [ -z "${per[$m]:-}" ] && continue
	t=$(echo ${ins[$m]} | median)
	printf '%-13s %12s %7s %12s %10s %9s\n' $m $t ${evs[$m]} ${per[$m]} \
		"$(awk -v a=${per[$m]} -v f=${per[perf-fpdefer]:-} 'BEGIN {
			if (f == "" || f <= 0) print "-"; else printf "%.2f", a / f }')" \
		"$(awk -v b=${bys[$m]} -v e=${evs[$m]} 'BEGIN { printf "%.0f", b / e }')"
done
[ -n "${tabs[defer]:-}" ] && echo "defer's stacks of $MAIN: ${tabs[defer]}"
echo "samples (instructions of a run): "
for m in $MODES; do echo "  $m: ${ins[$m]}"; done
if [ $failed = 1 ]; then
	echo "bench-python-real: some runs failed their checks; their rows are refused (REFUSED above)"
	exit 1
fi
exit 0
