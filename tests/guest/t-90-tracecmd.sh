#!/bin/bash
# trace-cmd 3.4 with our series (trace-cmd/patches, built on the host by
# rig/build-tracecmd.sh; its path in FTD_TRACECMD, set by rig/test-all.sh):
# `record -T` records deferred user stacks and saves the process maps, in
# every instance given -T; `-O nouserstacktrace_defer` keeps kernel stacks
# only; without the kernel option, one line on stderr and kernel stacks
# only; `-R stacktrace:defer` saves the maps too.  Read with the series'
# `trace-cmd report`: each event that asked followed by its kernel stack
# and its user stack, named from the saved maps and the binaries; the
# stack records hidden (counted with --stack-records).  With two -B
# instances, with a report filter, and for a 32-bit program.  Without
# FTD_TRACECMD every test here fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
CHAIN=work_inner,work_middle,work_outer,main
D=$FTD_RESULTS/t90
rm -rf "$D"
mkdir -p "$D"
NOOPT="no userstacktrace_defer option"
TESTS="tracecmd-T-user-stacks tracecmd-T-two-instances tracecmd-T-no-option
tracecmd-T-kernel-stacks-only tracecmd-R-defer-maps tracecmd-T-build-id
tracecmd-T-report-filter tracecmd-T-32bit tracecmd-stock-report-kernel-frames
tracecmd-T-no-own-syscalls tracecmd-T-strace tracecmd-T-gdb
tracecmd-T-exec-default tracecmd-T-no-syscall-stops tracecmd-exec-maps-without-T-warns
tracecmd-T-exec-old-image
tracecmd-T-system-wide tracecmd-T-vdso-named tracecmd-T-pgoff-saved
tracecmd-T-dlopen-named"

tc_require $TESTS
echo "trace-cmd: $TCMD ($("$TCMD" --version 2>&1 | grep -m1 version))"

# rec NAME ARGS...: trace-cmd record -o $D/NAME.dat ARGS (stderr kept in
# $D/NAME.err), then report NAME and its options (trace-cmd dump
# --options) in $D/NAME.opt
rec() {
	local n=$1
	shift
	"$TCMD" record -o "$D/$n.dat" "$@" > "$D/$n.out" 2> "$D/$n.err" ||
		{ t_fail "record $*: status $?: $(tail -3 "$D/$n.err" | tr '\n' ' ')"; return 1; }
	report "$n" || return 1
	"$TCMD" dump --options "$D/$n.dat" > "$D/$n.opt" 2>&1 ||
		{ t_fail "dump --options $n.dat: $(tail -3 "$D/$n.opt" | tr '\n' ' ')"; return 1; }
}

# stacks REPORT EVENT BINARY FUNCS MIN [INSTANCE]: the report shows at
# least MIN EVENT events (of INSTANCE, default the top buffer), and each
# is followed by " <kernel stack>" with frames through do_syscall_64 or
# do_int80_emulation, then " <user stack>" (complete; an unwinder mark
# may follow: -T runs the command with the SFrame registrar) whose frames are
# "FUNC+0xoff (BINARY) [file:line]" for FUNCS, innermost first (lines
# of inlined functions passed over); no stack record is shown
stacks() {
	python3 - "$@" <<'EOF'
import re, sys
rep, event, binary, want, minimum = sys.argv[1:6]
want, minimum = want.split(','), int(minimum)
inst = sys.argv[6] if len(sys.argv) > 6 else ''
ev = re.compile(r'^(?:(\S+): )?\s*\S.*-\d+\s+\[\d+\]\s+\S+\s+\d+\.\d+: (\S+):')
lines = open(rep, errors='replace').read().split('\n')
n, i = 0, 0
while i < len(lines):
    m = ev.match(lines[i])
    i += 1
    if not m:
        continue
    if m.group(2) in ('user_stack_cookie', 'user_stack_deferred', 'kernel_stack'):
        sys.exit('a stack record is shown: ' + lines[i - 1])
    if m.group(2) != event or (m.group(1) or '') != inst:
        continue
    k, u = [], []
    if lines[i] != ' <kernel stack>':
        sys.exit('%s is not followed by its kernel stack: %r' % (event, lines[i]))
    i += 1
    while lines[i].startswith(' => '):
        k.append(lines[i][4:]); i += 1
    # the unwinder mark (contract.md): none for frame pointers; [sframe]
    # when SFrame found frames, as with the registrar record -T runs
    if not re.match(r'^ <user stack>( \[sframe(\+fp)?\])?$', lines[i]):
        sys.exit('%s: no complete user stack after the kernel stack: %r' % (event, lines[i]))
    i += 1
    while i < len(lines) and lines[i].startswith(' => '):
        # inlined functions have lines of their own; a source line may
        # follow the frame (debug info)
        if ' [inlined] ' not in lines[i]:
            u.append(re.sub(r' [^ ()]+:\d+$', '', lines[i][4:]))
        i += 1
    if not any(f.startswith(('do_syscall_64+', 'do_int80_emulation+')) for f in k):
        sys.exit('no syscall entry among the kernel frames: %s' % k)
    got = [re.sub(r'\+0x[0-9a-f]+ \((.*)\)$', r' \1', f) for f in u[:len(want)]]
    exp = ['%s %s' % (f, binary) for f in want]
    if got != exp:
        sys.exit('user frames %s, expected %s first' % (u, exp))
    n += 1
if n < minimum:
    sys.exit('%d %s events with their stacks, expected at least %d' % (n, event, minimum))
print('%d %s events, each with kernel frames then user %s' % (n, event, ' <- '.join(want)))
EOF
}

