#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of libustack and the ustack tool: builds everything, runs
# all tests, prints "N passed, N failed" last, exits non-zero on failure.
#
#   tests/userspace/lib/run.sh            all tests
#   FUZZ_TIME=60 run.sh                   fuzz for 60 s (default 30)
#   NO_VALGRIND=1 run.sh                  skip valgrind (faster)
#
# Installs its own Debian packages when missing (libustack/deps.sh).

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
LIB=$REPO/libustack
B=$HERE/build
FIX=$REPO/tests/fixtures
FUZZ_TIME=${FUZZ_TIME:-30}
PASS=0
FAIL=0
SKIP=0

pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
skip() { SKIP=$((SKIP + 1)); echo "SKIP: $*"; }

finish() {
	echo
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" = 0 ]
	exit $?
}

# Count PASS:/FAIL: lines of a C test binary's output.
count() {
	local out=$1 rc=$2 name=$3 p f
	cat "$out"
	p=$(grep -c '^PASS:' "$out")
	f=$(grep -c '^FAIL:' "$out")
	PASS=$((PASS + p))
	FAIL=$((FAIL + f))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		fail "$name exited $rc"
	fi
}

. "$HERE/valgrind.sh"

# ---- build ----
"$LIB/deps.sh" || { fail "installing packages"; finish; }
rm -rf "$B"
mkdir -p "$B" "$B/fake-tracefs" "$B/sym"
# The tool's trace.dat reader (ustack/file.c) needs the series'
# libtracecmd: rig/build-tracecmd.sh's prefix (cached), by pkg-config,
# and at run time by rpath (not bookworm's of the same soname): the
# tool's Makefile adds one, LD_RUN_PATH gives the suite's test programs
# theirs (ld takes it where a link names no -rpath)
if ! tc=$("$REPO/rig/build-tracecmd.sh" 2>"$B/tracecmd.log"); then
	tail -20 "$B/tracecmd.log"
	fail "rig/build-tracecmd.sh: the series' libtracecmd"
	finish
fi
TC_PREFIX=$(cd "$(dirname "$tc")/.." && pwd)
export PKG_CONFIG_PATH=$TC_PREFIX/lib/pkgconfig LD_RUN_PATH=$TC_PREFIX/lib
if ! make -s -C "$LIB" OUT="$B/lib" all >"$B/make.log" 2>&1; then
	cat "$B/make.log"
	fail "make libustack"
	finish
fi
pass "build: library, tool (-Wall -Wextra -Werror)"
USTACK=$B/lib/ustack
PKGS="libtracefs libtraceevent libtracecmd libdw"
CF="-g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE -I$LIB/include -I$LIB/src $(pkg-config --cflags $PKGS)"
LD="$B/lib/libustack.a $(pkg-config --libs $PKGS) -lelf -lstdc++"
for t in test-join test-syms test-control; do
	# shellcheck disable=SC2086
	gcc $CF -o "$B/$t" "$HERE/$t.c" $LD || fail "build $t"
done

# binaries for the symbol tests
S=$B/sym
SF="-O1 -g -fno-omit-frame-pointer"
gcc $SF -shared -fPIC -o "$S/libsymtest.so" "$HERE/symdata/symlib.c" &&
gcc $SF -fPIE -pie -o "$S/symtest-pie" "$HERE/symdata/symtest.c" -L"$S" -lsymtest &&
gcc $SF -no-pie -fno-pie -o "$S/symtest-nopie" "$HERE/symdata/symtest.c" -L"$S" -lsymtest &&
strip -o "$S/symtest-stripped" "$S/symtest-pie" &&
g++ $SF -no-pie -fno-pie -o "$S/symtest-cxx" "$HERE/symdata/symtest-cxx.cc" &&
head -c 4096 /dev/urandom | { printf '\177ELF\002\001\001'; cat; } >"$S/corrupt.so" ||
	fail "build the symbol test binaries"
