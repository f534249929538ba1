#!/bin/sh
# The guest half of tests/s390x/record-fixture.sh (busybox sh, s390x guest,
# in /ftd with bcmini): trace bcmini's three getppid() calls with
# stacktrace:defer, then print what a trace.dat is made of, each file as
# "=== file NAME" + base64 + "=== end NAME": the ring buffer pages as read
# from per_cpu/cpuN/trace_pipe_raw, the formats, kallsyms, printk formats,
# saved_cmdlines and bcmini's /proc/PID/maps.  The host assembles them
# (tests/userspace/lib/mktrace.py --guest-log): there is no trace-cmd
# for s390x here.
T=/sys/kernel/tracing
E=$T/events/syscalls/sys_enter_getppid
echo 0 > $T/tracing_on
echo > $T/trace
echo 'comm == "bcmini"' > $E/filter
echo 1 > $E/enable
echo 'stacktrace:defer if comm == "bcmini"' > $E/trigger
echo 1 > $T/tracing_on
./bcmini &
pid=$!
sleep 1
cat /proc/$pid/maps > /tmp/maps
wait $pid
echo "=== rc $?"
echo 0 > $T/tracing_on
echo "=== pid $pid"
grep -v '^#' $T/trace | sed 's/^/=== trace /'

dump() {
	echo "=== file $1"
	base64 < "$2"
	echo "=== end $1"
}
dump header_page $T/events/header_page
dump header_event $T/events/header_event
dump ftrace/user_stack_cookie $T/events/ftrace/user_stack_cookie/format
dump ftrace/user_stack_deferred $T/events/ftrace/user_stack_deferred/format
dump syscalls/sys_enter_getppid $E/format
dump kallsyms /proc/kallsyms
dump printk_formats $T/printk_formats
dump saved_cmdlines $T/saved_cmdlines
dump maps /tmp/maps
for d in $T/per_cpu/cpu*; do
	c=${d##*/cpu}
	# the pipe waits for more data once empty: 3 s is plenty for a page or two
	timeout 3 cat $d/trace_pipe_raw > /tmp/raw$c
	dump cpu$c /tmp/raw$c
done
exit 0
