#!/bin/bash
# Guarantee 8 (errors) and 5 (bounded).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing

# bad_trigger TEXT MESSAGE TAIL: the write fails with EINVAL, error_log has
# exactly one entry, which says MESSAGE, and its caret points at TAIL, the
# end of the command it quotes (for a filter error, the filter code quotes
# the filter and points at the operator of the bad predicate, as for
# plain stacktrace); the trigger file is unchanged
bad_trigger() {
	local d=$(idir err) tf before out n at
	tf=$d/events/sched/sched_process_fork/trigger
	before=$(cat $tf)
	: > $d/error_log
	out=$( { echo "$1" > $tf; } 2>&1 ) && { t_fail "'$1' was accepted"; return 1; }
	case $out in *"Invalid argument"*) ;; *) t_fail "'$1': not EINVAL: $out"; return 1 ;; esac
	n=$(grep -c ' error: ' $d/error_log)
	[ "$n" = 1 ] || { t_fail "'$1': $n error_log entries, want 1: $(cat $d/error_log)"; return 1; }
	grep -q -- "$2" $d/error_log || { t_fail "'$1': error_log lacks '$2': $(cat $d/error_log)"; return 1; }
	at=$(awk '/^  Command: / { cmd = substr($0, 12); next }
		  cmd != "" && /^ *\^$/ { print substr(cmd, length($0) - 11); exit }' $d/error_log)
	[ "$at" = "$3" ] || { t_fail "'$1': caret at '$at', want '$3': $(cat $d/error_log)"; return 1; }
	[ "$(cat $tf)" = "$before" ] || { t_fail "'$1' changed the trigger file"; return 1; }
	echo "  ok: '$1' -> EINVAL, '$2' at '$3'"
}

t_begin errors-malformed-triggers
mkinst err &&
bad_trigger 'stacktrace:defer:x' 'Invalid count' x &&
bad_trigger 'stacktrace:defer:e' 'Invalid count' e &&
bad_trigger 'stacktrace:defer:' 'Invalid count' '' &&
bad_trigger 'stacktrace:defer:5x' 'Invalid count' 5x &&
bad_trigger 'stacktrace:deferred' 'Expected stacktrace:defer' deferred &&
bad_trigger 'stacktrace:defer if no_such_field == 1' 'Field not found' '== 1' &&
bad_trigger 'stacktrace:defer bogus' 'Invalid filter' bogus &&
bad_trigger 'stacktrace:defer:3 bogus if x' 'Invalid filter' 'bogus if x' &&
t_pass

t_begin errors-leave-existing-trigger
echo 'stacktrace:defer:3 if common_pid < 0' > "$(idir err)"/events/sched/sched_process_fork/trigger &&
bad_trigger 'stacktrace:defer:x' 'Invalid count' x &&
check "listed as set" grep -q '^stacktrace:defer:count=3 if common_pid < 0' "$(idir err)"/events/sched/sched_process_fork/trigger &&
t_pass

t_begin errors-stacktrace-foo-still-fails
! echo 'stacktrace:foo' > "$(idir err)"/events/sched/sched_switch/trigger 2>/dev/null &&
t_pass || t_fail "stacktrace:foo accepted"

t_begin bounded-deep-stack-truncated
reset_tracing
mkinst deep &&
trig deep syscalls/sys_enter_getppid 'stacktrace:defer if comm == "callchain"' &&
"$WL"/callchain deep 400 &&
f=$(save deep bounded-deep) &&
line=$(grep user_stack_deferred "$f" | head -1) &&
check "capped at 256 and marked" bash -c "grep -q 'nr=256 depth=[0-9]* (truncated)' <<< '$line'" &&
depth=$(sed -n 's/.* depth=\([0-9]*\) .*/\1/p' <<< "$line") &&
check "the depth the unwinder found: over 400" test "$depth" -gt 400 &&
t_pass

t_begin bounded-shallow-not-truncated
reset_tracing
mkinst shallow &&
trig shallow syscalls/sys_enter_getppid 'stacktrace:defer if comm == "callchain"' &&
"$WL"/callchain deep 20 &&
f=$(save shallow bounded-shallow) &&
check "complete" $TC chain "$f" "$WL"/callchain callchain work_deep,work_deep &&
check "not marked" bash -c "! grep -q truncated '$f'" &&
check "no depth beyond the frames" bash -c "! grep -q ' depth=' '$f'" &&
t_pass

reset_tracing
t_summary
