#!/bin/sh
# The guest half of bench/s390x.sh (busybox sh, s390x guest, in /ftd):
# the bench loop of tests/s390x/bcwork.c (N getppid() calls between the
# instruction-count markers) at user stacks of 3 and 40 frames, without
# and with stacktrace:defer on sys_enter_getppid, REPS times each, for
# two unwinders: bcwork-bc (-mbackchain, the back chain) and bcwork-nobc
# with its SFrame section registered (sframe-gen's, before the loop).
# The "=== run UNWINDER MODE FRAMES" lines come in the order of the
# plugin's counts.
N=${N:-2000} REPS=${REPS:-3}
T=/sys/kernel/tracing
E=$T/events/syscalls/sys_enter_getppid
echo ${BUF_KB:-8192} > $T/buffer_size_kb
# the kernel's text symbols, for a profile of the counts (BENCH_PROF=1)
grep ' [tT] ' /proc/kallsyms | sed 's/^/=== ksym /' 
for unw in backchain sframe; do
	if [ $unw = backchain ]; then
		comm=bcwork-bc prog="./bcwork-bc"
	else
		comm=bcwork-nobc prog="./bcwork-nobc sframe ./bcwork-nobc.sframe"
	fi
	for frames in 3 40; do
		for mode in off defer; do
			r=0
			while [ $r -lt $REPS ]; do
				echo 0 > $T/tracing_on
				echo > $T/trace
				[ $mode = defer ] && echo "stacktrace:defer if comm == \"$comm\"" > $E/trigger
				echo 1 > $T/tracing_on
				echo "=== run $unw $mode $frames"
				$prog bench $N $frames
				echo 0 > $T/tracing_on
				if [ $mode = defer ]; then
					echo '!stacktrace:defer' > $E/trigger
					# what bench/s390x.sh checks before it keeps the run
					echo "=== stacks $unw $frames $(grep -c ' user_stack_deferred: ' $T/trace)" \
						"$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { o += $2 }
							/^dropped events:/ { d += $3 }
							END { printf "overrun=%d dropped=%d", o, d }')" \
						"unwinders=$(grep ' user_stack_deferred: ' $T/trace |
							sed -n 's/.* unwinder=\([^ ]*\).*/\1/p' | sort -u | tr '\n' ',')"
					grep -m1 ' user_stack_deferred: ' $T/trace | sed "s/^/=== sample $unw $frames /"
				fi
				r=$((r + 1))
			done
		done
	done
done
exit 0
