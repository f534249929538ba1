#!/bin/bash
# The per-task record of the tracing client (issue 35 "Costs"): not in
# task_struct, but allocated for every user task when the first instance
# asks, and by fork from then on.  This script must be the first of its
# boot to ask for deferred user stacks (run-all.sh runs scripts sorted,
# and t-00 asks for none): what it checks happens once per boot.
#
# callchain forks children, one at a time, until killed; the first
# instance starts asking once its first children have run: the parent and
# the child alive then were running before (given their records by the
# pass over the task list), the child forked meanwhile races that pass
# (given its record by fork or by the pass), the later ones get theirs by
# fork.  Every getppid() event of every one of them must record a cookie
# and get its stack: a task left without a record would record its events
# with no cookie.  Waits by counting records, not by time: the debug
# kernel under TCG forks about 2 children a second.
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
		if (pend[pid]) { if (miss++ < 10) bad = bad " " pid }
		pend[pid] = 1
	}
	END {
		for (p in pend) if (pend[p] && miss++ < 10) bad = bad " " p
		for (p in asked) tasks++
		printf "%d events, %d before the first cookie, %d tasks asked", events, before, tasks
		if (miss) printf "; %d events without a cookie, pids (first 10):%s", miss, bad
		print ""
		exit (miss || tasks < 20)
	}' "$1"
}

# until_count INST REGEX N: wait (up to 300 s) for N lines matching REGEX
until_count() {
	local i
	for i in $(seq 1 600); do
		[ "$(grep -c "$2" "$(idir "$1")/trace")" -ge "$3" ] && return 0
		sleep 0.5
	done
	t_fail "fewer than $3 '$2' records after 300 s"
}

t_begin first-ask-every-task-has-a-record
mkinst first &&
echo 1 > "$(idir first)"/events/syscalls/sys_enter_getppid/enable &&
{ "$WL"/callchain forks 600000 & pid=$!; } &&
until_count first 'sys_getppid(' 15 &&
trig first syscalls/sys_enter_getppid 'stacktrace:defer if comm == "callchain"' &&
until_count first 'user_stack_cookie:' 100 &&
kill $pid && { wait $pid; sleep 1; } &&
f=$(save first first-ask) &&
check "every event after the first ask has a cookie" asked_all "$f" &&
check "each cookie has its stack" $TC complete "$f" --comm callchain --min 20 &&
t_pass
kill "$pid" 2>/dev/null
wait 2>/dev/null

t_summary
