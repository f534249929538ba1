#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the KernelShark plugin: KernelShark 2.4.0 with the plugin hooks
# of kernelshark/patches (kernelshark/build-ks24.sh builds both) under
# Xvfb, with the plugin's GUI test build loaded by -p and its test hook
# (KSHARK_UNWIND_TEST, kernelshark/UnwindStack.cpp) selecting an event,
# writing the dock's text, following its link and coming back.  Then:
#  - the dock of an asking event of a recorded fixture: its kernel frames,
#    then its named user frames, the same as libustack's ustack prints;
#  - the link goes to the user_stack_deferred row, whose dock lists the
#    events it completes;
#  - a trace without the records, a damaged one, one whose binaries are
#    missing (libustack's message in the dock), ones that crashed the
#    libraries' open (a damaged format, data cut short): KernelShark
#    keeps running;
#  - the plugin uses KernelShark's hooks, not its table: no QTableView,
#    no Info column search, KernelShark's own Info text on every row;
#  - on every fixture, the stacks of the C part named as ustack names
#    them; valgrind on the C part loading, showing, unloading;
#  - the dock's call tree of the visible range and of the selected task:
#    each function's count that of the events whose folded stacks
#    (ustack --folded) hold it, computed here; the tree ustack --tree
#    prints for that range and task;
#  - bookworm's KernelShark 2.2 (no hooks): make says so and stops;
#  - KernelShark and the plugin run on the series' libtracecmd and
#    libtraceevent (rig/build-tracecmd.sh's prefix); the plugin and its
#    trace.dat reader (libustack-file.a) make no child: no fork
#    imported (issue 38).
# A screenshot of each run is kept in the artifact directory
# ($KS_ARTIFACTS, default out/kernelshark-tests; rig/test-all.sh puts it
# under $CACHE/test-all/kernelshark/) and its path printed.
# The last line is "N passed, N failed"; exit 1 on failure.
#
# Usage: tests/userspace/kernelshark/run.sh [-v]   (-v: show failing output)

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
	libdw-dev xvfb xauth xdotool imagemagick valgrind python3 gcc g++ \
	make pkg-config strace ||
	{ echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$ART"
rm -f "$ART"/*.png "$ART"/*.txt*

# KernelShark 2.4.0 with the hooks, and the plugin for it (cached)
check "KernelShark 2.4.0 with kernelshark/patches, the plugin and its test builds build (-Wall -Wextra -Werror)" \
	bash -c "'$KSDIR/build-ks24.sh' >'$WORK/ks24.env'"
eval "$(grep -E '^KS_[A-Z_]+=' "$WORK/ks24.env" 2>/dev/null)"
[ -f "${KS_SO:-}" ] && [ -f "${KS_GUI_TEST_SO:-}" ] || finish
check "the libtraceevent plugin builds (KernelShark runs with it, as users do)" \
	make -C "$REPO/trace-cmd/plugins" -s
# the series' libtracecmd, which build-ks24.sh built KernelShark against
# (cached), for the ustack tool too
TC_PREFIX=
tc=$("$REPO/rig/build-tracecmd.sh" 2>"$WORK/tracecmd.log") &&
	TC_PREFIX=$(cd "$(dirname "$tc")/.." && pwd)
check "ustack (libustack) builds, to compare with (the series' libtracecmd)" \
	env PKG_CONFIG_PATH="$TC_PREFIX/lib/pkgconfig" make -s -C "$REPO/libustack" OUT="$WORK/lib" all
USTACK=$WORK/lib/ustack

# Issue 38: KernelShark and the plugin on the series' libtracecmd and
# libtraceevent, whose public API the plugin's reader uses, loaded from
# its prefix by rpath (bookworm's have the same sonames); no fork()ed
# probe child in a library that runs inside KernelShark, a threaded Qt
# program (tests/userspace/lib/run.sh checks that no C source copies
# libtracecmd 3.1.6's private layout)
loads_prefix() { # loads_prefix ELF: libtracecmd.so.1, libtraceevent.so.1 from $TC_PREFIX/lib
	[ -n "$TC_PREFIX" ] && ldd "$1" >"$WORK/ldd.out" 2>&1 &&
	grep -E "libtrace(cmd|event)" "$WORK/ldd.out" &&
	grep -q "libtracecmd.so.1 => $TC_PREFIX/lib/libtracecmd.so.1 " "$WORK/ldd.out" &&
	grep -q "libtraceevent.so.1 => $TC_PREFIX/lib/libtraceevent.so.1 " "$WORK/ldd.out"
}
check "kernelshark loads the series' libtracecmd and libtraceevent (${TC_PREFIX:-no prefix}/lib)" \
	loads_prefix "$KS_BIN"
check "the plugin loads the series' libtracecmd and libtraceevent (${TC_PREFIX:-no prefix}/lib)" \
	loads_prefix "$KS_SO"
no_fork() { # no_fork FILE...: none imports fork, vfork or clone
	local f u
	for f in "$@"; do
		u=$(nm --undefined-only "$f" | awk '$2 ~ /^(fork|vfork|clone|_Fork)(@|$)/ { print $2 }') &&
		echo "$f: ${u:-no fork}" && [ -z "$u" ] || return 1
	done
}
check "the plugin, its test builds and libustack-file.a import no fork (no probe child)" \
	no_fork "$KS_SO" "$KS_GUI_TEST_SO" "$KS_TEST_SO" "$(dirname "$KS_SO")/build/libustack-file.a"

# bookworm's KernelShark 2.2 has no hooks: the plugin is not built for it
check "KernelShark 2.2 (bookworm): make stops and says the hooks are missing" \
	bash -c "! make -C '$KSDIR' OUT='$WORK/ks22' all 2>'$WORK/ks22.err' &&
		grep -q 'lacks the plugin hooks of kernelshark/patches' '$WORK/ks22.err' &&
		[ ! -e '$WORK/ks22/plugin-unwind_stack.so' ]"

exports() { nm -D --defined-only "$1" | awk '$2 == "T" {print $3}' | sort | tr '\n' ' '; }
check "plugin exports only KernelShark's three entry points, its GUI test build the second pass, the view and the tree too" \
	bash -c "$(declare -f exports)
	test \"\$(exports '$KS_SO')\" = \
	'kshark_data_plugin_deinitializer kshark_data_plugin_initializer kshark_plugin_menu_initializer ' &&
	test \"\$(exports '$KS_GUI_TEST_SO')\" = \
	'kshark_data_plugin_deinitializer kshark_data_plugin_initializer kshark_plugin_menu_initializer kshark_unwind_second_pass kshark_unwind_tree kshark_unwind_view '"
check "the test hook is in the test build only" \
	bash -c "! grep -q KSHARK_UNWIND_TEST '$KS_SO' && grep -q KSHARK_UNWIND_TEST '$KS_GUI_TEST_SO'"
# The way KernelShark's own plugins work: event handlers, no reader of
# its own, no option of another plugin set; the selected entry and the
# dock through KernelShark's hooks (kernelshark/patches), the markers
# moved with markEntryA()
undef() { nm -D --undefined-only "$1" | awk '{print $2}' | c++filt; }
check "plugin loads through event handlers only: no reading of the file's CPUs, no libtraceevent plugin option set" \
	bash -c "$(declare -f undef); u=\$(undef '$KS_SO');
		echo \"\$u\" | grep -qx kshark_register_event_handler &&
		! echo \"\$u\" | grep -Eq '^(tracecmd_read_cpu_first|tracecmd_read_data|tep_plugin_add_option)\$'"
check "plugin follows the selection and adds its dock through KernelShark's hooks, moves marker A with markEntryA()" \
	bash -c "$(declare -f undef); u=\$(undef '$KS_SO');
		echo \"\$u\" | grep -q '^connectEntrySelected(void\*, QObject\*, std::function<void (kshark_entry const\*)>)' &&
		echo \"\$u\" | grep -q '^addPluginDock(void\*, QDockWidget\*)' &&
		echo \"\$u\" | grep -q '^markEntryA(void\*, kshark_entry const\*)'"
# (the plugin before issue 38 imported 7 of these and held the string)
check "plugin does not look into KernelShark's table: no QTableView, proxy or selection model, no \"Info\" column search" \
	bash -c "$(declare -f undef); ! undef '$KS_SO' | grep -q 'QTableView\|QAbstractProxyModel\|QItemSelectionModel' &&
		! strings '$KS_SO' | grep -qx Info"
O=$WORK/o
mkdir -p "$O"

# ks_gui NAME TRACE EVENT[:N]: KernelShark under Xvfb with the hook (and
# $KS_EXTRA, more options of kernelshark); $O/NAME.txt (the dock), .jump
# (after the link), .done (back again), .row (the table's row), .menu;
# $O/NAME.alive when KernelShark still ran at the end; the screenshot in
# $ART/NAME.png
ks_gui() {
	local name=$1 trace=$2 sel=$3 cache=$WORK/cache-$1
	mkdir -p -m 700 "$cache"
	# the "running as root" notice is a modal dialog: not in a test
	printf '[General]\nnoRootWarn=true\n' >"$cache/setting.ini"
	rm -f "$O/$name".*
	XDG_RUNTIME_DIR=$cache KS_USER_CACHE_DIR=$cache HOME=$cache \
	TRACEEVENT_PLUGIN_DIR=$REPO/trace-cmd/plugins KS_EXTRA="${KS_EXTRA:-}" \
	KS_BIN="$KS_BIN" KSHARK_UNWIND_TEST="select=$sel,dump=$O/$name.txt" \
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
		true' "$KS_GUI_TEST_SO" "$trace" "$O/$name" "$ART/$name.png"
	[ -f "$O/$name.log" ] && cp "$O/$name.log" "$ART/$name.log"
	for f in "$O/$name".txt*; do
		[ -f "$f" ] && cp "$f" "$ART/"
	done
	true
}

# The frames of a stack block (libustack's report layout: "<kernel
# stack>", "<user stack>", "=> FRAME" lines; the dock's text or
# kshark_stack's) as "k NAME" / "u NAME" lines: the kernel frames'
# addresses, the source lines and the inlined functions left out (ustack
# --tracer-frames prints none)
block_frames() {
	sed 's/^ *//' "$1" | awk '
	     /^<kernel stack>/ {s = "k"; next}
	     /^<user stack>/ {s = "u"; next}
	     s != "" && /^=> / {
		if (/ \[inlined\] /) next
		sub(/^=> /, ""); sub(/ [^ ()]+:[0-9]+$/, "")
		if (s == "k") sub(/ \([0-9a-f]+\)$/, "")
		print s " " $0; next}
	     {s = ""}'
}
# ustack's frames of the request with cookie $2 asked by event $3
ustack_frames() {
	"$USTACK" --tracer-frames "$1" 2>/dev/null | awk -v c="cookie=$2" -v e="$3" '
		/^[^ ]/ {on = index($0, " " e " ") && index($0, c); next}
		on && /^  [ku] / {sub(/^  /, ""); print}'
}

