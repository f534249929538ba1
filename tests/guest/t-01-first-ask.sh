#!/bin/bash
# The per-task record of the tracing client (issue 35 "Costs"): not in
# task_struct, but allocated for every user task when the first instance
# asks, and by fork from then on.  This script must be the first of its
# boot to ask for deferred user stacks (run-all.sh runs scripts sorted,
# and t-00 asks for none): what it checks happens once per boot.
#
# callchain forks children, one at a time, for 4 s, and the first
# instance starts asking 1 s in: the parent and the child alive then were
# running before (given their records by the pass over the task list),
# the child forked meanwhile races that pass (given its record by fork or
# by the pass), the later ones get theirs by fork.  Every getppid() event
# of every one of them must record a cookie and get its stack: a task
# left without a record would record its events with no cookie.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing

# asked_all TRACE: from the first cookie in TRACE on, every getppid()
# event of a callchain task is followed by its task's cookie record
asked_all() {
	awk '/^ *callchain-[0-9]+ / {
		n = split($1, a, "-"); pid = a[n]
		if ($0 ~ /user_stack_cookie:/) { on = 1; pend[pid] = 0; asked[pid] = 1; next }
		if ($0 !~ /sys_getppid\(/) next
		events++
		if (!on) { before++; next }
		if (pend[pid]) { miss++; bad = bad " " pid }
		pend[pid] = 1
	}
	END {
		for (p in pend) if (pend[p]) { miss++; bad = bad " " p }
		for (p in asked) tasks++
		printf "%d events, %d before the first cookie, %d tasks asked", events, before, tasks
		if (miss) printf "; %d events without a cookie, pids:%s", miss, bad
		print ""
		exit (miss || tasks < 20)
	}' "$1"
}

t_begin first-ask-every-task-has-a-record
mkinst first &&
echo 1 > "$(idir first)"/events/syscalls/sys_enter_getppid/enable &&
{ "$WL"/callchain forks 4000 & pid=$!; } &&
sleep 1 &&
trig first syscalls/sys_enter_getppid 'stacktrace:defer if comm == "callchain"' &&
wait $pid &&
f=$(save first first-ask) &&
check "every event after the first ask has a cookie" asked_all "$f" &&
check "each cookie has its stack" $TC complete "$f" --comm callchain --min 20 &&
t_pass

t_summary
