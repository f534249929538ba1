#!/bin/bash
# mmap:exec_mapping (series 7-exec-mapping): one event for each new
# executable mapping of a file, equal to what /proc/PID/maps showed while
# it was mapped (the kernel's own account, printed by the workload), with
# the process's tgid and the build ID readelf reads from the file; none
# for data or anonymous executable mappings; none while the event is off.
# The workload (tests/workload/execmap) dlopen()s a library, dlclose()s
# it and dlopen()s another where it was, and mprotect()s a data mapping
# of a file executable.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
EM="python3 $REPO/tests/guest/exec_mapping.py"
SCRATCH=$(mktemp -d /tmp/exec-mapping.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT

t_begin exec-mapping-event-exists
if [ ! -f "$TRACEFS/events/mmap/exec_mapping/format" ]; then
	t_fail "no mmap:exec_mapping event in this kernel"
	t_summary
	exit
fi
t_pass

mkinst emap || exit 1
E=$(idir emap)/events/mmap/exec_mapping
echo 1 > "$E/enable"
"$WL"/execmap > "$SCRATCH/on.out"
echo 0 > "$E/enable"
F=$(save emap exec-mapping)
cp "$SCRATCH/on.out" "$TRACES/exec-mapping-workload.txt"

t_begin exec-mapping-equals-proc-maps
check "events against /proc/PID/maps" $EM "$F" "$SCRATCH/on.out" maps && t_pass
t_begin exec-mapping-tgid
check "tgid" $EM "$F" "$SCRATCH/on.out" tgid && t_pass
t_begin exec-mapping-exec-flag
check "exec=" $EM "$F" "$SCRATCH/on.out" exec && t_pass
t_begin exec-mapping-build-id-equals-readelf
check "build IDs" $EM "$F" "$SCRATCH/on.out" build-id && t_pass

# Off, nothing: the same workload, the event disabled
t_begin exec-mapping-none-while-off
echo > "$(idir emap)/trace"
"$WL"/execmap > "$SCRATCH/off.out"
check "event off" $EM "$(save emap exec-mapping-off)" "$SCRATCH/off.out" none && t_pass
rmdir "$(idir emap)"
t_summary
