#!/bin/bash
# A deferred stack trigger on a *syscall* event, set on the kernel command
# line.  Run in a boot of its own (rig/test-all.sh, suite
# guest-boot-syscall) with exactly:
#   trace_event=syscalls:sys_enter_getppid
#   trace_trigger=sys_enter_getppid.stacktrace:defer
# Stock 7.3 registers boot triggers before pid 1 exists; the trigger kept
# the syscall tracepoint registered, so no task ever got
# SYSCALL_WORK_SYSCALL_TRACEPOINT and every syscall event, this one and any
# enabled later, recorded nothing for the whole boot.  Patch 0001 ("tracing:
# Let tasks forked from init_task inherit the syscall tracepoint flag")
# fixes it; without it the last two tests fail (no sys_getppid() and no
# sys_getpid() record).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"

ev=$TRACEFS/events/syscalls/sys_enter_getppid

t_begin boot-syscall-trigger-installed
check "the boot command line asks for it" \
	grep -q 'trace_trigger=sys_enter_getppid.stacktrace:defer' /proc/cmdline &&
check "the event is enabled (1*: with a trigger)" grep -qx "1\*" "$ev/enable" &&
check "the trigger is installed" grep -q '^stacktrace:defer' "$ev/trigger" &&
check "no trigger failed at boot" sh -c '! dmesg | grep "Failed to register trigger"' &&
t_pass

t_begin boot-syscall-trigger-records
# Each getppid() of the workload is recorded, with the kernel stack and a
# cookie from the trigger and, once, the user stack of the workload's chain
echo > "$TRACEFS/trace"
"$WL"/callchain getppid 3
f=$(save "" boot-syscall-trigger)
n=$(grep -c 'callchain-.*sys_getppid()' "$f")
k=$(kstacks "$f")
check "3 sys_getppid() records of the workload (found $n)" test "$n" = 3 &&
check "each with its kernel stack ($k cookies with one)" test "$k" -ge 3 &&
check "1 stack per entry" $TC complete "$f" --comm callchain --min 3 &&
check "the workload's chain" $TC chain "$f" "$WL/callchain" callchain \
	work_inner,work_middle,work_outer,main --min 3 &&
t_pass

t_begin boot-syscall-trigger-other-events
# The other syscall events work too: one enabled now, from tracefs
echo > "$TRACEFS/trace"
echo 1 > "$TRACEFS/events/syscalls/sys_enter_getpid/enable"
"$WL"/callchain kill
f=$(save "" boot-syscall-other)
echo 0 > "$TRACEFS/events/syscalls/sys_enter_getpid/enable"
check "a sys_getpid() record of the workload" grep -q 'callchain-.*sys_getpid()' "$f" &&
t_pass

t_summary