PIE_VADDR=$(nm "$S/symtest-pie" | awk '$3 == "prog_func" { print $1 }')
NOPIE_VADDR=$(nm "$S/symtest-nopie" | awk '$3 == "prog_func" { print $1 }')
CXX_VADDR=$(nm "$S/symtest-cxx" | awk '$3 == "_ZN2ns8cxx_funcEi" { print $1 }')
# an address of ns::cxx_func whose byte before has ns::helper inlined
# (frames are return addresses: their line is the call's, the byte
# before), and the two source lines addr2line -i gives for that byte
# (helper's, then the call site)
CXX_INL=0 CXX_LINES="0 0"
read -r _ CXX_SIZE < <(nm -S "$S/symtest-cxx" | awk '$4 == "_ZN2ns8cxx_funcEi" { print $1, $2 }')
for ((i = 1; i < 0x${CXX_SIZE:-0}; i++)); do
	a=$(printf %x $((0x$CXX_VADDR + i - 1)))
	l=$(addr2line -i -e "$S/symtest-cxx" "$a" | awk -F: '{ printf "%s ", $NF }')
	set -- $l
	if [ $# = 2 ]; then CXX_INL=$(printf %x $((0x$a + 1))) CXX_LINES="$1 $2"; break; fi
done

# workloads for synthetic traces: the workload's call chain, PIE and not
W=$B/work
mkdir -p "$W"
WF="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
gcc $WF -fPIE -pie -o "$W/callchain" "$REPO/tests/workload/callchain.c" &&
gcc $WF -no-pie -fno-pie -o "$W/callchain-nopie" "$REPO/tests/workload/callchain.c" &&
strip -o "$W/callchain-stripped" "$W/callchain" ||
	fail "build the workload copies"

# ---- unit tests ----
"${VG[@]}" "$B/test-join" "$HERE/data/formats" >"$B/join.out" 2>&1
count "$B/join.out" $? test-join
"${VG[@]}" "$B/test-syms" "$S" "$PIE_VADDR" "$NOPIE_VADDR" "$CXX_VADDR" \
	"$CXX_INL" $CXX_LINES >"$B/syms.out" 2>&1
count "$B/syms.out" $? test-syms
"${VG[@]}" "$B/test-control" "$B/fake-tracefs" >"$B/control.out" 2>&1
count "$B/control.out" $? test-control

# ---- live, on the host's tracefs when it is usable (ASan: valgrind is too
# slow for loading every event format of the running kernel) ----
# shellcheck disable=SC2086
gcc -g -O1 -fsanitize=address -fno-omit-frame-pointer $CF -o "$B/test-live" \
	"$HERE/test-live.c" "$LIB"/src/*.c $(pkg-config --libs $PKGS) -lelf -lstdc++ ||
	fail "build test-live"
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$HERE/data/lsan-system.supp \
	"$B/test-live" "$W/callchain" >"$B/live.out" 2>&1
rc=$?
cat "$B/live.out"
PASS=$((PASS + $(grep -c '^PASS:' "$B/live.out")))
FAIL=$((FAIL + $(grep -c '^FAIL:' "$B/live.out")))
SKIP=$((SKIP + $(grep -c '^SKIP:' "$B/live.out")))
[ $rc = 0 ] || grep -q '^FAIL:' "$B/live.out" || fail "test-live exited $rc"
if grep -q '^PASS: live: this kernel has no deferred' "$B/live.out"; then
	inst=ustack-tool-test-$$
	"$USTACK" -i "$inst" -e syscalls:sys_enter_getppid -d 1 >"$B/live-tool.out" 2>"$B/live-tool.err"
	rc=$?
	if [ $rc = 1 ] && grep -q 'no deferred user stacks' "$B/live-tool.err" &&
	   [ ! -d "$(tracefs_dir=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts); echo "$tracefs_dir")/instances/$inst" ]; then
		pass "ustack -i on a kernel without deferred stacks: message, exit 1, instance removed"
	else
		cat "$B/live-tool.err"
		fail "ustack -i on a kernel without deferred stacks (exit $rc)"
	fi
	# reading the top instance as it is: no waiting for stacks that
	# cannot come
	timeout 20 "$USTACK" -i top -d 5 >"$B/live-top.out" 2>"$B/live-top.err"
	rc=$?
	if [ $rc = 1 ] && grep -q 'no deferred user stacks' "$B/live-top.err"; then
		pass "ustack -i top on a kernel without deferred stacks: message, exit 1"
	else
		cat "$B/live-top.err"
		fail "ustack -i top on a kernel without deferred stacks (exit $rc)"
	fi
fi

# ---- ustack -i on a kernel without the feature, anywhere ----
# A fake tracefs (--tracefs) as a kernel without deferred stacks has it:
# events and options, none of ours.  Reading the top instance, and
# tracing an event of it, both fail at once with the reason, and write
# nothing to the tree.
FT=$B/fake-tracefs-nodefer
mkdir -p "$FT/events/syscalls/sys_enter_getppid" "$FT/options" "$FT/instances"
printf 'trigger\n  stacktrace\n' >"$FT/README"
: >"$FT/events/syscalls/sys_enter_getppid/trigger"
: >"$FT/events/syscalls/sys_enter_getppid/enable"
: >"$FT/options/stacktrace"
find "$FT" -type f -exec md5sum {} + | sort >"$B/ft.before"
nodefer=0
for args in "-i top" "-i top -e syscalls:sys_enter_getppid" "-i top -O"; do
	# shellcheck disable=SC2086
	timeout 20 "${VG[@]}" "$USTACK" --tracefs "$FT" $args -d 5 >"$B/nodefer.out" 2>"$B/nodefer.err"
	rc=$?
	if [ $rc != 1 ] || [ -s "$B/nodefer.out" ] ||
	   ! grep -qx 'ustack: this kernel has no deferred user stacks (.*)' "$B/nodefer.err" ||
	   [ "$(wc -l < "$B/nodefer.err")" != 1 ]; then
		cat "$B/nodefer.err"
		echo "ustack $args: exit $rc"
		nodefer=1
	fi
done
find "$FT" -type f -exec md5sum {} + | sort >"$B/ft.after"
cmp -s "$B/ft.before" "$B/ft.after" || nodefer=1
[ $nodefer = 0 ] && pass "ustack -i top (also -e, -O) on a fake tracefs without the feature: one line, exit 1, nothing written" ||
	fail "ustack -i on a fake tracefs without the feature"
"$USTACK" --tracefs "$B/no-such-dir" -i top -d 1 >/dev/null 2>"$B/nodefer.err"
[ $? = 1 ] && grep -qx "ustack: $B/no-such-dir: No such file or directory" "$B/nodefer.err" &&
	pass "ustack --tracefs with a missing directory: named, exit 1" ||
	fail "ustack --tracefs with a missing directory"

# ---- the tool on synthetic trace.dat files ----
MK="python3 $HERE/mktrace.py --formats $HERE/data/formats"
LIBC=/lib/x86_64-linux-gnu/libc.so.6
[ -f "$LIBC" ] || LIBC=
T=$B/traces
mkdir -p "$T"
$MK trigger "$T/trigger.dat" --binary "$W/callchain" ${LIBC:+--libc $LIBC} --count 6 &&
$MK option "$T/option.dat" --binary "$W/callchain" --count 4 &&
$MK never "$T/never.dat" --binary "$W/callchain" --count 3 &&
$MK flags "$T/flags.dat" --binary "$W/callchain" &&
$MK unwinder "$T/unwinder.dat" --binary "$W/callchain" &&
$MK instances "$T/instances.dat" --binary "$W/callchain" --count 4 &&
$MK trigger "$T/nopie.dat" --binary "$W/callchain-nopie" --count 2 &&
$MK trigger "$T/stripped.dat" --binary "$W/callchain" --binname /guest/bin/callchain-stripped --count 2 ||
	fail "mktrace.py"

# run_tool NAME EXPECTED_RC ARGS... : runs ustack under valgrind
# FILE's lines but the warnings that names from a file without a recorded
# build ID are not verified (every trace of --proc-map without the series)
sans_unverified() { grep -v ': no build ID recorded: the names from .* are not verified' "$1"; }
run_tool() {
	local name=$1 want=$2 rc
	shift 2
	"${VG[@]}" "$USTACK" "$@" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	if [ "$rc" = 99 ]; then
		cat "$B/$name.err"
		fail "$name: valgrind errors"
		return 1
	fi
	if [ "$rc" != "$want" ]; then
		cat "$B/$name.err"
		fail "$name: exit $rc, want $want"
		return 1
	fi
	return 0
}

# the user frames of every event are the workload's chain, in order
chain_ok() {
	awk -v want="$2" '
		/^[^ ]/ { if (ev && n) { if (got != want) bad++ } ; ev = 1; got = ""; n = 0; next }
		/^  u / { n++; split($2, a, "+"); got = got (got ? "," : "") a[1] }
		END { if (ev && n && got != want) bad++; exit bad ? 1 : 0 }
	' "$1"
}

CHAIN="work_inner,work_middle,work_outer,main"
if run_tool trigger 0 --tracer-frames "$T/trigger.dat"; then
	n=$(grep -c 'status=complete' "$B/trigger.out")
	if [ "$n" = 12 ] && chain_ok "$B/trigger.out" "$CHAIN${LIBC:+,__libc_start_main}" &&
	   grep -q '^  k trace_event_raw_event_sys_enter+0x10$' "$B/trigger.out" &&
	   grep -q "^  u work_inner+0x[0-9a-f]* ($W/callchain)$" "$B/trigger.out" &&
	   [ -z "$(sans_unverified "$B/trigger.err")" ]; then
		pass "ustack: trigger trace, kernel then user frames by name (PIE), nothing on stderr"
	else
		cat "$B/trigger.err"
		fail "ustack: trigger trace output (complete=$n)"
	fi
fi
# the kernel's mark for a frame in an ftrace trampoline (INT_MAX): no
# damage, shown by what it is
python3 - "$T/trigger.dat" "$T/tramp.dat" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
a = struct.pack("<Q", 0xffffffff81000410)   # do_syscall_64+0x10
i = d.find(a)
assert i > 0
d[i:i + 8] = struct.pack("<Q", 0x7fffffff)
open(sys.argv[2], "wb").write(d)
EOF
if run_tool tramp 0 "$T/tramp.dat" && [ -z "$(sans_unverified "$B/tramp.err")" ] &&
   grep -qx '  k \[ftrace trampoline\]' "$B/tramp.out" &&
   run_tool tramp-folded 0 --folded "$T/tramp.dat" && grep -q ';\[ftrace_trampoline\]_\[k\][; ]' "$B/tramp-folded.out"; then
	pass "ustack: a frame in an ftrace trampoline (INT_MAX) is shown as one, not as damage"
else
	cat "$B/tramp.err"
	fail "ustack: the ftrace trampoline mark"
fi
# a user frame outside the process's maps (main's, in the first user
# stack, moved 16 MB up; the two events of that entry show it): an
# address, and a note, exit 0
python3 - "$T/trigger.dat" "$T/unmapped.dat" "$W/callchain" <<'EOF'
import struct, subprocess, sys
d = bytearray(open(sys.argv[1], "rb").read())
nm = subprocess.run(["nm", sys.argv[3]], capture_output=True, text=True).stdout
main = int([l.split()[0] for l in nm.splitlines() if l.endswith(" T main")][0], 16)
for i in range(0, len(d) - 8, 8):
    a, = struct.unpack_from("<Q", d, i)
    if 0x555555554000 + main < a < 0x555555554000 + main + 0x1000:
        struct.pack_into("<Q", d, i, a + 0x1000000)
        break
else:
    sys.exit("no frame in main")
open(sys.argv[2], "wb").write(d)
EOF
if run_tool unmapped 0 "$T/unmapped.dat" && grep -q '^  u 0x5555[0-9a-f]*$' "$B/unmapped.out" &&
   grep -qx "ustack: note: 2 user frames outside their process's maps (--stats for details)" "$B/unmapped.err"; then
	pass "ustack: a user frame outside its process's maps: an address, a note, exit 0"
else
	cat "$B/unmapped.err"
	fail "ustack: a user frame outside its process's maps"
fi
# Names that cannot be verified (issue 38 item 2): maps without build IDs
# (--proc-map of trace-cmd versions without the series).  A trace of the
# non-PIE workload whose recorded path is gone, read with another file of
# that name next to it: the workload itself, the same source rebuilt -O2
# (same page layout: the segments fit), and the PIE renamed over it (same
# layout, page for page).  Oracles: readelf -h (the PIE is ET_DYN, placed
# where an ET_EXEC was mapped), nm -S (the rebuilt file's work_inner is
# elsewhere).  The PIE names nothing ([not the file mapped]); the others
# name frames, and one warning per file says its names are not verified
# (before: the PIE and the rebuilt file named every frame wrongly, no word).
mkdir -p "$T/unverified"
gcc -O2 -g -fno-omit-frame-pointer -no-pie -fno-pie -o "$W/callchain-rebuilt" "$REPO/tests/workload/callchain.c" &&
python3 "$HERE/mktrace.py" trigger "$T/unverified/t.dat" --binary "$W/callchain-nopie" \
	--binname /gone/callchain --count 1 || fail "mktrace.py trigger for the unverified names"
bad=
for v in callchain-nopie callchain-rebuilt callchain; do
	mkdir -p "$T/unverified/$v"
	cp "$T/unverified/t.dat" "$T/unverified/$v/" && cp "$W/$v" "$T/unverified/$v/callchain"
	run_tool "unverified-$v" 0 "$T/unverified/$v/t.dat" || { bad+=" $v: exit;"; continue; }
	nw=$(grep -c "/gone/callchain: no build ID recorded: the names from .*/$v/callchain are not verified" "$B/unverified-$v.err")
	named=$(grep -c '^  u [a-z_]*+0x[0-9a-f]* (/gone/callchain)$' "$B/unverified-$v.out")
	case $v in
	callchain) # the PIE (readelf: DYN) where the non-PIE (EXEC) was mapped
		readelf -h "$W/callchain" | grep -q 'Type: *DYN' && readelf -h "$W/callchain-nopie" | grep -q 'Type: *EXEC' ||
			bad+=" readelf: the PIE is not DYN or the non-PIE not EXEC;"
		[ "$named" = 0 ] && grep -q '^  u /gone/callchain+0x[0-9a-f]* (0x[0-9a-f]*) \[not the file mapped\]$' "$B/unverified-$v.out" ||
			bad+=" PIE over the non-PIE: $named frames named;" ;;
	*)	[ "$nw" = 1 ] && [ "$named" -ge 4 ] || bad+=" $v: $nw warnings (want 1), $named frames named;" ;;
	esac
