#!/bin/bash
# trace-cmd record as the SFrame feeder (trace-cmd patch 0020, kernel
# series 6-sframe-file): stock Debian python3 and bash, started before the
# recording and blocked in read() of a FIFO; `trace-cmd record -T -e
# syscalls:sys_enter_read -P ...` (no command) runs sframe-feed -a -w
# before tracing starts.  Each is given a line, so its next read() is
# traced; eu-stack (elfutils, CFI through ptrace) of the task blocked
# there delivers the deferred stack and is the oracle: in `trace-cmd
# report` that read's user stack has as many frames as eu-stack's, named
# alike.  The negative twin, --no-sframe-attach: one frame.  Needs
# FTD_TRACECMD (the series' build, with sframe-feed installed beside it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
D=$FTD_RESULTS/t91sa
rm -rf "$D"
mkdir -p "$D"
TESTS="tc-attach-whole tc-no-sframe-attach-short"
tc_require $TESTS
F=$(mktemp -d /tmp/t91sa.XXXXXX)	# FIFOs: not on the results' 9p
kill_on_exit "$F"

if ! stock_readers "$F"; then
	for t in $TESTS; do
		t_begin "$t"
		t_fail "python3 and bash did not block in read(0)"
	done
	t_summary
	exit 1
fi

# The reads of both, counted in an instance of our own: eu-stack must
# stop the read() traced, not the one the line ends (the stack is the
# same, but that call's cookie would never get it)
mkinst t91cnt || exit 1
CNT=$(idir t91cnt)
echo "common_pid == $PYPID || common_pid == $SHPID" > "$CNT/events/syscalls/sys_enter_read/filter"
echo 1 > "$CNT/events/syscalls/sys_enter_read/enable"
reads() { grep -c -- "-$1 *\[" "$CNT/trace"; }

# eu_frames PID: the frame names of eu-stack's stack of PID's thread,
# one per line ("?" for an unnamed one)
eu_frames() {
	eu-stack -p "$1" 2> /dev/null |
		awk '/^#[0-9]+ /{ n = $3; if (n == "" || n ~ /^\(/) n = "?"; sub(/@.*/, "", n); print n }'
}

# run NAME ARGS...: record the reads of both with ARGS; give each a line,
# take eu-stack of each blocked again (it delivers the pending stack);
# then the report's user stack of each one's last read against it
run() {
	local n=$1 rp p fifo r0
	shift
	# record's end may have turned off tracing in every instance
	echo 1 > "$CNT/events/syscalls/sys_enter_read/enable"
	echo 1 > "$CNT/tracing_on"
	"$TCMD" record -o "$D/$n.dat" -T -e syscalls:sys_enter_read \
		-f "fd == 0" -P $PYPID -P $SHPID "$@" > "$D/$n.out" 2> "$D/$n.err" &
	rp=$!
	if ! recording -t 180 syscalls/sys_enter_read; then
		kill -INT $rp; wait $rp
		t_fail "record did not enable sys_enter_read: $(tail -3 "$D/$n.err" | tr '\n' ' ')"
		return 1
	fi
	sleep 2
	for p in $PYPID $SHPID; do
		[ $p = $PYPID ] && fifo=$F/py.fifo || fifo=$F/sh.fifo
		# its next read() entered (python3: 1, bash: 3, one byte each),
		# by an instance of our own, then blocked there
		r0=$(reads $p)
		echo x > "$fifo"
		wait_for -t 60 bash -c "[ \$(grep -c -- '-$p *\[' $CNT/trace) -ge $((r0 + ($p == $PYPID ? 1 : 3))) ]"
		wait_for -t 30 grep -q '^0 0x0 ' /proc/$p/syscall
		sleep 1
		eu_frames $p > "$D/$n.eu.$p"
	done
	sleep 2
	kill -INT $rp
	wait $rp || { t_fail "record: status $?: $(tail -3 "$D/$n.err" | tr '\n' ' ')"; return 1; }
	report "$n" || return 1
	ustacks "$D/$n.txt" sys_enter_read pid > "$D/$n.stacks"
	# eu-stack's interrupt restarts the read: that last one's stack never
	# arrives; the one before it, of the same blocked call, is compared
	for p in $PYPID $SHPID; do
		python3 - "$D/$n.stacks" "$D/$n.eu.$p" $p >> "$D/$n.cmp" <<'EOF2'
import sys
stacks, eu, pid = sys.argv[1:4]
got = [l.rstrip('\n').split('|')[2] for l in open(stacks)
       if l.split('|')[1] == pid and l.rstrip('\n').split('|')[2]]
got = got[-1].split(';') if got else []
want = open(eu).read().split()
# a frame both name must be named alike (eu-stack: "?" when unnamed)
names = sum(1 for g, w in zip(got, want)
            if w != '?' and '+0x' not in g and g.split()[0] != w)
print(pid, len(got), len(want), names)
EOF2
		echo "  pid $p (frames, eu-stack's, names differing): $(tail -1 "$D/$n.cmp")"
	done
}

t_begin tc-attach-whole
if run attach; then
	bad=$(awk '$2 != $3 || $3 < 10 || $4 != 0' "$D/attach.cmp")
	[ -z "$bad" ] && grep -q . "$D/attach.cmp" && t_pass ||
		t_fail "report and eu-stack differ (pid frames eu-stack's names-differing): $bad; $(tail -2 "$D/attach.err" | tr '\n' ' ')"
fi

t_begin tc-no-sframe-attach-short
if run noattach --no-sframe-attach; then
	bad=$(awk '$2 < 1 || $2 >= $3 || $2 > 2' "$D/noattach.cmp")
	[ -z "$bad" ] && grep -q . "$D/noattach.cmp" && t_pass ||
		t_fail "stacks not cut without the feeder: $bad"
fi

t_summary
