#!/bin/bash
# The SFrame feeder driven by mmap:exec_mapping (kernel series
# 6-sframe-file and 7-exec-mapping; Documentation/decisions.md,
# System-wide): sframe-feed -a -w attaches the section of a file mapped
# after it started as the mapping's event arrives, where polling /proc
# (-P, and every feeder before) took up to 100 ms for an exec and 2 s for
# a dlopen().  A program built here without frame pointers or .sframe
# (tests/workload/lateload.c: a new file, so no section of it is attached
# before it runs) execs (built -static: its first read comes right after
# the exec), or dlopen()s a new library (1.5 s after its start), and
# reads fd 7 every millisecond from one call site; eu-stack (elfutils, CFI through ptrace)
# of its last, blocked read is the oracle: a deferred stack equal to it
# address by address is whole.  Each run prints how many stacks were cut
# before the first whole one, and how long after the exec (the library's
# exec_mapping) it came (feedlatency.py): polling and event-driven, with
# the cache warm (SFFE_ROUNDS rounds, default 3: when a poll comes is
# chance), and the first runs cold.  FTD_SFRAME_FEED runs another
# feeder (the one before this change, for the figures of before).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
SCRATCH=$(mktemp -d /tmp/sffe.XXXXXX)
FL="python3 $REPO/tests/guest/feedlatency.py"
# the event-driven feeder's bounds: stacks cut before the first whole one
EXEC_MAX=${SFFE_EXEC_MAX:-15}
DL_MAX=${SFFE_DL_MAX:-15}
ROUNDS=${SFFE_ROUNDS:-3}
reset_tracing
kill_on_exit "$SCRATCH"

t_begin sframe-feed-event-build
CF="-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -Wall -Wextra -Werror"
FEED=${FTD_SFRAME_FEED:-$SCRATCH/gen/sframe-feed}
if { [ -n "${FTD_SFRAME_FEED:-}" ] ||
     make -s -C "$REPO/sframe-gen" OUT="$SCRATCH/gen" all; } > "$SCRATCH/make.log" 2>&1 &&
   gcc $CF -o "$SCRATCH/lateload" "$WL/lateload.c" -ldl 2>> "$SCRATCH/make.log" &&
   gcc $CF -static -DLATELOAD_STATIC -o "$SCRATCH/lateload-static" "$WL/lateload.c" 2>> "$SCRATCH/make.log" &&
   gcc $CF -fPIC -shared -o "$SCRATCH/liblateload.so" "$WL/lateload_lib.c" 2>> "$SCRATCH/make.log" &&
   ! readelf -S "$SCRATCH/lateload" "$SCRATCH/lateload-static" "$SCRATCH/liblateload.so" | grep -q sframe; then
	t_pass
else
	t_fail "build: $(tail -5 "$SCRATCH/make.log")"
	t_summary
	exit
fi

mkinst sffe || exit 1
I=$(idir sffe)
echo 1 > "$I/events/sched/sched_process_exec/enable"
[ -d "$I/events/mmap/exec_mapping" ] && echo 1 > "$I/events/mmap/exec_mapping/enable"
trig sffe syscalls/sys_enter_read 'stacktrace:defer if fd == 7 && comm ~ "lateload*"' || exit 1

# run NAME FEEDER-ARGS CACHE N [LIB]: a feeder with FEEDER-ARGS (its
# cache CACHE), then lateload N reads (through LIB); prints its figures
# into $SCRATCH/NAME.res, exit status feedlatency.py's
run() {
	local name=$1 args=$2 cache=$3 n=$4 lib=${5:-} feed pid rc
	echo > "$I/trace"
	SFREG_CACHE_DIR=$cache "$FEED" -a -w $args > "$SCRATCH/$name.feed" 2>&1 &
	feed=$!
	pids+=("$feed")
	# holding its sections, or gone (a feeder that refused the arguments)
	wait_for -t 300 bash -c "grep -q '^holding' '$SCRATCH/$name.feed' || ! kill -0 $feed 2> /dev/null"
	if ! grep -q '^holding' "$SCRATCH/$name.feed"; then
		echo "feeder: $(tail -3 "$SCRATCH/$name.feed" | tr '\n' ' ')" > "$SCRATCH/$name.res"
		kill "$feed"; wait "$feed" 2>/dev/null
		return 1
	fi
	rm -f "$SCRATCH/fifo"
	mkfifo "$SCRATCH/fifo"
	if [ -n "$lib" ]; then
		"$SCRATCH/lateload" "$n" "$SCRATCH/fifo" "$lib" 1500 7< /dev/zero &
	else
		"$SCRATCH/lateload-static" "$n" "$SCRATCH/fifo" 7< /dev/zero &
	fi
	pid=$!
	pids+=("$pid")
	if wait_for -t 600 grep -q '^0 0x7 ' /proc/$pid/syscall; then
		sleep 1
		$FL --trace "$I/trace" --pid $pid ${lib:+--lib "$lib"} > "$SCRATCH/$name.res" 2>&1
		rc=$?
	else
		echo "lateload did not block in its last read" > "$SCRATCH/$name.res"
		rc=1
	fi
	echo x > "$SCRATCH/fifo"
	wait "$pid"
	kill "$feed"; wait "$feed" 2>/dev/null
	cp "$I/trace" "$TRACES/sffe-$name.txt"
	cp "$SCRATCH/$name.feed" "$TRACES/sffe-$name.feed"
	echo "  $name: $(tr '\n' ' ' < "$SCRATCH/$name.res")"
	return $rc
}

