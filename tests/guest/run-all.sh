#!/bin/bash
# Run every tests/guest/t-*.sh (sorted) in the guest, each in its own bash
# with a time limit, and print the total "N passed, N failed[, N skipped]".
#
#   run-all.sh [PATTERN...]           only the scripts whose name contains a PATTERN
#   run-all.sh --except PATTERN...    all but those (rig/test-all.sh runs the
#                                     suite as two guests side by side: one
#                                     names its scripts, the other takes the
#                                     rest, so a new script is never left out)
#
# Environment: T_TIMEOUT (seconds per script; default 900, 1800 with
# FTD_DEBUG=1).  A script that exits non-zero without recording a FAIL, or
# that times out, counts as one failure of its own.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
except=0
[ "${1:-}" = --except ] && { except=1; shift; }
patterns=("$@")
# named NAME: NAME contains one of the patterns
named() {
	local p
	for p in "${patterns[@]}"; do
		[[ $1 == *"$p"* ]] && return 0
	done
	return 1
}
# wanted NAME: no pattern, or NAME named (not named, with --except)
wanted() {
	[ ${#patterns[@]} = 0 ] && return 0
	if [ $except = 1 ]; then ! named "$1"; else named "$1"; fi
}
if [ "${FTD_DEBUG:-0}" = 1 ]; then tmo=${T_TIMEOUT:-1800}; else tmo=${T_TIMEOUT:-900}; fi

: >> "$T_RESULTS"
n0=$(wc -l < "$T_RESULTS")	# count only what this run adds
count() { tail -n +$((n0 + 1)) "$T_RESULTS" | grep -c "^$1 " || true; }
echo "run-all: kernel $(uname -r), $(nproc) CPUs, results in $T_RESULTS"
for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	wanted "$name" || continue
	f0=$(count FAIL)
	echo "=== $name"
	start=$SECONDS
	timeout -k 5 "$tmo" bash "$t"
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		_t_cur=$name; t_fail "timed out after ${tmo}s"
	elif [ $rc != 0 ] && [ "$(count FAIL)" = "$f0" ]; then
		_t_cur=$name; t_fail "exited with status $rc"
	fi
	echo "=== $name: status $rc, $((SECONDS - start)) s"
done
_t_pass=$(count PASS) _t_fail=$(count FAIL) _t_skip=$(count SKIP)
t_summary