# maps OPT BINARY: the dump of the options has a PROCMAPS option for BINARY
maps() {
	grep -q 'Option PROCMAPS' "$1" || { echo "no PROCMAPS option in $(basename "$1")"; return 1; }
	grep -Eq " $2( [0-9a-f]+)?( pgoff=[0-9a-f]+)?\$" "$1" || { echo "PROCMAPS does not name $2"; return 1; }
	echo "PROCMAPS saved for $2"
}
nomaps() { ! grep -q 'Option PROCMAPS' "$1" || { echo "PROCMAPS in $(basename "$1")"; return 1; }; }
# count REPORT EVENT: how many EVENT records the report has
count() { grep -c " $2: " "$1"; }
# noline ERR: stderr does not say the kernel option is missing
noline() { ! grep -q "$NOOPT" "$1" || { cat "$1"; return 1; }; }
opt_off() { test "$(cat "$TRACEFS/options/userstacktrace_defer")" = 0; }

t_begin tracecmd-T-user-stacks
rec t -T -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 3 &&
check "stacks under the events" stacks "$D/t.txt" sys_enter_getppid "$WL"/callchain $CHAIN 3 &&
check "cookie records, no kernel_stack records" test "$(count "$D/t.raw" user_stack_cookie)" -ge 3 -a "$(count "$D/t.raw" kernel_stack)" = 0 &&
check "maps without --proc-map" maps "$D/t.opt" "$WL"/callchain &&
check "no missing-option line" noline "$D/t.err" &&
check "option reset after record" opt_off &&
t_pass

# Each instance given -T gets the option and its own user stack records
# (the same cookie in both: one kernel entry); report shows each
# instance's events with their stacks
t_begin tracecmd-T-two-instances
rec b -B ta -T -e syscalls:sys_enter_getppid -B tb -T -e syscalls:sys_enter_getppid \
	-F "$WL"/callchain getppid 3 &&
check "instance ta: stacks under the events" stacks "$D/b.txt" sys_enter_getppid "$WL"/callchain $CHAIN 3 ta &&
check "instance tb: stacks under the events" stacks "$D/b.txt" sys_enter_getppid "$WL"/callchain $CHAIN 3 tb &&
check "maps without --proc-map" maps "$D/b.opt" "$WL"/callchain &&
check "no missing-option line" noline "$D/b.err" &&
t_pass

# A kernel without the option, as trace-cmd sees it: in a mount namespace
# of its own, an empty directory over the top instance's options/ (-T's
# "stacktrace" goes through trace_options, which stays)
t_begin tracecmd-T-no-option
mkdir -p "$D/empty" &&
cat > "$D/noopt.sh" <<EOF &&
# noopt.sh ERRFILE CMD...: CMD with stderr to ERRFILE, the options hidden
mount --bind "$D/empty" "$TRACEFS/options" || exit 99
test ! -e "$TRACEFS/options/userstacktrace_defer" || exit 98
err=\$1
shift
exec "\$@" 2> "\$err"
EOF
check "record in the namespace" unshare -m --propagation private bash "$D/noopt.sh" "$D/n.err" \
	"$TCMD" record -o "$D/n.dat" -T -e syscalls:sys_enter_getppid -B na -T -e syscalls:sys_enter_getppid \
	-B nb -T -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 3 &&
report n &&
check "one line on stderr" test "$(grep -c "$NOOPT" "$D/n.err")" = 1 &&
check "the line" grep -qx "trace-cmd record: -T: this kernel has $NOOPT: kernel stacks only" "$D/n.err" &&
check "kernel stacks" test "$(count "$D/n.raw" kernel_stack)" -ge 9 &&
check "no cookie records" test "$(count "$D/n.raw" user_stack_cookie)" = 0 &&
check "no user stacks" test "$(count "$D/n.raw" user_stack_deferred)" = 0 &&
check "kernel_stack records shown as stock shows them, no blocks, no user stack" \
	test "$(count "$D/n.txt" kernel_stack)" -ge 9 -a "$(grep -c '^ <kernel stack>$' "$D/n.txt")" = 0 -a "$(grep -c '^ <user stack>' "$D/n.txt")" = 0 &&
check "kernel stacks only, asked for: no line, no failure" unshare -m --propagation private bash "$D/noopt.sh" "$D/n2.err" \
	"$TCMD" record -o "$D/n2.dat" -T -O nouserstacktrace_defer -e syscalls:sys_enter_getppid \
	-F "$WL"/callchain getppid 1 &&
check "no line then" noline "$D/n2.err" &&
t_pass

