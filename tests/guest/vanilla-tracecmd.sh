#!/bin/bash
# trace-cmd 3.4 with our series (trace-cmd/patches; its path in
# FTD_TRACECMD) on a real vanilla kernel: Debian's own 7.3 kernel
# (rig/fetch-debian-kernel.sh; the pristine build of FTD_NO_OURS=1
# rig/build-kernel.sh works too), booted on its own by rig/test-all.sh
# (suite guest-vanilla).  t-90's tracecmd-T-no-option
# only simulates this kernel (options/ hidden by a bind mount).
#
# First: the kernel really is vanilla (no options/userstacktrace_defer,
# no ftrace:user_stack_cookie or user_stack_deferred event).  Then `record
# -T`, in the top instance and in a -B instance, exits 0, says once on
# stderr that the kernel has no userstacktrace_defer option, and records
# kernel stacks only (ftrace:kernel_stack, with the syscall entry among the
# frames), which the series' report prints as stock trace-cmd does (the
# file has no user_stack_cookie format); no maps are saved.  `-T -O
# nouserstacktrace_defer` (either order) exits 0 without the line.  Without
# FTD_TRACECMD, or on a kernel that is not vanilla, every test fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
D=$FTD_RESULTS/vanilla
rm -rf "$D"
mkdir -p "$D"
NOOPT="no userstacktrace_defer option"
LINE="trace-cmd record: -T: this kernel has $NOOPT: kernel stacks only"
TESTS="vanilla-kernel vanilla-tracecmd-T vanilla-tracecmd-T-kernel-stacks-only"

tc_require $TESTS
echo "kernel $(uname -r) ($(uname -v)); trace-cmd: $TCMD ($("$TCMD" --version 2>&1 | grep -m1 version))"

# rec NAME ARGS...: trace-cmd record -o $D/NAME.dat ARGS (stderr in
# $D/NAME.err; a non-zero status fails the test), then report NAME, its
# options (trace-cmd dump --options) in $D/NAME.opt and its ftrace event
# formats (dump --ftrace-events) in $D/NAME.fmt
rec() {
	local n=$1 rc
	shift
	"$TCMD" record -o "$D/$n.dat" "$@" > "$D/$n.out" 2> "$D/$n.err"
	rc=$?
	[ $rc = 0 ] ||
		{ t_fail "record $*: status $rc: $(tail -3 "$D/$n.err" | tr '\n' ' ')"; return 1; }
	echo "  record $n: status 0; stderr: $(grep -c . "$D/$n.err") line(s)"
	sed 's/^/    | /' "$D/$n.err"
	report "$n" || return 1
	"$TCMD" dump --options "$D/$n.dat" > "$D/$n.opt" 2>&1 ||
		{ t_fail "dump --options $n.dat: $(tail -3 "$D/$n.opt" | tr '\n' ' ')"; return 1; }
	"$TCMD" dump --ftrace-events "$D/$n.dat" > "$D/$n.fmt" 2>&1 ||
		{ t_fail "dump --ftrace-events $n.dat: $(tail -3 "$D/$n.fmt" | tr '\n' ' ')"; return 1; }
}

# kstacks REPORT EVENT MIN [INSTANCE]: the report has at least MIN EVENT
# events of INSTANCE (default the top buffer), at least MIN ftrace:kernel_stack
# records of it, each with frames through do_syscall_64, and no
# user_stack_cookie or user_stack_deferred record, no stack shown under an
# event (" <kernel stack>", " <user stack>": the series' report prints
# this file as stock trace-cmd does)
kstacks() {
	python3 - "$@" <<'EOF'
import re, sys
rep, event, minimum = sys.argv[1], sys.argv[2], int(sys.argv[3])
inst = sys.argv[4] if len(sys.argv) > 4 else ''
ev = re.compile(r'^(?:(\S+): )?\s*\S.*-\d+\s+\[\d+\]\s+\S+\s+\d+\.\d+: (\S+):')
lines = open(rep, errors='replace').read().split('\n')
nev, nks, i = 0, 0, 0
for l in lines:
    if l.startswith((' <kernel stack>', ' <user stack>')):
        sys.exit('a stack shown under an event: %r' % l)
while i < len(lines):
    m = ev.match(lines[i])
    i += 1
    if not m:
        continue
    name = m.group(2)
    if name in ('user_stack_cookie', 'user_stack_deferred'):
        sys.exit('a deferred stack record: ' + lines[i - 1])
    if (m.group(1) or '') != inst:
        continue
    if name == event:
        nev += 1
    if name != 'kernel_stack':
        continue
    k = []
    while i < len(lines) and re.match(r'^\s*=> ', lines[i]):
        k.append(lines[i].split('=> ', 1)[1]); i += 1
    if not any(f.startswith('do_syscall_64') for f in k):
        sys.exit('kernel_stack without do_syscall_64 among its frames: %s' % k)
    nks += 1
if nev < minimum or nks < minimum:
    sys.exit('%d %s events, %d kernel_stack records in %s, expected at least %d of each'
             % (nev, event, nks, inst or 'the top buffer', minimum))
print('%d %s events, %d kernel_stack records through do_syscall_64 in %s'
      % (nev, event, nks, inst or 'the top buffer'))
EOF
}

