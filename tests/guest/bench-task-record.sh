#!/bin/bash
# In-guest half of bench/task-record.sh: what the tracing client's
# per-task record costs in memory, from the kernel's own kmem events
# (kmem_cache_alloc/free: bytes_req, bytes_alloc, call_site), recorded in
# an instance of their own:
#	task_struct bytes_req=B bytes_alloc=B        (a fork's task_struct)
#	user_tasks N
#	first_ask records=N bytes_alloc=B            (the pass over the tasks)
#	forks records=N of 100                       (100 tasks forked after)
#	exits freed=N of 100                         (the same 100 killed,
#	                                              2 s later)
# A kernel whose record is inside task_struct allocates none: it prints
# "first_ask records=0".  This script must be the first of its boot to
# ask for deferred user stacks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing >/dev/null

# user_tasks: threads that are not kernel threads (PF_KTHREAD, 0x200000)
user_tasks() {
	local s n=0 flags
	for s in /proc/[0-9]*/task/[0-9]*/stat; do
		flags=$(sed 's/.*) //' "$s" 2>/dev/null | awk '{ print $7 }') || continue
		[ -n "$flags" ] && (( (flags & 0x200000) == 0 )) && n=$((n + 1))
	done
	echo $n
}

mkinst btr >/dev/null || exit 1
d=$(idir btr)
echo 8192 > "$d/buffer_size_kb"
echo 1 > "$d/events/kmem/kmem_cache_alloc/enable"
echo 1 > "$d/events/kmem/kmem_cache_free/enable"
mark() { echo "phase=$1" > "$d/trace_marker"; }
mark fork; /bin/true
n=$(user_tasks)
mark first_ask
mkinst ask >/dev/null && trig ask syscalls/sys_enter_getppid 'stacktrace:defer if comm == "nobody"'
mark forks
pids=()
for i in $(seq 1 100); do sleep 30 & pids+=($!); done
mark exits
kill -9 "${pids[@]}" 2>/dev/null
wait 2>/dev/null
# a task is freed after an RCU grace period (delayed_put_task_struct())
sleep 2
mark end
echo 0 > "$d/tracing_on"
cp "$d/trace" "$TRACES/task-record.txt"
echo "user_tasks $n"
awk '
	/phase=/ { sub(/.*phase=/, ""); phase = $1; next }
	/kmem_cache_alloc:/ && / name=task_struct / && !ts {
		match($0, /bytes_req=[0-9]+ bytes_alloc=[0-9]+/); ts = substr($0, RSTART, RLENGTH) }
	/kmem_cache_alloc:/ && /call_site=trace_unwind_/ {
		rec[phase]++; match($0, /bytes_alloc=[0-9]+/); ba = substr($0, RSTART, RLENGTH)
		match($0, /ptr=[0-9a-f]+/); mine[substr($0, RSTART, RLENGTH)] = 1 }
	/kmem_cache_free:/ { match($0, /ptr=[0-9a-f]+/); p = substr($0, RSTART, RLENGTH)
		if (mine[p]) { freed[phase]++; delete mine[p] } }
	END {
		print "task_struct", (ts ? ts : "none seen")
		print "first_ask records=" rec["first_ask"] + 0, ba
		print "forks records=" rec["forks"] + 0, "of 100"
		print "exits freed=" freed["exits"] + freed["end"] + 0, "of 100"
		exit (!ts)
	}' "$TRACES/task-record.txt"
rc=$?
reset_tracing >/dev/null
exit $rc
