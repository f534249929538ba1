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
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
N=${BENCH_N:-20000}
ROUNDS=${BENCH_ROUNDS:-5}
EVENTS="syscalls/sys_enter_getppid syscalls/sys_exit_getppid raw_syscalls/sys_enter raw_syscalls/sys_exit"
MODES=${BENCH_MODES:-"off none stacktrace userstacktrace defer defer-first"}

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

run() { # MODE -> prints "ns_per_syscall bytes_per_syscall"
	local d=$TRACEFS/instances/bench ns bytes overrun
	setup $1
	ns=$(sh -c "echo \$\$ > $d/set_event_pid; exec $WL/callchain bench $N")
	bytes=$(cat $d/per_cpu/cpu*/stats | awk '/^bytes:/ { s += $2 } END { print s }')
	overrun=$(cat $d/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s }')
	[ "$overrun" = 0 ] || echo "warning: $1 overran the buffer ($overrun)" >&2
	echo "$ns $((bytes / N))"
}

declare -A samples bytes
for r in $(seq 1 $ROUNDS); do
	for m in $MODES; do
		read -r ns b < <(run $m)
		samples[$m]+="$ns "
		bytes[$m]=$b
	done
done
reset_tracing >/dev/null

median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
declare -A med
for m in $MODES; do med[$m]=$(echo ${samples[$m]} | median); done
off=${med[off]} none=${med[none]} st=${med[stacktrace]}
ratio() { awk -v a=$1 -v b=$2 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "deferred user stack benchmark: $N getppid() x 4 traced events, median of $ROUNDS rounds, $(nproc) CPUs"
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
