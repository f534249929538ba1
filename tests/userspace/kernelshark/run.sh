#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the KernelShark plugin's GUI: KernelShark itself (the Debian
# package) under Xvfb, with the plugin loaded by -p and its test hook
# (KSHARK_UNWIND_TEST, kernelshark/unwind_view.cpp) selecting an event,
# writing the stack view's text, following the view's link to the user
# stack's row and coming back.  Then:
#  - the view of an asking event of a recorded fixture: kernel frames
#    first, then the named user frames, the same as libustack's
#    ustack prints for that event; the workload's names in order;
#  - the link goes to the user_stack_deferred row, whose view lists the
#    events it completes;
#  - a trace without the unwind records, a damaged trace, and a trace
#    whose binaries are missing: KernelShark keeps running and the view
#    says what is missing;
#  - the Info column's short form, and valgrind on the plugin's C part
#    (kshark_stack with the view's text) loading, using and unloading it.
# A screenshot of each run is kept in the artifact directory
# ($KS_ARTIFACTS, default out/kernelshark-tests; rig/test-all.sh puts it
# under $CACHE/test-all/kernelshark/) and its path printed.
# The last line is "N passed, N failed"; exit 1 on failure.
#
# With KS24=1, the GUI checks run again with KernelShark 2.4.0 built from
# Debian's source (kernelshark/build-ks24.sh).
#
# Usage: [KS24=1] tests/userspace/kernelshark/run.sh [-v]   (-v: show failing output)

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
KSDIR=$REPO/kernelshark
FIXTURES=${FIXTURES:-$REPO/tests/fixtures}
ART=${KS_ARTIFACTS:-$REPO/out/kernelshark-tests}
VERBOSE=0
[ "${1:-}" = -v ] && VERBOSE=1

pass=0 fail=0
WORK=$(mktemp -d /tmp/kshark-tests.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
check() { # check NAME CMD...: PASS when CMD succeeds
	local name=$1; shift
	if "$@" >"$WORK/last.out" 2>&1; then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); echo "FAIL $name"
		[ $VERBOSE = 1 ] && sed 's/^/    /' "$WORK/last.out" | head -40
	fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit
}