# same_time NAME: the time stamp the dock prints for the event is the one
# KernelShark's own table shows in the selected row ("Time Stamp", as
# KsUtils::Ts2String() writes it)
same_time() {
	local v t
	v=$(sed -n 's/^time //p' "$O/$1.txt" | head -1)
	t=$(sed -n 's/^Time Stamp=//p' "$O/$1.txt.row")
	[ -n "$v" ] && [ "$v" = "$t" ] ||
		{ echo "dock '$v', table '$t'"; return 1; }
}

FIX=$FIXTURES/trigger-getppid.dat
# ------------------------------------------------------------ the fixture
KS_EXTRA="--pid 80" ks_gui fixture "$FIX" syscalls/sys_enter_getppid:1
check "KernelShark loads the plugin (-p) and keeps running" \
	test -f "$O/fixture.alive"
check "the dock has its entry in the Tools menu (addPluginDock(): to bring it back when closed)" \
	grep -qx 'Tools > Deferred stack' "$O/fixture.txt.menu"
check "dock: the selected event is the second sys_enter_getppid" \
	bash -c "grep -q '^sys_enter_getppid pid=80 cpu=0 cookie=0x500000001\$' '$O/fixture.txt'"
check "dock: kernel frames first, then the user frames" \
	bash -c "$(declare -f block_frames); block_frames '$O/fixture.txt' | cut -c1 | uniq | tr -d '\n' |
		grep -qx ku"
