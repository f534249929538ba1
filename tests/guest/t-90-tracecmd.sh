#!/bin/bash
# trace-cmd 3.4 with our series (trace-cmd/patches, built on the host by
# rig/build-tracecmd.sh; its path in FTD_TRACECMD, set by rig/test-all.sh):
# `record -T` records deferred user stacks and saves the process maps, in
# every instance given -T; `-O nouserstacktrace_defer` keeps kernel stacks
# only; without the kernel option, one line on stderr and kernel stacks
# only; `-R stacktrace:defer` saves the maps too.  Read with `trace-cmd
# report` and our libtraceevent plugin.  Without FTD_TRACECMD or the
# plugin every test here fails.  FTD_PLUGIN_DIR: where the plugin is
# (default trace-cmd/plugins of the repo, built by rig/test-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
TCMD=${FTD_TRACECMD:-}
PLUGINS=${FTD_PLUGIN_DIR:-$REPO/trace-cmd/plugins}
CHAIN=work_inner,work_middle,work_outer,main
D=$FTD_RESULTS/t90
rm -rf "$D"
mkdir -p "$D"
NOOPT="no userstacktrace_defer option"
TESTS="tracecmd-T-user-stacks tracecmd-T-two-instances tracecmd-T-no-option
tracecmd-T-kernel-stacks-only tracecmd-R-defer-maps"

missing=
[ -n "$TCMD" ] && [ -x "$TCMD" ] ||
	missing="no trace-cmd: FTD_TRACECMD='$TCMD' (rig/test-all.sh builds it with rig/build-tracecmd.sh)"
[ -z "$missing" ] && [ ! -f "$PLUGINS/plugin_unwind_deferred.so" ] &&
	missing="no $PLUGINS/plugin_unwind_deferred.so (make -C trace-cmd/plugins on the host)"
if [ -n "$missing" ]; then
	for t in $TESTS; do t_begin "$t"; t_fail "$missing"; done
	t_summary
	exit 1
fi
echo "trace-cmd: $TCMD ($("$TCMD" --version 2>&1 | grep -m1 version))"

# rec NAME ARGS...: trace-cmd record -o $D/NAME.dat ARGS (stderr kept in
# $D/NAME.err), then its report with our plugin in $D/NAME.txt and its
# options (trace-cmd dump --options) in $D/NAME.opt
rec() {
	local n=$1
	shift
	"$TCMD" record -o "$D/$n.dat" "$@" > "$D/$n.out" 2> "$D/$n.err" ||
		{ t_fail "record $*: status $?: $(tail -3 "$D/$n.err" | tr '\n' ' ')"; return 1; }
	TRACEEVENT_PLUGIN_DIR=$PLUGINS "$TCMD" report -i "$D/$n.dat" > "$D/$n.txt" 2> "$D/$n.rerr" ||
		{ t_fail "report $n.dat: $(tail -3 "$D/$n.rerr" | tr '\n' ' ')"; return 1; }
	"$TCMD" dump --options "$D/$n.dat" > "$D/$n.opt" 2>&1 ||
		{ t_fail "dump --options $n.dat: $(tail -3 "$D/$n.opt" | tr '\n' ' ')"; return 1; }
}

