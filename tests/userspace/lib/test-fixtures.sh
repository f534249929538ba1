#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ustack tool on the trace.dat fixtures recorded on the booted kernel
# (tests/fixtures/, made by tests/fixtures/record.sh; the workload binaries
# are next to them in tests/fixtures/), with the records of the final series
# (ftrace:user_stack_cookie carrying the kernel stack, ftrace:user_stack_
# deferred with flags and depth).  A trace of the pre-release series
# (unwind:user_stack_*: prerelease-*.dat, and the fuzzer's
# record-past-page.dat) is refused in one line.  Prints PASS:/FAIL: lines.
#   usage: test-fixtures.sh USTACK FIXDIR BUILD
set -u
USTACK=$1
FIX=$2
B=$3/fixtures
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$B"
. "$HERE/valgrind.sh"
CHAIN="work_inner,work_middle,work_outer,main"

# Summary of a ustack text output, for the workload's events (comm
# callchain*): "events complete chain_ok never truncated late kframes"
# where chain_ok counts complete events whose user frames hold the chain
# in order.
summary() {
	awk -v want="$CHAIN" '
		function done() {
			if (!ev || !cc) return
			events++
			if (status == "complete" || status == "truncated") {
				if (status == "complete") complete++; else trunc++
				if (index("," got ",", "," want ",")) ok++
			}
			if (status == "never-arrived") never++
			if (late) nlate++
		}
		/^[^ ]/ {
			done(); ev = 1; got = ""; cc = ($1 ~ /^callchain/)
			status = ""; late = 0
			for (i = 1; i <= NF; i++) if ($i ~ /^status=/) {
				split($i, s, "[=,]"); status = s[2]
				late = ($i ~ /,late/)
			}
			next
		}
		/^  k / { if (cc) kf++ }
		/^  u / { split($2, a, "+"); got = got (got ? "," : "") a[1] }
		END { done(); printf "%d %d %d %d %d %d %d\n", events, complete, ok, never, trunc, nlate, kf }
	' "$1"
}

check() {
	local name=$1 cond=$2 what=$3
	if eval "$cond"; then
		echo "PASS: fixture $name: $what"
	else
		echo "FAIL: fixture $name: $what [events=$events complete=$complete chain_ok=$ok never=$never truncated=$trunc late=$late kframes=$kf]"
	fi
}

# prerelease NAME FILE: a trace of the pre-release series is refused: one
# line that says so, exit 1, nothing on stdout, no valgrind error
prerelease() {
	local name=$1 old=$2 rc
	"${VG[@]}" "$USTACK" -s "$FIX" "$old" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	if [ $rc = 1 ] && [ ! -s "$B/$name.out" ] &&
	   [ "$(cat "$B/$name.err")" = "ustack: $old: trace recorded by a pre-release kernel series (unwind:user_stack_* records): record it again" ]; then
		echo "PASS: fixture $name: a pre-release trace, refused in one line, exit 1"
	else
		cat "$B/$name.err"
		echo "FAIL: fixture $name: a pre-release trace: exit $rc"
	fi
}

# the fuzzer's record-past-page.dat was made from one too
prerelease regress-record-past-page "$HERE/data/regress/record-past-page.dat"

