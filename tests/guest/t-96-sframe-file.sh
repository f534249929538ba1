#!/bin/bash
# Sections attached to object files (kernel series 6-sframe-file,
# prctl(PR_ATTACH_SFRAME_FILE); Documentation/decisions.md, System-wide):
# stock Debian python3 and bash, started before anything else here (no
# registrar, no -T, no ptrace), each blocked in read() of a FIFO.  Without
# sections their deferred user stack is cut (the negative twin); once
# sframe-feed -a attaches the sections of their objects, the stack of
# their next read() equals eu-stack's (elfutils, CFI through ptrace) of
# the same blocked task, address by address; once the feeder is gone,
# cut again; a program started after a system-wide feeder gets its
# sections too (-w follows new processes).  Bad input is refused with its errno, and nothing attached:
# a wrong build ID, a truncated section, a section over
# kernel.sframe_file_max_kb, a caller without CAP_SYS_PTRACE or root.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
SCRATCH=$(mktemp -d /tmp/sframe-file.XXXXXX)
chmod 755 "$SCRATCH"	# the unprivileged caller reads the section
SG=$REPO/sframe-gen
SF="python3 $REPO/tests/guest/sframefile.py"
PY=/usr/bin/python3
reset_tracing
kill_on_exit "$SCRATCH"

t_begin sframe-file-build
if make -s -C "$SG" OUT="$SCRATCH/gen" all >"$SCRATCH/make.log" 2>&1; then
	t_pass
else
	t_fail "build: $(tail -5 "$SCRATCH/make.log")"
	t_summary
	exit
fi

# The programs first, before any trigger, feeder or section
stock_readers "$SCRATCH" ||
	echo "warning: python3 and bash not blocked in read(0) yet" >&2

mkinst sfile || exit 1
trig sfile syscalls/sys_enter_read "stacktrace:defer if fd == 0 && (common_pid == $PYPID || common_pid == $SHPID)" || exit 1
T=$(idir sfile)/trace

# readers WANT TAG: the next read() of python3 and bash against eu-stack
readers() {
	check "python3 ($1, $2)" $SF check --trace "$T" --pid $PYPID \
		--fifo "$SCRATCH/py.fifo" --want "$1" --keep "$TRACES" &&
	check "bash ($1, $2)" $SF check --trace "$T" --pid $SHPID \
		--fifo "$SCRATCH/sh.fifo" --want "$1" --keep "$TRACES"
}

# The kernel has the call: a bad pointer faults, where an unknown prctl
# option would be EINVAL (which the bad input below must not be taken for)
t_begin sframe-file-kernel-has-the-call
HAVE=$($SF probe 2>&1)
[ "$HAVE" = EFAULT ] && t_pass || t_fail "probe: '$HAVE', not EFAULT: no PR_ATTACH_SFRAME_FILE"

# The series' kselftest of the call (tools/testing/selftests/prctl/
# sframe-file-test.c, built in tests/workload): its arguments, errors,
# limit and lifetime; every case must pass, none be skipped
t_begin sframe-file-kselftest
kselftest sframe-file-kselftest "$WL"/sframe-file-test 6

t_begin sframe-file-without-sections-short
readers short "nothing attached" && t_pass

# Bad input, with python3's own file: each refused, nothing attached
# (checked below: the readers' stacks still short, then the attach of
# the good section is not EEXIST)
PYREAL=$(readlink -f $PY)
"$SCRATCH/gen/sframe-gen" "$PYREAL" -o "$SCRATCH/py.sframe" 2>/dev/null
bad() { # NAME WANT CMD...: CMD prints WANT (an errno name)
	local name=$1 want=$2 got
	shift 2
	t_begin "sframe-file-refuses-$name"
	[ "$HAVE" = EFAULT ] || { t_fail "the kernel has no PR_ATTACH_SFRAME_FILE"; return; }
	got=$("$@" 2>&1)
	[ "$got" = "$want" ] && { echo "  ok: $got"; t_pass; } ||
		t_fail "wanted $want, got '$got'"
}
bad wrong-build-id EINVAL $SF attach "$PYREAL" "$SCRATCH/py.sframe" \
	--build-id 0123456789abcdef0123456789abcdef01234567