check "dock: the time stamp is the table's for that row" same_time fixture
check "dock: the workload's functions, in order (work_inner, work_middle, work_outer, main)" \
	bash -c "sed 's/^ *//' '$O/fixture.txt' | grep -o '^=> [a-z_]*' |
		grep -Ex '=> (work_[a-z]+|main)' | cut -c4- | tr '\n' ' ' |
		grep -qx 'work_inner work_middle work_outer main '"
block_frames "$O/fixture.txt" >"$WORK/fixture.frames"
ustack_frames "$FIX" 0x500000001 syscalls:sys_enter_getppid >"$WORK/fixture.ustack"
check "dock: the same frames, named the same, as ustack prints for the event" \
	bash -c "[ -s '$WORK/fixture.ustack' ] && diff '$WORK/fixture.ustack' '$WORK/fixture.frames'"
check "dock: the link goes to the user_stack_deferred row, which shows the 2 events it completes" \
	bash -c "grep -q '^This user stack completes:' '$O/fixture.txt.jump' &&
		test \$(grep -c '^sys_e[a-z]*_getppid pid=80 cpu=0 cookie=0x500000001\$' '$O/fixture.txt.jump') = 2 &&
		grep -q '^Go to syscalls/sys_exit_getppid at ' '$O/fixture.txt.jump'"
