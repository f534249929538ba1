#!/bin/bash
# Deferred user stacks asked for on the kernel command line, which is
# applied early in boot, before most of tracing's initcalls.  Run in a boot
# of its own (rig/test-all.sh, suite guest-boot) with:
#   trace_options=userstacktrace_defer
#   trace_event=syscalls:sys_enter_getppid
#   trace_trigger=signal_generate.stacktrace:defer
# The option makes every event of the top instance ask (sys_enter_getppid);
# the trigger makes signal_generate ask (the workload's kill() of itself).
# A boot trigger on a syscall event has a boot of its own
# (boot-syscall-trigger.sh, suite guest-boot-syscall): stock 7.3 left every
# syscall event dead with one, which patch 0001 fixes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"

t_begin boot-option-userstacktrace-defer
check "the option is set" grep -qx 1 "$TRACEFS/options/userstacktrace_defer" &&
check "the event is enabled" grep -qx 1 "$TRACEFS/events/syscalls/sys_enter_getppid/enable" &&
t_pass

t_begin boot-trigger-stacktrace-defer
check "the trigger is installed" grep -q '^stacktrace:defer' \
	"$TRACEFS/events/signal/signal_generate/trigger" &&
check "no trigger failed at boot" sh -c '! dmesg | grep "Failed to register trigger"' &&
t_pass

t_begin boot-params-deliver
# The boot-time requests work: each getppid() and the kill() get exactly
# one user stack, named after the workload's chain.
echo > "$TRACEFS/trace"
"$WL"/callchain getppid 3 && "$WL"/callchain kill &&
f=$(save "" boot-params) &&
check "1 stack per entry, 3 getppid + 1 kill" $TC complete "$f" --comm callchain --min 4 &&
check "the kill() asked through the trigger" \
	grep -q -A1 '=> trace_event_raw_event_signal_generate' "$f" &&
check "the workload's chain" $TC chain "$f" "$WL/callchain" callchain \
	work_inner,work_middle,work_outer,main --min 4 &&
t_pass

t_summary