done
# the rebuilt file's names are wrong (nm -S: work_inner moved), which is
# why the warning is there
[ "$(nm "$W/callchain-rebuilt" | awk '$3 == "work_inner" { print $1 }')" != \
  "$(nm "$W/callchain-nopie" | awk '$3 == "work_inner" { print $1 }')" ] || bad+=" the rebuilt work_inner did not move;"
[ -z "$bad" ] && pass "ustack: names without a build ID: the PIE over a non-PIE not named, a rebuilt file named with one warning" ||
	fail "ustack: names without a build ID:$bad"

if run_tool folded 0 --folded "$T/trigger.dat"; then
	# kernel frames marked _[k], the tracer's (trace_event_raw_event_*) left out
	want_enter="syscalls:sys_enter_getppid;callchain;${LIBC:+__libc_start_main;}main;work_outer;work_middle;work_inner;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k] 6"
	if grep -qxF "$want_enter" "$B/folded.out" &&
	   grep -q ';syscall_exit_to_user_mode_\[k\] 6$' "$B/folded.out" &&
	   [ "$(grep -c callchain "$B/folded.out")" = 2 ] &&
	   grep -qx 'sched:sched_switch;kworker/0:1;.*;process_one_work_\[k\] 1' "$B/folded.out"; then
		pass "ustack --folded: one line per distinct stack, right counts"
	else
		cat "$B/folded.out"
		fail "ustack --folded"
	fi
