#!/bin/bash
# Yama's ptrace_scope 3 ("no attach") refuses prctl(PR_ATTACH_SFRAME_FILE)
# (kernel series 8-sframe-lsm: the security_sframe_file_attach() hook and
# Yama's use of it).  Run in a boot of its own (rig/test-all.sh, suite
# guest-yama) with exactly:
#   sysctl.kernel.yama.ptrace_scope=3
# since scope 3 cannot be lowered again: every later ptrace of the boot
# would fail.  The oracle that the scope holds is strace, which must not
# attach.  Then a root caller, with every capability the prctl asks for,
# is refused with EPERM for a good section of Debian's python3 (the same
# section t-96-sframe-file attaches at scope 0), and the feeder attaches
# nothing; a stock python3 started first still gets a cut stack (no
# eu-stack here: ptrace is refused).  Without Yama's refusal (booted with
# lsm=capability) the attach returns a descriptor, the feeder attaches
# every object and holds them, and the stack is whole: the last three
# tests fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
SCRATCH=$(mktemp -d /tmp/boot-yama.XXXXXX)
SG=$REPO/sframe-gen
SF="python3 $REPO/tests/guest/sframefile.py"
PY=/usr/bin/python3
reset_tracing
kill_on_exit "$SCRATCH"

# The stock reader first, before any section or trigger: python3 reading
# a FIFO that fd 8 holds open (lib.sh's stock_readers waits on
# /proc/PID/syscall, which scope 3 refuses like ptrace)
mkfifo "$SCRATCH/py.fifo"
$PY -c 'import sys
for line in sys.stdin:
    pass' < "$SCRATCH/py.fifo" &
PYPID=$!
pids+=("$PYPID")
exec 8> "$SCRATCH/py.fifo"

t_begin yama-ptrace-scope-3
check "the boot command line sets it" \
	grep -q 'sysctl.kernel.yama.ptrace_scope=3' /proc/cmdline &&
check "the sysctl reads 3" grep -qx 3 /proc/sys/kernel/yama/ptrace_scope &&
check "strace cannot attach to python3 (Yama refuses ptrace)" \
	sh -c "! timeout 20 strace -p $PYPID -o /dev/null 2>$SCRATCH/strace.err" &&
check "because ptrace was not permitted" grep -q 'Operation not permitted' "$SCRATCH/strace.err" &&
t_pass

t_begin yama-sframe-file-build
if make -s -C "$SG" OUT="$SCRATCH/gen" all > "$SCRATCH/make.log" 2>&1; then
	t_pass
else
	t_fail "build: $(tail -5 "$SCRATCH/make.log")"
fi

mkinst yama || exit 1
trig yama syscalls/sys_enter_read "stacktrace:defer if fd == 0 && common_pid == $PYPID" || exit 1
T=$(idir yama)/trace

t_begin yama-sframe-file-attach-refused
PYREAL=$(readlink -f $PY)
"$SCRATCH/gen/sframe-gen" "$PYREAL" -o "$SCRATCH/py.sframe" 2> "$SCRATCH/gen.err"
HAVE=$($SF probe 2>&1)
got=$($SF attach "$PYREAL" "$SCRATCH/py.sframe" 2>&1)
if [ "$HAVE" != EFAULT ]; then
	t_fail "probe: '$HAVE', not EFAULT: no PR_ATTACH_SFRAME_FILE"
elif [ ! -s "$SCRATCH/py.sframe" ]; then
	t_fail "no section generated: $(cat "$SCRATCH/gen.err")"
elif [ "$got" = EPERM ]; then
	echo "  ok: $got"
	t_pass
else
	t_fail "wanted EPERM at ptrace_scope 3, got '$got'"
fi

# The feeder as a system-wide recording runs it (-w: it holds what it
# attached until killed); it is still holding, or gone, during the stack
# check below, so a section it attached would make that stack whole
t_begin yama-sframe-feeder-attaches-nothing
SFREG_CACHE_DIR=$SCRATCH/cache "$SCRATCH/gen/sframe-feed" -a -w -p $PYPID \
	> "$SCRATCH/feed.out" 2>&1 &
FEED=$!
pids+=("$FEED")
wait_for -t 300 sh -c "grep -q '^holding' '$SCRATCH/feed.out' || ! kill -0 $FEED 2>/dev/null"
cp "$SCRATCH/feed.out" "$TRACES/sframe-feed-yama.out" 2>/dev/null
if grep -q '^attached /' "$SCRATCH/feed.out"; then
	t_fail "the feeder attached: $(grep '^attached /' "$SCRATCH/feed.out" | tr '\n' ' ')"
elif ! grep -q '^not attached' "$SCRATCH/feed.out"; then
	t_fail "the feeder reported no refusal: $(tr '\n' ' ' < "$SCRATCH/feed.out")"
else
	echo "  ok: $(grep -m1 '^not attached' "$SCRATCH/feed.out")"
	t_pass
fi

t_begin yama-stock-stack-stays-cut
check "python3's next read()" $SF check --trace "$T" --pid $PYPID \
	--fifo "$SCRATCH/py.fifo" --want cut &&
t_pass
kill "$FEED" 2>/dev/null

t_summary
