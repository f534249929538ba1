#!/bin/bash
# In-guest half of rig/demo.sh: trace the workload with stacktrace:defer
# and show what the kernel wrote, then the merged stacks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing >/dev/null
d=$(idir demo)
mkinst demo
echo 'stacktrace:defer if comm == "callchain"' > $d/events/syscalls/sys_enter_getppid/trigger
echo 1 > $d/events/syscalls/sys_enter_getppid/enable
echo "# echo 'stacktrace:defer if comm == \"callchain\"' > instances/demo/events/syscalls/sys_enter_getppid/trigger"
echo "# cat instances/demo/events/syscalls/sys_enter_getppid/trigger"
cat $d/events/syscalls/sys_enter_getppid/trigger
echo "# $WL/callchain getppid 2     (main -> work_outer -> work_middle -> work_inner -> getppid)"
"$WL"/callchain getppid 2
f=$(save demo demo)
echo
echo "# cat instances/demo/trace   (what the kernel wrote)"
grep -v '^#' "$f"
echo
echo "# merged: the event, its kernel stack, then the user stack of its cookie"
$TC show "$f" "$WL"/callchain
reset_tracing >/dev/null

# The same with trace-cmd record -T (trace-cmd 3.4 with our series,
# FTD_TRACECMD, built on the host by rig/build-tracecmd.sh): -T records
# the deferred user stacks and saves the process maps by itself.
# rig/demo.sh shows its report on the host.
cd "$FTD_RESULTS" &&
echo "# trace-cmd record -T -e syscalls:sys_enter_getppid -F $WL/callchain getppid 2" &&
"${FTD_TRACECMD:-trace-cmd}" record -q -o demo.dat -T -e syscalls:sys_enter_getppid \
	-F "$WL"/callchain getppid 2 > /dev/null &&
echo "# recorded demo.dat with trace-cmd record -T"