# -O nouserstacktrace_defer, before or after -T: kernel stacks only
t_begin tracecmd-T-kernel-stacks-only
rec k1 -T -O nouserstacktrace_defer -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 3 &&
rec k2 -O nouserstacktrace_defer -T -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 3 &&
ok=0 &&
for k in k1 k2; do
	check "$k: kernel stacks" test "$(count "$D/$k.raw" kernel_stack)" -ge 3 &&
	check "$k: no cookie records" test "$(count "$D/$k.raw" user_stack_cookie)" = 0 &&
	check "$k: no user stacks" test "$(count "$D/$k.raw" user_stack_deferred)" = 0 &&
	check "$k: no user stack under the events" test "$(grep -c '^ <user stack>' "$D/$k.txt")" = 0 &&
	check "$k: kernel_stack records shown, no blocks" test "$(count "$D/$k.txt" kernel_stack)" -ge 3 -a "$(grep -c '^ <kernel stack>$' "$D/$k.txt")" = 0 &&
	check "$k: no line" noline "$D/$k.err" || break
	ok=$((ok + 1))
done &&
[ $ok = 2 ] &&
t_pass

# A stacktrace:defer trigger saves the maps too; without it (control), no maps
t_begin tracecmd-R-defer-maps
rec r -e syscalls:sys_enter_getppid -R stacktrace:defer -F "$WL"/callchain getppid 3 &&
check "stacks under the events" stacks "$D/r.txt" sys_enter_getppid "$WL"/callchain $CHAIN 3 &&
check "maps without --proc-map" maps "$D/r.opt" "$WL"/callchain &&
rec r0 -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 1 &&
check "control: no maps without -T or the trigger" nomaps "$D/r0.opt" &&
t_pass

# buildid OPT BINARY: the saved maps give BINARY's GNU build ID
buildid() {
	local id
	id=$(readelf -n "$2" | awk '/Build ID:/ { print $3; exit }')
	[ -n "$id" ] || { echo "$2 has no build ID"; return 1; }
	grep -Eq " $2 $id( pgoff=[0-9a-f]+)?\$" "$1" || { echo "no ' $2 $id' line in $(basename "$1")"; return 1; }
	echo "build ID $id saved for $2"
}

# The build ID is saved with the maps; report names frames only from a
# binary of that build: the program replaced by another build gets the
# mark and no names, the right one under --symdir names them again.  The
# same for libustack's ustack built against the series' libtracecmd
# (next to $TCMD, rig/build-tracecmd.sh), which reads the build IDs
# through the public API of trace-cmd patch 0007.
t_begin tracecmd-T-build-id
HOME0=$HOME
mkdir -p "$D/prog" "$D/good" &&
cp "$WL"/callchain "$D/prog/callchain" && cp "$WL"/callchain "$D/good/callchain" &&
rec bid -T -e syscalls:sys_enter_getppid -F "$D/prog/callchain" getppid 3 &&
check "build ID in the maps" buildid "$D/bid.opt" "$D/prog/callchain" &&
check "named with the right build" stacks "$D/bid.txt" sys_enter_getppid "$D/prog/callchain" $CHAIN 3 &&
cp "$WL"/callchain-pie "$D/prog/callchain" &&
# no archive anywhere: perf record (t-45) leaves the workload's build in
# perf's cache, $HOME/.debug, where every reader now looks (ustack
# --archive, issue 39), and it would name the frames rightly
export HOME=$D/home && mkdir -p "$HOME" &&
TRACEEVENT_PLUGIN_DIR=/nonexistent "$TCMD" report -i "$D/bid.dat" > "$D/bid2.txt" 2> "$D/bid2.err" &&
check "another build: marked" test "$(grep -c '^ => /.*/prog/callchain+0x[0-9a-f]* (0x[0-9a-f]*) \[build-id mismatch\]$' "$D/bid2.txt")" -ge 12 &&
check "another build: no names from it" test "$(grep -c '^ => work_inner+' "$D/bid2.txt")" = 0 &&
check "another build: one warning" test "$(grep -c 'no file of build' "$D/bid2.err")" = 1 &&
{ "$(dirname "$TCMD")/ustack" -q "$D/bid.dat" > "$D/bid4.txt" 2>&1; true; } &&
check "ustack (the series' libtracecmd): another build marked" \
	test "$(grep -c '^  u /.*/prog/callchain+0x[0-9a-f]* (0x[0-9a-f]*) \[build-id mismatch\]$' "$D/bid4.txt")" -ge 12 &&
check "ustack: no names from it" test "$(grep -c '^  u work_inner+' "$D/bid4.txt")" = 0 &&
{ "$(dirname "$TCMD")/ustack" -q -s "$D/good" "$D/bid.dat" > "$D/bid5.txt" 2>&1; true; } &&
check "ustack: the right build under -s" test "$(grep -c '^  u work_inner+' "$D/bid5.txt")" -ge 3 &&
TRACEEVENT_PLUGIN_DIR=/nonexistent "$TCMD" report --symdir "$D/good" -i "$D/bid.dat" > "$D/bid3.txt" 2>&1 &&
check "the right build under --symdir" stacks "$D/bid3.txt" sys_enter_getppid "$D/prog/callchain" $CHAIN 3 &&
t_pass
export HOME=$HOME0

