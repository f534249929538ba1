#!/bin/bash
# In-guest half of bench/report.sh: records the trace.dat files it reads,
# with the trace-cmd of rig/build-tracecmd.sh, `record -T` (kernel stack,
# cookie and deferred user stack for every event, the maps of the traced
# tasks), into $FTD_RESULTS.
#
#   bench-report-record.sh TRACE-CMD KIND N [KIND N ...]
#
# KIND:
#   single  one task, one binary: callchain getppid N
#   multi   four tasks at once, three binaries and a shared library:
#           callchain getppid, callchain-pie getppid, sfwork -r getppid
#           (libsfwork.so, SFrame) and callchain bench at depth 10, N/4
#           getppid each
#   stuck   callchain getppid N while four tasks sit in nanosleep
#           (callchain sleep): each asked at sys_enter_nanosleep and gets
#           its user stack only when it is killed after the loop, so a
#           reader holds four events from the first records to the last
# Each file is KIND-N.dat.  Exits non-zero when a record fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
tc=$1
shift
cd "$FTD_RESULTS" || exit 1
reset_tracing >/dev/null
rc=0
while [ $# -ge 2 ]; do
	kind=$1 n=$2
	shift 2
	q=$((n / 4))
	ev=(-e syscalls:sys_enter_getppid)
	case $kind in
	single) cmd="$WL/callchain getppid $n" ;;
	multi) cmd="$WL/callchain getppid $q & $WL/callchain-pie getppid $q &
		$WL/sfwork -r getppid $q & $WL/callchain bench $q 10 > /dev/null & wait" ;;
	stuck) ev+=(-e syscalls:sys_enter_nanosleep)
		cmd="p=''; for i in 1 2 3 4; do $WL/callchain sleep 3600000 & p=\"\$p \$!\"; done;
		$WL/callchain getppid $n; kill \$p; wait" ;;
	*) echo "unknown kind $kind"; exit 2 ;;
	esac
	echo "recording $kind-$n.dat: $cmd"
	if "$tc" record -q -T "${ev[@]}" -b 20000 -o "$kind-$n.dat.tmp" -F -c sh -c "$cmd"; then
		mv "$kind-$n.dat.tmp" "$kind-$n.dat"
	else
		echo "record of $kind-$n failed"
		rc=1
	fi
done
exit $rc