check "dock: back on the event, the same text" \
	cmp "$O/fixture.txt" "$O/fixture.txt.done"
# The call tree (the dock's second tab), of the visible range and of the
# selected task (pid 80) in it.  Oracle: per event, task and function, the
# events whose folded stacks hold the function (ustack --folded: one
# line per distinct stack), summed here; and ustack --tree's own text for
# the same range and task (the tree is libustack's, ustack_tree(3))
cat >"$WORK/tree_counts.py" <<'PY'
import re, sys
from collections import Counter
def tree(path):     # the entries of ustack_tree_print()'s text
    c, ev = Counter(), None
    for l in open(path):
        l = l.rstrip('\n')
        m = re.match(r'# (\S+): \d+ events', l)
        if m:
            ev = m.group(1)
        elif l.startswith('# Children'):     # the columns
            cc, cs = l.index('Command'), l.index('Symbol')
        elif re.match(r' +[\d.]+% +[\d.]+% ', l):
            n, comm = l[:cc].split()[-1], l[cc:].split('  ')[0]
            sym = re.sub(r'^\[[k.]\] ', '', l[cs:])
            c[(ev, comm.replace(' ', '_'), sym.replace(' ', '_'))] += int(n)
    return c
def folded(path):   # event;comm;frame;... count
    c = Counter()
    for l in open(path):
        stack, n = l.rsplit(' ', 1)
        f = stack.split(';')
        for fr in set(f[2:]):
            c[(f[0], f[1], fr)] += int(n)
    return c
t, f = tree(sys.argv[1]), folded(sys.argv[2])
print(len(t), 'entries in the tree,', len(f), 'functions in the folded stacks')
for k in sorted(set(t) | set(f)):
    if t[k] != f[k]:
        print('differ:', k, 'tree', t[k], 'folded', f[k])
sys.exit(0 if t and t == f else 1)
PY
# tree_agrees TREE TRACE [USTACK-ARGS]: the counts, then the text
tree_agrees() {
	local t=$1 f=$2; shift 2
	"$USTACK" -q --folded --no-annotate "$@" "$f" >"$WORK/tree.folded" &&
	python3 "$WORK/tree_counts.py" "$t" "$WORK/tree.folded" &&
	"$USTACK" -q --tree "$@" "$f" >"$WORK/tree.ustack" &&
	diff <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$t") "$WORK/tree.ustack"
}
secs() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
read -r rmin rmax rpid <"$O/fixture.txt.range" 2>/dev/null
range="$(secs "${rmin:-0}"),$(secs "${rmax:-0}")"
check "call tree of the visible range ($range): each function's count is that of the events whose folded stacks hold it, and the text ustack --tree prints" \
	tree_agrees "$O/fixture.txt.tree" "$FIX" --time "$range"
check "call tree of the selected task (pid ${rpid:-?}) in the visible range: the same against ustack --folded/--tree --pid" \
	bash -c "$(declare -f tree_agrees); USTACK='$USTACK' WORK='$WORK'
		[ '${rpid:-}' = 80 ] && tree_agrees '$O/fixture.txt.tree-task' '$FIX' --time '$range' --pid 80"
check "screenshot kept: $ART/fixture.png (not blank)" \
	bash -c "[ \$(identify -format %k '$ART/fixture.png') -gt 50 ]"

