#!/bin/sh
# The guest half of bench/s390x.sh (busybox sh, s390x guest, in /ftd):
# bcwork-bc's bench loop (N getppid() calls between the instruction-count
# markers) at user stacks of 3 and 40 frames, without and with
# stacktrace:defer on sys_enter_getppid, REPS times each, in the order of
# the "=== run" lines (the plugin's counts come in the same order).
N=${N:-2000} REPS=${REPS:-3}
T=/sys/kernel/tracing
E=$T/events/syscalls/sys_enter_getppid
echo 8192 > $T/buffer_size_kb
for frames in 3 40; do
	for mode in off defer; do
		r=0
		while [ $r -lt $REPS ]; do
			echo 0 > $T/tracing_on
			echo > $T/trace
			[ $mode = defer ] && echo 'stacktrace:defer if comm == "bcwork-bc"' > $E/trigger
			echo 1 > $T/tracing_on
			echo "=== run $mode $frames"
			./bcwork-bc bench $N $frames
			echo 0 > $T/tracing_on
			if [ $mode = defer ]; then
				echo '!stacktrace:defer' > $E/trigger
				echo "=== stacks $(grep -c ' user_stack_deferred: ' $T/trace)"
				grep -m1 ' user_stack_deferred: ' $T/trace | sed 's/^/=== sample /'
			fi
			r=$((r + 1))
		done
	done
done
exit 0