# stacks REPORT BINARY FUNCS MIN: the merged stacks the plugin prints in a
# trace-cmd report for sys_enter_getppid (" [event i/n] sys_enter_getppid"
# then "=> func+0xoff (addr)" kernel frames and "=> 0xADDR (user)" user
# frames): at least MIN, each with kernel frames through do_syscall_64 and
# user frames that resolve, with BINARY's symbols, to FUNCS innermost first
stacks() {
	python3 - "$@" <<'EOF'
import bisect, re, subprocess, sys
rep, binary, want, minimum = sys.argv[1], sys.argv[2], sys.argv[3].split(','), int(sys.argv[4])
addrs, names = [], []
for l in subprocess.run(['nm', '-n', '--defined-only', binary], check=True,
                        capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 3 and p[1] in 'tTwW':
        addrs.append(int(p[0], 16)); names.append(p[2])
def name(a):
    i = bisect.bisect_right(addrs, a) - 1
    return names[i] if i >= 0 and a - addrs[-1] < 0x100000 else '?'
blocks, cur = [], None
for line in open(rep, errors='replace'):
    line = line.rstrip('\n')
    if re.match(r'^ \[event \d+/\d+\] sys_enter_getppid ', line):
        cur = dict(k=[], u=[]); blocks.append(cur); continue
    m = re.match(r'^=> (.*)$', line)
    if cur is not None and m:
        u = re.match(r'^0x([0-9a-f]+) \(user\)$', m.group(1))
        if u: cur['u'].append(int(u.group(1), 16))
        else: cur['k'].append(m.group(1))
        continue
    cur = None
for b in blocks:
    got = [name(a) for a in b['u']]
    if got[:len(want)] != want:
        sys.exit('a stack resolves to %s, expected %s first' % (got, want))
    if not any(k.startswith('do_syscall_64') for k in b['k']):
        sys.exit('a stack has no do_syscall_64 kernel frame: %s' % b['k'])
if len(blocks) < minimum:
    text = open(rep, errors='replace').read()
    sys.exit('%d merged getppid stacks, expected at least %d (report: %d sys_enter_getppid, '
             '%d user_stack_cookie, %d user_stack_deferred)' % (len(blocks), minimum,
             text.count(' sys_enter_getppid: '), text.count(' user_stack_cookie: '),
             text.count(' user_stack_deferred: ')))
print('%d merged stacks: %d kernel frames, then user %s' %
      (len(blocks), len(blocks[0]['k']), ' <- '.join(want)))
EOF
}

# maps OPT BINARY: the dump of the options has a PROCMAPS option for BINARY
maps() {
	grep -q 'Option PROCMAPS' "$1" || { echo "no PROCMAPS option in $(basename "$1")"; return 1; }
	grep -q " $2\$" "$1" || { echo "PROCMAPS does not name $2"; return 1; }
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
check "merged stacks" stacks "$D/t.txt" "$WL"/callchain $CHAIN 3 &&
check "cookie records, no kernel_stack records" test "$(count "$D/t.txt" user_stack_cookie)" -ge 3 -a "$(count "$D/t.txt" kernel_stack)" = 0 &&
check "maps without --proc-map" maps "$D/t.opt" "$WL"/callchain &&
check "no missing-option line" noline "$D/t.err" &&
check "option reset after record" opt_off &&
t_pass

# Each instance given -T gets the option; the cookie is the same in both
# (one kernel entry), so each instance is split out and read on its own
t_begin tracecmd-T-two-instances
rec b -B ta -T -e syscalls:sys_enter_getppid -B tb -T -e syscalls:sys_enter_getppid \
	-F "$WL"/callchain getppid 3 &&
ok=0 &&
for i in ta tb; do
	"$TCMD" split -i "$D/b.dat" -o "$D/b-$i.dat" -B $i -t > "$D/b-$i.split" 2>&1 ||
		{ t_fail "split -B $i: $(tail -3 "$D/b-$i.split" | tr '\n' ' ')"; break; }
	TRACEEVENT_PLUGIN_DIR=$PLUGINS "$TCMD" report -i "$D/b-$i.dat" > "$D/b-$i.txt" 2>&1 &&
	check "instance $i: merged stacks" stacks "$D/b-$i.txt" "$WL"/callchain $CHAIN 3 || break
	ok=$((ok + 1))
done &&
[ $ok = 2 ] &&
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
TRACEEVENT_PLUGIN_DIR=$PLUGINS "$TCMD" report -i "$D/n.dat" > "$D/n.txt" 2>&1 &&
check "one line on stderr" test "$(grep -c "$NOOPT" "$D/n.err")" = 1 &&
check "the line" grep -qx "trace-cmd record: -T: this kernel has $NOOPT: kernel stacks only" "$D/n.err" &&
check "kernel stacks" test "$(count "$D/n.txt" kernel_stack)" -ge 9 &&
check "no cookie records" test "$(count "$D/n.txt" user_stack_cookie)" = 0 &&
check "no user stacks" test "$(count "$D/n.txt" user_stack_deferred)" = 0 &&
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
	check "$k: kernel stacks" test "$(count "$D/$k.txt" kernel_stack)" -ge 3 &&
	check "$k: no cookie records" test "$(count "$D/$k.txt" user_stack_cookie)" = 0 &&
	check "$k: no user stacks" test "$(count "$D/$k.txt" user_stack_deferred)" = 0 &&
	check "$k: no line" noline "$D/$k.err" || break
	ok=$((ok + 1))
done &&
[ $ok = 2 ] &&
t_pass

# A stacktrace:defer trigger saves the maps too; without it (control), no maps
t_begin tracecmd-R-defer-maps
rec r -e syscalls:sys_enter_getppid -R stacktrace:defer -F "$WL"/callchain getppid 3 &&
check "merged stacks" stacks "$D/r.txt" "$WL"/callchain $CHAIN 3 &&
check "maps without --proc-map" maps "$D/r.opt" "$WL"/callchain &&
rec r0 -e syscalls:sys_enter_getppid -F "$WL"/callchain getppid 1 &&
check "control: no maps without -T or the trigger" nomaps "$D/r0.opt" &&
t_pass

reset_tracing
t_summary
