#!/bin/bash
# Guarantee 7 (scale): one unwind client serves 100 instances at once, and
# the instance slots run out cleanly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
F='if comm == "callchain"'

t_begin scale-100-instances
ok=1
for i in $(seq 1 100); do
	mkdir "$TRACEFS/instances/s$i" &&
	echo "stacktrace:defer $F" > "$TRACEFS/instances/s$i/events/syscalls/sys_enter_getppid/trigger" ||
		{ ok=0; break; }
done
if [ $ok = 1 ]; then
	"$WL"/callchain getppid 2
	files=()
	for i in $(seq 1 100); do
		files+=("$(save s$i scale-s$i)")
	done
	check "100 instances, each with its own stacks" $TC complete "${files[@]}" --comm callchain --min 2 &&
	check "one instance resolves" $TC chain "${files[99]}" "$WL"/callchain callchain work_inner,work_middle,work_outer,main --min 2 &&
	t_pass
else
	t_fail "could not set up 100 instances (at s$i)"
fi

t_begin scale-slots-run-out
for i in $(seq 101 160); do
	mkdir "$TRACEFS/instances/s$i" || break
	if ! echo "stacktrace:defer" > "$TRACEFS/instances/s$i/events/syscalls/sys_enter_getppid/trigger" 2>/dev/null; then
		break
	fi
done
last=$i
if [ "$last" -ge 160 ]; then
	t_fail "no limit reached with 160 instances"
elif grep -q 'Too many instances use deferred user stacks' "$TRACEFS/instances/s$last/error_log" &&
     ! grep -q stacktrace "$TRACEFS/instances/s$last/events/syscalls/sys_enter_getppid/trigger" &&
     ! echo 1 > "$TRACEFS/instances/s$last/options/userstacktrace_defer" 2>/dev/null; then
	echo "  ok: instance s$last refused: all slots taken"
	t_pass
else
	t_fail "instance s$last failed without the expected error"
fi

reset_tracing
t_summary