# Every syscall asks; report -F shows only getppid, each with its stacks
t_begin tracecmd-T-report-filter
rec all -T -e syscalls -F "$WL"/callchain getppid 3 &&
TRACEEVENT_PLUGIN_DIR=/nonexistent "$TCMD" report -F sys_enter_getppid -i "$D/all.dat" > "$D/allf.txt" 2>&1 &&
check "stacks under the filtered events" stacks "$D/allf.txt" sys_enter_getppid "$WL"/callchain $CHAIN 3 &&
check "only sys_enter_getppid shown" test "$(grep -c ': sys_enter_getppid: ' "$D/allf.txt")" = "$(grep -c '^ *[^ <=].*: [a-z_]*: ' "$D/allf.txt")" &&
check "more events asked in the whole report" test "$(grep -c '^ <user stack>' "$D/all.txt")" -gt "$(grep -c '^ <user stack>' "$D/allf.txt")" &&
t_pass

# A 32-bit program (int $0x80: raw_syscalls, id 64 is getppid on i386)
t_begin tracecmd-T-32bit
rec c32 -T -e raw_syscalls:sys_enter -f "id == $NR_GETPPID_32" -F "$WL"/callchain32 getppid 3 &&
check "stacks under the events" stacks "$D/c32.txt" sys_enter "$WL"/callchain32 $CHAIN 3 &&
check "maps without --proc-map" maps "$D/c32.opt" "$WL"/callchain32 &&
t_pass

# A reader without a handler for the records (bookworm's stock trace-cmd
# 3.1.6 and libtraceevent 1.7, no plugins) shows the kernel frames of
# user_stack_cookie from its print format: by name, as kernel_stack's
# (issue 38 item 4: libtraceevent 1.7 printed __print_array() as decimal
# numbers).  Oracle: /proc/kallsyms: every frame is a text symbol of it
# or 0x0 (past the stack's end), and the syscall's path is named.
t_begin tracecmd-stock-report-kernel-frames
sr=$D/t.stock
if ! /usr/bin/trace-cmd report -N -i "$D/t.dat" > "$sr" 2>&1; then
	t_fail "stock trace-cmd report -N t.dat: $(tail -3 "$sr" | tr '\n' ' ')"
else
	check "kernel frames named in the stock report" python3 - "$sr" <<'EOF2' && t_pass
import re, sys
text = {n for a, t, n, *_ in (l.split() for l in open('/proc/kallsyms'))
        if t in 'tT'}
recs = named = 0
bad = []
for l in open(sys.argv[1], errors='replace'):
    m = re.search(r'user_stack_cookie: .*kernel=(\S*)', l)
    if not m:
        continue
    recs += 1
    frames = m.group(1).split(',')
    bad += [f for f in frames if f != '0x0' and f not in text]
    named += {'do_syscall_64', 'entry_SYSCALL_64_after_hwframe'} <= set(frames)
print('%d cookie records, %d with do_syscall_64 and '
      'entry_SYSCALL_64_after_hwframe named; not kallsyms text: %s'
      % (recs, named, ' '.join(bad[:5]) or 'none'))
sys.exit(not (recs and named and not bad))
EOF2
fi

# -T saves the maps of the command through ptrace (trace-cmd is its
# tracer from its start): none of trace-cmd's own system calls in the
# child before the command's execve is recorded as the command's, with
# the stacks they ask for (there were the exit of the write that set the
# pid filter and the child's ptrace(PTRACE_TRACEME)): the first event of
# the command is its sys_enter_execve, and it makes no ptrace() call
t_begin tracecmd-T-no-own-syscalls
rec pt -T -e syscalls -F "$WL"/callchain getppid 2 &&
first=$(grep -m1 -E '^ *[^ <=].*-[0-9]+ +\[[0-9]+\].*: sys_(enter|exit)_' "$D/pt.txt" | sed -E 's/.*: (sys_[a-z0-9_]+):.*/\1/') &&
check "the command's events are there" test "$(count "$D/pt.txt" sys_enter_getppid)" = 2 &&
check "its first event is sys_enter_execve (got $first)" test "$first" = sys_enter_execve &&
check "no ptrace() call recorded" test "$(count "$D/pt.txt" sys_enter_ptrace)" = 0 &&
check "maps saved" maps "$D/pt.opt" "$WL"/callchain &&
t_pass

# A command that traces its own children works under -T: trace-cmd
# follows no child of the command (only -c does), so they are free to be
# traced by it
t_begin tracecmd-T-strace
if ! command -v strace > /dev/null; then
	t_fail "no strace in the guest"
else
	rec stc -T -e syscalls:sys_enter_getppid -F strace -f -o "$D/stc.strace" "$WL"/callchain getppid 2 &&
	check "strace traced its child: getppid() calls in its log" test "$(grep -c 'getppid()' "$D/stc.strace")" = 2 &&
	check "and saw it exit" grep -q '+++ exited with 0 +++' "$D/stc.strace" &&
	"$TCMD" record -o "$D/stt.dat" -T -e syscalls:sys_enter_getppid -F strace -f true > "$D/stt.out" 2> "$D/stt.err" &&
	check "strace -f true: no ptrace error" bash -c "! grep -q 'Operation not permitted\|ptrace' '$D/stt.err'" &&
	check "strace -f true: its exit line" grep -q '+++ exited with 0 +++' "$D/stt.err" &&
	t_pass
fi