fi
if run_tool option 0 "$T/option.dat"; then
	if [ "$(grep -c 'status=complete' "$B/option.out")" = 12 ] &&
	   grep -q 'sched:sched_switch status=complete' "$B/option.out" &&
	   chain_ok "$B/option.out" "$CHAIN"; then
		pass "ustack: -T -O userstacktrace_defer style trace, three events per cookie"
	else
		fail "ustack: option trace"
	fi
fi
if run_tool never 0 "$T/never.dat"; then
	if [ "$(grep -c 'status=never-arrived' "$B/never.out")" = 2 ] &&
	   [ "$(grep -c 'status=complete' "$B/never.out")" = 4 ] &&
	   grep -q 'kworker/0:1-33 .* status=no-cookie' "$B/never.out"; then
		pass "ustack: a user stack that never arrived, a kernel thread"
	else
		fail "ustack: never-arrived trace"
	fi
fi
# the records' flags: one kernel entry (enter and exit events) each of
# complete, TRUNCATED (depth 300), LATE, NO_USER_STACK (lost), no user
# frames, no kernel frames
kframes() { # kframes COOKIE: the k lines of the events with that cookie
	awk -v c="cookie=$1" '$0 ~ c { l = 1; next } /^$/ { l = 0 }
		l && /^  k / { n++ } END { print n + 0 }' "$B/flags.out"
}
if run_tool flags 0 --stats --tracer-frames "$T/flags.dat"; then
	if [ "$(grep -c 'status=complete cookie=0x10000 tgid=1234$' "$B/flags.out")" = 2 ] &&
	   [ "$(grep -c 'status=truncated cookie=0x20000 tgid=1234 depth=300$' "$B/flags.out")" = 2 ] &&
	   [ "$(grep -c 'status=complete,late cookie=0x30000 tgid=1234$' "$B/flags.out")" = 2 ] &&
	   [ "$(grep -c 'status=lost cookie=0x40000$' "$B/flags.out")" = 2 ] &&
	   [ "$(grep -c 'status=empty cookie=0x50000 tgid=1234$' "$B/flags.out")" = 2 ] &&
	   [ "$(grep -c 'status=complete cookie=0x60000 tgid=1234$' "$B/flags.out")" = 2 ] &&
	   [ "$(kframes 0x40000)" = 7 ] && [ "$(kframes 0x60000)" = 0 ] &&
	   grep -q 'never-arrived 0 (evicted 0), lost 2, ' "$B/flags.err" &&
	   grep -q 'truncated 2, empty 2, ' "$B/flags.err" && grep -q '; late 2, ' "$B/flags.err" &&
	   grep -qx 'ustack: note: 2 events whose user stack the kernel could not take (lost) (--stats for details)' "$B/flags.err" &&
	   chain_ok <(awk -v RS= -v ORS='\n\n' '!/status=truncated/' "$B/flags.out") "$CHAIN"; then
		pass "ustack: the records' flags: truncated with the depth, late, lost at once (a note, exit 0), empty, no kernel frames"
	else
		cat "$B/flags.err"
		fail "ustack: the records' flags"
	fi
fi
if run_tool flags-folded 0 -q --folded --tracer-frames --no-annotate "$T/flags.dat" &&
   grep -q '^syscalls:sys_enter_getppid;callchain;\[user stack lost\];.*;trace_event_raw_event_sys_enter 1$' "$B/flags-folded.out" &&
   grep -q '^syscalls:sys_exit_getppid;callchain;\[truncated\];work_middle;work_inner;.* 1$' "$B/flags-folded.out" &&
   [ -z "$(sans_unverified "$B/flags-folded.err")" ]; then
	pass "ustack --folded: lost and truncated stacks marked"
else
	cat "$B/flags-folded.out"
	fail "ustack --folded: lost and truncated stacks"
fi
# the user stack record's unwinder flags (UNWIND_FP 0x4, UNWIND_SFRAME
# 0x8): marked after the status only when SFrame took part; frame
# pointers alone, no flag, reserved bits alone: no mark (since 1.6)
if run_tool unwinder 0 "$T/unwinder.dat"; then
	uw=0
	for want in 'complete cookie=0x10000' 'complete,sframe cookie=0x20000' \
		'complete,sframe+fp cookie=0x30000' \
		'truncated,sframe cookie=0x40000 tgid=1234 depth=300' \
		'complete,late,sframe+fp cookie=0x50000' 'complete cookie=0x60000' \
		'complete cookie=0x70000' 'complete,sframe cookie=0x80000'; do
		case $want in *depth=*) ;; *) want="$want tgid=1234" ;; esac
		n=$(grep -c "status=$want\$" "$B/unwinder.out")
		[ "$n" = 2 ] || { echo "status=$want: $n lines, want 2"; uw=1; }
	done
	if [ $uw = 0 ] && [ "$(grep -c '^callchain-1234 ' "$B/unwinder.out")" = 16 ] &&
	   chain_ok <(awk -v RS= -v ORS='\n\n' '!/status=truncated/' "$B/unwinder.out") "$CHAIN" &&
	   [ -z "$(sans_unverified "$B/unwinder.err")" ]; then
		pass "ustack: the unwinder flags: ,sframe and ,sframe+fp after the status, no mark for frame pointers, none or reserved bits"
	else
		cat "$B/unwinder.out" "$B/unwinder.err"
		fail "ustack: the unwinder flags"
	fi
fi
if run_tool instances 0 "$T/instances.dat" &&
   run_tool instances2 0 -B second "$T/instances.dat"; then
	if [ "$(grep -c '(top) .*status=complete' "$B/instances.out")" = 8 ] &&
	   [ "$(grep -c '(second) .*status=complete' "$B/instances.out")" = 4 ] &&
	   [ "$(grep -c 'status=complete' "$B/instances2.out")" = 4 ]; then
		pass "ustack: two buffer instances, a join each"
	else
		fail "ustack: instances"
	fi