for f in "$FIX"/*.dat; do
	name=$(basename "$f" .dat)
	case $name in
	prerelease-*)
		prerelease "$name" "$f"
		continue
		;;
	esac
	"${VG[@]}" "$USTACK" -s "$FIX" "$f" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	if [ "$rc" = 99 ] || [ "$rc" -gt 3 ] || [ "$rc" = 1 ]; then
		cat "$B/$name.err"
		echo "FAIL: fixture $name: ustack exit $rc"
		continue
	fi
	# a real recording: no frame out of range, no malformed record
	if [ "$rc" = 3 ] || grep -q 'looks damaged' "$B/$name.err" ||
	   grep -q 'not an address' "$B/$name.out"; then
		cat "$B/$name.err"
		echo "FAIL: fixture $name: reported as damaged"
	else
		echo "PASS: fixture $name: no sign of damage"
	fi
	read -r events complete ok never trunc late kf < <(summary "$B/$name.out")
	case $name in
	trigger-getppid)
		check "$name" '[ "$complete" -ge 10 ] && [ "$ok" = "$complete" ] && [ "$never" = 0 ] && [ "$kf" -gt 0 ]' \
			"10 getppid enter/exit events, kernel frames then $CHAIN by name"
		"${VG[@]}" "$USTACK" -s "$FIX" --folded "$f" >"$B/$name.folded" 2>/dev/null
		n=$(grep -c '^syscalls:sys_\(enter\|exit\)_getppid;callchain;.*work_inner;.* 5$' "$B/$name.folded")
		check "$name" '[ "$n" -ge 2 ]' "folded: one line per distinct stack, count 5 each ($n lines)"
		;;
	option-T)
		check "$name" '[ "$ok" -ge 3 ] && [ "$never" = 0 ] && [ "$kf" -gt 0 ]' \
			"-T -O userstacktrace_defer, PIE: getppid events with $CHAIN"
		# the 8 frames of trace-cmd's child before its execve (3.1.6
		# recorded its write() and ptrace() too) are the old image's:
		# marked, not named in callchain-pie's maps; the frames after
		# the exec (sys_exit_execve on) named
		be=$(grep -c '^  u 0x[0-9a-f]* \[before exec\]$' "$B/$name.out")
		late=$(awk '/^[^ ]/ { ex = ex || /sys_exit_execve/ } ex && /\[before exec\]/' "$B/$name.out" | wc -l)
		check "$name" '[ "$be" = 8 ] && [ "$late" = 0 ] && grep -q "note: 8 user frames from before an exec" "$B/$name.err"' \
			"the 8 frames before the execve marked [before exec] ($be), none after it ($late), one note"
		;;
	two-instances)
		top=$(grep -c '(top) .*status=complete' "$B/$name.out")
		quiet=$(grep -c '(quiet) ' "$B/$name.out")
		check "$name" '[ "$top" -ge 3 ] && [ "$quiet" = 0 ] && [ "$ok" -ge 3 ]' \
			"stacks in the asking instance only (top $top, quiet $quiet)"
		;;
	compat32)
		# exactly the 3 getppid() calls asked: the trigger has a filter
		"$USTACK" --stats -s "$FIX" "$f" 2>&1 >/dev/null |
			grep -o 'orphan stacks [0-9]*' > "$B/$name.orphans"
		check "$name" '[ "$events" = 3 ] && [ "$ok" = 3 ] && [ "$never" = 0 ] && grep -qx "orphan stacks 0" "$B/$name.orphans"' \
			"32-bit task: 3 events, each with $CHAIN from the i386 binary, no stack without its event"
		;;
	orphan-stacks)
		# the event was filtered, its trigger was not: 3 events, and the
		# requests of 28 other syscalls whose event is not in the trace,
		# each with its kernel and user stack (unseen-event); 2 user
		# stacks whose cookie was never recorded are orphans
		"$USTACK" --stats -s "$FIX" "$f" 2>&1 >/dev/null |
			grep -o 'orphan stacks [0-9]*' > "$B/$name.orphans"
		unseen=$(grep -c '^callchain32-[0-9]* .* unseen-event status=complete' "$B/$name.out")
		check "$name" '[ "$events" = 31 ] && [ "$unseen" = 28 ] && [ "$ok" = 3 ] && grep -qx "orphan stacks 2" "$B/$name.orphans"' \
			"3 events with their stacks, 28 requests whose event was filtered out ($unseen), 2 orphan stacks ($(cat "$B/$name.orphans"))"
		;;
	truncated)
		# and the depth the unwinder found, beyond the frames kept
		deep=$(awk '/^callchain.* status=truncated/ { d = 0; u = 0; t = 1
				for (i = 1; i <= NF; i++)
					if ($i ~ /^depth=/) d = substr($i, 7) + 0
				next }
			t && /^  u / { u++; next }
			t && /^$/ { if (d > u) n++; t = 0 }
			END { print n + 0 }' "$B/$name.out")
		check "$name" '[ "$trunc" -ge 1 ] && [ "$never" = 0 ] && [ "$deep" = "$trunc" ]' \
			"a stack cut short says truncated, with the depth found beyond its frames ($deep of $trunc)"
		;;
	late-signal)
		check "$name" '[ "$never" = 0 ] && [ "$complete" -ge 2 ] && grep -q "signal:signal_deliver status=complete" "$B/$name.out"' \
			"signal_deliver after the callback gets the entry's user stack (late=$late)"
		;;
	sframe)
		# sfwork, built without frame pointers, its library's .sframe
		# registered (-r): each of its 3 getppid events has the whole
		# chain by name, and is marked as unwound with SFrame
		marked=$(grep -c '^sfwork-[0-9]* .*sys_enter_getppid status=complete,sframe ' "$B/$name.out")
		whole=$(awk '/^sfwork-/ { if (ev) print s; ev = 1; s = ""; next }
			ev && /^  u / { f = $2; sub(/\+.*/, "", f); s = s (s ? "," : "") f }
			END { if (ev) print s }' "$B/$name.out" |
			grep -c '^sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_middle,sf_outer,main')
		check "$name" '[ "$marked" = 3 ] && [ "$whole" = 3 ]' \
			"SFrame: 3 stacks marked sframe ($marked), each with the whole chain sf_lib_leaf..main by name ($whole)"
		;;
	*)
		check "$name" '[ "$events" = 0 ] || [ "$complete" -ge 1 ]' "read ($events workload events)"
		;;
	esac
	"${VG[@]}" "$USTACK" -s "$FIX" --folded "$f" >"$B/$name.folded2" 2>/dev/null
	# frames have no spaces, but for the markers of a missing user stack
	if ! sed 's/;\[user stack \(never arrived\|lost\|empty\)\];/;/' "$B/$name.folded2" |
	   grep -vq '^[^ ]* [0-9][0-9]*$'; then
		echo "PASS: fixture $name: folded output well formed ($(wc -l <"$B/$name.folded2") stacks)"
	else
		echo "FAIL: fixture $name: folded output"
		head -5 "$B/$name.folded2"
	fi
done
