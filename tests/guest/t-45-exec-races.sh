#!/bin/bash
# Races around the flush of deferred user stacks in execve() (issue 7).
#
# exec-flush-second-client (issue 7 A): begin_new_exec() flushes pending
# requests with unwind_deferred_task_exit(), which clears UNWIND_PENDING,
# walks the user stack (it may fault and sleep) and runs the callbacks,
# and only then cancels the task work that is still queued.  A second
# client that asks inside that walk finds PENDING clear and its own bit
# unset, so it task_work_add()s the callback_head that is still on the
# task's list: the list loops on itself and the task never leaves
# task_work_run().
#
# Two clients: perf (`--call-graph fp,defer`) asks at sys_enter of the
# execve; ftrace asks only from a page fault that the kernel takes on the
# user stack, which the workload makes happen inside the flush's walk
# (callchain exec-unmapped drops the stack pages of its outer frames and
# renames itself "xunmapped" right before the execve; nothing else it
# does after the rename faults in the kernel).  The workload must exit
# and both clients must get the old image's stack.
#
# On the kernel without the fix (the 08:24 build of 0001) it failed in 5
# of 5 boots: the task spun in task_work_run() after execve, with the
# WARN_ON_ONCE(!pending) of process_unwind_deferred() on the console.
# Such a task is not harmless for the rest of the boot: a later request
# on it (from an interrupt, say) re-links the looping work to whatever is
# queued, which then runs twice; once that was an fput(), and the second
# __fput() oopsed in v9fs_dir_release() and wedged the guest.  So after a
# hang the clean-up is bounded, and later scripts may still fail.
#
# Needs perf built by rig/build-perf.sh (FTD_PERF, set by rig/test-all.sh);
# without it the test fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
PERF=${FTD_PERF:-}
HANG=${T_EXEC_HANG:-60}	# seconds before the workload counts as hung
D=$FTD_RESULTS/exec-races
mkdir -p "$D"

# wait_pid PID SECS: wait for a child to end; 1 when it is still running
wait_pid() {
	local end=$((SECONDS + $2))
	while kill -0 "$1" 2>/dev/null; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
	return 0
}

# What a hung task looks like, for the failure message and the results
hang_report() { # PID...
	local p c
	for p in "$@"; do
		[ -d /proc/$p ] || continue
		echo "pid $p ($(cat /proc/$p/comm 2>/dev/null)): state $(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)," \
			"utime+stime $(awk '{ print $14 + $15 }' /proc/$p/stat 2>/dev/null) ticks"
		cat /proc/$p/stack 2>/dev/null | head -12
	done
	for c in $(pgrep -x xunmapped; pgrep -x callchain); do
		[ -d /proc/$c ] && echo "pid $c ($(cat /proc/$c/comm)): state $(awk '{ print $3 }' /proc/$c/stat)"
	done
	dmesg | grep -E -A12 'WARNING:.*(unwind|task_work)|soft lockup|hung_task|blocked for more' | head -40
}

# workload_hung PID SECS: perf (PID) runs on, and so does its child, the
# workload, after SECS.  Perf alone, after its workload ended (its file,
# the build IDs: over a minute on a debug guest of a loaded host, where
# this once counted as a hang with no task left), is waited for up to 20
# times as long.
workload_hung() {
	wait_pid "$1" "$2" && return 1
	[ -n "$(pgrep -P "$1")" ] && return 0
	! wait_pid "$1" $(($2 * 20))
}

t_begin exec-flush-second-client
ev=$TRACEFS/events/exceptions/page_fault_kernel
if [ -z "$PERF" ] || ! [ -x "$PERF" ]; then
	t_fail "no perf: FTD_PERF='$PERF' (rig/test-all.sh builds it with rig/build-perf.sh)"
elif ! [ -d "$ev" ]; then
	t_fail "this kernel has no exceptions:page_fault_kernel event"
