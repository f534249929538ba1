#!/bin/bash
# Instructions per deferred user stack, SFrame against frame pointers, at
# three user depths, side by side in one boot (bench/sframe.sh boots it with
# the TCG plugin bench/tcg-plugin/insn-count.c, whose log is
# $FTD_RESULTS/insn-count.log).
#
# SFrame: tests/workload/sfwork -r (everything on the chain frameless, with
# .sframe), marker ID 62 around its chain; the shallow row sfwork-shallow
# -r (main calls the library's leaf: 3 frames).  Frame pointers:
# tests/workload/callchain bench (built -fno-omit-frame-pointer), marker
# ID 63 around its loop; the shallow row callchain bench-main (3 frames).
# Each runs N getppid (one kernel entry, one deferred stack each) untraced
# and with stacktrace:defer on getppid; the difference over N is the cost
# of one stack (trigger, kernel stack, cookie, deferred walk, record).
# The depth printed is the mean nr of the user stacks recorded.  All on
# one CPU (taskset), so both markers count the same vCPU.
#   BENCH_N (default 400), BENCH_CPU (default the last CPU)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
N=${BENCH_N:-400}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
LOG=$FTD_RESULTS/insn-count.log
[ -f "$LOG" ] || { echo "no $LOG: boot with the TCG plugin (bench/sframe.sh)"; exit 1; }
reset_tracing

# last_count ID: the insns of the newest count of marker ID
last_count() { grep "id=$1 insns=" "$LOG" | tail -1 | sed 's/.*insns=//'; }

# one LABEL COMM ID TRACE CMD...: print the insn count of one run
one() {
	local comm=$2 id=$3 trace=$4 before
	shift 4
	reset_tracing
	if [ "$trace" = 1 ]; then
		mkinst bsf && trig bsf syscalls/sys_enter_getppid "stacktrace:defer if comm == \"$comm\"" || return 1
	fi
	before=$(grep -c "id=$id insns=" "$LOG")
	taskset -c "$CPU" "$@" > /dev/null 2>&1
	wait_for -t 5 test "$(grep -c "id=$id insns=" "$LOG")" -gt "$before" || { echo "no count for $comm"; return 1; }
	if [ "$trace" = 1 ]; then
		awk '/user_stack_deferred:/ { if (match($0, /nr=[0-9]+/)) { n++; s += substr($0, RSTART + 3, RLENGTH - 3) } }
			END { printf "%.1f\n", n ? s / n : 0 }' "$(idir bsf)/trace" > "$FTD_RESULTS/bench-sframe-depth"
	fi
	last_count "$id"
}

printf '%-14s %6s %8s %14s\n' unwinder depth stacks insns/stack
for d in shallow 0 33; do
	# sfwork-shallow, callchain bench-main: 3 user frames; sfwork: 7 +
	# DEPTH; callchain bench: 6 + DEPTH
	for u in sframe fp; do
		if [ $u = sframe ] && [ $d = shallow ]; then
			args=("$WL"/sfwork-shallow -r "$N"); comm=sfwork-shallow id=62
		elif [ $u = sframe ]; then
			args=("$WL"/sfwork -r getppid "$N" "$d"); comm=sfwork id=62
		elif [ $d = shallow ]; then
			args=("$WL"/callchain bench-main "$N"); comm=callchain id=63
		else
			args=("$WL"/callchain bench "$N" $((d + 1))); comm=callchain id=63
		fi
		base=$(one $u $comm $id 0 "${args[@]}") || exit 1
		traced=$(one $u $comm $id 1 "${args[@]}") || exit 1
		depth=$(cat "$FTD_RESULTS/bench-sframe-depth")
		printf '%-14s %6s %8s %14s\n' $u "$depth" "$N" $(((traced - base) / N))
	done
done
reset_tracing
