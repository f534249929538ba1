#!/bin/sh
# The guest half of tests/s390x/run.sh, run by busybox sh in the s390x
# guest (rig/run-guest.sh --arch s390x), in /ftd with bcwork-bc,
# bcwork-nobc (and its SFrame section, bcwork-nobc.sframe, and corrupt
# copies of it, sfbad-KIND.sframe), bcmini and bcmix (bcmix.sframe)
# beside it.  It only records: each case's trace goes to the
# console between "=== begin CASE" and "=== end CASE", and the host checks
# it with the cross nm/addr2line, which the guest does not have.
T=/sys/kernel/tracing
E=$T/events/syscalls

# each case removes its own trigger when it is done
reset() {
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 1 > $T/tracing_on
}

# record CASE EVENT PROGRAM ARGS...: stacktrace:defer on EVENT for the task
# of PROGRAM (the comm filter names it before it runs), run it, dump trace
# and the kernel's messages of the case ("=== dmesg")
record() {
	c=$1 ev=$2
	shift 2
	reset
	comm=$(basename "$1")
	if ! echo "stacktrace:defer if comm == \"$comm\"" > $E/$ev/trigger; then
		echo "=== begin $c"
		echo "=== trigger refused: stacktrace:defer on $ev"
		echo "=== end $c"
		return
	fi
	n0=$(dmesg | wc -l)
	"$@" > /tmp/out 2>&1
	rc=$?
	# the deferred record of an exiting task is written on its way out
	sleep 1
	echo 0 > $T/tracing_on
	echo "=== begin $c"
	echo "=== rc $rc"
	sed 's/^/=== out /' /tmp/out
	grep -v '^#' $T/trace
	dmesg | tail -n +$((n0 + 1)) | sed 's/^/=== dmesg /'
	echo "=== end $c"
	echo "!stacktrace:defer" > $E/$ev/trigger
}

echo "=== kernel $(uname -r) $(uname -m)"
[ -d $E/sys_enter_getppid ] || echo "=== no syscall events"

record backchain sys_enter_getppid ./bcwork-bc getppid 1
record nobackchain sys_enter_getppid ./bcwork-nobc getppid 1
record sframe sys_enter_getppid ./bcwork-nobc sframe ./bcwork-nobc.sframe getppid 1
record framed sys_enter_getppid ./bcwork-bc framed
# SFrame: a CFA from r11 (bc_vla), a deep stack, exec
SF="sframe ./bcwork-nobc.sframe"
record sframe-vla sys_enter_getppid ./bcwork-nobc $SF vla 8
record sframe-deep sys_enter_getppid ./bcwork-nobc $SF deep 400
record sframe-exec sys_enter_execve ./bcwork-nobc $SF exec /bin/true
# back-chain and SFrame steps in one stack (bcmix.c)
record sframe-mix sys_enter_getppid ./bcmix sframe ./bcmix.sframe mix 3 2
# a leaf that keeps its return address in an FPR (bcmix.c)
record sframe-fpr sys_enter_getppid ./bcmix sframe ./bcmix.sframe fpr
# malformed sections: refused by the prctl, or dropped at the first unwind
for f in sfbad-*.sframe; do
	[ -f "$f" ] || continue
	k=${f#sfbad-}
	record "sfbad-${k%.sframe}" sys_enter_getppid ./bcwork-nobc sframe-try "./$f" getppid 1
done
record cleanend sys_enter_getppid ./bcmini
record deep sys_enter_getppid ./bcwork-bc deep 400
record exit sys_enter_exit_group ./bcwork-bc exit
record exec sys_enter_execve ./bcwork-bc exec /bin/true

# malformed triggers: each must fail and leave a line in error_log
reset
echo > $T/error_log 2>/dev/null
echo "=== begin malformed"
for t in 'stacktrace:defer:x' 'stacktrace:deferred' 'stacktrace:defer if nosuchfield == 1'; do
	if echo "$t" > $E/sys_enter_getppid/trigger 2>/dev/null; then
		echo "=== malformed accepted: $t"
	else
		echo "=== malformed refused: $t"
	fi
done
echo "=== trigger file: $(grep -vc '^#' $E/sys_enter_getppid/trigger) entries"
sed 's/^/=== error_log /' $T/error_log
echo "=== end malformed"
exit 0
