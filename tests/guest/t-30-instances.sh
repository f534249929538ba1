#!/bin/bash
# Guarantee 1 (same instance) and 2 (once per instance and cookie).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
F='if comm == "callchain"'

t_begin same-instance-only-asker
mkinst ask && mkinst quiet &&
trig ask syscalls/sys_enter_getppid "stacktrace:defer $F" &&
echo 1 > "$(idir quiet)"/events/syscalls/sys_enter_getppid/enable &&
"$WL"/callchain getppid 4 &&
a=$(save ask same-instance-ask) && q=$(save quiet same-instance-quiet) &&
check "asking instance" $TC complete "$a" --comm callchain --min 4 &&
check "quiet instance recorded the events" test "$(grep -c 'sys_getppid()' "$q")" -ge 4 &&
check "quiet instance got no unwind record" $TC none "$q" &&
t_pass

t_begin same-instance-both-ask
reset_tracing
mkinst one && mkinst two &&
trig one syscalls/sys_enter_getppid "stacktrace:defer $F" &&
trig two syscalls/sys_enter_getppid "stacktrace:defer $F" &&
"$WL"/callchain getppid 3 &&
a=$(save one both-one) && b=$(save two both-two) &&
check "instance one" $TC complete "$a" --comm callchain --min 3 &&
check "instance two" $TC complete "$b" --comm callchain --min 3 &&
check "same cookies in both" diff <($TC summary "$a" | cut -d' ' -f1) <($TC summary "$b" | cut -d' ' -f1) &&
t_pass

t_begin once-per-entry
reset_tracing
# Four events of one getppid() ask: one user stack per cookie
mkinst once &&
trig once syscalls/sys_enter_getppid "stacktrace:defer $F" &&
trig once syscalls/sys_exit_getppid "stacktrace:defer $F" &&
trig once raw_syscalls/sys_enter "stacktrace:defer if id == $NR_GETPPID_64 && comm == \"callchain\"" &&
trig once raw_syscalls/sys_exit "stacktrace:defer if id == $NR_GETPPID_64 && comm == \"callchain\"" &&
"$WL"/callchain getppid 5 &&
f=$(save once once-per-entry) &&
check "4 cookies and 1 stack per entry" $TC complete "$f" --comm callchain --min 5 --asked 4 &&
check "5 entries" test "$($TC summary "$f" --comm callchain | wc -l)" -eq 5 &&
t_pass

# A task notes every asking instance of a kernel entry (a bit per slot):
# an instance that holds a slot but did not ask gets nothing, however many
# others ask.  Issue 19 item 6: beyond 4 askers the entry's stack went to
# every instance holding a slot.
# askers N PREFIX: N instances asking for callchain's stacks, plus "idle",
# which holds a slot and asks for nobody's
askers() {
	local i
	mkinst idle &&
	trig idle syscalls/sys_enter_getppid 'stacktrace:defer if comm == "nobody"' || return 1
	for i in $(seq 1 $1); do
		mkinst $2$i && trig $2$i syscalls/sys_enter_getppid "stacktrace:defer $F" || return 1
	done
}

t_begin same-instance-four-askers
reset_tracing
ok=1
askers 4 four &&
"$WL"/callchain getppid 3 &&
for i in 1 2 3 4; do
	check "asker $i" $TC complete "$(save four$i four-asker$i)" --comm callchain --min 3 || ok=0
done &&
[ $ok = 1 ] &&
check "the instance that did not ask got nothing" $TC none "$(save idle four-idle)" &&
t_pass

t_begin six-askers-only-askers-served
reset_tracing
ok=1
askers 6 six &&
"$WL"/callchain getppid 3 &&
for i in 1 2 3 4 5 6; do
	check "asker $i" $TC complete "$(save six$i six-asker$i)" --comm callchain --min 3 || ok=0
done &&
[ $ok = 1 ] &&
check "the instance that did not ask got nothing" $TC none "$(save idle six-idle)" &&
t_pass

reset_tracing
t_summary