t_begin tracecmd-T-gdb
if ! command -v gdb > /dev/null; then
	t_fail "no gdb in the guest"
else
	rec gdb -T -e syscalls:sys_enter_getppid -F gdb -batch -nx -ex run --args /bin/true &&
	check "gdb ran /bin/true: $(grep -m1 -i 'inferior\|warning\|error' "$D/gdb.out" "$D/gdb.err")" \
		grep -q 'exited normally' "$D/gdb.out" &&
	check "no ptrace error" bash -c "! grep -qi 'ptrace\|not permitted' '$D/gdb.err' '$D/gdb.out'" &&
	rec gdb2 -T -e syscalls:sys_enter_getppid -F gdb -batch -nx -ex run --args "$WL"/callchain getppid 1 &&
	check "gdb ran the workload" grep -q 'exited normally' "$D/gdb2.out" &&
	t_pass
fi

WCHAIN() { echo "work_inner $1;work_middle $1;work_outer $1;main $1"; }

# A command that execs another image mid-recording (callchain's
# work_inner calls execve(callchain-pie)), by default: -T does not stop
# it at its system calls, so the maps of the image it leaves are not
# read; it records sched_process_exec, saves the maps of trace-cmd's own
# child at the stop before it execs the command, and counts the execs
# (PTRACE_O_TRACEEXEC).  trace-cmd's child's execve is named in
# trace-cmd's image, the workload's is marked [before exec] (before, it
# was named in callchain: the command stopped at each system call), and
# the new image is named in its own maps
t_begin tracecmd-T-exec-default
rec ed -T -e syscalls:sys_enter_execve -e syscalls:sys_enter_getppid -F "$WL"/callchain exec "$WL"/callchain-pie &&
ustacks "$D/ed.txt" sys_enter_execve > "$D/ed.execve" &&
check "two execve events: trace-cmd's child's, the workload's" test "$(wc -l < "$D/ed.execve")" = 2 &&
check "trace-cmd's child's execve named in trace-cmd's image: $(sed -n 1p "$D/ed.execve" | cut -c1-200)" \
	grep -Eq '^[^|]*\|[^ ;]+ /[^;]+' <(sed -n 1p "$D/ed.execve") &&
check "the workload's execve: at least 4 frames, each marked [before exec]: $(sed -n 2p "$D/ed.execve" | cut -c1-200)" \
	python3 -c 'import re, sys; f = sys.argv[1].split("|", 1)[1].split(";"); sys.exit(not (len(f) >= 4 and all(re.fullmatch(r"0x[0-9a-f]+ \[before exec\]", x) for x in f)))' "$(sed -n 2p "$D/ed.execve")" &&
check "the new image named in its own maps" stacks "$D/ed.txt" sys_enter_getppid "$WL"/callchain-pie $CHAIN 1 &&
check "sched_process_exec recorded, with its format" test "$(grep -c ': sched_process_exec: *filename=' "$D/ed.txt")" = 2 &&
check "the maps of trace-cmd's child, two execs before the end" grep -Eq " .*trace-cmd execs=2\$" "$D/ed.opt" &&
check "no maps of the image the workload left" test "$(grep -c " $WL/callchain execs=" "$D/ed.opt")" = 0 &&
check "the last image's maps" maps "$D/ed.opt" "$WL"/callchain-pie &&
t_pass

# By default -T stops the command at no system call: the ptrace stops
# are voluntary context switches of the stopped task, so a command
# making N getppid() calls counts its own (getrusage ru_nvcsw) around
# them: few by default, as with --proc-map without -T, and at least 2N
# (entry and exit) with --exec-maps, which stops it at each one (the
# control: the count sees the stops)
t_begin tracecmd-T-no-syscall-stops
NS=3000
NVPY='import os, resource, sys
r = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
a = r()
for i in range(int(sys.argv[1])):
    os.getppid()
print("nvcsw", r() - a)'
vcs() { awk '$1 == "nvcsw" { print $2 }' "$D/$1.out"; }
rec ns0 --proc-map -e syscalls:sys_enter_execve -F /usr/bin/python3 -c "$NVPY" $NS &&
check "--proc-map: fewer than one per 10 calls ($(vcs ns0))" test "$(vcs ns0)" -lt $((NS / 10)) &&
rec ns1 -T -e syscalls:sys_enter_execve -F /usr/bin/python3 -c "$NVPY" $NS &&
check "-T: fewer than one per 10 calls ($(vcs ns1))" test "$(vcs ns1)" -lt $((NS / 10)) &&
check "-T: the command's maps saved" maps "$D/ns1.opt" "$(readlink -f /usr/bin/python3)" &&
rec ns2 -T --exec-maps -e syscalls:sys_enter_execve -F /usr/bin/python3 -c "$NVPY" $NS &&
check "-T --exec-maps: at least 2 stops per call ($(vcs ns2))" test "$(vcs ns2)" -ge $((2 * NS)) &&
check "-T --exec-maps: no warning" test "$(grep -c 'exec-maps is ignored' "$D/ns2.err")" = 0 &&
t_pass

