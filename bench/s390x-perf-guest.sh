#!/bin/sh
# The guest half of bench/s390x-perf.sh (busybox sh, s390x guest, in
# /ftd): bytes per event of stacktrace:defer and of perf record
# --call-graph dwarf (and fp) on the same event, sys_enter_getppid of
# bcwork-bc's bench loop (N getppid() calls), at user stacks of 3 and 40
# frames.  Prints "=== ..." lines for the host.
N=${N:-500}
T=/sys/kernel/tracing
E=$T/events/syscalls/sys_enter_getppid
echo 8192 > $T/buffer_size_kb
echo "=== perf-version $(./perf --version 2>&1)"
# /proc/sys/kernel/perf_event_paranoid exists when the kernel has
# CONFIG_PERF_EVENTS; without it perf_event_open() is not there.
[ -e /proc/sys/kernel/perf_event_paranoid ] && pe=yes || pe=no
echo "=== perf-events $pe"
# perf report -D prints every record as "... [0xSIZE]: PERF_RECORD_TYPE":
# the bytes of the sample records, summed.
hexsum='function hex(s,  i, c, v) { v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
	return v }
/\[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE/ { m = $0; sub(/.*\[0x/, "", m); sub(/\].*/, "", m); s += hex(m); n++ }
END { printf "sample_bytes=%d samples=%d\n", s, n }'
for frames in 3 40; do
	# Ours: the trigger alone, as bench/s390x.sh runs it; the ring
	# buffer's per-cpu "bytes" (the written events, headers included).
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 'stacktrace:defer if comm == "bcwork-bc"' > $E/trigger
	echo 1 > $T/tracing_on
	./bcwork-bc bench $N $frames > /dev/null
	echo 0 > $T/tracing_on
	echo '!stacktrace:defer' > $E/trigger
	b=$(cat $T/per_cpu/cpu*/stats | awk '/^bytes:/ { s += $2 } END { print s + 0 }')
	o=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	echo "=== ours $frames bytes=$b overrun=$o calls=$N stacks=$(grep -c ' user_stack_deferred: ' $T/trace) cookies=$(grep -c ' user_stack_cookie: ' $T/trace)"
	grep -m1 ' user_stack_deferred: ' $T/trace | sed "s/^/=== sample ours $frames /"
	echo > $T/trace
	for cg in dwarf fp; do
		rm -f /tmp/perf.data
		./perf record -o /tmp/perf.data -e syscalls:sys_enter_getppid -c 1 \
			--call-graph $cg ./bcwork-bc bench $N $frames > /tmp/perf.out 2>&1
		rc=$?
		size=$(cat /tmp/perf.data 2>/dev/null | wc -c)
		s=$(./perf report -D -i /tmp/perf.data 2>/dev/null | awk "$hexsum")
		echo "=== perf $cg $frames rc=$rc file_bytes=$size calls=$N $s"
		[ $rc = 0 ] || grep -v '^bench ' /tmp/perf.out | head -6 | sed "s/^/=== perf-out $cg $frames /"
	done
done
exit 0
