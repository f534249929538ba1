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
echo "# recorded demo.dat with trace-cmd record -T" || exit 1

# SFrame: sfwork is built -O2 -fomit-frame-pointer -Wa,--gsframe (binutils
# 2.44), so nothing on its chain keeps a frame pointer.  -r registers the
# .sframe of libsfwork.so (the kernel registered the executable's at exec);
# -u unregisters every section, leaving the frame-pointer walk alone.
# Copies of the two binaries go next to the .dat files, where the host's
# trace-cmd report looks first (by build ID: the build that ran).
chain="main -> sf_outer -> sf_middle -> sf_lib_outer -> sf_lib_middle -> sf_lib_leaf -> getppid"
cd "$FTD_RESULTS" &&
echo "# $WL/sfwork: built without frame pointers, with .sframe ($chain)" &&
echo "# trace-cmd record -T -e syscalls:sys_enter_getppid -F $WL/sfwork -r getppid 1" &&
"${FTD_TRACECMD:-trace-cmd}" record -q -o demo-sframe.dat -T -e syscalls:sys_enter_getppid \
	-F "$WL"/sfwork -r getppid 1 > /dev/null 2>&1 &&
echo "# recorded demo-sframe.dat (-r: the library's .sframe registered with prctl)" &&
echo "# trace-cmd record -T -e syscalls:sys_enter_getppid -F $WL/sfwork -u getppid 1" &&
"${FTD_TRACECMD:-trace-cmd}" record -q -o demo-sframe-fp.dat -T -e syscalls:sys_enter_getppid \
	-F "$WL"/sfwork -u getppid 1 > /dev/null 2>&1 &&
echo "# recorded demo-sframe-fp.dat (-u: every .sframe unregistered, frame pointers only)" &&
cp "$WL"/sfwork "$WL"/libsfwork.so "$FTD_RESULTS"/

# Stock programs: Debian's own python3 has neither frame pointers nor
# .sframe.  The series' record -T runs its command with the SFrame
# registrar (libsframe-register.so, installed beside trace-cmd by
# rig/build-tracecmd.sh): SFrame sections made from each object's
# .eh_frame.  --no-sframe-register records the same without it.
py="/usr/bin/python3 -c 'import os; os.getppid()'"
cd "$FTD_RESULTS" &&
echo "# stock Debian python3 (no frame pointers, no .sframe)" &&
echo "# trace-cmd record -T -e syscalls:sys_enter_getppid -F $py" &&
"${FTD_TRACECMD:-trace-cmd}" record -q -o demo-python3.dat -T -e syscalls:sys_enter_getppid \
	-F /usr/bin/python3 -c 'import os; os.getppid()' > /dev/null 2>&1 &&
echo "# recorded demo-python3.dat (with the SFrame registrar)" &&
echo "# trace-cmd record -T --no-sframe-register -e syscalls:sys_enter_getppid -F $py" &&
"${FTD_TRACECMD:-trace-cmd}" record -q -o demo-python3-fp.dat -T --no-sframe-register \
	-e syscalls:sys_enter_getppid -F /usr/bin/python3 -c 'import os; os.getppid()' > /dev/null 2>&1 &&
echo "# recorded demo-python3-fp.dat (without it: frame pointers only)" || exit 1

# System-wide: a stock python3 that was running before the recording (no
# command given to record, so no registrar): record runs the SFrame
# feeder (sframe-feed -a -w), which attaches sections made from .eh_frame
# to the files of the running processes before tracing starts.
# python3 waits for a line, then calls getppid() and exits.
fifo=$(mktemp -u /tmp/demo-fifo.XXXXXX)
mkfifo "$fifo" || exit 1
/usr/bin/python3 -c 'import os, sys; sys.stdin.readline(); os.getppid()' < "$fifo" &
pypid=$!
exec 7> "$fifo"
cd "$FTD_RESULTS" &&
echo "# stock python3 (pid $pypid) already running; system-wide:" &&
echo "# trace-cmd record -T -e syscalls:sys_enter_getppid   (no command; ^C after python3's getppid)" &&
{ "${FTD_TRACECMD:-trace-cmd}" record -q -o demo-system.dat -T -e syscalls:sys_enter_getppid \
	> /dev/null 2>&1 & } &&
rp=$! &&
recording -t 300 syscalls/sys_enter_getppid &&
sleep 2 && echo >&7 && wait "$pypid" && sleep 2 &&
kill -INT "$rp" && wait "$rp" &&
echo "# recorded demo-system.dat (python3's objects given sections by the feeder)"
rc=$?
exec 7>&-
rm -f "$fifo"
exit $rc