# ------------------------------------------------------------- bad input
# no unwind records: a synthetic trace's formats renamed, as in the plugin
# suite (the fixtures' headers are compressed)
python3 "$REPO/tests/userspace/lib/mktrace.py" basic "$WORK/basic.dat"
python3 - "$WORK/basic.dat" "$WORK/nounwind.dat" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read().replace(b'name: user_stack_', b'name: uSer_stack_')
open(sys.argv[2], 'wb').write(d)
PY
ks_gui nounwind "$WORK/nounwind.dat" syscalls/sys_enter_getppid:0
check "no unwind records: KernelShark keeps running, the dock says so" \
	bash -c "test -f '$O/nounwind.alive' &&
		grep -q 'No deferred user stacks in this trace' '$O/nounwind.txt'"

# binaries missing: the trace alone in a directory
mkdir -p "$WORK/alone"
cp "$FIX" "$WORK/alone/"
ks_gui nobin "$WORK/alone/$(basename "$FIX")" syscalls/sys_enter_getppid:1
check "binaries missing: KernelShark keeps running, frames as file+offset, the dock has libustack's message naming the binary" \
	bash -c "test -f '$O/nobin.alive' &&
		grep -q '^ *=> /results/fixtures/callchain+0x' '$O/nobin.txt' &&
		grep -q '^libustack: /results/fixtures/callchain: not found, frames in it stay unresolved' '$O/nobin.txt'"

# damaged records (mktrace.py corrupt: array locations out of their
# record), which KernelShark loads
python3 "$REPO/tests/userspace/lib/mktrace.py" corrupt "$WORK/corrupt.dat"
ks_gui corrupt "$WORK/corrupt.dat" syscalls/sys_enter_getppid:0
check "damaged records: KernelShark keeps running, the dock says the file is damaged" \
	bash -c "test -f '$O/corrupt.alive' &&
		grep -q '^Damaged file: [0-9]* records of the deferred stacks could not be read' '$O/corrupt.txt'"