fi
if run_tool nopie 0 "$T/nopie.dat" && chain_ok "$B/nopie.out" "$CHAIN" &&
   [ "$(grep -c 'status=complete' "$B/nopie.out")" = 4 ]; then
	pass "ustack: fixed-address executable"
else
	fail "ustack: fixed-address executable"
fi
if run_tool stripped 0 -s "$W" "$T/stripped.dat" &&
   grep -q '^  u /guest/bin/callchain-stripped+0x[0-9a-f]*$' "$B/stripped.out"; then
	pass "ustack: stripped binary found in a search dir gives file+offset"
else
	fail "ustack: stripped binary"
fi
# the same traces in file format 7, compressed (trace-cmd convert)
if trace-cmd convert -i "$T/trigger.dat" -o "$T/trigger-v7.dat" --file-version 7 \
	--compression any >/dev/null 2>&1 &&
   trace-cmd convert -i "$T/instances.dat" -o "$T/instances-v7.dat" --file-version 7 \
	--compression any >/dev/null 2>&1 &&
   run_tool v7 0 --tracer-frames "$T/trigger-v7.dat" && run_tool v7i 0 "$T/instances-v7.dat" &&
   cmp -s <(sed 's/ (.*)$//' "$B/trigger.out") <(sed 's/ (.*)$//' "$B/v7.out") &&
   [ "$(grep -c '(second) .*status=complete' "$B/v7i.out")" = 4 ]; then
	pass "ustack: file format 7, compressed: same output"
else
	fail "ustack: file format 7"
fi
if run_tool raw 0 --raw "$T/trigger.dat" && grep -q '^  u 0x5555' "$B/raw.out"; then
	pass "ustack --raw"
else
	fail "ustack --raw"
fi
# an ELF file that cannot be read: message, fallback, exit 2
cp "$S/corrupt.so" "$W/corrupt-bin"
$MK trigger "$T/corrupt-elf.dat" --binary "$W/callchain" --binname "$W/corrupt-bin" --count 1
if run_tool corrupt-elf 2 "$T/corrupt-elf.dat" && grep -q 'not a readable ELF' "$B/corrupt-elf.err" &&
   grep -q "^  u $W/corrupt-bin+0x" "$B/corrupt-elf.out"; then
	pass "ustack: unreadable ELF: message, file+offset, exit 2"
else
	fail "ustack: unreadable ELF"
fi

# an exec in the middle (issue 20 item 10): the frames before it are not
# named in the new image's maps (mapped 0x3000 lower, as ASLR does), but
# marked, with one note; those after it named.  Only the last image's
# maps saved (--no-old-maps: the series' libtracecmd reads those saved
# before an exec, which name both, tests/rig/tracecmd.sh).  By
# sched_process_exec (record -T), or by sys_exit_execve (older traces).
for ev in sched_process_exec sys_exit_execve; do
	$MK exec "$T/exec-$ev.dat" --binary "$W/callchain" --count 3 --exec-event $ev --no-old-maps ||
		fail "mktrace.py exec"
	if run_tool exec-$ev 0 "$T/exec-$ev.dat" &&
	   [ "$(grep -c '^  u 0x5555[0-9a-f]* \[before exec\]$' "$B/exec-$ev.out")" = 24 ] &&
	   [ "$(grep -c "^  u work_inner+0x[0-9a-f]* ($W/callchain)$" "$B/exec-$ev.out")" = 6 ] &&
	   ! grep -q "^  u $W/callchain+0x" "$B/exec-$ev.out" &&
	   grep -qx 'ustack: note: 24 user frames from before an exec whose maps were not saved (\[before exec\]) (--stats for details)' "$B/exec-$ev.err"; then
		pass "ustack: frames before an exec ($ev) marked [before exec], not named in the new image"
	else
		cat "$B/exec-$ev.err"
		fail "ustack: frames before an exec ($ev): $(grep -c '\[before exec\]' "$B/exec-$ev.out") marked, $(grep -c "^  u $W/callchain+0x" "$B/exec-$ev.out") named in the new image"
	fi
done
if run_tool exec-folded 0 --folded "$T/exec-sched_process_exec.dat" &&
   [ "$(grep -c '0x5555[0-9a-f]*_\[before_exec\]' "$B/exec-folded.out")" = 2 ]; then
	pass "ustack --folded: frames before an exec marked"
else
	fail "ustack --folded: frames before an exec"
fi

