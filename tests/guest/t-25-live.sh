#!/bin/bash
# The ustack tool (libustack) reading live from a tracefs instance of
# the booted kernel: it sets stacktrace:defer on the event, consumes the
# instance's buffers, joins each event with its user stack and names the
# frames with /proc/PID/maps, which it reads while the workload still runs.
# Timer interrupts land on the workload while it spins in user space, so
# the events keep coming for as long as it lives.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
USTACK=$REPO/libustack/build/ustack
reset_tracing

t_begin live-ustack-symbolic
if [ ! -x "$USTACK" ]; then
	t_fail "no $USTACK: rig/test-all.sh builds it before the guest suite"
else
	out=$TRACES/live-ustack.txt
	# The workload outlives ustack whatever the load on the host, then is
	# killed: ustack takes seconds to parse the formats under TCG, and on
	# the debug kernel of a loaded host more than a minute (a 60 s spin
	# was gone before ustack read its maps)
	{ "$WL"/callchain spin 3600000 & pid=$!; }
	"$USTACK" -i live -e timer:hrtimer_expire_entry \
		-f "common_pid == $pid" -d 3 > "$out" 2> "$out.err"
	rc=$?
	kill $pid
	wait $pid
	# the event line, its kernel frames, then its user frames
	first=$(awk '/^callchain-.*timer:hrtimer_expire_entry status=complete/ { e = 1; s = ""; next }
		e && /^  k / { s = s "k" ; next }
		e && /^  u / { s = s "u"; next }
		e { if (s ~ /^k+u+$/) ok = 1; e = 0 }
		END { if (ok || (e && s ~ /^k+u+$/)) print "ok" }' "$out")
	check "ustack exited 0" test "$rc" = 0 &&
	check "no warning (maps read while the task ran)" \
		bash -c "! grep -q 'no maps' '$out.err'" &&
	check "complete events" grep -q 'status=complete' "$out" &&
	check "kernel frames, then user frames" test "$first" = ok &&
	check "user frames named in the workload" \
		grep -qE '^  u (spin|main)\+0x[0-9a-f]+ \(.*callchain\)$' "$out" &&
	check "the chain reaches main" \
		grep -qE '^  u main\+0x[0-9a-f]+ \(.*callchain\)$' "$out" &&
	check "the instance was removed" test ! -d "$(idir live)" &&
	t_pass
fi

reset_tracing
t_summary
