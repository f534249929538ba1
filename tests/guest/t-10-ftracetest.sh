#!/bin/bash
# The kernel tree's own ftracetest on the trigger directory and on our new
# test cases (which are copied into the tree by rig/build-kernel.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$REPO/rig/common.sh"
reset_tracing

dir=$CACHE/work/linux/tools/testing/selftests/ftrace
must_pass=("test stacktrace-trigger" "test stacktrace:defer trigger" "userstacktrace_defer option")
logdir=$FTD_RESULTS/ftracetest
mkdir -p "$logdir"
# The selftest Makefile builds this helper; the guest writes to an overlay
[ -x "$dir/poll" ] || gcc -O2 -o "$dir/poll" "$dir/poll.c" ||
	echo "warning: cannot build ftracetest's poll helper"
( cd "$dir" && ./ftracetest -v --logdir "$logdir" test.d/trigger/ \
	test.d/event/userstacktrace-defer.tc ) > "$logdir/output.txt" 2>&1
rc=$?
echo "ftracetest exited $rc; its summary:"
grep -E '^# of ' "$logdir/output.txt"

seen=0
while IFS=$'\t' read -r name verdict; do
	name=${name#\[*\] }
	seen=$((seen + 1))
	t_begin "ftracetest: $name"
	case $verdict in
	*PASS*|*XFAIL*) t_pass ;;
	*UNSUPPORTED*|*UNTESTED*|*UNRESOLVED*)
		required=0
		for m in "${must_pass[@]}"; do
			[[ $name == *"$m"* ]] && required=1
		done
		if [ $required = 1 ]; then
			t_fail "required test is $verdict"
		else
			# UNRESOLVED: a program it needs is not in the guest
			t_skip "$verdict in this kernel config or guest"
		fi ;;
	*FAIL*)
		# A race in the stock test, not in the kernel: it checks that
		# "sleep" is gone from /proc as soon as its sched_process_exit
		# event woke the poller, but the event fires before the task
		# is reaped.  Under TCG it fails on pristine 7.3.4 as well.
		if [[ $name == *"poll wait on histogram"* ]] &&
		   grep -q '^poll exits too soon$' "$logdir/output.txt"; then
			t_skip "stock test race under TCG ('poll exits too soon'; fails on pristine 7.3.4 too)"
		else
			t_fail "$verdict (log in $logdir)"
		fi ;;
	*) t_fail "$verdict (log in $logdir)" ;;
	esac
done < <(grep -E $'^\\[[0-9]+\\] .*\t\\[[A-Z]+\\]' "$logdir/output.txt")

# Our trigger test's slot-exhaustion loop makes instances until the slots
# run out (128 by default): each instance's buffers are sized down right
# after mkdir, so the loop's peak is well below what the same instances
# take at the default size, one buffer per CPU each (on these 2 CPUs that
# was about 400 MB, on a large machine gigabytes).  The check: the peak
# drop of MemAvailable is under half of instances x CPUs x default size.
t_begin ftracetest-defer-memory
avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
mkdir "$TRACEFS/instances/defer-size-probe" &&
def_kb=$(cat "$TRACEFS/instances/defer-size-probe/buffer_size_kb") &&
rmdir "$TRACEFS/instances/defer-size-probe"
start=$(avail) low=$(avail) most=0 at_low=
( cd "$dir" && ./ftracetest --logdir "$logdir/mem" \
	test.d/trigger/trigger-stacktrace-defer.tc ) > "$logdir/mem.txt" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
	a=$(avail) n=$(ls "$TRACEFS/instances" | wc -l)
	[ "$n" -gt "$most" ] && most=$n
	if [ "$a" -lt "$low" ]; then
		low=$a
		# the instances and their buffer_size_kb at the low point
		at_low="$n instances, buffer_size_kb:"
		at_low+=" $(cat "$TRACEFS"/instances/*/buffer_size_kb 2>/dev/null |
			sort | uniq -c | tr -s ' \n' ' ')"
	fi
	sleep 0.2
done
wait $pid
mrc=$?
drop=$(( (start - low) / 1024 ))
full=$(( most * $(nproc) * ${def_kb:-0} / 1024 ))
check "the test case passed" test $mrc = 0 &&
check "$most instances at most, at the default size $full MB" test "$most" -ge 64 &&
check "peak $drop MB, under half of that ($at_low)" test $((drop * 2)) -lt $full &&
t_pass

t_begin ftracetest-ran
if [ $seen -lt 10 ]; then
	t_fail "only $seen test cases ran; see $logdir/output.txt"
elif [ $rc != 0 ] && ! grep -q '^# of failed:.*[1-9]' "$logdir/output.txt"; then
	t_fail "ftracetest exited $rc"
else
	t_pass
fi
for m in "${must_pass[@]}"; do
	t_begin "ftracetest-has: $m"
	grep -qF "$m" "$logdir/output.txt" && t_pass || t_fail "did not run"
done

reset_tracing
t_summary
