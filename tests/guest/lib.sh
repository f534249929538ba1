# Helpers for in-guest bash tests.  Source it:  . "$(dirname "$0")/lib.sh"
#
#   t_begin NAME     start a test (NAME: no spaces; unique across scripts)
#   t_pass           the current test passed
#   t_fail MSG       the current test failed (returns 1: `t_fail x || ...`)
#   t_skip MSG       the current test was skipped (never counted as passed)
#   t_summary        print "N passed, N failed[, N skipped]"; non-zero if any failed
#
# Each verdict is also appended to $T_RESULTS ($FTD_RESULTS/results.txt):
#   PASS name | FAIL name # msg | SKIP name # msg
# Environment set by rig/run-guest.sh: FTD_RESULTS (writable, comes back to
# the host), FTD_REPO (the repo, read-only in effect), FTD_DEBUG (1 for the
# lockdep/KASAN kernel), FTD_AGENT_DIR (host requests, see request_nmi).

TRACEFS=${TRACEFS:-/sys/kernel/tracing}
tracefs=$TRACEFS
FTD_RESULTS=${FTD_RESULTS:-/tmp/ftd-results}
mkdir -p "$FTD_RESULTS"
T_RESULTS=${T_RESULTS:-$FTD_RESULTS/results.txt}
_t_pass=0 _t_fail=0 _t_skip=0 _t_cur=

_t_record() { # STATUS [MSG]
	local line="$1 $_t_cur"
	[ -n "${2:-}" ] && line+=" # $2"
	echo "$line"
	echo "$line" >> "$T_RESULTS"
	_t_cur=
}

