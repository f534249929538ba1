#!/bin/bash
# Guarantee 7 (scale): one unwind client serves 100 instances at once, the
# instance slots run out cleanly, and come back when an instance stops
# asking.
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
why=
for i in $(seq 101 160); do
	d=$TRACEFS/instances/s$i
	mkdir $d || { why="mkdir s$i failed"; break; }
	if ! echo "stacktrace:defer" > $d/events/syscalls/sys_enter_getppid/trigger 2>/dev/null; then
		if ! grep -q 'Too many instances use deferred user stacks' $d/error_log; then
			why="s$i refused the trigger without the slot error: $(cat $d/error_log)"
		elif grep -q "^stacktrace" $d/events/syscalls/sys_enter_getppid/trigger; then
			why="s$i: a refused trigger was left behind"
		elif echo 1 > $d/options/userstacktrace_defer 2>/dev/null; then
			why="s$i: the option was accepted with no slot left"
		fi
		break
	fi
done
if [ "$i" -ge 160 ]; then
	t_fail "no limit reached with 160 instances"
elif [ -n "$why" ]; then
	t_fail "$why"
else
	echo "  ok: instance s$i refused, all slots taken"
	t_pass
fi

# Slots come back: when the last trigger of an instance goes (the instance
# stays), the instance refused above gets the slot; an instance whose
# option is cleared gives its slot up the same way.  Issue 19 item 6: a
# slot was kept until its instance was deleted.
t_begin scale-slot-comes-back-when-trigger-goes
why=
r=$TRACEFS/instances/s$i
trg=events/syscalls/sys_enter_getppid/trigger
if [ ! -d "$r" ]; then
	why="no refused instance from scale-slots-run-out"
elif ! echo '!stacktrace' > $TRACEFS/instances/s1/$trg; then
	why="cannot remove the trigger of s1"
elif ! echo "stacktrace:defer $F" > $r/$trg 2>/dev/null; then
	why="s$i still refused after s1's trigger went: $(tail -1 $r/error_log)"
else
	mkdir $TRACEFS/instances/sopt &&
	echo 1 > $TRACEFS/instances/sopt/options/userstacktrace_defer 2>/dev/null &&
		why="sopt: the option was accepted with no slot left"
	[ -z "$why" ] && ! echo '!stacktrace' > $TRACEFS/instances/s2/$trg &&
		why="cannot remove the trigger of s2"
	[ -z "$why" ] && ! echo 1 > $TRACEFS/instances/sopt/options/userstacktrace_defer &&
		why="sopt: the option refused after s2's trigger went"
	[ -z "$why" ] && ! echo 0 > $TRACEFS/instances/sopt/options/userstacktrace_defer &&
		why="sopt: cannot clear the option"
	[ -z "$why" ] && ! echo "stacktrace:defer $F" > $TRACEFS/instances/s2/$trg &&
		why="s2 refused after sopt's option was cleared: $(tail -1 $TRACEFS/instances/s2/error_log)"
fi
if [ -n "$why" ]; then
	t_fail "$why"
else
	echo > $TRACEFS/instances/s1/trace &&
	"$WL"/callchain getppid 2 &&
	check "the instance given s1's slot gets its stacks" $TC complete "$(save s$i scale-slot-back)" --comm callchain --min 2 &&
	check "s1, which stopped asking, got none of them" bash -c "! grep -q 'user_stack_cookie:' '$(save s1 scale-slot-gone)'" &&
	t_pass
fi

# A trigger write that fails takes no slot: more instances than there are
# slots each fail one write (bad filters, an unknown field), and then one
# more instance must still get its trigger.
t_begin scale-failed-writes-take-no-slot
reset_tracing
why=
for i in $(seq 1 140); do
	d=$TRACEFS/instances/f$i
	mkdir $d || { why="mkdir f$i failed"; break; }
	case $((i % 2)) in
	0) bad='stacktrace:defer bogus' ;;
	1) bad='stacktrace:defer if no_such_field == 1' ;;
	esac
	if echo "$bad" > $d/events/syscalls/sys_enter_getppid/trigger 2>/dev/null; then
		why="f$i accepted '$bad'"
		break
	fi
done
d=$TRACEFS/instances/fgood
if [ -z "$why" ]; then
	mkdir $d && echo "stacktrace:defer $F" > $d/events/syscalls/sys_enter_getppid/trigger ||
		why="after 140 failed writes a good trigger was refused: $(cat $d/error_log 2>/dev/null)"
fi
if [ -z "$why" ]; then
	"$WL"/callchain getppid 2 &&
	f=$(save fgood scale-fgood) &&
	check "the good trigger works" $TC complete "$f" --comm callchain --min 2 &&
	t_pass
else
	t_fail "$why"
fi

reset_tracing
t_summary