# cut NAME: the stacks cut before the first whole one in NAME's run
cut() { sed -n 's/.*\bcut=\([0-9]*\).*/\1/p' "$SCRATCH/$1.res"; }

LIB=$SCRATCH/liblateload.so
# verdict NAME MAX [RC]: whole stacks came, at most MAX cut before
verdict() {
	local c
	c=$(cut "$1")
	if [ "$3" = 0 ] && [ -n "$c" ] && [ "$c" -le "$2" ]; then
		t_pass
	else
		t_fail "$(tr '\n' ' ' < "$SCRATCH/$1.res")(at most $2 cut wanted)"
	fi
}

# rounds TEST NAME MAX FEEDER-ARGS N [LIB]: ROUNDS runs NAME.1 ...; the
# test passes when every one passes verdict MAX
rounds() {
	local t=$1 name=$2 max=$3 args=$4 n=$5 lib=${6:-} r rc c bad=
	t_begin "$t"
	for r in $(seq 1 $ROUNDS); do
		run "$name.$r" "$args" "$SCRATCH/cache" "$n" $lib
		rc=$?
		c=$(cut "$name.$r")
		{ [ $rc = 0 ] && [ -n "$c" ] && [ "$c" -le "$max" ]; } ||
			bad="$bad $name.$r: $(tr '\n' ' ' < "$SCRATCH/$name.$r.res")"
	done
	[ -z "$bad" ] && t_pass || t_fail "$bad(at most $max cut wanted)"
}

# The feeder says which way it follows the machine
t_begin sframe-feed-event-follows-the-event
run exec-event-cold "" "$SCRATCH/cache" 600; rc=$?
if [ ! -d "$I/events/mmap/exec_mapping" ]; then
	t_fail "the kernel has no mmap:exec_mapping"
elif grep -q '^holding.*following mmap:exec_mapping' "$SCRATCH/exec-event-cold.feed"; then
	t_pass
else
	t_fail "$(grep '^holding' "$SCRATCH/exec-event-cold.feed")"
fi

# Cold: the sections generated as the program maps them (figures only:
# whole stacks must come)
t_begin sframe-feed-event-exec-cold
verdict exec-event-cold 100000 $rc
t_begin sframe-feed-event-dlopen-cold
run dlopen-event-cold "" "$SCRATCH/cache" 600 "$LIB"
verdict dlopen-event-cold 100000 $?

# Warm, polling (-P) then event-driven: the figures side by side
rounds sframe-feed-poll-exec exec-poll 100000 -P 600
rounds sframe-feed-event-exec exec-event $EXEC_MAX "" 600
rounds sframe-feed-poll-dlopen dlopen-poll 100000 -P 3000 "$LIB"
rounds sframe-feed-event-dlopen dlopen-event $DL_MAX "" 3000 "$LIB"

# The instance the feeder read its events from went with it
t_begin sframe-feed-event-instance-removed
left=$(ls "$TRACEFS/instances" | grep '^sframe-feed-')
[ -z "$left" ] && t_pass || t_fail "left behind: $left"

echo "  figures (warm; stacks cut before the first whole one, ms from the mapping to it):"
for n in $(for k in exec-poll exec-event dlopen-poll dlopen-event; do
	seq -f "$k.%g" 1 $ROUNDS; done) exec-event-cold dlopen-event-cold; do
	printf '  %-18s %s\n' "$n" "$(tr '\n' ' ' < "$SCRATCH/$n.res" 2>/dev/null)"
done | tee "$TRACES/sffe-figures.txt"
t_summary
