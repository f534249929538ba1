#!/bin/bash
# In-guest half of bench/kernel.sh: the cost of stack traces per event,
# measured side by side in one boot.  A getppid() loop; four events fire
# per syscall (sys_enter_getppid, sys_exit_getppid, raw_syscalls
# sys_enter and sys_exit), only for the benchmark's own pid.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
N=${BENCH_N:-20000}
ROUNDS=${BENCH_ROUNDS:-5}
EVENTS="syscalls/sys_enter_getppid syscalls/sys_exit_getppid raw_syscalls/sys_enter raw_syscalls/sys_exit"
MODES="none stacktrace userstacktrace defer"

setup() { # MODE
	local d=$TRACEFS/instances/bench e
	reset_tracing >/dev/null
	mkdir $d && echo 65536 > $d/buffer_size_kb
	for e in $EVENTS; do
		echo 1 > $d/events/$e/enable
		case $1 in
		stacktrace|userstacktrace) echo stacktrace > $d/events/$e/trigger ;;
		defer) echo stacktrace:defer > $d/events/$e/trigger ;;
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
base=${med[none]}
st=$(( ${med[stacktrace]} - base ))
echo "deferred user stack benchmark: $N getppid() x 4 traced events, median of $ROUNDS rounds, $(nproc) CPUs"
printf '%-16s %12s %14s %18s %16s\n' mode ns/syscall ns/event-extra ratio-to-stacktrace buffer-B/syscall
for m in $MODES; do
	extra=$(( (${med[$m]} - base) ))
	printf '%-16s %12d %14d %18s %16d\n' $m ${med[$m]} $((extra / 4)) \
		$(awk -v a=$extra -v b=$st 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }') ${bytes[$m]}
done
echo "samples (ns/syscall):"
for m in $MODES; do echo "  $m: ${samples[$m]}"; done