# --exec-maps means nothing without -T: a warning says so (it was ignored
# silently), and the command runs unstopped (no stops counted)
t_begin tracecmd-exec-maps-without-T-warns
rec nw --exec-maps --proc-map -e syscalls:sys_enter_execve -F /usr/bin/python3 -c "$NVPY" $NS &&
check "the warning: $(head -c 200 "$D/nw.err" | tr '\n' ' ')" grep -q -- '--exec-maps is ignored: it needs -T and a command' "$D/nw.err" &&
check "no stops ($(vcs nw))" test "$(vcs nw)" -lt $((NS / 10)) &&
t_pass

# --exec-maps: -T stops the command at each system call, saves the maps
# of the image it leaves at each execve: the frames of the workload's
# execve are named in callchain (without it they are [before exec]),
# those of trace-cmd's own child's execve in trace-cmd's image, and the
# new image's in callchain-pie; nothing is marked [before exec]
t_begin tracecmd-T-exec-old-image
rec ex -T --exec-maps -e syscalls:sys_enter_execve -e syscalls:sys_enter_getppid -F "$WL"/callchain exec "$WL"/callchain-pie &&
ustacks "$D/ex.txt" sys_enter_execve > "$D/ex.execve" &&
check "two execve events: trace-cmd's child's, the workload's" test "$(wc -l < "$D/ex.execve")" = 2 &&
check "the workload's execve named in the image it left: $(sed -n 2p "$D/ex.execve" | cut -c1-200)" \
	grep -q "|$(WCHAIN "$WL"/callchain)" "$D/ex.execve" &&
check "trace-cmd's child's execve named in trace-cmd's image: $(sed -n 1p "$D/ex.execve" | cut -c1-200)" \
	grep -Eq '^[^|]*\|[^ ;]+ /[^;]+' <(sed -n 1p "$D/ex.execve") &&
check "nothing marked [before exec]" test "$(grep -c 'before exec' "$D/ex.txt")" = 0 &&
check "the new image named in its own maps" stacks "$D/ex.txt" sys_enter_getppid "$WL"/callchain-pie $CHAIN 1 &&
check "sched_process_exec recorded, with its format" test "$(grep -c ': sched_process_exec: *filename=' "$D/ex.txt")" = 2 &&
check "the maps of the image left by the workload's exec" grep -q " $WL/callchain execs=1\$" "$D/ex.opt" &&
check "the maps of trace-cmd's child" grep -Eq " .*trace-cmd execs=2\$" "$D/ex.opt" &&
check "the last image's maps" maps "$D/ex.opt" "$WL"/callchain-pie &&
t_pass

# Without a command (system wide): the maps of the processes that asked
# and still run at the end are saved, so their frames are named; one
# that exited before is left unnamed, and ustack says so.  Before: no
# maps at all.  (--no-exec-mappings: the kernel's mmap:exec_mapping names
# the exited one too, t-91-system-wide's sw-exec-mapping-* cases.)
t_begin tracecmd-T-system-wide
"$TCMD" record -o "$D/sw.dat" -T --no-exec-mappings -e syscalls:sys_enter_getppid > "$D/sw.out" 2> "$D/sw.err" &
rp=$!
if ! recording syscalls/sys_enter_getppid; then
	kill -INT $rp; wait $rp
	t_fail "record did not enable sys_enter_getppid: $(tail -3 "$D/sw.err" | tr '\n' ' ')"
else
	sleep 3
	"$WL"/callchain getppid 2
	"$WL"/callchain-pie pause 3 &
	lp=$!
	sleep 3
	kill -INT $rp
	wait $rp
	rc=$?
	kill $lp 2>/dev/null
	wait $lp 2>/dev/null
	if [ $rc != 0 ]; then
		t_fail "record: status $rc: $(tail -3 "$D/sw.err" | tr '\n' ' ')"
	else
		report sw &&
		"$TCMD" dump --options "$D/sw.dat" > "$D/sw.opt" 2>&1 &&
		ustacks "$D/sw.txt" sys_enter_getppid > "$D/sw.stacks" &&
		{ "$(dirname "$TCMD")/ustack" "$D/sw.dat" > "$D/sw.ust" 2> "$D/sw.uerr"; true; } &&
		check "the live process's frames named: $(grep -m1 '^callchain-pie|' "$D/sw.stacks" | cut -c1-200)" \
			test "$(grep -c "^callchain-pie|$(WCHAIN "$WL"/callchain-pie)" "$D/sw.stacks")" = 3 &&
		check "the exited one's unnamed: $(grep -m1 '^callchain|' "$D/sw.stacks" | cut -c1-200)" \
			test "$(grep -c '^callchain|0x[0-9a-f]*;' "$D/sw.stacks")" = 2 &&
		check "maps saved for the live one" maps "$D/sw.opt" "$WL"/callchain-pie &&
		check "none for the exited one" test "$(grep -Ec " $WL/callchain( [0-9a-f]+)?( pgoff=[0-9a-f]+)?\$" "$D/sw.opt")" = 0 &&
		check "ustack says why: $(cat "$D/sw.uerr")" grep -q 'user frames of processes whose maps were not saved' "$D/sw.uerr" &&
		t_pass
	fi
fi

