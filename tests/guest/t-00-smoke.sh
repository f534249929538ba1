#!/bin/bash
# Smoke test of the rig: the right kernel, SMP, tracefs, real tracing.
. "$(dirname "$0")/lib.sh"

smoke() {
	case $(uname -r) in
	7.3.*) ;;
	*) t_fail "kernel $(uname -r) is not 7.3.x"; return ;;
	esac
	[ "$(nproc)" -ge 2 ] || { t_fail "nproc is $(nproc), want >= 2"; return; }
	grep -q " $TRACEFS tracefs " /proc/mounts && [ -f "$TRACEFS/trace" ] ||
		{ t_fail "tracefs not mounted at $TRACEFS"; return; }
	reset_tracing || { t_fail "reset_tracing failed"; return; }
	echo 1 > "$TRACEFS/events/sched/sched_switch/enable" ||
		{ t_fail "cannot enable sched/sched_switch"; return; }
	sleep 0.2
	grep -q 'sched_switch:' "$TRACEFS/trace" ||
		{ t_fail "sched_switch enabled but nothing recorded"; return; }
	reset_tracing
	t_pass
}

t_begin smoke
smoke
t_summary