"$REPO/trace-cmd/plugins/install-deps.sh" kernelshark libkshark-dev \
	qtbase5-dev libdw-dev xvfb xauth xdotool imagemagick valgrind \
	python3 gcc g++ make pkg-config strace ||
	{ echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$ART"
rm -f "$ART"/*.png "$ART"/*.txt*

make -C "$KSDIR" -s deps && make -C "$REPO/trace-cmd/plugins" -s deps ||
	{ echo "0 passed, 1 failed"; exit 1; }
check "plugin and its test build (C and C++ parts) build with -Wall -Wextra -Werror" \
	make -C "$KSDIR" -s clean all test
[ -f "$KSDIR/test/plugin-unwind_stack.so" ] || finish
TEST_SO=$KSDIR/test/plugin-unwind_stack.so
exports() { nm -D --defined-only "$1" | awk '$2 == "T" {print $3}' | sort | tr '\n' ' '; }
check "plugin exports only KernelShark's three entry points; its test build the second pass and the two texts too" \
	bash -c "$(declare -f exports)
	test \"\$(exports '$KSDIR/plugin-unwind_stack.so')\" = \
	'kshark_data_plugin_deinitializer kshark_data_plugin_initializer kshark_plugin_menu_initializer ' &&
	test \"\$(exports '$TEST_SO')\" = \
	'kshark_data_plugin_deinitializer kshark_data_plugin_initializer kshark_plugin_menu_initializer kshark_unwind_join kshark_unwind_stack_text kshark_unwind_stack_view '"
check "the test hook is in the test build only" \
	bash -c "! grep -q KSHARK_UNWIND_TEST '$KSDIR/plugin-unwind_stack.so' &&
		grep -q KSHARK_UNWIND_TEST '$TEST_SO'"
# The way KernelShark's own plugins load: event handlers, no reader of
# its own, no option of another plugin set (libtraceevent's options are
# process-wide), the markers moved with markEntryA()
check "plugin loads through event handlers only: no reading of the file's CPUs, no libtraceevent plugin option set" \
	bash -c "u=\$(nm -D --undefined-only '$KSDIR/plugin-unwind_stack.so' | awk '{print \$2}');
		echo \"\$u\" | grep -qx kshark_register_event_handler &&
		! echo \"\$u\" | grep -Eqx 'tracecmd_read_cpu_first|tracecmd_read_data|tep_plugin_add_option'"
check "links move marker A with KernelShark's markEntryA()" \
	bash -c "nm -D --undefined-only '$KSDIR/plugin-unwind_stack.so' | grep -q ' _Z10markEntryAPvPK12kshark_entry\$'"
check "the libtraceevent plugin builds (KernelShark runs with it, as users do)" \
	make -C "$REPO/trace-cmd/plugins" -s
check "ustack (libustack) builds, to compare with" \
	make -s -C "$REPO/libustack" OUT="$WORK/lib" all
USTACK=$WORK/lib/ustack
O=$WORK/o
mkdir -p "$O"

# ks_gui NAME TRACE EVENT[:N]: KernelShark under Xvfb with the hook
# (and $KS_EXTRA, more options of kernelshark);
# $O/NAME.txt (the view), .jump (after the link), .done (back again),
# $O/NAME.alive when KernelShark still ran at the end, the screenshot
# in $ART/NAME.png
ks_gui() {
	local name=$1 trace=$2 sel=$3 cache=$WORK/cache-$1
	mkdir -p -m 700 "$cache"
	# the "running as root" notice is a modal dialog: not in a test
	printf '[General]\nnoRootWarn=true\n' >"$cache/setting.ini"
	rm -f "$O/$name".*
	XDG_RUNTIME_DIR=$cache KS_USER_CACHE_DIR=$cache HOME=$cache \
	TRACEEVENT_PLUGIN_DIR=$REPO/trace-cmd/plugins KS_EXTRA="${KS_EXTRA:-}" \
	KS_BIN="${KS_BIN:-kernelshark}" \
	KSHARK_UNWIND_TEST="select=$sel,dump=$O/$name.txt" \
	timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
		$KS_BIN -p "$0" -i "$1" $KS_EXTRA >"$2.log" 2>&1 &
		pid=$!
		for i in $(seq 60); do
			[ -f "$2.txt.done" ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 1
		done
		w=$(xdotool search --name "Kernel Shark" 2>/dev/null | head -1)
		[ -n "$w" ] && xdotool windowsize "$w" 1600 1000 \
			windowmove "$w" 0 0 2>/dev/null
		sleep 2
		import -window root "$3" 2>/dev/null
		kill -0 $pid 2>/dev/null && touch "$2.alive"
		kill $pid 2>/dev/null; wait $pid 2>/dev/null
		true' "${KS_SO:-$TEST_SO}" "$trace" "$O/$name" \
		"$ART/$name.png"
	[ -f "$O/$name.log" ] && cp "$O/$name.log" "$ART/$name.log"
	for f in "$O/$name".txt*; do
		[ -f "$f" ] && cp "$f" "$ART/"
	done
	true
}

# the frames of the view as "k NAME" / "u NAME" lines, the source line
# and the inlined functions left out (ustack prints neither)
view_frames() {
	awk '/^Kernel stack/ {s = "k"; next}
	     /^User stack/ {s = "u"; next}
	     /^(Kernel|User) / {s = ""}
	     s != "" && /^=> / {sub(/^=> /, ""); sub(/ [^ ]+:[0-9]+$/, "");
				print s " " $0}
	     /^$/ {s = ""}' "$1"
}
# ustack's frames of the request with cookie $2 asked by event $3
ustack_frames() {
	"$USTACK" --tracer-frames "$1" | awk -v c="cookie=$2" -v e="$3" '
		/^[^ ]/ {on = index($0, " " e " ") && index($0, c); next}
		on && /^  [ku] / {sub(/^  /, ""); print}'
}

# same_time NAME: the time stamp the view's header line prints for the
# event is the one KernelShark's own table shows in the selected row
# ("Time Stamp", as KsUtils::Ts2String() writes it)
same_time() {
	local v t
	v=$(sed -n '2s/.* //p' "$O/$1.txt")
	t=$(sed -n 's/^Time Stamp=//p' "$O/$1.txt.row")
	[ -n "$v" ] && [ "$v" = "$t" ] ||
		{ echo "view '$v', table '$t'"; return 1; }
}

FIX=$FIXTURES/trigger-getppid.dat
# gui_checks PREFIX NAMEPREFIX: the checks of KernelShark ($KS_BIN, default
# the one in PATH) with the plugin ($KS_SO)
gui_checks() {
local P=$1 N=$2
# ------------------------------------------------------------ the fixture
KS_EXTRA="--pid 80" ks_gui ${N}fixture "$FIX" syscalls/sys_enter_getppid:1
check "${P}KernelShark loads the plugin (-p) and keeps running" \
	test -f "$O/${N}fixture.alive"
check "${P}the view has its entry in the Tools menu (to bring it back when closed)" \
	grep -qx 'Tools > Deferred stack' "$O/${N}fixture.txt.menu"
check "${P}view: the selected event is the second sys_enter_getppid" \
	grep -q '^sys_enter_getppid pid 80 CPU 0 ' "$O/${N}fixture.txt"
check "${P}view: kernel frames first, then the user frames" \
	bash -c "view_frames() { $(declare -f view_frames | tail -n +2); }
		view_frames '$O/${N}fixture.txt' | cut -c1 | uniq | tr -d '\n' |
		grep -qx ku"
check "${P}view: the header's time stamp is the table's for that row" same_time ${N}fixture
check "${P}view: the workload's functions, in order (work_inner, work_middle, work_outer, main)" \
	bash -c "grep '^=> ' '$O/${N}fixture.txt' | grep -o '^=> [a-z_]*' |
		grep -Ex '=> (work_[a-z]+|main)' | cut -c4- | tr '\n' ' ' |
		grep -qx 'work_inner work_middle work_outer main '"
cookie=$(sed -n 's/^cookie \(0x[0-9a-f]*\)$/\1/p' "$O/${N}fixture.txt" | head -1)
view_frames "$O/${N}fixture.txt" >"$WORK/${N}fixture.frames"
ustack_frames "$FIX" "$cookie" syscalls:sys_enter_getppid >"$WORK/${N}fixture.ustack"
check "${P}view: the same frames, named the same, as ustack prints for the event" \
	bash -c "[ -s '$WORK/${N}fixture.ustack' ] &&
		diff '$WORK/${N}fixture.ustack' '$WORK/${N}fixture.frames'"
check "${P}view: the link goes to the user_stack_deferred row, which lists the 2 events it completes" \
	bash -c "grep -q 'This user stack completes 2 events:' '$O/${N}fixture.txt.jump' &&
		grep -q '^sys_exit_getppid pid 80 CPU 0 .*(click to go there)' '$O/${N}fixture.txt.jump' &&
		! cmp -s <(head -1 '$O/${N}fixture.txt') <(head -1 '$O/${N}fixture.txt.jump')"
check "${P}view: back on the event, the same view" \
	bash -c "tail -n +2 '$O/${N}fixture.txt' | cmp - <(tail -n +2 '$O/${N}fixture.txt.done')"
check "${P}screenshot kept: $ART/${N}fixture.png (not blank)" \
	bash -c "[ \$(identify -format %k '$ART/${N}fixture.png') -gt 50 ]"

# ------------------------------------------------------------- bad input
# no unwind records: a synthetic trace's formats renamed, as in the plugin
# suite (the fixtures' headers are compressed)
python3 "$REPO/tests/userspace/lib/mktrace.py" basic "$WORK/basic.dat"
python3 - "$WORK/basic.dat" "$WORK/nounwind.dat" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read().replace(b'name: user_stack_', b'name: uSer_stack_')
open(sys.argv[2], 'wb').write(d)
PY
ks_gui ${N}nounwind "$WORK/nounwind.dat" syscalls/sys_enter_getppid:0
check "${P}no unwind records: KernelShark keeps running, the view says so" \
	bash -c "test -f '$O/${N}nounwind.alive' &&
		grep -q 'No deferred user stacks in this trace' '$O/${N}nounwind.txt'"

# binaries missing: the trace alone in a directory
mkdir -p "$WORK/alone"
cp "$FIX" "$WORK/alone/"
ks_gui ${N}nobin "$WORK/alone/$(basename "$FIX")" syscalls/sys_enter_getppid:1
check "${P}binaries missing: KernelShark keeps running, frames as file+offset, the view names the missing binary" \
	bash -c "test -f '$O/${N}nobin.alive' &&
		grep -q '^=> /results/fixtures/callchain+0x' '$O/${N}nobin.txt' &&
		grep -q '^Binary missing: /results/fixtures/callchain is neither at that path nor next to the trace file' '$O/${N}nobin.txt'"

# damaged records (mktrace.py corrupt: array locations out of their
# record), which KernelShark loads
python3 "$REPO/tests/userspace/lib/mktrace.py" corrupt "$WORK/corrupt.dat"
ks_gui ${N}corrupt "$WORK/corrupt.dat" syscalls/sys_enter_getppid:0
check "${P}damaged records: KernelShark keeps running, the view says the file is damaged" \
	bash -c "test -f '$O/${N}corrupt.alive' &&
		grep -q '^Damaged file: [0-9]* records of the deferred stacks could not be read' '$O/${N}corrupt.txt'"

# the unwinder (mktrace.py unwinder-marks: 0xd00001 frame pointers, 0xd00002
# SFrame, ...): marked in the view only when SFrame took part
python3 "$REPO/tests/userspace/lib/mktrace.py" unwinder-marks "$WORK/unwinder.dat"
ks_gui ${N}sframe "$WORK/unwinder.dat" syscalls/sys_enter_getppid:1
ks_gui ${N}fp "$WORK/unwinder.dat" syscalls/sys_enter_getppid:0
check "${P}view: [sframe] on the user stack's line of an SFrame stack, no mark on a frame-pointer one" \
	bash -c "grep -q '^cookie 0xd00002\$' '$O/${N}sframe.txt' &&
		grep -q '^User stack (5 frames) \[sframe\]: in the user_stack_deferred row at ' '$O/${N}sframe.txt' &&
		grep -q '^cookie 0xd00001\$' '$O/${N}fp.txt' &&
		grep -q '^User stack (5 frames): in the user_stack_deferred row at ' '$O/${N}fp.txt'"

# a file KernelShark cannot read (the data of the fixture overwritten)
cp "$FIX" "$WORK/unreadable.dat"
python3 - "$WORK/unreadable.dat" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
for i in range(len(d) - 6000, len(d) - 200, 7):
    d[i] = 0xff
open(p, 'wb').write(d)
PY
ks_gui ${N}unreadable "$WORK/unreadable.dat" syscalls/sys_enter_getppid:0
check "${P}unreadable file: KernelShark keeps running, the view says no trace is loaded" \
	bash -c "test -f '$O/${N}unreadable.alive' &&
		grep -q '^No trace loaded yet' '$O/${N}unreadable.txt'"

}

gui_checks '' ''

# ---------------------------------------------------- the C part, no GUI
KS="$KSDIR/kshark_stack $TEST_SO"
check "Info column: the innermost user function only, not the chain (also on the records, with the libtraceevent plugin)" \
	bash -c "TRACEEVENT_PLUGIN_DIR='$REPO/trace-cmd/plugins' $KS '$FIX' >'$WORK/info.out' 2>/dev/null;
		grep -q '^#0 syscalls/sys_enter_getppid pid=80 cpu=0:  \[ustack: work_inner\]\$' '$WORK/info.out' &&
		grep -q '^#1 ftrace/user_stack_cookie pid=80 cpu=0: cookie=0x300000001 kernel=4 \[ustack: work_inner\]\$' '$WORK/info.out' &&
		grep -q '^#4 ftrace/user_stack_deferred pid=80 cpu=0: cookie=0x300000001 tgid=80 nr=5 \[completes 2 events\]\$' '$WORK/info.out' &&
		! grep '^#' '$WORK/info.out' | grep -q 'work_middle\|=>'"
# the rows of the two records are the plugin's own words, read from the
# record: the same whether the libtraceevent plugin (whose merging reads
# front to back) is loaded or not, its options untouched
check "Info column of the two records: the same with and without the libtraceevent plugin" \
	bash -c "TRACEEVENT_PLUGIN_DIR='$REPO/trace-cmd/plugins' $KS '$FIX' 2>/dev/null | grep '^#' >'$WORK/info.with' &&
		TRACEEVENT_PLUGIN_DIR=/nonexistent $KS '$FIX' 2>/dev/null | grep '^#' >'$WORK/info.without' &&
		grep -q 'user_stack_cookie pid=80 cpu=0: cookie=0x300000001 kernel=4 ' '$WORK/info.without' &&
		diff '$WORK/info.with' '$WORK/info.without'"
VG="valgrind -q --suppressions=$REPO/tests/userspace/plugin/ldso.supp --suppressions=$REPO/tests/userspace/plugin/kshark.supp --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
# KernelShark 2.2 reloads a stream without a new plugin context (an
# advanced filter): the entries the handlers kept are freed; the plugin
# starts over (without that: other views, reads of freed entries)
check "a reload of the stream (once before a draw, then drawn twice): the same views, valgrind clean" \
	bash -c "KSHARK_STACK_VIEW=1 $KS '$FIX' >'$WORK/reload.1' 2>/dev/null &&
		KSHARK_STACK_RELOAD=1 KSHARK_STACK_VIEW=1 $KS '$FIX' >'$WORK/reload.2' 2>/dev/null &&
		grep -q '^--- view' '$WORK/reload.2' && diff '$WORK/reload.1' '$WORK/reload.2' &&
		{ KSHARK_STACK_RELOAD=1 KSHARK_STACK_VIEW=1 $VG $KS '$FIX' >/dev/null 2>'$WORK/reload.err'; [ \$? != 99 ]; }"
# Inside KernelShark (a threaded Qt program) no child process, and the
# trace opened by the plugin once (the saved maps), not three times (a
# probe child, the maps, a second read for the execs): the execs and
# loads come from the stream's own loading (issue 38)
check "inside KernelShark: no child process, the trace opened twice (KernelShark, the plugin's maps)" \
	bash -c "strace -f -qq -e trace=fork,vfork,clone,clone3,openat -o '$WORK/strace.out' \
		$KS '$FIX' >/dev/null 2>&1 &&
		! grep -v CLONE_THREAD '$WORK/strace.out' | grep -Eq '^[0-9]+ +(clone|clone3|fork|vfork)\(' &&
		test \"\$(grep -c '$(basename "$FIX")' '$WORK/strace.out')\" = 2"
for f in "$FIX" "$WORK/alone/$(basename "$FIX")" "$WORK/nounwind.dat" "$WORK/corrupt.dat" "$FIXTURES/option-T.dat"; do
	check "valgrind: the plugin loads, shows every entry's view and unloads, no errors, no leaks ($(basename "$(dirname "$f")")/$(basename "$f"))" \
		bash -c "KSHARK_STACK_VIEW=1 $VG $KS '$f' >'$WORK/vg.out' 2>'$WORK/vg.err'; [ \$? != 99 ] && grep -q '^--- view' '$WORK/vg.out'"
done

# ------------------------------------- KernelShark 2.4.0 (KS24=1 only)
# built from Debian's source by kernelshark/build-ks24.sh (about 6
# minutes the first time), with the plugin built for it (Qt 6)
if [ "${KS24:-0}" = 1 ]; then
	if "$KSDIR/build-ks24.sh" >"$WORK/ks24.env" 2>"$WORK/ks24.err"; then
		pass=$((pass + 1)); echo "PASS 2.4.0: KernelShark 2.4.0 and the plugin (QT=6) build"
		eval "$(grep -E '^KS_(BIN|TEST_SO)=' "$WORK/ks24.env")"
		KS_SO=$KS_TEST_SO
		export KS_BIN KS_SO
		gui_checks "2.4.0: " ks24-
	else
		fail=$((fail + 1)); echo "FAIL 2.4.0: KernelShark 2.4.0 and the plugin (QT=6) build"
		tail -5 "$WORK/ks24.err"
	fi
fi

echo "artifacts (screenshots, view texts, KernelShark logs): $ART"
finish