# vdsoframes REPORT IMAGE EVENT MIN: at least MIN EVENT events, and each
# has a user stack whose first frame is "NAME+0xOFF ([vdso])", NAME a
# symbol nm -D gives IMAGE (the vDSO as a process maps it) with OFF
# inside it
vdsoframes() {
	python3 - "$@" <<'EOF2'
import re, subprocess, sys
rep, image, event, least = sys.argv[1:5]
syms = {}
for l in subprocess.run(['nm', '-D', '-S', image], capture_output=True,
                        text=True, check=True).stdout.split('\n'):
    f = l.split()
    if len(f) == 4 and f[2] in 'TtWw':
        syms.setdefault(f[3].split('@')[0], []).append((int(f[0], 16), int(f[1], 16)))
ev = re.compile(r'^\s*\S.*-\d+\s+\[\d+\]\s+\S+\s+\d+\.\d+: (\S+):')
lines = open(rep, errors='replace').read().split('\n')
n = 0
for i, l in enumerate(lines):
    m = ev.match(l)
    if not m or m.group(1) != event:
        continue
    j = i + 1
    while j < len(lines) and not lines[j].startswith(' <user stack>'):
        j += 1
    top = lines[j + 1] if j + 1 < len(lines) else ''
    fm = re.match(r'^ => (\S+)\+0x([0-9a-f]+) \(\[vdso\]\)', top)
    if not fm:
        sys.exit('%s event at line %d: first user frame %r' % (event, i + 1, top))
    name, off = fm.group(1), int(fm.group(2), 16)
    if not any(off < size for _, size in syms.get(name, [])):
        sys.exit('%s+0x%x: nm -D gives no %s of that size (%s)' % (name, off, name, syms.get(name)))
    n += 1
if n < int(least):
    sys.exit('%d %s events, not %s' % (n, event, least))
print('%d named, the first %s' % (n, re.search(r' => \S+ \(\[vdso\]\)', open(rep).read()).group(0)))
EOF2
}

# A user frame in the vDSO: clock_gettime() of a clock the vDSO has no
# fast path for makes the system call from the vDSO.  -T saves the
# vDSO's build ID after "[vdso]" (readelf -n of the image as a process
# maps it, the oracle), and report names the frame from the image of
# that build, here its own vDSO (the same kernel), as nm -D names it.
t_begin tracecmd-T-vdso-named
check "the vDSO image dumped" bash -c '"$1"/callchain vdso-dump "$2" && readelf -h "$2" | grep -m1 Class' _ "$WL" "$D/vdso.so" &&
vid=$(readelf -n "$D/vdso.so" | awk '/Build ID:/ { print $3; exit }') &&
rec vdso -T -e syscalls:sys_enter_clock_gettime -F "$WL"/callchain vdso 3 &&
check "the vDSO's build ID $vid saved" grep -Eq " \[vdso\] $vid( pgoff=[0-9a-f]+)?\$" "$D/vdso.opt" &&
check "frames in [vdso] named as nm -D names them" vdsoframes "$D/vdso.txt" "$D/vdso.so" sys_enter_clock_gettime 3 &&
t_pass

# Each map line says where the mapping starts in its file (pgoff=HEX):
# the workload's lines, placed against its lowest, hold its PT_LOAD
# segments as readelf -l gives them, each line's pgoff the file offset
# of its first address in its segment, every segment's first page mapped.
t_begin tracecmd-T-pgoff-saved
rec pgoff -T -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 1 &&
check "the workload's mappings with their segments' offsets" python3 - "$D/pgoff.opt" "$WL"/callchain <<'EOF2' &&
import re, subprocess, sys
opt, binary = sys.argv[1:3]
# the map lines, not the "pid count exe" line after each option's header
lines, prev = [], ''
for l in open(opt):
    if 'Option PROCMAPS' not in prev and re.match(r'^[0-9a-f]+ [0-9a-f]+ %s( |$)' % re.escape(binary), l):
        lines.append(l.split())
    prev = l
if not lines:
    sys.exit('no map line of %s' % binary)
got = []
for l in lines:
    pg = [f for f in l[3:] if f.startswith('pgoff=')]
    if not pg:
        sys.exit('no pgoff on: %s' % ' '.join(l))
    got.append((int(l[0], 16), int(pg[0][6:], 16)))
segs = []
for l in subprocess.run(['readelf', '-lW', binary], capture_output=True, text=True).stdout.split('\n'):
    f = l.split()
    if f and f[0] == 'LOAD':
        segs.append((int(f[2], 16), int(f[5], 16), int(f[1], 16)))
low, first = min(a for a, _ in got), segs[0][0] & ~0xfff
for a, o in got:
    v = a - low + first
    if not any(vs & ~0xfff <= v < vs + ms and o == ((v - vs + off) & ~0xfff) for vs, ms, off in segs):
        sys.exit('+%x pgoff=%x: no segment of readelf %s there' % (a - low, o, segs))
for vs, ms, off in segs:
    if not any(a - low + first == vs & ~0xfff for a, _ in got):
        sys.exit('segment at %x: no mapping starts at its page' % vs)
print('%d mappings: %s' % (len(got), ' '.join('+%x@%x' % (a - low, o) for a, o in sorted(got))))
EOF2
t_pass