bad truncated EINVAL $SF attach "$PYREAL" "$SCRATCH/py.sframe" --size 64
max=$(cat /proc/sys/kernel/sframe_file_max_kb 2>/dev/null || echo none)
echo 16 > /proc/sys/kernel/sframe_file_max_kb
bad over-the-limit ENOSPC $SF attach "$PYREAL" "$SCRATCH/py.sframe"
echo "$max" > /proc/sys/kernel/sframe_file_max_kb
bad without-cap-sys-ptrace EPERM setpriv --inh-caps=-sys_ptrace --bounding-set=-sys_ptrace \
	$SF attach "$PYREAL" "$SCRATCH/py.sframe"
bad not-root EPERM setpriv --reuid=65534 --regid=65534 --clear-groups \
	$SF attach "$PYREAL" "$SCRATCH/py.sframe"

t_begin sframe-file-refused-changed-nothing
readers short "after the refused attaches" && t_pass

# The feeder: every executable object of both processes, from .eh_frame
t_begin sframe-file-feeder-attaches
SFREG_CACHE_DIR=$SCRATCH/cache "$SCRATCH/gen/sframe-feed" -a -w -p $PYPID -p $SHPID \
	> "$SCRATCH/feed.out" 2>&1 &
FEED=$!
pids+=("$FEED")
if wait_for -t 120 grep -q '^holding' "$SCRATCH/feed.out" &&
   ! grep -q '^not attached' "$SCRATCH/feed.out"; then
	echo "  ok: $(grep '^attached [0-9]' "$SCRATCH/feed.out")"
	t_pass
else
	t_fail "$(tr '\n' ' ' < "$SCRATCH/feed.out")"
fi
cp "$SCRATCH/feed.out" "$TRACES/sframe-feed.out"

t_begin sframe-file-whole-stacks-equal-eu-stack
readers same "sections attached" && t_pass

t_begin sframe-file-second-attach-eexist
got=$($SF attach "$PYREAL" "$SCRATCH/py.sframe" 2>&1)
[ "$got" = EEXIST ] && t_pass || t_fail "wanted EEXIST, got '$got'"

# Closing the feeder's descriptor detaches them all
t_begin sframe-file-detached-with-the-feeder
kill "$FEED"; wait "$FEED" 2>/dev/null
readers short "feeder gone" && t_pass

# Warm: the sections from the feeder's cache (build ID), attached again
# once the first ones are gone; the feeder exits, and so they go again
t_begin sframe-file-warm-attach
SFREG_CACHE_DIR=$SCRATCH/cache "$SCRATCH/gen/sframe-feed" -a -p $PYPID -p $SHPID \
	> "$SCRATCH/feed-warm.out" 2>&1
rc=$?
cp "$SCRATCH/feed-warm.out" "$TRACES/sframe-feed-warm.out"
if [ $rc = 0 ] && ! grep -q '^gen \|^not attached' "$SCRATCH/feed-warm.out" &&
   [ "$(grep -c '^hit ' "$SCRATCH/feed-warm.out")" = "$(grep -c '^attached /' "$SCRATCH/feed-warm.out")" ]; then
	echo "  ok: $(tail -1 "$SCRATCH/feed-warm.out")"
	t_pass
else
	t_fail "exit $rc: $(tr '\n' ' ' < "$SCRATCH/feed-warm.out")"
fi

# The feeder follows the machine (-w): a stock program started after it
# (perl, which nothing here ran before) gets its objects' sections within
# a rescan, and its stack equals eu-stack's.  The feeder of before only
# held what it found at its start: perl's stack stayed cut.
t_begin sframe-file-feeder-follows-new-processes
SFREG_CACHE_DIR=$SCRATCH/cache "$SCRATCH/gen/sframe-feed" -a -w \
	> "$SCRATCH/feed-new.out" 2>&1 &