# ---- the shared library's ABI: the header's functions, one version node ----
"$HERE/check-abi.sh" "$LIB" "$B/lib/libustack.so.1" >"$B/abi.out" 2>&1
count "$B/abi.out" $? check-abi
# No package cycle (issue 38): trace-cmd links the library, so the
# library links no libtracecmd (the tool's reader does, ustack/file.c)
needed=$(readelf -d "$B/lib/libustack.so.1" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
undef=$(nm -u "$B/lib/libustack.a" | awk '$2 ~ /^tracecmd_/ { print $2 }' | sort -u | tr '\n' ' ')
if [ -n "$needed" ] && ! grep -q libtracecmd <<<"$needed" && [ -z "$undef" ] &&
   readelf -d "$USTACK" | grep -q 'NEEDED.*libtracecmd'; then
	pass "no cycle: libustack needs $needed(no libtracecmd; the ustack tool does)"
else
	fail "no cycle: libustack.so needs $needed; libustack.a uses ${undef:-nothing of libtracecmd}"
fi
# Issue 38: no copy of libtracecmd's private struct layout in the repo's
# C sources (file.c takes the series' public API), and no fork()ed
# probe child in the reader that the KernelShark plugin links, nor in the tool
copies=$(git -C "$REPO" grep -l -F 'struct tracecmd_proc_addr_map {' -- '*.c' '*.h' '*.cpp' '*.hpp' 2>&1)
if [ -z "$copies" ]; then
	pass "no C source copies libtracecmd's private struct tracecmd_proc_addr_map"
else
	fail "libtracecmd's private struct tracecmd_proc_addr_map copied in: $(echo $copies)"
fi
make -s -C "$LIB" OUT="$B/lib" file >"$B/file.log" 2>&1
forks=$(nm --undefined-only "$B/lib/libustack-file.a" 2>&1 | awk '$2 ~ /^(fork|vfork|clone|_Fork)$/ { print $2 }')
if [ -f "$B/lib/libustack-file.a" ] && [ -z "$forks" ]; then
	pass "libustack-file.a (the KernelShark plugin's reader) imports no fork"
else
	fail "libustack-file.a imports ${forks:-?} (a probe child), or was not built"
fi
# nor the tool: the damaged files below (trunc-data.dat, flip*.dat) are
# opened in its own process, no child first
forks=$(nm --undefined-only "$USTACK" 2>&1 | awk '$2 ~ /^(fork|vfork|clone|_Fork)(@|$)/ { print $2 }')
[ -x "$USTACK" ] && [ -z "$forks" ] && pass "the ustack tool imports no fork (no probe child)" ||
	fail "the ustack tool imports ${forks:-?} (a probe child), or was not built"
if ldd "$USTACK" | grep -q "libtracecmd.so.1 => $TC_PREFIX/lib/libtracecmd.so.1 "; then
	pass "the ustack tool loads the series' libtracecmd ($TC_PREFIX/lib), by rpath"
else
	fail "the ustack tool loads libtracecmd.so.1 $(ldd "$USTACK" | grep -o 'libtracecmd.so.1 => [^ ]*')"
fi

# ---- bad input: message, non-zero exit, no crash ----
bad_input() {
	local name=$1 file=$2 rc
	"${VG[@]}" "$USTACK" "$file" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	# one line, in ustack's name (the library's words, not twice)
	if [ "$rc" = 1 ] && [ "$(wc -l < "$B/$name.err")" = 1 ] &&
	   grep -q '^ustack: ' "$B/$name.err"; then
		pass "bad input: $name -> exit 1: $(head -1 "$B/$name.err")"
	else
		cat "$B/$name.err"
		fail "bad input: $name (exit $rc)"
	fi
}
: >"$T/empty.dat"
head -c 100000 /dev/urandom >"$T/random.dat"
head -c 300 "$T/trigger.dat" >"$T/trunc-head.dat"
head -c 3000 "$T/trigger.dat" >"$T/trunc-formats.dat"
bad_input missing "$T/does-not-exist.dat"
bad_input empty "$T/empty.dat"
bad_input random "$T/random.dat"
bad_input truncated-header "$T/trunc-head.dat"
bad_input truncated-formats "$T/trunc-formats.dat"
bad_input directory "$T"
# Inputs the fuzzer once crashed on (kept as regression tests): a page
# whose length word sends a record past the end of its page, as found
# (record-past-page.dat, with the pre-release records, which are refused
# now before any page is read: test-fixtures.sh checks that) and made
# again with the records of the final series.
for f in "$HERE"/data/regress/*.dat; do
	bad_input "regress-$(basename "$f" .dat)" "$f"
done
grep -q 'corrupt record at offset' "$B/regress-record-past-page-ftrace.err" &&
	pass "bad input: a record past its page is named as corrupt" ||
	fail "bad input: a record past its page: no 'corrupt record' message"
# an unknown format of the user stack events
mkdir -p "$B/badfmt"
cp "$HERE/data/formats/"* "$B/badfmt/"
sed -i 's/frames;/stack;/' "$B/badfmt/ftrace_user_stack_deferred"
python3 "$HERE/mktrace.py" --formats "$B/badfmt" trigger "$T/badfmt.dat" --binary "$W/callchain" --count 1 2>/dev/null ||
	python3 - "$T/trigger.dat" "$T/badfmt.dat" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d.replace(b"unsigned long[] frames;", b"unsigned long[] stack; "))
EOF
bad_input unknown-format "$T/badfmt.dat"
# recorded on a kernel without the feature: no format for the user
# stacks, a warning
python3 - "$T/trigger.dat" "$T/nouserstack.dat" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
assert b"name: user_stack_deferred" in d
open(sys.argv[2], "wb").write(d.replace(b"user_stack_deferred", b"user_stack_xeferred"))
EOF
if run_tool nouserstack 0 "$T/nouserstack.dat" &&
   grep -q "no ftrace:user_stack_deferred format: recorded on a kernel without deferred user stacks" "$B/nouserstack.err" &&
   run_tool nouserstack-q 0 -q "$T/nouserstack.dat" && ! grep -q warning "$B/nouserstack-q.err"; then
	pass "a trace without the user stack formats: a warning that says why (none with -q)"
else
	cat "$B/nouserstack.err"
	fail "a trace without the user stack formats: no warning"
fi
# data truncated in the middle of the CPU pages, and bytes flipped
size=$(stat -c %s "$T/trigger.dat")
head -c $((size - 5000)) "$T/trigger.dat" >"$T/trunc-data.dat"
"${VG[@]}" "$USTACK" "$T/trunc-data.dat" >"$B/trunc-data.out" 2>"$B/trunc-data.err"
rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
	pass "bad input: data cut short -> exit $rc, no crash"
else
	fail "bad input: data cut short (exit $rc)"
fi
python3 - "$T/trigger.dat" "$T" <<'EOF'
import random, sys
d = bytearray(open(sys.argv[1], "rb").read())
r = random.Random(7)
for i in range(20):
    c = bytearray(d)
    for _ in range(8):
        c[r.randrange(len(c))] = r.randrange(256)
    open("%s/flip%02d.dat" % (sys.argv[2], i), "wb").write(c)
EOF
crashed=0
for f in "$T"/flip*.dat; do
	"${VG[@]}" "$USTACK" "$f" >/dev/null 2>&1
	rc=$?
	# 0-3 are answers (3: damage reported); valgrind errors, signals are not
	if [ "$rc" -gt 3 ]; then
		echo "exit $rc on $f"
		crashed=1
	fi
done
[ $crashed = 0 ] && pass "bad input: 20 files with flipped bytes, no crash" ||
	fail "bad input: flipped bytes"

# ---- damage inside the ring-buffer pages is reported, never silent ----
# A recorded fixture made uncompressed, so that its pages can be damaged
# byte by byte; the headers stay intact, so the file opens.  Every damaged
# copy whose output differs from the clean one must say so on stderr.
if trace-cmd convert -i "$FIX/trigger-getppid.dat" -o "$T/unc.dat" --compression none \
	>/dev/null 2>&1 &&
   data=$(trace-cmd dump --flyrecord "$T/unc.dat" 2>/dev/null |
	awk '/data offset and size/ { print $2, $3; exit }') && [ -n "$data" ]; then
	run_tool clean 0 -s "$FIX" "$T/unc.dat"
	[ -n "$(sans_unverified "$B/clean.err")" ] && fail "damage: the clean copy warns: $(cat "$B/clean.err")"
	python3 - "$T/unc.dat" "$T" $data <<'EOF2'
import random, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, size = int(sys.argv[3]), int(sys.argv[4])
for seed in range(12):
    r = random.Random(seed)
    c = bytearray(d)
    for _ in range(12):
        # past the page header (timestamp, commit)
        c[off + 16 + r.randrange(size - 16)] ^= r.randrange(1, 256)
    open("%s/pagedamage%02d.dat" % (sys.argv[2], seed), "wb").write(c)
EOF2
	silent=0 reported=0 changed=0
	for f in "$T"/pagedamage*.dat; do
		"$USTACK" -s "$FIX" "$f" >"$B/pd.out" 2>"$B/pd.err"
		rc=$?
		cmp -s "$B/pd.out" "$B/clean.out" && continue
		changed=$((changed + 1))
		if sans_unverified "$B/pd.err" | grep -q '^ustack: \(warning: the trace looks damaged\|note\): ' &&
		   [ "$(sans_unverified "$B/pd.err" | wc -l)" = 1 ]; then
			reported=$((reported + 1))
		else
			echo "silent damage: $f (exit $rc)"
			silent=$((silent + 1))
		fi
	done
	if [ $silent = 0 ] && [ $changed -ge 6 ]; then
		pass "damage: $changed of 12 damaged copies change the output, each says so in one line"
	else
		fail "damage: $silent silent of $changed changed"
	fi
	# the marks: a frame that cannot be an address is not given a name
	"$USTACK" -s "$FIX" "$T/pagedamage03.dat" >"$B/pd3.out" 2>"$B/pd3.err"
	rc=$?
	if [ $rc = 3 ] && grep -q '^  k 0x[0-9a-f]* \[not an address\]$' "$B/pd3.out" &&
	   grep -q 'implausible kernel frame' "$B/pd3.err"; then
		pass "damage: implausible kernel frame marked [not an address], exit 3"
	else
		cat "$B/pd3.err"
		fail "damage: no mark or exit $rc for an implausible kernel frame"
	fi
	# a user frame too, in text and in folded stacks, and the counts
	# in the summary line agree with --stats
	uf=$(for f in "$T"/pagedamage*.dat; do
		"$USTACK" -s "$FIX" "$f" 2>&1 >/dev/null |
			grep -q 'implausible user frame' && echo "$f" && break
	done)
	if [ -n "$uf" ] &&
	   "$USTACK" -s "$FIX" "$uf" >"$B/pdu.out" 2>"$B/pdu.err"; [ $? = 3 ] &&
	   grep -q '^  u 0x[0-9a-f]* \[not an address\]$' "$B/pdu.out" &&
	   "$USTACK" --folded -s "$FIX" "$uf" 2>/dev/null | grep -q ';0x[0-9a-f]*_\[not_an_address\][; ]' &&
	   n=$(sed -n 's/.* \([0-9]*\) implausible user frames\{0,1\}[,( ].*/\1/p' "$B/pdu.err") &&
	   "$USTACK" --stats -q -s "$FIX" "$uf" 2>&1 >/dev/null | grep -q "user frames $n, "; then
		pass "damage: implausible user frame marked in text and folded output ($n, as --stats)"
	else
		cat "$B/pdu.err" 2>/dev/null
		fail "damage: implausible user frame not marked (${uf:-no damaged copy has one})"
	fi
	"$USTACK" -q -s "$FIX" "$T/pagedamage03.dat" >/dev/null 2>"$B/pd3q.err"
	[ $? = 3 ] && [ ! -s "$B/pd3q.err" ] && pass "damage: -q keeps stderr quiet, exit still 3" ||
		fail "damage: -q"
else
	fail "damage: cannot make an uncompressed copy of a fixture"
fi

# ---- exit codes and messages ----
"$USTACK" -s "$FIX" "$FIX/trigger-getppid.dat" >/dev/full 2>"$B/full.err"
rc=$?
if [ $rc = 1 ] && grep -qx 'ustack: write error: No space left on device' "$B/full.err" &&
   [ "$(sans_unverified "$B/full.err" | wc -l)" = 1 ]; then
	pass "ustack > /dev/full: one write error line, exit 1"
else
	cat "$B/full.err"
	fail "ustack > /dev/full: exit $rc"
fi
"$USTACK" --folded -s "$FIX" "$FIX/trigger-getppid.dat" >/dev/full 2>/dev/null
[ $? = 1 ] && pass "ustack --folded > /dev/full: exit 1" || fail "ustack --folded > /dev/full"
"$USTACK" --summary -s "$FIX" "$FIX/trigger-getppid.dat" >/dev/full 2>/dev/null
[ $? = 1 ] && pass "ustack --summary > /dev/full: exit 1" || fail "ustack --summary > /dev/full"
ver=$(sed -n 's/^VERSION[[:space:]]*=[[:space:]]*//p' "$LIB/Makefile")
[ "$("$USTACK" --version)" = "ustack (libustack) $ver" ] && [ "$("$USTACK" -V)" = "ustack (libustack) $ver" ] &&
	pass "ustack --version: $ver" || fail "ustack --version"
"$USTACK" --version >/dev/full 2>/dev/null && fail "ustack --version > /dev/full exits 0" ||
	pass "ustack --version > /dev/full: non-zero"
"$USTACK" -h | grep -q -- '--version' && pass "ustack -h lists --version" || fail "ustack -h"
# libtracecmd's own words stay hidden unless -v
for f in "$T"/flip*.dat "$T/trunc-formats.dat"; do
	"$USTACK" "$f" >/dev/null 2>>"$B/libmsgs.err"
done
if grep -v '^ustack: ' "$B/libmsgs.err" >"$B/libmsgs.other"; then
	head -5 "$B/libmsgs.other"
	fail "messages not from ustack reach the user ($(wc -l < "$B/libmsgs.other") lines)"
else
	pass "only ustack's own messages on stderr (libtracecmd's are hidden without -v)"
fi
run_tool usage 1 --no-such-option && pass "bad usage -> exit 1" || true
run_tool nofile-live 1 -i x "$T/trigger.dat" && pass "bad usage: -i with FILE -> exit 1" || true

# ---- recorded fixtures (from the booted kernel) ----
if ls "$FIX"/*.dat >/dev/null 2>&1; then
	"$HERE/test-fixtures.sh" "$USTACK" "$FIX" "$B" >"$B/fixtures.out" 2>&1
	count "$B/fixtures.out" $? test-fixtures
	# recorded on the series as it is now (tests/fixtures/README.md)
	mkdir -p "$B/current"
	"$HERE/test-fixtures.sh" "$USTACK" "$FIX/current" "$B/current" >"$B/fixtures-current.out" 2>&1
	count "$B/fixtures-current.out" $? test-fixtures-current
else
	skip "recorded fixtures: $FIX has no *.dat yet"
fi

# ---- choosing events, folded stacks by event, --inline, --summary,
# against stock trace-cmd report and addr2line (issue 20 item 9) ----
"$HERE/test-select.sh" "$USTACK" "$FIX" "$B" "$W/callchain" >"$B/select.out" 2>&1
count "$B/select.out" $? test-select

# ---- analyses: flame-graph conventions, call tree, weights, JSON (issue 39) ----
"$HERE/test-analysis.sh" "$USTACK" "$FIX" "$B" "$W/callchain" >"$B/analysis.out" 2>&1
count "$B/analysis.out" $? test-analysis
SKIP=$((SKIP + $(grep -c '^SKIP:' "$B/analysis.out")))

# ---- documentation, samples, install ----
if "$HERE/check-man.sh" "$LIB" >"$B/man.out" 2>&1; then
	pass "every public function has a man page ($(tail -1 "$B/man.out"))"
else
	cat "$B/man.out"
	fail "man page check"
fi
# every relative link of the Markdown files resolves (file, and heading)
mkdir -p "$B/links-bad/sub"
printf '# Top\n[ok](sub/b.md#b-head) [gone](missing.md) [x](sub/b.md#nope)\n`[code](none.md)`\n' >"$B/links-bad/a.md"
printf '## B head\n[up](../a.md#top)\n' >"$B/links-bad/sub/b.md"
if "$HERE/check-links.sh" "$B/links-bad" >"$B/links-bad.out" 2>&1; then
	fail "the link check passes a broken link"
elif [ "$(grep -c . "$B/links-bad.out")" = 2 ] &&
	grep -q '^./a.md:2: missing.md (no such file)$' "$B/links-bad.out" &&
	grep -q '^./a.md:2: sub/b.md#nope (no heading #nope)$' "$B/links-bad.out"; then
	pass "the link check finds a missing file and a missing heading, and nothing else"
else
	cat "$B/links-bad.out"
	fail "the link check on broken links"
fi
if "$HERE/check-links.sh" "$REPO" >"$B/links.out" 2>&1; then
	pass "every relative link of the Markdown files resolves"
else
	cat "$B/links.out"
	fail "documentation links: $(grep -c . "$B/links.out") broken"
fi
if make -s -C "$LIB" OUT="$B/lib" doc >"$B/doc.log" 2>&1 && [ -f "$B/lib/man/ustack_join_alloc.3" ] && [ -f "$B/lib/man/ustack.1" ]; then
	pass "man pages build ($(ls "$B/lib/man/"*.[13] | wc -l) pages)"
else
	tail -20 "$B/doc.log"
	fail "man pages build"
fi
# the man pages' EXAMPLE programs: each compiles and links (one line a page)
"$HERE/check-examples.sh" "$LIB" "$B/lib/libustack.a" "$B/examples" >"$B/examples.out" 2>&1
count "$B/examples.out" $? check-examples
# a host's own read loop (libtracecmd) feeding the join: each event's
# kernel frames named from the file's kallsyms, its user frames after
if "${VG[@]}" "$B/examples/ustack_print" "$T/trigger.dat" >"$B/sample.out" 2>&1 &&
   [ "$(grep -c '^ <user stack>' "$B/sample.out")" -ge 6 ] &&
   grep -q '^ => [a-z_]*+0x[0-9a-f]* (' "$B/sample.out"; then
	pass "ustack_print(3)'s example joins a trace fed by its own loop"
else
	cat "$B/sample.out"
	fail "ustack_print(3)'s example"
fi
# a viewer's records given in any order (ustack_view(3)): one block per
# user_stack_cookie record that stock trace-cmd report shows, the tree
n=$(trace-cmd report "$T/trigger.dat" 2>/dev/null | grep -c 'user_stack_cookie:')
if "${VG[@]}" "$B/examples/ustack_view" "$T/trigger.dat" >"$B/sample-view.out" 2>&1 &&
   [ "$n" -gt 0 ] && [ "$(grep -c '^(event not seen) pid=[0-9]* cpu=[0-9]* cookie=0x' "$B/sample-view.out")" = "$n" ] &&
   grep -q '^# Children' "$B/sample-view.out"; then
	pass "ustack_view(3)'s example: a block for each of the $n cookie records, and the tree"
else
	cat "$B/sample-view.out"
	fail "ustack_view(3)'s example ($n cookie records)"
fi
if "${VG[@]}" "$B/examples/ustack_syms_resolve" >"$B/sample-syms.out" 2>&1 &&
   grep -q '^main+0x0 in .*/ustack_syms_resolve ' "$B/sample-syms.out"; then
	pass "ustack_syms_resolve(3)'s example names its own main()"
else
	cat "$B/sample-syms.out"
	fail "ustack_syms_resolve(3)'s example"
fi
if make -s -C "$LIB" OUT="$B/lib" samples >"$B/samples.log" 2>&1 &&
   [ -x "$B/lib/samples/ustack_join" ] && [ -x "$B/lib/samples/libustack" ]; then
	pass "make samples: the EXAMPLE programs, extracted and built"
else
	tail -5 "$B/samples.log"
	fail "make samples"
fi
D=$B/destdir
P=$D/usr/local
if make -s -C "$LIB" OUT="$B/lib" PREFIX="$P" install >"$B/install.log" 2>&1 &&
   PKG_CONFIG_PATH=$P/lib/pkgconfig gcc -Wall -Werror -o "$B/sample-installed" \
	"$B/examples/ustack_live.c" \
	$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs libustack) \
	-Wl,-rpath,"$P/lib" && [ -f "$P/share/man/man3/ustack_join_alloc.3" ] &&
   [ -f "$P/share/man/man1/ustack.1" ] && [ -x "$P/bin/ustack" ] &&
   { "$B/sample-installed"; [ $? = 1 ]; } 2>/dev/null; then
	pass "make install; a sample builds against the installed pkg-config file"
else
	tail -20 "$B/install.log"
	fail "make install / pkg-config"
fi

# ---- fuzzing the trace.dat reading and join path ----
if "$HERE/fuzz/run-fuzz.sh" "$B" "$T" "$FUZZ_TIME" >"$B/fuzz.out" 2>&1; then
	pass "fuzz: $(tail -1 "$B/fuzz.out")"
else
	tail -30 "$B/fuzz.out"
	fail "fuzz"
fi

finish
