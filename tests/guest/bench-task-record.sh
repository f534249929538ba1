#!/bin/bash
# In-guest half of bench/task-record.sh: what the tracing client's
# per-task record costs in memory, from /proc/slabinfo (boot with
# slab_nomerge, so the record's cache has a line of its own).
#
# Prints, one per line:
#	task_struct objsize=BYTES
#	user_tasks before=N
#	trace_unwind_task before=OBJS objsize=BYTES
#	trace_unwind_task asked=OBJS user_tasks=N
#	trace_unwind_task forked=OBJS user_tasks=N   (with 100 sleepers more)
# A kernel without the cache (the record inside task_struct) prints
# "trace_unwind_task none" instead of the last three.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing >/dev/null

# slab NAME FIELD: active_objs (2) or objsize (4) of a slab cache
slab() { awk -v n="$1" -v f="$2" '$1 == n { print $f; found = 1 } END { exit !found }' /proc/slabinfo; }
# user_tasks: threads that are not kernel threads (PF_KTHREAD, 0x200000)
user_tasks() {
	local s n=0 flags
	for s in /proc/[0-9]*/task/[0-9]*/stat; do
		flags=$(sed 's/.*) //' "$s" 2>/dev/null | awk '{ print $7 }') || continue
		[ -n "$flags" ] && (( (flags & 0x200000) == 0 )) && n=$((n + 1))
	done
	echo $n
}

grep -qw slab_nomerge /proc/cmdline || { echo "boot with slab_nomerge"; exit 1; }
echo "task_struct objsize=$(slab task_struct 4)"
echo "user_tasks before=$(user_tasks)"
if ! b=$(slab trace_unwind_task 2); then
	echo "trace_unwind_task none"
	exit 0
fi
echo "trace_unwind_task before=$b objsize=$(slab trace_unwind_task 4)"
mkinst btr >/dev/null || exit 1
trig btr syscalls/sys_enter_getppid 'stacktrace:defer if comm == "nobody"'
echo "trace_unwind_task asked=$(slab trace_unwind_task 2) user_tasks=$(user_tasks)"
pids=()
for i in $(seq 1 100); do sleep 30 & pids+=($!); done
echo "trace_unwind_task forked=$(slab trace_unwind_task 2) user_tasks=$(user_tasks)"
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
reset_tracing >/dev/null
exit 0