# the stderr of a record has the line exactly once
oneline() {
	local n
	n=$(grep -c "$NOOPT" "$1")
	[ "$n" = 1 ] || { echo "$n lines name the option:"; cat "$1"; return 1; }
	grep -qx "$LINE" "$1" || { echo "not the exact line:"; cat "$1"; return 1; }
	echo "once: $LINE"
}
# nothing on stderr names the option (no line, no failure to set it)
noline() { ! grep -q userstacktrace_defer "$1" || { cat "$1"; return 1; }; echo "stderr does not name userstacktrace_defer"; }
nomaps() { ! grep -q 'Option PROCMAPS' "$1" || { echo "PROCMAPS in $(basename "$1")"; return 1; }; echo "no PROCMAPS option"; }
# report prints the same with and without --stack-records: as stock
# trace-cmd, the kernel_stack records where they are in the buffer
stock() { cmp "$1" "$2" && echo "$(basename "$1") = $(basename "$2")"; }
# the file's ftrace formats have kernel_stack, not the deferred stack events
noformats() {
	grep -qx 'name: kernel_stack' "$1" || { echo "no kernel_stack format in $(basename "$1")"; return 1; }
	! grep -q -E '^name: user_stack_(cookie|deferred)$' "$1" ||
		{ grep -E '^name: user_stack_(cookie|deferred)$' "$1"; return 1; }
	echo "kernel_stack, no user_stack_cookie or user_stack_deferred"
}
absent() { if [ -e "$1" ]; then echo "$1 exists"; return 1; fi; echo "no $1"; }

t_begin vanilla-kernel
check "tracefs is there" ls -d "$TRACEFS/options/stacktrace" "$TRACEFS/events/ftrace/kernel_stack" &&
check "no userstacktrace_defer option" absent "$TRACEFS/options/userstacktrace_defer" &&
check "no user_stack_cookie event" absent "$TRACEFS/events/ftrace/user_stack_cookie" &&
check "no user_stack_deferred event" absent "$TRACEFS/events/ftrace/user_stack_deferred" &&
check "no stacktrace:defer in the trigger syntax" sh -c "! grep stacktrace:defer '$TRACEFS/README' && echo 'not in README'" &&
t_pass
vanilla=$?
notvanilla() { t_fail "not a vanilla kernel (see vanilla-kernel): nothing proven"; }

# -T in the top instance and in -B x: exit 0, the line once, kernel
# stacks only in both, as stock trace-cmd records them
t_begin vanilla-tracecmd-T
[ $vanilla = 0 ] || notvanilla &&
rec t -T -e syscalls:sys_enter_getppid -B x -T -e syscalls:sys_enter_getppid \
	-F "$WL"/callchain getppid 3 &&
check "the line, once" oneline "$D/t.err" &&
check "top: kernel stacks (report --stack-records)" kstacks "$D/t.raw" sys_enter_getppid 3 &&
check "x: kernel stacks (report --stack-records)" kstacks "$D/t.raw" sys_enter_getppid 3 x &&
check "top: kernel stacks (report)" kstacks "$D/t.txt" sys_enter_getppid 3 &&
check "x: kernel stacks (report)" kstacks "$D/t.txt" sys_enter_getppid 3 x &&
check "report prints as stock" stock "$D/t.txt" "$D/t.raw" &&
check "the file's ftrace formats" noformats "$D/t.fmt" &&
check "no maps saved" nomaps "$D/t.opt" &&
t_pass

# -O nouserstacktrace_defer, after or before -T: kernel stacks, no line
t_begin vanilla-tracecmd-T-kernel-stacks-only
[ $vanilla = 0 ] || notvanilla &&
rec k1 -T -O nouserstacktrace_defer -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 3 &&
rec k2 -O nouserstacktrace_defer -T -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 3 &&
check "k1: no line" noline "$D/k1.err" &&
check "k2: no line" noline "$D/k2.err" &&
check "k1: kernel stacks" kstacks "$D/k1.raw" sys_enter_getppid 3 &&
check "k2: kernel stacks" kstacks "$D/k2.raw" sys_enter_getppid 3 &&
t_pass

reset_tracing
t_summary