# damaged files that crashed the series' libraries while KernelShark
# opened them (the lib suite's flip00.dat: sched_switch's __print_flags()
# names a field its format lacks, libtraceevent/patches/0001; its
# trunc-data.dat: data cut short, trace-cmd/patches/0022): the first
# shows its stacks, the second is not loaded; KernelShark keeps running
mkdir -p "$WORK/badfmt"
cp "$REPO"/tests/userspace/lib/data/formats/* "$WORK/badfmt/"
sed -i 's/__print_flags(REC->prev_state/__print_flags(REC->prev_stXte/' "$WORK/badfmt/sched_sched_switch"
python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$WORK/badfmt" --binary "$FIXTURES/callchain" option "$WORK/badfmt.dat"
python3 "$REPO/tests/userspace/lib/mktrace.py" --binary "$FIXTURES/callchain" --count 6 trigger "$WORK/whole.dat"
head -c $(($(stat -c %s "$WORK/whole.dat") - 5000)) "$WORK/whole.dat" >"$WORK/cut.dat"
ks_gui badfmt "$WORK/badfmt.dat" syscalls/sys_enter_getppid:0
check "a format naming a missing field: KernelShark keeps running, the dock shows the stack" \
	bash -c "test -f '$O/badfmt.alive' && grep -q '<user stack>' '$O/badfmt.txt'"
ks_gui cut "$WORK/cut.dat" syscalls/sys_enter_getppid:0
check "data cut short: KernelShark keeps running" test -f "$O/cut.alive"

# the unwinder (mktrace.py unwinder-marks: 0xd00001 frame pointers, 0xd00002
# SFrame, ...): marked only when SFrame took part
python3 "$REPO/tests/userspace/lib/mktrace.py" unwinder-marks "$WORK/unwinder.dat"
ks_gui sframe "$WORK/unwinder.dat" syscalls/sys_enter_getppid:1
ks_gui fp "$WORK/unwinder.dat" syscalls/sys_enter_getppid:0
check "dock: [sframe] on the user stack's line of an SFrame stack, no mark on a frame-pointer one" \
	bash -c "grep -q 'cookie=0xd00002\$' '$O/sframe.txt' &&
		grep -q '^ *<user stack> \[sframe\]\$' '$O/sframe.txt' &&
		grep -q 'cookie=0xd00001\$' '$O/fp.txt' &&
		grep -q '^ *<user stack>\$' '$O/fp.txt'"

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
ks_gui unreadable "$WORK/unreadable.dat" syscalls/sys_enter_getppid:0
check "unreadable file: KernelShark keeps running, the dock says no trace is loaded" \
	bash -c "test -f '$O/unreadable.alive' &&
		grep -q '^No trace loaded yet' '$O/unreadable.txt'"

# ---------------------------------------------------- the C part, no GUI
# kshark_stack (KernelShark 2.4.0's libkshark) with the C part's test build
KS="$KS_STACK $KS_TEST_SO"
check "the Info column is KernelShark's own (no get_info replaced): every row of the fixture the same with the plugin and without" \
	bash -c "KSHARK_STACK_INFO=1 $KS '$FIX' 2>/dev/null | grep '^#' >'$WORK/info.with' &&
		KSHARK_STACK_INFO=1 $KS_STACK - '$FIX' 2>/dev/null | grep '^#' >'$WORK/info.without' &&
		grep -q '^#1 cookie=0x300000001 ' '$WORK/info.without' &&
		diff '$WORK/info.with' '$WORK/info.without'"
# KSHARK_UNWIND_SYMDIR is a directory of libustack's one search path: a
# stripped copy there is the file taken, no "missing" (the plugin before
# issue 38 had its own lookup, which said "Binary missing" then)
mkdir -p "$WORK/symdir"
strip -o "$WORK/symdir/callchain" "$FIXTURES/callchain"
check "KSHARK_UNWIND_SYMDIR: libustack looks there first (a stripped copy taken and named in its message; the fixtures' copy names the frames)" \
	bash -c "KSHARK_UNWIND_SYMDIR='$WORK/symdir' $KS '$WORK/alone/$(basename "$FIX")' syscalls/sys_enter_getppid >'$WORK/symdir.out' 2>&1;
		grep -q '^libustack: /results/fixtures/callchain: .* $WORK/symdir/callchain ' '$WORK/symdir.out' &&
		! grep -qi 'missing\|not found' '$WORK/symdir.out' &&
		KSHARK_UNWIND_SYMDIR='$FIXTURES' $KS '$WORK/alone/$(basename "$FIX")' syscalls/sys_enter_getppid 2>&1 |
		grep -q '^ => work_inner+0x4b (/results/fixtures/callchain)'"
VG="valgrind -q --suppressions=$REPO/tests/userspace/plugin/ldso.supp --suppressions=$REPO/tests/userspace/plugin/kshark.supp --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
# KernelShark reloads a stream without a new plugin context (an advanced
# filter): the entries the handlers kept are freed; the plugin starts over
check "a reload of the stream (once before a draw, then drawn twice): the same text, valgrind clean" \
	bash -c "$KS '$FIX' >'$WORK/reload.1' 2>/dev/null &&
		KSHARK_STACK_RELOAD=1 $KS '$FIX' >'$WORK/reload.2' 2>/dev/null &&
		grep -q '^ <user stack>' '$WORK/reload.2' && diff '$WORK/reload.1' '$WORK/reload.2' &&
		{ KSHARK_STACK_RELOAD=1 $VG $KS '$FIX' >/dev/null 2>'$WORK/reload.err'; [ \$? != 99 ]; }"
# Inside KernelShark (a threaded Qt program) no child process, and the
# trace opened once, by KernelShark: the plugin reads the saved maps
# through KernelShark's handle, the execs and loads come from the
# stream's own loading (issue 38)
check "inside KernelShark: no child process, the trace opened once (by KernelShark)" \
	bash -c "strace -f -qq -e trace=fork,vfork,clone,clone3,openat -o '$WORK/strace.out' \
		$KS '$FIX' >/dev/null 2>&1 &&
		! grep -v CLONE_THREAD '$WORK/strace.out' | grep -Eq '^[0-9]+ +(clone|clone3|fork|vfork)\(' &&
		test \"\$(grep -c '$(basename "$FIX")' '$WORK/strace.out')\" = 1"
# A buffer instance's stream has a handle of its own, without the maps
# the file saved (libtracecmd reads them for the top buffer only): the
# plugin takes them from the top stream's handle
python3 "$REPO/tests/userspace/lib/mktrace.py" --binary "$FIXTURES/callchain" instances "$WORK/inst.dat"
check "a buffer instance's stream (mktrace.py instances, buffer second): its user frames named with the maps of the top buffer's handle" \
	bash -c "test \"\$(KSHARK_STACK_BUFFER=second $KS '$WORK/inst.dat' syscalls/sys_enter_getppid 2>/dev/null |
		grep -c '^ => work_inner+0x223 ($FIXTURES/callchain)')\" = 2"
for f in "$FIX" "$WORK/alone/$(basename "$FIX")" "$WORK/nounwind.dat" "$WORK/corrupt.dat" "$FIXTURES/option-T.dat"; do
	check "valgrind: the plugin loads, shows every entry's stacks and unloads, no errors, no leaks ($(basename "$(dirname "$f")")/$(basename "$f"))" \
		bash -c "$VG $KS '$f' >'$WORK/vg.out' 2>'$WORK/vg.err'; [ \$? != 99 ] && grep -q '^--- #' '$WORK/vg.out'"
done

# Every fixture: the stacks the dock shows for each request (each cookie
# record), named, are those ustack prints (readers.py --named, as for
# the series' report): the C part under KernelShark 2.4.0's libkshark
shopt -s nullglob
as_report() { # kshark_stack's text as report's layout, for readers.py
	awk '/^[^ ].* pid=[0-9]+ cpu=[0-9]+ cookie=0x/ {
		name = $1; pid = $(NF - 2); cpu = $(NF - 1)
		sub(/pid=/, "", pid); sub(/cpu=/, "", cpu)
		if (name == "(event") name = "user_stack_cookie"
		printf "task-%s [%03d] d 1.0: %s:\n", pid, cpu, name; next}
	     /^ (<|=> )/ {print}' "$1"
}
dock_agrees() { # dock_agrees FILE
	"$USTACK" -q --tracer-frames "$1" >"$WORK/rn.ustack" 2>/dev/null
	[ $? -le 3 ] || return 1
	$KS "$1" ftrace/user_stack_cookie >"$WORK/rn.kshark" 2>/dev/null
	as_report "$WORK/rn.kshark" >"$WORK/rn.report"
	python3 "$REPO/tests/userspace/plugin/readers.py" --named "$WORK/rn.ustack" "$WORK/rn.report"
}
for f in "$FIXTURES"/*.dat "$FIXTURES"/current/*.dat; do
	case $(basename "$f") in prerelease-*) continue ;; esac
	check "every request of $(basename "$f"): the dock's stacks named as ustack names them" \
		dock_agrees "$f"
done

# The call tree of the C part: on every fixture, of the whole trace and of
# its middle third, as ustack counts and prints them
tree_c() { # tree_c TRACE FROM TO [PID]: the dock's tree text
	KSHARK_STACK_TREE="$2,$3,${4:--1}" $KS "$1" 2>/dev/null |
		sed '1,/^entries:/d; /^stacks shown:/d'
}
trees_agree() {
	local f a b bad=0
	for f in "$FIXTURES"/*.dat "$FIXTURES"/current/*.dat; do
		case $(basename "$f") in prerelease-*) continue ;; esac
		# from the third to the second third of its events' times
		a=$("$USTACK" -q -r "$f" | sed -n 's/^[^ ].*\] \([0-9]*\.[0-9]*\) .*/\1/p' |
			sort -n | awk '{t[NR] = $1} END {n = int(NR / 3)
				if (NR) printf "%s %s", t[n + 1], t[NR - n]}' | tr -d .)
		set -- $a
		[ $# = 2 ] || { echo "$f: no events"; bad=1; continue; }
		tree_c "$f" 0 9223372036854775807 >"$WORK/tc.all"
		tree_c "$f" "$1" "$2" >"$WORK/tc.mid"
		if ! tree_agrees "$WORK/tc.all" "$f" >"$WORK/tc.out" 2>&1 ||
		   ! tree_agrees "$WORK/tc.mid" "$f" --time "$(secs "$((10#$1))"),$(secs "$((10#$2))")" >>"$WORK/tc.out" 2>&1; then
			echo "$f:"; cat "$WORK/tc.out"; bad=1
		fi
	done
	return $bad
}
check "call tree of the C part, every fixture, whole trace and its middle third of events: counts of ustack --folded, text of ustack --tree" \
	trees_agree
check "valgrind: the call tree of every request of option-T.dat, no errors, no leaks" \
	bash -c "KSHARK_STACK_TREE=0,9223372036854775807 $VG $KS '$FIXTURES/option-T.dat' >'$WORK/vg.out' 2>'$WORK/vg.err'
		[ \$? != 99 ] && grep -q '^# Children' '$WORK/vg.out'"

echo "artifacts (screenshots, dock texts, KernelShark logs): $ART"
finish