# dlopen()/dlclose() during a recording (patch 0018): the workload loads
# libdlwork-a.so, calls getppid() 3 times under dla_*, unloads it, loads
# libdlwork-b.so (same layout) where a was and does the same under dlb_*,
# from the same call site (so b's stacks have a's addresses: report's text
# cache must key on the loads too, issue 38 item 1),
# and keeps b to the end.  The maps read at exit show b where a was:
# before, a's frames were named dlb_* (wrong names, silently).  Now the
# registrar writes each load to trace_marker and report names a frame in
# the library mapped at its event's time.  Oracles: the workload's own
# order (a first) and load biases (dlinfo), nm -S of each library.
t_begin tracecmd-T-dlopen-named
rec dlo -T -e syscalls:sys_enter_getppid -F "$WL"/dlwork 3 keep &&
check "b loaded where a was (the workload's dlinfo): $(grep -E '^[ab] 0x' "$D/dlo.out" | tr '\n' ' ')" \
	test "$(grep -E '^[ab] 0x' "$D/dlo.out" | awk '{ print $2 }' | uniq | wc -l)" = 1 &&
base=$(awk '$1 == "a" { print $2; exit }' "$D/dlo.out") &&
check "the registrar's lines in the trace: a loaded, unloaded, b loaded" bash -c "
	grep -o 'ustack_map: [a-z]* v=1 pid=[0-9]* tid=[0-9]* base=$base.*' '$D/dlo.txt' |
	sed 's/ build_id=.*path=/ /; s/ v=1 pid=[0-9]* tid=[0-9]*//' > '$D/dlo.loads'
	diff <(printf '%s\n' 'ustack_map: open base=$base $WL/libdlwork-a.so' \
		'ustack_map: close base=$base' 'ustack_map: open base=$base $WL/libdlwork-b.so') \
		<(head -3 '$D/dlo.loads')" &&
ustacks "$D/dlo.txt" sys_enter_getppid > "$D/dlo.stacks" &&
check "6 getppid stacks" test "$(wc -l < "$D/dlo.stacks")" = 6 &&
check "under libc's getppid, the first 3 in a, the last 3 in b: $(cut -d'|' -f2 "$D/dlo.stacks" | cut -d';' -f2 | tr '\n' ' ')" bash -c "
	a='dla_inner $WL/libdlwork-a.so;dla_middle $WL/libdlwork-a.so;dla_work $WL/libdlwork-a.so'
	b='dlb_inner $WL/libdlwork-b.so;dlb_middle $WL/libdlwork-b.so;dlb_work $WL/libdlwork-b.so'
	cut -d'|' -f2 '$D/dlo.stacks' | cut -d';' -f2-4 > '$D/dlo.heads'
	cut -d'|' -f2 '$D/dlo.stacks' | cut -d';' -f1 | grep -c '^getppid /.*/libc\.so\.6\$' | grep -qx 6 &&
	diff <(printf '%s\n' \"\$a\" \"\$a\" \"\$a\" \"\$b\" \"\$b\" \"\$b\") '$D/dlo.heads'" &&
check "each frame's offset inside its function (nm -S)" python3 - "$D/dlo.txt" "$WL" <<'EOF2' &&
import re, subprocess, sys
rep, wl = sys.argv[1:3]
size = {}
for lib in ('a', 'b'):
    out = subprocess.run(['nm', '-S', '%s/libdlwork-%s.so' % (wl, lib)], capture_output=True, text=True).stdout
    for l in out.split('\n'):
        f = l.split()
        if len(f) == 4:
            size[(lib, f[3])] = int(f[1], 16)
n = 0
for m in re.finditer(r' => (dl([ab])_[a-z]+)\+0x([0-9a-f]+) \(\S*/libdlwork-([ab])\.so\)', open(rep).read()):
    name, lib, off, file = m.group(1), m.group(2), int(m.group(3), 16), m.group(4)
    if lib != file or off >= size.get((lib, name), 0):
        sys.exit('%s+0x%x in libdlwork-%s.so: nm -S says size %s' % (name, off, file, size.get((lib, name))))
    n += 1
if n != 18:
    sys.exit('%d library frames, want 18' % n)
print('%d library frames inside their functions' % n)
EOF2
TRACEEVENT_PLUGIN_DIR="${FTD_PLUGIN_DIR:-$REPO/trace-cmd/plugins}" /usr/bin/trace-cmd report -i "$D/dlo.dat" > "$D/dlo.stock" 2>&1 &&
check "stock trace-cmd with the libtraceevent plugin: 6 user stacks as addresses, 3 frames each in the library at $base" \
	python3 - "$D/dlo.stock" "$base" <<'EOF2' &&
import re, sys
text, base = open(sys.argv[1]).read(), int(sys.argv[2], 16)
n = 0
for m in re.finditer(r'user_stack_deferred: +cookie=\S+ tgid=\d+ nr=\d+[^\n]*\n((?:=> 0x[0-9a-f]+\n?)*)', text):
    fr = [int(a, 16) for a in re.findall(r'=> (0x[0-9a-f]+)', m.group(1))]
    n += sum(base <= a < base + 0x100000 for a in fr) == 3
if n != 6:
    sys.exit('%d user stacks with 3 frames at the library, want 6' % n)
print('%d user stacks, 3 frames each at the library (the series names them dla, dlb)' % n)
EOF2
t_pass

reset_tracing
t_summary