FEED=$!
pids+=("$FEED")
mkfifo "$SCRATCH/pl.fifo"
if ! wait_for -t 120 grep -q '^holding' "$SCRATCH/feed-new.out"; then
	t_fail "the system-wide feeder: $(tail -3 "$SCRATCH/feed-new.out" | tr '\n' ' ')"
else
	/usr/bin/perl -e 'while (<STDIN>) { }' < "$SCRATCH/pl.fifo" &
	PLPID=$!
	pids+=("$PLPID")
	exec 7> "$SCRATCH/pl.fifo"
	mkinst sfnew && trig sfnew syscalls/sys_enter_read "stacktrace:defer if fd == 0 && common_pid == $PLPID" &&
	if ! wait_for -t 60 grep -q '^attached /usr/bin/perl' "$SCRATCH/feed-new.out"; then
		t_fail "perl, started after the feeder, got no section: $(grep -c '^attached /' "$SCRATCH/feed-new.out") attached, none perl's"
	else
		check "perl (same, started after the feeder)" $SF check --trace "$(idir sfnew)/trace" \
			--pid $PLPID --fifo "$SCRATCH/pl.fifo" --want same --keep "$TRACES" && t_pass
	fi
fi
kill "$FEED"; wait "$FEED" 2>/dev/null
cp "$SCRATCH/feed-new.out" "$TRACES/sframe-feed-new.out"

# A process's own registration wins over a file's section.  The file
# section here lies: sfwork-static's own rules with sf_lib_middle's CFA 8
# bytes off (sframe-tool.py corrupt wrong-cfa), valid to the kernel.
# sfwork-static has its own section (PT_GNU_SFRAME, registered at exec):
# with the lie attached to its file, its getppid stacks keep the whole
# chain by name (nm).  The twins show the lie would be followed: a copy
# without the segment (no-segment: same bytes, same build ID, nothing
# registered at exec) gets the whole chain from its file's true section
# and loses it with the lie.
CHAIN=sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_middle,sf_outer,main
SC="python3 $REPO/tests/guest/sframecheck.py"
TOOL="python3 $WL/sframe-tool.py"
mkdir -p "$SCRATCH/twin"
$TOOL corrupt "$WL"/sfwork-static wrong-cfa "$SCRATCH/lie" &&
$TOOL corrupt "$WL"/sfwork-static no-segment "$SCRATCH/twin/sfwork-static" ||
	echo "warning: sframe-tool.py could not write the lie or the twin" >&2
# own NAME OBJ FROM WANT: attach OBJ's .sframe as FROM has it, run OBJ
# (getppid 3, traced in instance NAME), check its stacks WANT (chain or
# lost), detach
own() {
	local name=$1 obj=$2 from=$3 want=$4 hold F rc=1
	$SF attach "$obj" own --from "$from" --hold > "$SCRATCH/$name.attach" 2>&1 &
	hold=$!
	pids+=("$hold")
	if ! wait_for -t 30 grep -q '^ok' "$SCRATCH/$name.attach"; then
		t_fail "attach to $obj: $(cat "$SCRATCH/$name.attach")"
	elif mkinst "$name" &&
	     trig "$name" syscalls/sys_enter_getppid 'stacktrace:defer if comm == "sfwork-static"'; then
		SFWORK_MAPS=$TRACES/$name.maps "$obj" getppid 3 2> "$TRACES/$name.err"
		F=$(save "$name" "$name")
		check "$obj, $(basename "$from")'s rules attached: $want" \
			$SC "$want" "$F" "$TRACES/$name.maps" sfwork-static $CHAIN --min 3 && rc=0
	fi
	kill "$hold"; wait "$hold" 2>/dev/null
	return $rc
}

t_begin sframe-file-twin-true-section-followed
own sfown1 "$SCRATCH/twin/sfwork-static" "$WL"/sfwork-static chain && t_pass

t_begin sframe-file-twin-lie-followed
own sfown2 "$SCRATCH/twin/sfwork-static" "$SCRATCH/lie" lost && t_pass

t_begin sframe-file-own-registration-wins
own sfown3 "$WL"/sfwork-static "$SCRATCH/lie" chain && t_pass

save sfile sframe-file > /dev/null
t_summary
