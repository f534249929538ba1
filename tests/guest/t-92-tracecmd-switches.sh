#!/bin/bash
# The parts of the series' `record -T` each turned off by its own switch
# (issue 38), each against -T alone as the control: --no-proc-map
# (trace-cmd patch 0001: no maps saved, so no ptrace: the user frames are
# addresses), --no-exec-stops (0014: the maps at exit only: no maps of
# trace-cmd's child before the exec, the frames before it marked),
# --no-load-maps (0018: no registrar lines in the trace), and --user
# (0018: the command cannot write trace_marker: one line says the loads
# are not recorded).  Without
# FTD_TRACECMD every test here fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
D=$FTD_RESULTS/t92
rm -rf "$D"
mkdir -p "$D"
TESTS="tracecmd-T-no-proc-map tracecmd-T-no-exec-stops tracecmd-T-no-load-maps
tracecmd-T-user-says-no-loads"
tc_require $TESTS

# rec NAME ARGS...: record into $D/NAME.dat, its report in $D/NAME.txt,
# its options in $D/NAME.opt, the strace of trace-cmd in $D/NAME.st
rec() {
	local n=$1
	shift
	# not -f: the child must stay free for trace-cmd's own ptrace
	strace -qq -e trace=ptrace -o "$D/$n.st" \
		"$TCMD" record -o "$D/$n.dat" "$@" > "$D/$n.out" 2> "$D/$n.err" ||
		{ t_fail "record $*: status $?: $(tail -3 "$D/$n.err" | tr '\n' ' ')"; return 1; }
	report "$n" || return 1
	"$TCMD" dump --options "$D/$n.dat" > "$D/$n.opt" 2>&1
}
# user frames of the report: "named" or "addresses" lines, one per frame
frames() { awk '/^ <user stack>/ { u = 1; next } /^ [^=]/ || !/^ => / { u = 0 }
	u && /^ => / { print ($2 ~ /^0x/ ? "address" : "named") }' "$1" | sort | uniq -c | tr '\n' ' '; }

GP="-e syscalls:sys_enter_getppid -F $WL/callchain getppid 3"

t_begin tracecmd-T-no-proc-map
# shellcheck disable=SC2086
rec pm0 -T $GP && rec pm1 -T --no-proc-map $GP &&
check "control: -T saves maps, ptraces, names frames ($(frames "$D/pm0.txt"))" \
	bash -c "grep -q 'Option PROCMAPS' '$D/pm0.opt' && grep -q 'ptrace(' '$D/pm0.st' && grep -q '^ => work_inner' '$D/pm0.txt'" &&
check "--no-proc-map: no maps saved" bash -c "! grep -q 'Option PROCMAPS' '$D/pm1.opt'" &&
check "--no-proc-map: no ptrace ($(grep -c 'ptrace(' "$D/pm1.st") calls)" bash -c "! grep -q 'ptrace(' '$D/pm1.st'" &&
check "--no-proc-map: user stacks recorded, frames addresses ($(frames "$D/pm1.txt"))" \
	bash -c "[ \$(grep -c '^ <user stack>' '$D/pm1.txt') -ge 3 ] && ! grep -q '^ => work_inner' '$D/pm1.txt'" &&
t_pass

t_begin tracecmd-T-no-exec-stops
EX="-e syscalls:sys_enter_execve -e syscalls:sys_enter_getppid -F $WL/callchain exec $WL/callchain-pie"
# shellcheck disable=SC2086
rec ex0 -T $EX && rec ex1 -T --no-exec-stops $EX &&
check "control: -T saves trace-cmd's child's maps (execs=2) and stops at execs" \
	bash -c "grep -Eq ' .*trace-cmd execs=2\$' '$D/ex0.opt' && grep -q 'PTRACE_O_TRACEEXEC' '$D/ex0.st'" &&
check "--no-exec-stops: no maps of an earlier image, no exec stops" \
	bash -c "! grep -q ' execs=' '$D/ex1.opt' && ! grep -q 'PTRACE_O_TRACEEXEC' '$D/ex1.st'" &&
check "--no-exec-stops: the last image's maps still saved" grep -q " $WL/callchain-pie" "$D/ex1.opt" &&
check "control: with the stops, trace-cmd's child's execve is named in its image" \
	bash -c "awk '/sys_enter_execve:/ { e = 1; next } e && /^ <user stack>/ { u = 1; next } u && /^ => / { print; exit }' '$D/ex0.txt' | grep -q '^ => execve+0x'" &&
check "--no-exec-stops: trace-cmd's child's execve marked [before exec]" \
	bash -c "awk '/sys_enter_execve:/ { e = 1; next } e && /^ <user stack>/ { u = 1; next } u && /^ => / { print; exit }' '$D/ex1.txt' | grep -q '\\[before exec\\]'" &&
check "--exec-maps with --no-exec-stops is refused" \
	bash -c "! '$TCMD' record -o '$D/ex2.dat' -T --exec-maps --no-exec-stops true 2> '$D/ex2.err' && grep -q 'not with --no-exec-stops' '$D/ex2.err'" &&
t_pass

t_begin tracecmd-T-no-load-maps
DL="-e syscalls:sys_enter_getppid -F $WL/dlwork 3 keep"
# shellcheck disable=SC2086
rec dl0 -T $DL && rec dl1 -T --no-load-maps $DL &&
check "control: -T has the registrar's lines ($(grep -c 'ustack_map: open' "$D/dl0.txt") opens)" \
	bash -c "[ \$(grep -c 'ustack_map: open' '$D/dl0.txt') -ge 2 ]" &&
check "--no-load-maps: no registrar line" bash -c "! grep -q 'ustack_map:' '$D/dl1.txt'" &&
check "--no-load-maps: the registrar still ran (SFrame marks or stacks)" \
	bash -c "[ \$(grep -c '^ <user stack>' '$D/dl1.txt') -ge 6 ]" &&
t_pass

t_begin tracecmd-T-user-says-no-loads
"$TCMD" record -o "$D/us.dat" -T --user nobody -e syscalls:sys_enter_getppid /bin/true \
	> "$D/us.out" 2> "$D/us.err"
check "--user: one line says the loads are not recorded: $(grep -m1 'cannot write trace_marker' "$D/us.err")" \
	test "$(grep -c 'cannot write trace_marker: the objects it loads after it starts are not recorded' "$D/us.err")" = 1 &&
check "no line without --user" bash -c "! grep -q 'cannot write trace_marker' '$D/pm0.err'" &&
t_pass

t_summary