else
	rm -f "$D"/perf.data* "$D"/*.txt
	mkinst xflush &&
	echo 'comm == "xunmapped"' > "$(idir xflush)/events/exceptions/page_fault_kernel/filter" &&
	echo 1 > "$(idir xflush)/events/exceptions/page_fault_kernel/enable" &&
	trig xflush exceptions/page_fault_kernel 'stacktrace:defer:1 if comm == "xunmapped"' &&
	{
		# perf asks at the execve (59) and the new image's getppid (110)
		"$PERF" record -q -e raw_syscalls:sys_enter --filter 'id == 59 || id == 110' \
			--call-graph fp,defer -o "$D/perf.data" -- \
			"$WL"/callchain exec-unmapped "$WL"/callchain > "$D/perf-record.txt" 2>&1 &
		pid=$!
		if workload_hung $pid "$HANG"; then
			kids=$(pgrep -P $pid)
			report=$(hang_report $pid $kids)
			echo "$report" > "$D/hang.txt"
			echo "$report"
			cat "$(idir xflush)/trace" > "$TRACES/exec-flush-second-client.txt"
			kill -INT $pid 2>/dev/null; wait_pid $pid 5 || kill -KILL $pid 2>/dev/null
			echo 0 > "$(idir xflush)/events/exceptions/page_fault_kernel/enable"
			st=$(for k in $kids; do echo "pid $k state $(awk '{ print $3 }' /proc/$k/stat 2>/dev/null)"; done)
			hung=1
			t_fail "execve hung: the workload did not exit within ${HANG}s (a task_works loop after a request inside the exec flush?): $(echo $st); $(dmesg | grep -m1 -o 'WARNING: .*')"
			false
		fi
	} &&
	wait $pid && rc=0 || rc=$?
	if [ -n "$_t_cur" ]; then
		f=$(save xflush exec-flush-second-client)
		"$PERF" script -i "$D/perf.data" > "$D/perf-script.txt" 2> "$D/perf-script.err"
		check "perf record and the workload succeeded" test "$rc" = 0 &&
		check "the new image ran" grep -q 'NR 110' "$D/perf-script.txt" &&
		check "ftrace asked from a fault inside the flush's walk" \
			awk '/user_stack_cookie:/ { s = 1; pf = uw = 0; next }
			s && /=>/ { if (/exc_page_fault/) pf = 1
				if (/unwind_user|process_unwind_deferred|unwind_deferred_task_exit/) uw = 1
				if (pf && uw) found = 1; next }
			{ s = 0 } END { exit !found }' "$f" &&
		check "ftrace's cookie resolves" $TC complete "$f" --min 1 &&
		check "ftrace got the old image's stack" $TC chain "$f" "$WL"/callchain - work_inner,work_middle,work_outer,work_padded &&
		check "perf got the old image's stack at the execve" \
			awk '/NR 59/ { e = 1; next } e && /work_inner/ { a = 1 } e && /work_padded/ { b = 1 } /^$/ { e = 0 } END { exit !(a && b) }' "$D/perf-script.txt" &&
		t_pass
	fi
fi
# After exec_mmap(), execve() answers the requests still pending and
# starts a new entry: a new cookie, no cached frames.  A request from an
# interrupt between the two (perf's "fp,defer" from a sample) made the
# reset, which waited for no pending work, skip: the new image kept the
# old cookie and frames, and a request at sched_process_exec was answered
# with the old image's stack (issue 35, defect 3).  The debug kernel calls
# rig_exec_window() there (kernel-config/debug.patch): perf asks from a
# kprobe on it, its only event, so its first request of the entry is made
# in that window; ftrace asks at sys_enter_execve and sched_process_exec.
# Only the debug kernel has the function: elsewhere the test is skipped.
t_begin exec-reset-despite-late-request
kp=$TRACEFS/kprobe_events
if [ -n "${hung:-}" ]; then
	t_skip "the task of the test before hung"
elif ! race_hooks; then
	t_skip "needs the race hooks of kernel-config/debug.patch (rig/build-kernel.sh --debug)"
elif [ -z "$PERF" ] || ! [ -x "$PERF" ]; then
	t_fail "no perf: FTD_PERF='$PERF' (rig/test-all.sh builds it with rig/build-perf.sh)"
elif ! echo 'p:ftd_exec_window rig_exec_window' >> "$kp"; then
	t_fail "cannot add a kprobe on rig_exec_window"
else
	reset_tracing
	mkinst xreset &&
	trig xreset syscalls/sys_enter_execve 'stacktrace:defer if comm == "callchain"' &&
	trig xreset sched/sched_process_exec 'stacktrace:defer if filename == "/bin/true"' &&
	"$PERF" record -q -e kprobes:ftd_exec_window --call-graph fp,defer -o "$D/perf-reset.data" -- \
		"$WL"/callchain exec /bin/true > "$D/perf-reset.txt" 2>&1 &&
	f=$(save xreset exec-reset-late-request) &&
	"$PERF" script -i "$D/perf-reset.data" > "$D/perf-reset-script.txt" 2>&1 &&
	n=$(grep -c 'ftd_exec_window' "$D/perf-reset-script.txt") &&
	check "perf asked in the window ($n samples)" test "$n" -ge 1 &&
	check "every cookie resolves" $TC complete "$f" --min 2 &&
	check "old image before, new image after" $TC exec "$f" "$WL"/callchain &&
	t_pass
	echo '-:ftd_exec_window' >> "$kp" 2>/dev/null
fi

if [ -n "${hung:-}" ]; then
	# The task spinning in the kernel can block the clean-up (it never
	# schedules voluntarily): give it a minute, then say where it waits
	( reset_tracing ) &
	cpid=$!
	if ! wait_pid $cpid 60; then
		echo "clean-up after the hang blocked:"
		for p in $cpid $(pgrep -P $cpid); do
			echo "pid $p ($(cat /proc/$p/comm 2>/dev/null)) state $(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)"
			cat /proc/$p/stack 2>/dev/null
		done | tee "$D/cleanup-blocked.txt"
	fi
else
	reset_tracing
fi
t_summary
