#!/bin/bash
# In-guest half of bench/kernel.sh: the cost of stack traces per event,
# measured side by side in one boot.  A getppid() loop; four events fire
# per syscall (sys_enter_getppid, sys_exit_getppid, raw_syscalls
# sys_enter and sys_exit), only for the benchmark's own pid.
#
# Modes: off (no event enabled), none (the events, no stacks),
# stacktrace, userstacktrace (stacktrace plus the in-place option),
# defer (stacktrace:defer), and defer-first (stacktrace:defer on the
# first event of each syscall, stacktrace on the other three: the cost of
# one request per kernel entry).  Rounds interleave the modes.
#
# Columns:
#   ns/event     (ns/syscall - off) / 4: what one traced event costs
#   ratio        ns/event / ns/event of stacktrace
#   stack-ns     (ns/syscall - none) / 4: the stack part of an event
#   stack-ratio  stack-ns / stack-ns of stacktrace
#
# Every run is pinned to one CPU (BENCH_CPU, default the last) with
# taskset.  callchain's loop runs between two instruction-count markers
# (tests/workload/insn-marker.h).  When QEMU runs the TCG plugin
# bench/tcg-plugin/insn-count.c with its log at
# $FTD_RESULTS/insn-count.log (bench/kernel.sh does that), a second table
# gives instructions instead of ns: the plugin counts all that CPU
# executes between the markers (the loop's user and kernel code, and
# interrupts that land in it):
#   insn/syscall  instructions of the loop / N, median over rounds
#   insn/event    (insn/syscall - that of off) / 4
#   ratio         insn/event / insn/event of stacktrace
#   stack-insn    (insn/syscall - that of none) / 4, and its ratio
# Without the plugin's log the second table is left out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
N=${BENCH_N:-20000}
ROUNDS=${BENCH_ROUNDS:-5}
EVENTS="syscalls/sys_enter_getppid syscalls/sys_exit_getppid raw_syscalls/sys_enter raw_syscalls/sys_exit"
MODES=${BENCH_MODES:-"off none stacktrace userstacktrace defer defer-first"}
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
ICLOG=${BENCH_INSN_LOG:-${FTD_RESULTS:-/results}/insn-count.log}
MARK_ID=63	# INSN_MARKER_BENCH in tests/workload/insn-marker.h
insn=0
[ -f "$ICLOG" ] && insn=1

setup() { # MODE
	local d=$TRACEFS/instances/bench e
	reset_tracing >/dev/null
	mkdir $d && echo 65536 > $d/buffer_size_kb
	[ $1 = off ] && return 0
	for e in $EVENTS; do
		echo 1 > $d/events/$e/enable
		case $1 in
		stacktrace|userstacktrace) echo stacktrace > $d/events/$e/trigger ;;
		defer) echo stacktrace:defer > $d/events/$e/trigger ;;
		defer-first)
			# the first event of the entry asks, the others take
			# kernel stacks only: the cost of one request per entry
			if [ $e = raw_syscalls/sys_enter ]; then
				echo stacktrace:defer > $d/events/$e/trigger
			else
				echo stacktrace > $d/events/$e/trigger
			fi ;;
		esac
	done
	[ $1 = userstacktrace ] && echo 1 > $d/options/userstacktrace
	return 0
}

insns() { # LINES: the plugin's count of the loop, written after line LINES
	local l
	l=$(tail -n +$(($1 + 1)) "$ICLOG")
	case $l in
	"insn-count vcpu=$CPU id=$MARK_ID insns="*) echo "${l##*insns=}" ;;
	*) echo "warning: no instruction count for the loop: '$l'" >&2; echo - ;;
	esac
}

run() { # MODE -> prints "ns_per_syscall bytes_per_syscall insns_of_the_loop"
	local d=$TRACEFS/instances/bench ns bytes overrun l i=-
	setup $1
	[ $insn = 1 ] && l=$(wc -l < "$ICLOG")
	ns=$(taskset -c $CPU sh -c "echo \$\$ > $d/set_event_pid; exec $WL/callchain bench $N")
	[ $insn = 1 ] && i=$(insns $l)
	bytes=$(cat $d/per_cpu/cpu*/stats | awk '/^bytes:/ { s += $2 } END { print s }')
	overrun=$(cat $d/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s }')
	[ "$overrun" = 0 ] || echo "warning: $1 overran the buffer ($overrun)" >&2
	echo "$ns $((bytes / N)) $i"
}

declare -A samples bytes isamples
for r in $(seq 1 $ROUNDS); do
	for m in $MODES; do
		read -r ns b i < <(run $m)
		samples[$m]+="$ns "
		isamples[$m]+="$i "
		bytes[$m]=$b
	done
done
reset_tracing >/dev/null

median() { tr ' ' '\n' | grep -x '[0-9-]*[0-9]' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
declare -A med
for m in $MODES; do med[$m]=$(echo ${samples[$m]} | median); done
off=${med[off]} none=${med[none]} st=${med[stacktrace]}
ratio() { awk -v a=$1 -v b=$2 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "deferred user stack benchmark: $N getppid() x 4 traced events, median of $ROUNDS rounds, $(nproc) CPUs, pinned to CPU $CPU"
printf '%-14s %10s %9s %6s %9s %11s %9s\n' mode ns/syscall ns/event ratio stack-ns stack-ratio B/syscall
for m in $MODES; do
	ev=$(( (${med[$m]} - off) / 4 ))
	stk=$(( (${med[$m]} - none) / 4 ))
	[ $m = off ] && stk=0
	printf '%-14s %10d %9d %6s %9d %11s %9d\n' $m ${med[$m]} $ev \
		$(ratio $ev $(( (st - off) / 4 ))) $stk $(ratio $stk $(( (st - none) / 4 ))) \
		${bytes[$m]}
done
echo "samples (ns/syscall):"
for m in $MODES; do echo "  $m: ${samples[$m]}"; done

[ $insn = 1 ] || exit 0
declare -A imed
for m in $MODES; do imed[$m]=$(echo ${isamples[$m]} | median); done
if [ -z "${imed[off]:-}" ] || [ -z "${imed[none]:-}" ] || [ -z "${imed[stacktrace]:-}" ]; then
	echo "instruction counts incomplete (see warnings); no instruction table"
	exit 0
fi
# awk: the counts go past 2^31 and the ratios want decimals
echo
echo "instructions (TCG plugin insn-count, CPU $CPU; median of $ROUNDS rounds of the loop of $N syscalls):"
printf '%-14s %12s %10s %6s %10s %11s %9s\n' mode insn/syscall insn/event ratio stack-insn stack-ratio ns/event
for m in $MODES; do
	awk -v m=$m -v n=$N -v i=${imed[$m]} -v off=${imed[off]} -v none=${imed[none]} \
	    -v st=${imed[stacktrace]} -v ns=$(( (${med[$m]} - off) / 4 )) 'BEGIN {
		ev = (i - off) / n / 4; stk = (m == "off") ? 0 : (i - none) / n / 4
		stev = (st - off) / n / 4; ststk = (st - none) / n / 4
		r = (stev > 0) ? ev / stev : 0; sr = (ststk > 0) ? stk / ststk : 0
		printf "%-14s %12.1f %10.1f %6.2f %10.1f %11.2f %9d\n", m, i / n, ev, r, stk, sr, ns
	}'
done
echo "samples (instructions of $N syscalls):"
for m in $MODES; do echo "  $m: ${isamples[$m]}"; done