t_begin() {
	[ -n "$_t_cur" ] && t_fail "no verdict before the next test began"
	_t_cur=${1// /_}
	echo "--- $_t_cur"
}
t_pass() { _t_pass=$((_t_pass + 1)); _t_record PASS; }
t_fail() { _t_fail=$((_t_fail + 1)); _t_record FAIL "${1:-failed}"; return 1; }
t_skip() { _t_skip=$((_t_skip + 1)); _t_record SKIP "${1:-skipped}"; }

t_summary() {
	[ -n "$_t_cur" ] && t_fail "no verdict"
	local s="$_t_pass passed, $_t_fail failed"
	[ "$_t_skip" -gt 0 ] && s+=", $_t_skip skipped"
	echo "$s"
	[ "$_t_fail" = 0 ]
}

# wait_for [-t SECS] CMD...: run CMD every 0.1 s until it succeeds (default 10 s).
wait_for() {
	local t=10
	[ "$1" = -t ] && { t=$2; shift 2; }
	local end=$((SECONDS + t))
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.1
	done
}

# recording [-t SECS] EVENT: trace-cmd record, started in the background,
# records EVENT (SYSTEM/NAME) of the top buffer: the event is enabled and
# tracing is on.  Record turns tracing off, enables its events, starts its
# recorders (and with -T, the SFrame feeder, which scans every process
# first) and only then turns tracing on: on a loaded debug guest an event
# enabled several seconds before it was traced.
recording() {
	local t=120
	[ "$1" = -t ] && { t=$2; shift 2; }
	wait_for -t "$t" grep -q 1 "$TRACEFS/events/$1/enable" &&
		wait_for -t "$t" grep -q 1 "$TRACEFS/tracing_on"
}

# stock_readers DIR: Debian's own python3 and bash, not started by any
# tracer, each blocked in read(0) of a FIFO in DIR that fds 8 and 9 hold
# open (no EOF; a line written there makes one read return).  Sets PYPID
# and SHPID and adds both to the array pids; 1 when they are not both in
# read(0) within 120 s (t-91-sframe-attach, t-96-sframe-file).
stock_readers() {
	mkfifo "$1/py.fifo" "$1/sh.fifo" || return 1
	/usr/bin/python3 -c 'import sys
for line in sys.stdin:
    pass' < "$1/py.fifo" &
	PYPID=$!
	/bin/bash -c 'while read -r x; do :; done' < "$1/sh.fifo" &
	SHPID=$!
	pids+=("$PYPID" "$SHPID")
	exec 8> "$1/py.fifo" 9> "$1/sh.fifo"
	wait_for -t 120 bash -c "grep -q '^0 0x0 ' /proc/$PYPID/syscall && grep -q '^0 0x0 ' /proc/$SHPID/syscall"
}

# reset_trigger_files FILE...: remove every trigger listed in these files.
reset_trigger_files() {
	local f line
	for f in "$@"; do
		[ -f "$f" ] || continue
		# actions (onmatch/onmax...) first: other triggers may depend on them
		grep -v '^#' "$f" | grep ':on[^:]*(' | while read -r line; do
			echo "!${line%%\[*}" >> "$f" 2>/dev/null
		done
		grep -v '^#' "$f" | while read -r line; do
			echo "!${line%%\[*}" >> "$f" 2>/dev/null
		done
	done
	return 0
}

# kill_on_exit DIR: at the script's exit, kill the pids in the array
# "pids" (which it starts empty), wait for them and remove DIR
kill_on_exit() {
	pids=()
	_koe_dir=$1
	trap 'for _p in "${pids[@]}"; do kill "$_p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$_koe_dir"' EXIT
}

# reset_tracing: triggers off everywhere, instances removed, events off,
# options we use off, buffers and error_log cleared, tracing_on 1.
# Returns 1 if an instance could not be removed.
reset_tracing() {
	local t=$TRACEFS d o rc=0
	echo 0 > $t/tracing_on
	reset_trigger_files $(grep -l -v '^#' $t/events/*/*/trigger 2>/dev/null)
	# An instance goes with its triggers (as users remove one), so its
	# ~1,600 trigger files are read only when rmdir refuses: read for
	# each of t-70's 160 instances, they took most of its 7 minutes
	for d in $t/instances/*; do
		[ -d "$d" ] || continue
		rmdir "$d" 2>/dev/null && continue
		reset_trigger_files $(grep -l -v '^#' $d/events/*/*/trigger 2>/dev/null)
		rmdir "$d" 2>/dev/null || { echo "reset_tracing: cannot remove $d" >&2; rc=1; }
	done
	echo 0 > $t/events/enable
	echo nop > $t/current_tracer
	for o in stacktrace userstacktrace userstacktrace_defer; do
		[ -f $t/options/$o ] && echo 0 > $t/options/$o
	done
	[ -f $t/set_event_pid ] && echo > $t/set_event_pid
	echo > $t/trace
	: > $t/error_log 2>/dev/null
	echo 1 > $t/tracing_on
	return $rc
}

# expect_traces_begin WHY / expect_traces_end: stack dumps the test provokes
# on purpose (sysrq, NMI backtraces) do not fail the run (rig/scan-console.sh).
expect_traces_begin() { echo "ftd-expect: begin ${1:-}" > /dev/kmsg; }
expect_traces_end() { echo "ftd-expect: end" > /dev/kmsg; }

# request_nmi [N]: ask the host to inject N NMIs into every vCPU (QEMU
# monitor `nmi`); returns once they were sent.  Not available outside
# rig/run-guest.sh.
request_nmi() {
	local n=${1:-1} dir=${FTD_AGENT_DIR:-} id
	[ -n "$dir" ] && [ -d "$dir" ] || { echo "request_nmi: no host agent" >&2; return 2; }
	id=nmi-$$-$RANDOM
	echo "nmi $n" > "$dir/$id.tmp" && mv "$dir/$id.tmp" "$dir/$id.req"
	wait_for -t 30 test -f "$dir/$id.done" || { echo "request_nmi: no answer" >&2; return 1; }
	grep -q '^ok' "$dir/$id.done"
	local rc=$?
	rm -f "$dir/$id.done"
	return $rc
}
