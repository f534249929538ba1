#!/bin/bash
# The trace-cmd 3.4 that rig/build-tracecmd.sh builds, checked on the host
# (no VM; record can only be proved in a guest).  Ends with
# "N passed, N failed".  Run by tests/rig/run.sh.
#
#   tests/rig/tracecmd.sh
#
#  - it builds (a no-op when built) and says "version 3.4.0";
#  - it takes libtraceevent (and libtracecmd, if not linked in) from its
#    prefix, not bookworm's (same sonames); no shared object exports a
#    compat stub;
#  - stock 3.4 (rig/build-tracecmd.sh --stock): `report` on every
#    tests/fixtures/*.dat (recorded by bookworm's trace-cmd 3.1.6) prints
#    what /usr/bin/trace-cmd report prints, with and without our
#    libtraceevent plugin.  Two differences are removed before
#    comparing: since 3.2 report shows the latency flags column
#    (". . . . ." after "[CPU]") by default, 3.1.6 only with -l (whose
#    layout is different again); libtraceevent 1.8 prints arrays of
#    unsigned longs in hex;
#  - the series' `report` (stacks under each event): the same events as
#    stock 3.4 with the stack records hidden; --stack-records shows them;
#    --symdir and the trace file's directory find the binaries, and with
#    their debug info the source line of each frame (the line of the
#    call, as addr2line gives it for the return address - 1); -F and
#    --cpu keep each shown event's stacks; the two instances of a -B
#    recording each get theirs; damaged files give an error or the
#    records before the damage, never a crash (the ASan build of the
#    series, rig/build-tracecmd.sh --asan);
#  - libustack's ustack built against the series' libtracecmd reads
#    the saved build IDs (a wrong build is marked), with no child (nor
#    its reader); against bookworm's libtracecmd its build
#    stops with one message (the library alone builds);
#  - the damaged files that crashed the libraries' open (formats whose
#    __print_flags()/__print_symbolic() name a missing field, data cut
#    short): report and ustack give the records or an error, no signal;
#  - `list -o` gives the stock list (when tracefs is readable);
#  - each patch of trace-cmd/patches/series applies, in order, to a copy
#    of pristine 3.4 (git apply --check, then apply), and the build above
#    is of that series (its usage text has what the series adds).
. "$(dirname "$0")/lib.sh"

need_pkgs trace-cmd
old=/usr/bin/trace-cmd

# The series, each patch checked against pristine 3.4 plus the ones before
pdir=$REPO/trace-cmd/patches
if [ -f "$pdir/series" ]; then
	# sed -n 1p, not head -1: head may exit before the script writes its
	# second line, and with pipefail the SIGPIPE failed this test
	if src=$("$REPO/rig/fetch-tracecmd.sh" 2>"$T/fetch.log" | sed -n 1p) && [ -d "$src" ]; then
		cp -a "$src" "$T/series-tree"
		ok=1 n=0
		while read -r p _; do
			case $p in ''|'#'*) continue ;; esac
			n=$((n + 1))
			if ! git -C "$T/series-tree" apply --check "$pdir/$p" > "$T/apply.log" 2>&1; then
				fail tracecmd-series-applies "$p: $(head -3 "$T/apply.log" | tr '\n' ' ')"
				ok=0
				break
			fi
			git -C "$T/series-tree" apply "$pdir/$p"
		done < "$pdir/series"
		[ $ok = 1 ] && [ $n -gt 0 ] && pass tracecmd-series-applies
		[ $ok = 1 ] && [ $n = 0 ] && fail tracecmd-series-applies "trace-cmd/patches/series names no patch"
		rm -rf "$T/series-tree"
	else
		tail -5 "$T/fetch.log"
		fail tracecmd-series-applies "rig/fetch-tracecmd.sh failed"
	fi
fi
if tc=$("$REPO/rig/build-tracecmd.sh" 2>"$T/build.log") && [ -x "$tc" ]; then
	pass tracecmd-build
else
	tail -20 "$T/build.log"
	# the first error in the summary too: test-all shows FAIL lines only
	fail tracecmd-build "rig/build-tracecmd.sh failed: $(grep -m1 -iE 'error|die|cannot' "$T/build.log" | cut -c1-200)"
	finish
fi
prefix=$(cd "$(dirname "$tc")/.." && pwd)
# libtraceevent's objects compiled once each (build-tracecmd.sh: -j1);
# two sub-makes compiling them at once made a racy link.  $D/build.log of
# the series' build and of the stock one (checked below, once built).
tep_compiled_once() { # tep_compiled_once NAME BUILD_LOG
	local twice
	twice=$(awk '$1 == "COMPILE" && $2 == "FPIC" { n[$3]++ }
		END { for (o in n) if (n[o] > 1) printf "%s ", o }' "$2")
	if [ ! -s "$2" ]; then
		fail "$1" "no build log $2"
	elif [ -n "$twice" ]; then
		fail "$1" "libtraceevent objects compiled twice at once: $twice($2)"
	else
		pass "$1"
	fi
}
tep_compiled_once tracecmd-tep-serial "$(dirname "$prefix")/build.log"
if stock=$("$REPO/rig/build-tracecmd.sh" --stock 2>"$T/build.log") && [ -x "$stock" ]; then
	pass tracecmd-stock-build
	tep_compiled_once tracecmd-stock-tep-serial \
		"$(dirname "$(dirname "$(dirname "$stock")")")/build.log"
else
	tail -20 "$T/build.log"
	fail tracecmd-stock-build "rig/build-tracecmd.sh --stock failed: $(grep -m1 -iE 'error|die|cannot' "$T/build.log" | cut -c1-200)"
	finish
fi

v=$("$tc" --version 2>&1 | awk '/ version / { print; exit }')
[[ $v == "trace-cmd version 3.4.0 "* ]] && pass tracecmd-version ||
	fail tracecmd-version "got '$v'"
# The binary is the series' build: patch 0001 changes the usage of -T
if [ -f "$pdir/series" ]; then
	"$tc" record -h > "$T/usage" 2>&1
	grep -q -- '-T do a stacktrace on all events (with the user stack' "$T/usage" &&
		pass tracecmd-series-built ||
		fail tracecmd-series-built "record -h does not show the series' -T text"
fi

ldd "$tc" > "$T/ldd" 2>&1
# libtracecmd is linked in statically (trace-cmd's Makefile); if it is
# ever needed as a shared object, it must be ours too.
if grep -q "libtraceevent.so.1 => $prefix/lib/" "$T/ldd" &&
   ! grep "libtracecmd.so" "$T/ldd" | grep -qv "=> $prefix/lib/" &&
   ! grep -q 'not found' "$T/ldd"; then
	pass tracecmd-libs-from-prefix
else
	fail tracecmd-libs-from-prefix "$(tr '\n' ' ' < "$T/ldd")"
fi
stubs='^(tracefs_instance_reset|tracefs_instance_[gs]et_subbuf_size|tep_load_btf|tep_btf_list_args|tep_btf_print_args|tep_load_modules|tep_parse_last_boot_info)$'
exported=$(for f in "$tc" "$prefix"/lib/*.so.*; do
	nm -D --defined-only "$f" 2>/dev/null | awk '{ print $3 }'
done | grep -E "$stubs" | sort -u)
[ -z "$exported" ] && pass tracecmd-compat-not-exported ||
	fail tracecmd-compat-not-exported "$(echo $exported)"

# libustack's ustack against the series' libtracecmd ($prefix/bin/ustack,
# rig/build-tracecmd.sh): the saved maps through the public API of patch
# 0007, so build IDs are checked.
# The traces are mktrace.py's, with the build ID trace-cmd record -T
# (patch 0005) saves after the binary's maps.  The tool needs that API
# (issue 38: no copy of libtracecmd's private layout): against
# bookworm's libtracecmd 3.1.6 make stops, with one message that says
# what to build; the library, which links no libtracecmd, builds.
need_pkgs strace binutils
env -u PKG_CONFIG_PATH make -s -C "$REPO/libustack" OUT="$T/ext-bookworm" all > "$T/ext.log" 2>&1
rc=$?
if [ $rc != 0 ] && [ "$(grep -c "needs the series' libtracecmd" "$T/ext.log")" = 1 ] &&
   grep -q "needs the series' libtracecmd .*lacks tracecmd_proc_addr_map_build_id .*rig/build-tracecmd.sh .*PKG_CONFIG_PATH=" "$T/ext.log" &&
   [ ! -e "$T/ext-bookworm/ustack" ] &&
   env -u PKG_CONFIG_PATH make -s -C "$REPO/libustack" OUT="$T/ext-bookworm" lib > "$T/lib.log" 2>&1 &&
   [ -f "$T/ext-bookworm/libustack.so.1" ]; then
	pass tracecmd-ustack-bookworm-stops
else
	fail tracecmd-ustack-bookworm-stops "make all exited $rc: $(grep -m2 -e '\*\*\*' -e error "$T/ext.log" "$T/lib.log" 2>/dev/null | cut -c1-300)"
fi
useries=$prefix/bin/ustack
mkdir -p "$T/bid"
cp "$REPO/tests/fixtures/callchain" "$T/bid/callchain"
bid=$(readelf -n "$T/bid/callchain" | awk '/Build ID:/ { print $3 }')
mk() { python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$T/bid/callchain" --count 2 --build-id "$1" trigger "$2"; }
mk "$bid" "$T/bid/right.dat" && mk 0123456789abcdef0123456789abcdef01234567 "$T/bid/other.dat" ||
	fail tracecmd-ustack-build-id "mktrace.py failed"
"$useries" -q "$T/bid/right.dat" > "$T/bid/right.out" 2>&1
"$useries" -q "$T/bid/other.dat" > "$T/bid/other.out" 2>&1
if [ -n "$bid" ] && grep -q '^  u work_inner+0x[0-9a-f]* (.*/bid/callchain)$' "$T/bid/right.out" &&
   grep -q '^  u .*/bid/callchain+0x[0-9a-f]* (0x[0-9a-f]*) \[build-id mismatch\]$' "$T/bid/other.out" &&
   ! grep -q 'work_inner' "$T/bid/other.out"; then
	pass tracecmd-ustack-build-id
else
	fail tracecmd-ustack-build-id "build ID $bid: right: $(grep -m1 '^  u ' "$T/bid/right.out"); other: $(grep -m1 '^  u ' "$T/bid/other.out")"
fi
forks() { strace -f -qq -e trace=clone,clone3,fork,vfork -o "$T/strace" "$@" > /dev/null 2>&1
	grep -c -E '^[0-9]+ +(clone|clone3|fork|vfork)\(' "$T/strace"; }
# the tool and the reader the KernelShark plugin links (libustack-file.a,
# built with the series beside $prefix) make no child: the libraries no
# longer crash on the damaged files below, so nothing opens a file in a
# child first
nseries=$(forks "$useries" -q "$T/bid/right.dat")
rfork=$(nm --undefined-only "$(dirname "$prefix")/ext/libustack-file.a" 2>&1 | awk '$2 ~ /^(fork|vfork|clone)$/')
[ "$nseries" = 0 ] && [ -z "$rfork" ] && [ -f "$(dirname "$prefix")/ext/libustack-file.a" ] &&
	pass tracecmd-ustack-reader-no-probe ||
	fail tracecmd-ustack-reader-no-probe "the tool made $nseries processes; libustack-file.a imports: ${rfork:-nothing, or is missing}"

# Damaged files that crashed libtraceevent's or libtracecmd's open, in
# every trace-cmd (the lib suite's flip00.dat, flip06.dat, trunc-data.dat):
#  - a print fmt whose __print_flags() (flip00, flip06: one flipped byte
#    of sched_switch's "prev_state") or __print_symbolic() names a field
#    its format lacks (libtraceevent/patches/0001): the records, the
#    event printed without the field (-N: by its print fmt, not the
#    sched_switch plugin);
#  - a trace cut 5000 bytes short, in its CPU data, as the lib suite cuts
#    it (trace-cmd/patches/0022, tracecmd_close() after the failed open):
#    an error, a message, a non-zero exit.
# Never a signal; the tool makes no child.
G=$T/dmgopen
mkdir -p "$G"
for v in flags symbolic; do cp -r "$REPO/tests/userspace/lib/data/formats" "$G/fmt-$v"; done
sed -i 's/__print_flags(REC->prev_state/__print_flags(REC->prev_stXte/' "$G/fmt-flags/sched_sched_switch"
sed -i 's/__print_flags(REC->prev_state/__print_symbolic(REC->prev_stXte/; s/, "|", {/, {/' \
	"$G/fmt-symbolic/sched_sched_switch"
mkg() { python3 "$REPO/tests/userspace/lib/mktrace.py" --binary "$T/bid/callchain" "$@"; }
made=0
if grep -q '__print_flags(REC->prev_stXte & ' "$G/fmt-flags/sched_sched_switch" &&
   grep -q '__print_symbolic(REC->prev_stXte & ' "$G/fmt-symbolic/sched_sched_switch" &&
   ! grep -q '"|"' "$G/fmt-symbolic/sched_sched_switch" &&
   mkg --formats "$G/fmt-flags" --count 3 option "$G/flags.dat" &&
   mkg --formats "$G/fmt-symbolic" --count 3 option "$G/symbolic.dat" &&
   mkg --formats "$REPO/tests/userspace/lib/data/formats" --count 6 trigger "$G/whole.dat"; then
	head -c $(($(stat -c %s "$G/whole.dat") - 5000)) "$G/whole.dat" > "$G/cut.dat" && made=1
fi
bad= badu= child=
[ $made = 1 ] || bad=" the damaged formats or mktrace.py failed" badu=$bad child=$bad
for f in flags symbolic cut; do
	[ $made = 1 ] || break
	for o in "" -N; do
		"$tc" report $o -i "$G/$f.dat" > "$G/out" 2> "$G/err"
		rc=$?
		sw=$(grep -c ': sched_switch: .*callchain' "$G/out")
		if [ $rc -gt 125 ]; then
			bad+=" $f $o: exit $rc;"
		elif [ $f = cut ]; then
			[ $rc != 0 ] && grep -q 'failed to init data' "$G/err" ||
				bad+=" $f $o: exit $rc, $(head -1 "$G/err");"
		elif [ $rc != 0 ] || [ "$sw" = 0 ]; then
			bad+=" $f $o: exit $rc, $sw sched_switch shown;"
		fi
	done
	"$useries" "$G/$f.dat" > "$G/out" 2> "$G/err"
	rc=$?
	if [ $rc -gt 125 ]; then
		badu+=" $f: exit $rc;"
	elif [ $f = cut ]; then
		[ $rc = 1 ] && grep -q "^ustack: .*cut.dat: not a readable trace.dat file" "$G/err" ||
			badu+=" $f: exit $rc, $(head -1 "$G/err");"
	elif [ $rc != 0 ] || ! [ -s "$G/out" ]; then
		badu+=" $f: exit $rc, $(head -1 "$G/err");"
	fi
	n=$(forks "$useries" "$G/$f.dat")
	[ "$n" = 0 ] || child+=" $f: $n"
done
[ -z "$bad" ] && pass tracecmd-report-damaged-open ||
	fail tracecmd-report-damaged-open "$bad"
[ -z "$badu" ] && pass tracecmd-ustack-damaged-open ||
	fail tracecmd-ustack-damaged-open "$badu"
[ -z "$child" ] && pass tracecmd-ustack-damaged-no-child ||
	fail tracecmd-ustack-damaged-no-child "processes made:$child"

# Archives (issue 39 item 5): ustack --archive copies the binaries a
# trace's frames are in, by the build ID the maps saved, in the layout of
# perf's build-ID cache, into .debug beside the trace; every reader looks
# in the archives in its search directories and in the trace's directory,
# and in $HOME/.debug.
# Oracles: perf (its buildid-cache -l reads our archive; its buildid-cache
# -a writes the cache ustack then reads), cmp, readelf -n.  The traces
# names /gone/callchain, a path no machine has: without an archive its
# frames are addresses.  Those reads get an empty HOME: the host's own
# ~/.debug (perf's cache) may hold the test binary.
need_pkgs linux-perf
A=$T/arch
mkdir -p "$A/rec" "$A/moved" "$A/bare" "$A/home" "$A/evil" "$A/nobid" "$A/nohome"
mka() { python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$T/bid/callchain" --count 2 --binname "$@"; }
mka /gone/callchain --build-id "$bid" trigger "$A/rec/t.dat" &&
mka /x/../../evil/callchain --build-id "$bid" trigger "$A/evil/t.dat" &&
mka /gone/callchain trigger "$A/nobid/t.dat" &&
mka /gone/callchain --build-id 0123456789abcdef0123456789abcdef01234567 trigger "$A/rec/other.dat" ||
	fail tracecmd-ustack-archive "mktrace.py failed"
cp "$A/rec/t.dat" "$A/bare/t.dat"
cp "$T/bid/callchain" "$A/rec/callchain"	# found beside the trace
cp "$T/bid/callchain" "$A/evil/callchain"
cp "$T/bid/callchain" "$A/nobid/callchain"
HOME=$A/nohome "$useries" -q "$A/rec/t.dat" > "$A/named.out" 2>&1
HOME=$A/nohome "$useries" -q "$A/bare/t.dat" > "$A/bare.out" 2>&1
"$useries" --archive "$A/rec/t.dat" > "$A/add.out" 2> "$A/add.err"; rc_add=$?
"$useries" --archive "$A/rec/t.dat" > "$A/again.out" 2> "$A/again.err"; rc_again=$?
# perf lists a cache entry whose file is still at its path with that build
"$useries" --archive="$A/right" "$T/bid/right.dat" > "$A/right.out" 2>&1
perf --buildid-dir "$A/right" buildid-cache -l > "$A/perf-list.out" 2>&1
entry=$A/rec/.debug/gone/callchain/$bid
if [ "$rc_add" = 0 ] && [ "$(cat "$A/add.out")" = "$bid /gone/callchain added" ] &&
   [ "$rc_again" = 0 ] && [ "$(cat "$A/again.out")" = "$bid /gone/callchain present" ] &&
   cmp -s "$entry/elf" "$T/bid/callchain" &&
   [ "$(readelf -n "$entry/elf" | awk '/Build ID:/ { print $3 }')" = "$bid" ] &&
   grep -qx "$bid $T/bid/callchain" "$A/perf-list.out"; then
	pass tracecmd-ustack-archive
else
	fail tracecmd-ustack-archive "exit $rc_add/$rc_again: $(head -2 "$A/add.out" "$A/add.err" "$A/again.out" | tr '\n' ' '); perf -l: $(head -2 "$A/perf-list.out" | tr '\n' ' ')"
fi
# read elsewhere: the trace and its archive without the binary name every
# frame as the binary did; the trace alone names none
cp "$A/rec/t.dat" "$A/moved/" && cp -a "$A/rec/.debug" "$A/moved/"
HOME=$A/nohome "$useries" -q "$A/moved/t.dat" > "$A/moved.out" 2>&1
# the series' report reads it through the same lookup
HOME=$A/nohome "$tc" report "$A/moved/t.dat" > "$A/moved.rep" 2>&1
HOME=$A/nohome "$tc" report "$A/bare/t.dat" > "$A/bare.rep" 2>&1
nn=$(grep -c '^  u work_inner+0x' "$A/named.out")
if [ "$nn" -ge 2 ] && diff -q "$A/named.out" "$A/moved.out" > /dev/null &&
   ! grep -q '^  u work_inner' "$A/bare.out" && grep -q '^  u /gone/callchain+0x' "$A/bare.out" &&
   [ "$(grep -c '=> work_inner+0x' "$A/moved.rep")" = "$nn" ] && ! grep -q '=> work_inner' "$A/bare.rep"; then
	pass tracecmd-ustack-archive-read-elsewhere
else
	fail tracecmd-ustack-archive-read-elsewhere "named with the binary: $nn; moved: $(grep -m1 '^  u ' "$A/moved.out"), report $(grep -c '=> work_inner+0x' "$A/moved.rep"); bare: $(grep -m1 '^  u ' "$A/bare.out")"
fi
# perf's own cache ($HOME/.debug, written by perf buildid-cache -a) names
# the frames of the bare trace
HOME=$A/home perf buildid-cache -a "$T/bid/callchain" > "$A/perf-add.out" 2>&1
HOME=$A/home "$useries" -q "$A/bare/t.dat" > "$A/perfcache.out" 2>&1
if [ -e "$A/home/.debug/.build-id/${bid:0:2}/${bid:2}" ] &&
   diff -q "$A/named.out" "$A/perfcache.out" > /dev/null; then
	pass tracecmd-ustack-archive-perf-cache
else
	fail tracecmd-ustack-archive-perf-cache "perf: $(head -1 "$A/perf-add.out"); ustack: $(grep -m1 '^  u ' "$A/perfcache.out")"
fi
# what cannot be archived is said, exit 2, nothing written for it: a wrong
# build recorded, no build ID recorded; a name with .. stays inside
"$useries" --archive="$A/out-other" "$A/rec/other.dat" > "$A/other.out" 2>&1; rc_other=$?
"$useries" --archive="$A/out-nobid" "$A/nobid/t.dat" > "$A/nobid.out" 2>&1; rc_nobid=$?
"$useries" --archive="$A/out-evil" "$A/evil/t.dat" > "$A/evil.out" 2>&1; rc_evil=$?
if [ "$rc_other" = 2 ] && grep -qx '0123456789abcdef0123456789abcdef01234567 /gone/callchain not archived: no file of this build found' "$A/other.out" &&
   [ -z "$(find "$A/out-other" -type f)" ] &&
   [ "$rc_nobid" = 2 ] && grep -qx -- '- /gone/callchain not archived: no build ID recorded' "$A/nobid.out" &&
   [ -z "$(find "$A/out-nobid" -type f)" ] &&
   [ "$rc_evil" = 0 ] && cmp -s "$A/out-evil/[unnamed]/$bid/elf" "$T/bid/callchain" &&
   [ "$(find "$A/out-evil" -type f | wc -l)" = 1 ] && [ ! -e "$T/evil" ] && [ ! -e "$A/evil/evil" ]; then
	pass tracecmd-ustack-archive-refusals
else
	fail tracecmd-ustack-archive-refusals "wrong build: exit $rc_other $(head -1 "$A/other.out"); no build ID: exit $rc_nobid $(head -1 "$A/nobid.out"); ..: exit $rc_evil $(find "$A/out-evil" -type f | head -3 | tr '\n' ' ')"
fi

# Nothing paid when there is nothing to join (issue 38): a trace from a
# kernel with the series recorded without deferred stacks (the stack
# records' formats, no such record: mktrace.py nostacks; kstack and the
# nodefer/ recordings, with ftrace:kernel_stack records) is opened by the
# series' report as often as by stock 3.4 (once), and printed the same.
# Before: 3 opens (a look-ahead handle and a pass for the execs); then,
# with a first version of trace-cmd 0002's lazy look-ahead, 2 for a trace
# with kernel_stack records (each one opened the look-ahead:
# nodefer/*.dat, kstack.dat).  A trace with stack
# records is opened twice, the look-ahead's first pass building the index
# too (stuck-threads.dat: 3 when the index opened the file again), and
# a kernel_stack record followed by a cookie (the stacktrace option with
# a stacktrace:defer trigger) opens the look-ahead in time for its event.
mkdir -p "$T/opens"
opens() { strace -f -qq -e trace=openat,open -o "$T/opens/strace" "$@" > /dev/null 2>&1
	grep -c "$(basename "${@: -1}")\"" "$T/opens/strace"; }
mkop() { python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$REPO/tests/fixtures/callchain" "$@"; }
if mkop nostacks "$T/opens/nostacks.dat" && mkop kstack "$T/opens/kstack.dat" &&
   mkop kstack-then-cookie "$T/opens/kc.dat"; then
	bad=
	for f in "$T/opens/nostacks.dat" "$T/opens/kstack.dat" "$REPO"/tests/fixtures/nodefer/*.dat; do
		oseries=$(opens "$tc" report "$f")
		ostock=$(opens "$stock" report "$f")
		[ "$oseries" = "$ostock" ] && [ "$ostock" = 1 ] &&
			cmp -s <("$tc" report "$f" 2>&1) <("$stock" report "$f" 2>&1) ||
			bad="$bad $(basename "$f"): series $oseries, stock $ostock;"
	done
	ostuck=$(opens "$tc" report "$REPO/tests/fixtures/readers/stuck-threads.dat")
	[ "$ostuck" = 2 ] || bad="$bad stuck-threads.dat: $ostuck opens, want 2;"
	okc=$(opens "$tc" report "$T/opens/kc.dat")
	nkc=$("$tc" report "$T/opens/kc.dat" 2>/dev/null | grep -c '^ <user stack>$')
	[ "$okc" = 2 ] && [ "$nkc" -gt 0 ] || bad="$bad kstack-then-cookie: $okc opens, $nkc user stacks;"
	if [ -z "$bad" ]; then
		pass tracecmd-report-opens-once
	else
		fail tracecmd-report-opens-once "opens:$bad"
	fi
else
	fail tracecmd-report-opens-once "mktrace.py failed"
fi
# Stack records of formats libustack does not know (mktrace.py
# badformat: fields renamed): report says it cannot read ahead, shows
# them as records and exits 0.  Before: SIGFPE (status 136) at the first
# event after the look-ahead failed (a first version of trace-cmd 0002's
# lazy look-ahead asked the failed one for stacks).
if mkop badformat "$T/opens/badformat.dat"; then
	"$tc" report "$T/opens/badformat.dat" > "$T/opens/bf.out" 2> "$T/opens/bf.err"
	rc=$?
	if [ $rc = 0 ] && grep -q 'cannot read ahead for user stacks: shown as records' "$T/opens/bf.err" &&
	   grep -q 'user_stack_deferred:' "$T/opens/bf.out"; then
		pass tracecmd-report-unknown-formats
	else
		fail tracecmd-report-unknown-formats "exit $rc: $(tr '\n' ' ' < "$T/opens/bf.err" | cut -c1-200)"
	fi
else
	fail tracecmd-report-unknown-formats "mktrace.py failed"
fi

# Maps across an exec (issue 20 item 10, series 0012-0014): mktrace.py's
# exec traces, a process running the workload, an exec, the workload
# again 0x3000 lower (ASLR), with the maps record -T saves (the old
# image's with execs=1) or the new image's only.  The series' report and
# ustack name every frame before the exec in the old image's maps; with
# its maps not saved, they mark it [before exec] (before: named, or
# offsets, in the new image); with the same addresses in both images
# report's text cache (libustack's print cache) still tells them apart; trace-cmd 3.1.6 and stock
# 3.4 still read the file (they see the last maps).
mkdir -p "$T/exec"
mkx() { python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$REPO/tests/fixtures/callchain-pie" --count 3 exec "$@"; }
mkx "$T/exec/both.dat" && mkx "$T/exec/last.dat" --no-old-maps &&
mkx "$T/exec/same.dat" --no-old-maps --exec-shift 0 &&
mkx "$T/exec/sysexit.dat" --no-old-maps --exec-event sys_exit_execve ||
	fail tracecmd-exec-maps "mktrace.py failed"
W_CHAIN="work_inner work_middle work_outer main"
# the names of the user frames of each event (report's layout), one line each
report_chains() { awk '/^ *[^ <=]/ { if (c != "") print c; c = ""; u = 0; next }
	/^ <user stack>/ { u = 1; next } /^ <kernel stack>/ { u = 0; next }
	u && /^ => / { split($2, a, "+"); c = c (c == "" ? "" : " ") a[1] (/\[before exec\]/ ? "[before-exec]" : "") }
	END { if (c != "") print c }' "$1"; }
ustack_chains() { awk '/^[^ ]/ { if (c != "") print c; c = ""; next }
	/^  u / { split($2, a, "+"); c = c (c == "" ? "" : " ") a[1] (/\[before exec\]/ ? "[before-exec]" : "") }
	END { if (c != "") print c }' "$1"; }
"$tc" report "$T/exec/both.dat" > "$T/exec/both.rep" 2>"$T/exec/both.err"
"$useries" -q "$T/exec/both.dat" > "$T/exec/both.ust" 2>&1
nr=$(report_chains "$T/exec/both.rep" | grep -cx "$W_CHAIN")
nu=$(ustack_chains "$T/exec/both.ust" | grep -cx "$W_CHAIN")
[ "$nr" = 12 ] && [ "$nu" = 12 ] && pass tracecmd-exec-maps-old-image ||
	fail tracecmd-exec-maps-old-image "events named $W_CHAIN: report $nr, ustack $nu of 12 (6 before the exec)"
bad=
for t in last same sysexit; do
	"$tc" report "$T/exec/$t.dat" > "$T/exec/$t.rep" 2>/dev/null
	"$useries" -q "$T/exec/$t.dat" > "$T/exec/$t.ust" 2>&1
	for r in rep ust; do
		if [ $r = rep ]; then report_chains "$T/exec/$t.rep"; else ustack_chains "$T/exec/$t.ust"; fi > "$T/exec/$t.$r.chains"
		nb=$(grep -c '^0x[0-9a-f]*\[before-exec\]\( 0x[0-9a-f]*\[before-exec\]\)\{3\}$' "$T/exec/$t.$r.chains")
		nn=$(grep -cx "$W_CHAIN" "$T/exec/$t.$r.chains")
		[ "$nb" = 6 ] && [ "$nn" = 6 ] && [ "$(wc -l < "$T/exec/$t.$r.chains")" = 12 ] ||
			bad+=" $t.$r: $nb marked, $nn named;"
	done
done
[ -z "$bad" ] && pass tracecmd-exec-maps-before-exec-marked ||
	fail tracecmd-exec-maps-before-exec-marked "want 6 events marked [before exec] and 6 named, of 12:$bad"
bad=
for r in "$old" "$stock"; do
	"$r" report "$T/exec/both.dat" > "$T/exec/old.rep" 2>&1 || bad+=" $r: exit $?;"
	[ "$(grep -c 'sys_e[a-z]*_getppid' "$T/exec/old.rep")" = 12 ] || bad+=" $r: $(grep -c 'sys_e[a-z]*_getppid' "$T/exec/old.rep") getppid events;"
done
[ -z "$bad" ] && pass tracecmd-exec-maps-older-readers ||
	fail tracecmd-exec-maps-older-readers "$bad"

# dlopen() at one address (issue 38 item 1): mktrace.py's dlopen trace,
# a plugin loader's shape: libdlwork-a.so loaded, 2 entries under dla_*,
# unloaded, libdlwork-b.so (same layout) loaded at the same base, 2
# entries with the same addresses from the same call site, b in the maps
# saved at the end; the loads are the registrar's trace_marker lines
# (series 0018).  The series' report and ustack name the first 4 events
# in a and the last 4 in b, each frame inside its function by nm -S of
# the library its line names (before: report's text cache, keyed
# without the loads, printed a's text for b's 4 events).
mkdir -p "$T/dl"
for l in a b; do
	gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DDLW_PREFIX=dl${l}_ \
		-o "$T/dl/libdlwork-$l.so" "$REPO/tests/workload/dlwork_lib.c" || fail tracecmd-dlopen-same-base "gcc"
done
if python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$REPO/tests/fixtures/callchain" --count 2 --dl-libs "$T/dl/libdlwork-a.so,$T/dl/libdlwork-b.so" \
	dlopen "$T/dl/dl.dat"; then
	"$tc" report "$T/dl/dl.dat" > "$T/dl/dl.rep" 2>"$T/dl/dl.err"
	"$useries" -q "$T/dl/dl.dat" > "$T/dl/dl.ust" 2>&1
	bad=
	for r in rep ust; do
		if [ $r = rep ]; then report_chains "$T/dl/dl.rep"; else ustack_chains "$T/dl/dl.ust"; fi > "$T/dl/$r.chains"
		got=$(awk '{ print $1 }' "$T/dl/$r.chains" | tr '\n' ' ')
		[ "$got" = "dla_inner dla_inner dla_inner dla_inner dlb_inner dlb_inner dlb_inner dlb_inner " ] &&
			[ "$(grep -cx 'dl\([ab]\)_inner dl\1_middle dl\1_work main' "$T/dl/$r.chains")" = 8 ] ||
			bad+=" $r: $got;"
	done
	# each library frame inside its function in the library named (nm -S)
	python3 - "$T/dl" > "$T/dl/nm.out" 2>&1 <<'EOF2' || bad+=" $(tail -1 "$T/dl/nm.out")"
import re, subprocess, sys
d = sys.argv[1]
size = {}
for lib in 'ab':
    for l in subprocess.run(['nm', '-S', '%s/libdlwork-%s.so' % (d, lib)], capture_output=True, text=True).stdout.split('\n'):
        f = l.split()
        if len(f) == 4:
            size[(lib, f[3])] = int(f[1], 16)
for out, pat in (('dl.rep', r' => (dl([ab])_\w+)\+0x([0-9a-f]+) \(\S*/libdlwork-([ab])\.so\)'),
                 ('dl.ust', r'  u (dl([ab])_\w+)\+0x([0-9a-f]+) \(\S*/libdlwork-([ab])\.so\)')):
    n = 0
    for m in re.finditer(pat, open('%s/%s' % (d, out)).read()):
        name, lib, off, file = m.group(1), m.group(2), int(m.group(3), 16), m.group(4)
        if lib != file or off >= size.get((lib, name), 0):
            sys.exit('%s: %s+0x%x in libdlwork-%s.so: nm -S says size %s' % (out, name, off, file, size.get((lib, name))))
        n += 1
    if n != 24:
        sys.exit('%s: %d library frames, want 24' % (out, n))
EOF2
	[ -z "$bad" ] && pass tracecmd-dlopen-same-base ||
		fail tracecmd-dlopen-same-base "want 4 events named in libdlwork-a.so then 4 in libdlwork-b.so:$bad"
else
	fail tracecmd-dlopen-same-base "mktrace.py failed"
fi

# Where each mapping starts in its file (issue 20 item 10, series
# 0016-0017): mktrace.py's trigger trace with pgoff=HEX on the map lines,
# the binary mapped as the loader maps it, and in pieces (no mapping of
# its first segment: the lowest mapping is the text, 0x1000 into the
# file).  The series' report and ustack name the pieces' frames as nm -S
# gives the functions (before: none named, [not the file mapped]); with
# the loader's maps pgoff changes nothing (the reports with and without
# it the same); 3.1.6 and stock 3.4 read the file.
mkdir -p "$T/pgoff"
mkp() { python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$REPO/tests/fixtures/callchain-pie" --count 3 trigger "$@"; }
mkp "$T/pgoff/pieces.dat" --pieces && mkp "$T/pgoff/loader.dat" --pgoff &&
mkp "$T/pgoff/none.dat" || fail tracecmd-maps-pgoff "mktrace.py failed"
# each chain of names+offsets is the workload's, each offset inside its function (nm -S)
pgoff_named() {
	python3 - "$REPO/tests/fixtures/callchain-pie" "$1" <<'EOF2'
import re, subprocess, sys
nm = {}
for l in subprocess.run(['nm', '-S', sys.argv[1]], capture_output=True, text=True).stdout.split('\n'):
    f = l.split()
    if len(f) == 4 and f[2] in 'Tt':
        nm[f[3]] = int(f[1], 16)
n = 0
for fr in re.findall(r'(?:=>|  u) (\S+)\+0x([0-9a-f]+) \(\S*callchain-pie\)', open(sys.argv[2]).read()):
    if fr[0] not in ('work_inner', 'work_middle', 'work_outer', 'main') or int(fr[1], 16) >= nm.get(fr[0], 0):
        sys.exit('%s+0x%s: not in the function nm -S gives' % fr)
    n += 1
print(n)
EOF2
}
bad=
"$tc" report "$T/pgoff/pieces.dat" > "$T/pgoff/pieces.rep" 2> "$T/pgoff/pieces.err" || bad+=" report: exit $?;"
"$useries" -q "$T/pgoff/pieces.dat" > "$T/pgoff/pieces.ust" 2>&1 || bad+=" ustack: exit $?;"
for r in rep ust; do
	n=$(pgoff_named "$T/pgoff/pieces.$r" 2>&1) && [ "$n" = 24 ] || bad+=" pieces.$r: $n (want 24 frames named, 4 a stack);"
done
[ -z "$bad" ] && pass tracecmd-maps-pgoff-pieces ||
	fail tracecmd-maps-pgoff-pieces "$bad"
bad=
for t in loader none; do
	"$tc" report "$T/pgoff/$t.dat" > "$T/pgoff/$t.rep" 2>&1 || bad+=" report $t: exit $?;"
	"$useries" -q "$T/pgoff/$t.dat" > "$T/pgoff/$t.ust" 2>&1 || bad+=" ustack $t: exit $?;"
done
cmp -s "$T/pgoff/loader.rep" "$T/pgoff/none.rep" || bad+=" report differs with pgoff;"
cmp -s "$T/pgoff/loader.ust" "$T/pgoff/none.ust" || bad+=" ustack differs with pgoff;"
n=$(pgoff_named "$T/pgoff/loader.rep" 2>&1) && [ "$n" = 24 ] || bad+=" loader.rep: $n named;"
for r in "$old" "$stock"; do
	"$r" report "$T/pgoff/loader.dat" > "$T/pgoff/old.rep" 2>&1 || bad+=" $r: exit $?;"
	[ "$(grep -c 'sys_e[a-z]*_getppid' "$T/pgoff/old.rep")" = 6 ] || bad+=" $r: $(grep -c 'sys_e[a-z]*_getppid' "$T/pgoff/old.rep") getppid events;"
done
[ -z "$bad" ] && pass tracecmd-maps-pgoff-loader-unchanged ||
	fail tracecmd-maps-pgoff-loader-unchanged "$bad"

# The libtraceevent plugin, built outside the tree.
mkdir -p "$T/plugin" "$T/noplugin" "$T/home"
export HOME=$T/home		# no user plugins
make -C "$REPO/trace-cmd/plugins" -s deps >&2
make -C "$REPO/trace-cmd/plugins" -s PLUGIN="$T/plugin/plugin_unwind_deferred.so" all \
	>"$T/plugin.log" 2>&1 || { cat "$T/plugin.log"; fail tracecmd-plugin-build; }

# 3.4 prints the latency flags after "[CPU]" by default; 3.1.6 does not.
# And libtraceevent 1.8 (3.4's) prints an array field of unsigned longs
# as {0x401298,0x401539}, bookworm's 1.7 (3.1.6's) as 4199064 4199737
# (the pre-release unwind:* records, which no plugin prints).
drop_flags() {
	sed -E 's/^(.{0,40}\[[0-9]{3}\]) [^ ]{5} /\1 /' |
	perl -pe 's/=\{(0x[0-9a-f]+(?:,0x[0-9a-f]+)*)\}/"=" . join(" ", map { hex } split(",", $1))/ge'
}
nfix=0
for dat in "$REPO"/tests/fixtures/*.dat "$REPO"/tests/fixtures/current/*.dat; do
	[ -f "$dat" ] || continue
	n=$(basename "$dat" .dat)
	[[ $dat == */current/* ]] && n=current-$n
	nfix=$((nfix + 1))
	for pd in noplugin plugin; do
		name=tracecmd-report-$n
		[ $pd = plugin ] && name=$name-plugin
		TRACEEVENT_PLUGIN_DIR=$T/$pd "$old" report "$dat" > "$T/old" 2>"$T/olderr"
		TRACEEVENT_PLUGIN_DIR=$T/$pd "$stock" report "$dat" 2>"$T/newerr" | drop_flags > "$T/new"
		rc=${PIPESTATUS[0]}
		if [ "$rc" != 0 ]; then
			fail "$name" "exit status $rc: $(head -3 "$T/newerr" | tr '\n' ' ')"
		elif ! [ -s "$T/old" ]; then
			fail "$name" "stock trace-cmd printed nothing: $(head -3 "$T/olderr" | tr '\n' ' ')"
		elif diff -u "$T/old" "$T/new" > "$T/diff"; then
			pass "$name"
		else
			fail "$name" "$(grep -c '^[-+][^-+]' "$T/diff") lines differ: $(sed -n '4,8p' "$T/diff" | tr '\n' ' ')"
		fi
	done
done
[ $nfix -gt 0 ] || fail tracecmd-report "no tests/fixtures/*.dat"

# ---- the series' report: stacks under each event
export TRACEEVENT_PLUGIN_DIR=$T/noplugin
F=$REPO/tests/fixtures
# the lines of events, without the stack records (and their frames) or
# the stack lines under the events
events_only() {
	awk '/: (user_stack_cookie|user_stack_deferred|kernel_stack): / { skip = 1; next }
	     /^ <(kernel|user) stack>/ || /^ => / || /^=> / { next }
	     { print }' "$@"
}
for dat in "$F"/*.dat; do
	n=$(basename "$dat" .dat)
	case $n in prerelease-*) continue ;; esac
	"$stock" report "$dat" > "$T/stock" 2>/dev/null
	"$tc" report "$dat" > "$T/series" 2>"$T/err"
	rc=$?
	if [ $rc != 0 ]; then
		fail "tracecmd-stacks-$n" "exit status $rc: $(head -3 "$T/err" | tr '\n' ' ')"
	elif ! grep -q '^ <user stack>' "$T/series"; then
		fail "tracecmd-stacks-$n" "no user stack shown"
	elif grep -q ': user_stack_deferred: ' "$T/series"; then
		fail "tracecmd-stacks-$n" "a user_stack_deferred record is shown"
	elif ! diff <(events_only "$T/stock") <(events_only "$T/series") > "$T/diff"; then
		fail "tracecmd-stacks-$n" "events differ from stock 3.4: $(sed -n '1,4p' "$T/diff" | tr '\n' ' ')"
	else
		pass "tracecmd-stacks-$n"
	fi
done

# A trace without deferred stack records reads as stock 3.4 reads it,
# byte for byte (issue 20 item 8; series 0002): every fixture with no
# ftrace:user_stack_cookie record, and the recordings of
# tests/fixtures/nodefer/ (on the kernel that has deferred stacks, so
# with their formats in the file, but recorded with the stacktrace
# option or trigger: ftrace:kernel_stack records).  Standard output,
# standard error and exit status; default, -N (no plugins) and
# --profile.  A first version of 0002 hid the kernel_stack records and
# printed as " <kernel stack>" blocks under the events.
nstock=0
for dat in "$F"/*.dat "$F"/nodefer/*.dat; do
	[ -f "$dat" ] || continue
	n=$(basename "$dat" .dat)
	# prerelease-*.dat: unwind:user_stack_cookie records, which the
	# series leaves alone (the pre-release layout, tests/fixtures/README.md)
	case $n in
	prerelease-*) ;;
	*)	"$stock" report -N "$dat" > "$T/as.probe" 2>/dev/null
		grep -q ': user_stack_cookie: ' "$T/as.probe" && continue ;;
	esac
	nstock=$((nstock + 1))
	for opt in "" -N --profile; do
		"$stock" report $opt "$dat" > "$T/as.stock" 2> "$T/as.stock.err"
		a=$?
		"$tc" report $opt "$dat" > "$T/as.series" 2> "$T/as.series.err"
		b=$?
		name="tracecmd-as-stock-$n${opt:+-${opt#--}}"
		name=${name/--N/-N}
		# stock 3.4's --profile is not the same twice on some traces
		# (sched-T.dat: tasks named with pids like trace-cmd-207372879,
		# different at each run): nothing to compare with there
		[ "$opt" = --profile ] && "$stock" report $opt "$dat" > "$T/as.stock2" 2>/dev/null
		if [ "$opt" = --profile ] && ! cmp -s "$T/as.stock" "$T/as.stock2"; then
			echo "note: $name not compared: stock 3.4's --profile of $n.dat differs from run to run"
			continue
		fi
		# Even when it is the same twice, its order of tasks follows those
		# stray pids (one run here: the same two runs of stock, and a
		# "trace-cmd" task three lines lower in the series'): the profile
		# is compared as the same lines, in any order
		# and the stray pid itself may differ between the stock run and
		# the series' run even when two stock runs agreed: it is masked
		# (one failure in a helper's run, 2026-11-25).  And two stock runs
		# that agree do not make the next the same: the series' run
		# once had five blank lines more (2026-11-29, sched-T.dat, both
		# runs of stock equal).  So --profile gets up to three pairs of
		# runs, stock then series, and passes on the first pair that
		# agrees; a real difference differs in all three.
		try=
		[ "$opt" = --profile ] && try=1
		while [ "$opt" = --profile ]; do
			sed -E 's/trace-cmd-[0-9]+/trace-cmd-PID/g' "$T/as.stock" | sort > "$T/as.stock.sorted" &&
				mv "$T/as.stock.sorted" "$T/as.stock"
			sed -E 's/trace-cmd-[0-9]+/trace-cmd-PID/g' "$T/as.series" | sort > "$T/as.series.sorted" &&
				mv "$T/as.series.sorted" "$T/as.series"
			cmp -s "$T/as.stock" "$T/as.series" && break
			[ $try = 3 ] && break
			try=$((try + 1))
			"$stock" report $opt "$dat" > "$T/as.stock" 2> "$T/as.stock.err"
			a=$?
			"$tc" report $opt "$dat" > "$T/as.series" 2> "$T/as.series.err"
			b=$?
		done
		if [ $a != $b ]; then
			fail "$name" "exit status $b, stock 3.4 $a"
		elif ! cmp -s "$T/as.stock" "$T/as.series"; then
			fail "$name" "$(diff "$T/as.stock" "$T/as.series" | grep -c '^[<>]') lines differ: $(diff "$T/as.stock" "$T/as.series" | sed -n '1,5p' | tr '\n' ' ')"
		elif ! cmp -s "$T/as.stock.err" "$T/as.series.err"; then
			fail "$name" "standard error differs: $(diff "$T/as.stock.err" "$T/as.series.err" | sed -n '1,3p' | tr '\n' ' ')"
		else
			pass "$name: $(wc -l < "$T/as.series") lines as stock 3.4${try:+ (pair $try)}"
		fi
	done
done
[ -n "$(ls "$F"/nodefer/*.dat 2>/dev/null)" ] && [ $nstock -ge 2 ] ||
	fail tracecmd-as-stock "$nstock traces without deferred stack records; tests/fixtures/nodefer/ has none"

# Stacks unwound with SFrame are marked (patch 0002); frame-pointer ones not
sf=$F/sframe.dat
if [ -f "$sf" ]; then
	"$tc" report "$sf" > "$T/sf.out" 2>/dev/null
	"$tc" report "$F/trigger-getppid.dat" > "$T/fp.out" 2>/dev/null
	marked=$(grep -c '^ <user stack> \[sframe\]$' "$T/sf.out")
	whole=$(awk -f "$REPO/tests/userspace/plugin/user-chains.awk" "$T/sf.out" |
		grep -c '^sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_middle,sf_outer,main')
	if [ "$marked" = 3 ] && [ "$whole" = 3 ] &&
	   grep -q '^ <user stack>$' "$T/fp.out" && ! grep -q '^ <user stack>.*\[' "$T/fp.out"; then
		pass "tracecmd-sframe-mark: 3 stacks [sframe] with the whole chain; none on frame-pointer stacks"
	else
		fail tracecmd-sframe-mark "marked $marked, whole chain $whole (want 3, 3), or a mark on trigger-getppid.dat"
	fi
else
	fail tracecmd-sframe-mark "no $sf"
fi

# --stack-records: the records are back, as stock prints them
d=$F/trigger-getppid.dat
"$tc" report --stack-records "$d" > "$T/recs" 2>/dev/null
"$stock" report "$d" > "$T/stock" 2>/dev/null
nr=$(grep -c ': user_stack_cookie: ' "$T/stock")
if [ "$nr" -gt 0 ] && [ "$(grep -c ': user_stack_cookie: ' "$T/recs")" = "$nr" ] &&
   [ "$(grep -c ': user_stack_deferred: ' "$T/recs")" = "$(grep -c ': user_stack_deferred: ' "$T/stock")" ] &&
   grep -q '^ <user stack>' "$T/recs"; then
	pass tracecmd-stack-records-option
else
	fail tracecmd-stack-records-option "cookie records: stock $nr, --stack-records $(grep -c ': user_stack_cookie: ' "$T/recs")"
fi

# Binaries: next to the trace file (the fixtures), else --symdir
mkdir -p "$T/alone"
cp "$d" "$T/alone/"
"$tc" report "$d" > "$T/named" 2>/dev/null
grep -q '^ => work_inner+0x[0-9a-f]* (.*/callchain) callchain.c:[0-9][0-9]*$' "$T/named" &&
	pass tracecmd-symbols-next-to-trace ||
	fail tracecmd-symbols-next-to-trace "no named work_inner frame"
"$tc" report "$T/alone/trigger-getppid.dat" > "$T/alone.out" 2>/dev/null
"$tc" report --symdir "$F" "$T/alone/trigger-getppid.dat" > "$T/symdir.out" 2>/dev/null
if ! grep -q '^ => work_inner+' "$T/alone.out" &&
   grep -q '^ => work_inner+0x[0-9a-f]* (.*/callchain) callchain.c:[0-9][0-9]*$' "$T/symdir.out"; then
	pass tracecmd-symdir
else
	fail tracecmd-symdir "frames named without the binary, or not with --symdir"
fi

# The source lines are addr2line's for the byte before each return address
python3 - "$T/named" "$F" > "$T/lines.err" 2>&1 <<'EOF'
import os, re, subprocess, sys
rep, fix = sys.argv[1], sys.argv[2]
binary = os.path.join(fix, 'callchain')
nm = {}
for l in subprocess.run(['nm', binary], capture_output=True, text=True,
                        check=True).stdout.splitlines():
    p = l.split()
    if len(p) == 3:
        nm[p[2]] = int(p[0], 16)
n, inl = 0, []
for line in open(rep):
    m = re.match(r'^ => (\w+) \[inlined\] (\S+:\d+)$', line)
    if m:
        inl.append(m.group(2))
        continue
    m = re.match(r'^ => (\w+)\+0x([0-9a-f]+) \(.*/callchain\) (\S+:\d+)$', line)
    if m:
        # addr2line -i: the inlined functions' lines, then the function's
        a = nm[m.group(1)] + int(m.group(2), 16) - 1
        out = subprocess.run(['addr2line', '-i', '-e', binary, '%x' % a],
                             capture_output=True, text=True).stdout.split()
        want = ['%s:%s' % (os.path.basename(o.rsplit(':', 1)[0]), o.rsplit(':', 1)[1])
                for o in out]
        got = inl + [m.group(3)]
        if got != want:
            sys.exit('%s: lines %s, addr2line -i says %s' % (line.strip(), got, want))
        n += 1
    inl = []
if n < 10:
    sys.exit('only %d frames with source lines' % n)
print('%d frames, lines as addr2line -i' % n)
EOF
[ $? = 0 ] && pass tracecmd-source-lines || fail tracecmd-source-lines "$(tail -1 "$T/lines.err")"

# Unresolved frames print what "addr2line -e FILE" takes (issue 20 item
# 11), in every reader that names them: the series' report, the series'
# ustack (the libtraceevent plugin prints addresses).  The oracle is
# addr2line itself: on
# a non-PIE (trigger-getppid.dat, callchain) and a PIE (option-T.dat,
# callchain-pie) program, with the binary stripped (found, no symbols)
# and with no binary at all, addr2line -f on the unstripped binary names
# each frame as the report with the binary does
# (tests/userspace/lib/addr2line-check.py).
a2l_reader() { # a2l_reader READER DIR|"" DAT OUT
	local dir=$2
	case $1 in
	report) "$tc" report ${dir:+--symdir "$dir"} "$3" ;;
	ustack) "$useries" -q ${dir:+-s "$dir"} "$3" ;;
	esac > "$4" 2>/dev/null
}
for prog in callchain:trigger-getppid callchain-pie:option-T; do
	b=${prog%%:*} dat=${prog#*:}.dat
	A=$T/a2l/$b
	mkdir -p "$A/alone" "$A/strip"
	cp "$F/$dat" "$A/alone/"
	strip -o "$A/strip/$b" "$F/$b"
	for rd in report ustack; do
		a2l_reader $rd "$F" "$A/alone/$dat" "$A/$rd.named"
		a2l_reader $rd "$A/strip" "$A/alone/$dat" "$A/$rd.stripped"
		a2l_reader $rd "" "$A/alone/$dat" "$A/$rd.missing"
		if python3 "$REPO/tests/userspace/lib/addr2line-check.py" "$F/$b" \
		   "$A/$rd.named" "$A/$rd.stripped" "$A/$rd.missing" > "$A/$rd.check" 2>&1; then
			pass "tracecmd-addr2line-$b-$rd: $(tr '\n' ' ' < "$A/$rd.check")"
		else
			fail "tracecmd-addr2line-$b-$rd" "$(tail -1 "$A/$rd.check")"
		fi
	done
done

# -F: only sys_exit_getppid shown, each still with its stacks
"$tc" report -F sys_exit_getppid "$d" > "$T/f" 2>/dev/null
ne=$(grep -c ': sys_exit_getppid: ' "$T/stock")
if [ "$ne" -gt 0 ] && [ "$(grep -c ': sys_exit_getppid: ' "$T/f")" = "$ne" ] &&
   [ "$(grep -c '^ <user stack>$' "$T/f")" = "$ne" ] &&
   ! grep -q ': sys_enter_getppid: ' "$T/f"; then
	pass tracecmd-filter-keeps-stacks
else
	fail tracecmd-filter-keeps-stacks "$ne events; shown $(grep -c ': sys_exit_getppid: ' "$T/f"), user stacks $(grep -c '^ <user stack>$' "$T/f")"
fi

# --cpu: each CPU's report has its events' stacks; together, all of them
o=$F/option-T.dat
all=$("$tc" report "$o" 2>/dev/null | grep -c '^ <user stack>')
sum=0
for c in $("$tc" report --cpus "$o" 2>/dev/null | awk 'NR > 1 { for (i = 1; i <= NF; i++) print $i }'); do
	k=$("$tc" report --cpu "$c" "$o" 2>/dev/null | grep -c '^ <user stack>')
	sum=$((sum + k))
done
[ "$all" -gt 0 ] && [ "$sum" = "$all" ] && pass tracecmd-cpu-keeps-stacks ||
	fail tracecmd-cpu-keeps-stacks "all CPUs: $all user stacks; per CPU summed: $sum"

# Each filter keeps each shown event's own stacks (issue 20 item 9, report's
# side): the events are those stock 3.4 shows with the same filter, the
# stacks those ustack gives the same events (and ustack with the same
# filter, where it has it, the same requests).  On four processes at once
# (mktrace.py multi: stacks of 1 to 5 frames, some on the other CPU) and
# on a recording.
mkdir -p "$T/filt"
if python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	multi "$T/filt/multi.dat" --binary "$F/callchain" --count 400; then
	for spec in "multi:-F sys_exit_getppid" "multi:--pid 1254" "multi:--comm task2" \
		    "multi:--cpu 0" "multi:--cpu 1" "option-T:-F sys_enter_getppid" "option-T:--cpu 1"; do
		t=${spec%%:*} opt=${spec#*:}
		dat=$F/$t.dat
		[ "$t" = multi ] && dat=$T/filt/multi.dat
		n=tracecmd-report-filter-keeps-stacks-$t-$(echo "$opt" | tr -d ' -')
		"$stock" report -t $opt "$dat" > "$T/filt/stock" 2>/dev/null
		"$tc" report -t $opt "$dat" > "$T/filt/series" 2>/dev/null
		"$useries" -q --tracer-frames "$dat" > "$T/filt/ustack" 2>/dev/null
		uf=()
		case $opt in
		--cpu*) ;;	# ustack has no --cpu
		*) "$useries" -q --tracer-frames $opt "$dat" > "$T/filt/ustack-f" 2>/dev/null; uf=("$T/filt/ustack-f") ;;
		esac
		if python3 "$REPO/tests/rig/report-filter-check.py" "$T/filt/stock" "$T/filt/series" \
			"$T/filt/ustack" "${uf[@]}" > "$T/filt/check" 2>&1; then
			pass "$n: $(head -1 "$T/filt/check")"
		else
			fail "$n" "$(head -3 "$T/filt/check" | tr '\n' ' ')"
		fi
	done
else
	fail tracecmd-report-filter-keeps-stacks "mktrace.py multi failed"
fi

# -B: the top buffer asked, the "quiet" instance only recorded events
"$tc" report "$F/two-instances.dat" > "$T/b" 2>/dev/null
if grep -q '^ <user stack>' "$T/b" && grep -q '^quiet: ' "$T/b" &&
   awk '/^quiet: / { q = 1; next } /^ <user stack>/ && q { bad = 1 } /^ *[^ <=]/ { q = 0 }
	END { exit bad }' "$T/b"; then
	pass tracecmd-instances-stacks
else
	fail tracecmd-instances-stacks "no stacks, no quiet instance, or stacks under a quiet event"
fi

# ---- issue 20: damage, tasks that stay in the kernel, --profile, errors
R=$F/readers
# A record whose length word was damaged (option-T.dat converted to file
# version 6, 16 bytes of 0xff at offset 2190017): the look-ahead copied
# 1.18 GB from it (SIGSEGV or SIGBUS).  Now: the records, one warning, 1.
"$tc" report "$R/damaged-page.dat" > "$T/dp.out" 2>"$T/dp.err"
rc=$?
if [ $rc = 1 ] && grep -q 'damaged-page.dat: damaged record at offset 2190048 (CPU 1)' "$T/dp.err" &&
   ! grep -q '^trace-cmd: ' "$T/dp.err" && [ "$(grep -c ': sys_' "$T/dp.out")" -gt 50 ]; then
	pass "tracecmd-damaged-page: exit 1, one warning, $(grep -c ': sys_' "$T/dp.out") events shown"
else
	fail tracecmd-damaged-page "exit $rc: $(head -2 "$T/dp.err" | tr '\n' ' ')"
fi
# A file cut in its headers: one line naming the file, no stale errno
# (it printed "trace-cmd: No such file or directory" or "Unknown error
# -22" and exited with that number)
head -c 200000 "$F/trigger-getppid.dat" > "$T/cut.dat"
"$tc" report "$T/cut.dat" > /dev/null 2>"$T/cut.err"
rc=$?
if [ $rc != 0 ] && [ $rc != 234 ] && { [ $rc -le 128 ] || [ $rc -ge 160 ]; } &&
   [ "$(grep -c . "$T/cut.err")" = 1 ] &&
   grep -q 'cut.dat: cannot read the trace file.s headers' "$T/cut.err"; then
	pass "tracecmd-cut-file-message: exit $rc, one line"
else
	fail tracecmd-cut-file-message "exit $rc: $(tr '\n' ' ' < "$T/cut.err")"
fi

# Threads that enter the kernel and never come back (stuck-threads.dat,
# mktrace.py stuck: 8000 getppid() entries of one thread after 2 such
# threads): each event still has its stacks, the 2 say never-arrived
"$tc" report --symdir "$F" "$R/stuck-threads.dat" > "$T/st.out" 2>"$T/st.err"
rc=$?
nu=$(grep -c '^ <user stack>$' "$T/st.out") nn=$(grep -c '^ <user stack> never-arrived$' "$T/st.out")
nw=$(grep -c '^ => work_inner+' "$T/st.out")
[ $rc = 0 ] && [ "$nu" = 16000 ] && [ "$nn" = 2 ] && [ "$nw" = 16000 ] &&
	pass tracecmd-stuck-threads-stacks ||
	fail tracecmd-stuck-threads-stacks "exit $rc; complete $nu, never-arrived $nn, work_inner $nw (want 16000, 2, 16000)"
# ... and when they come back at the very end, their stacks are shown
# (from the index: the look-ahead gives up after 32768 records)
mk() { python3 "$REPO/tests/userspace/lib/mktrace.py" --formats "$REPO/tests/userspace/lib/data/formats" \
	--binary "$F/callchain" "$@"; }
mk --count 8000 --stuck 2 --back stuck "$T/back.dat"
"$tc" report "$T/back.dat" > "$T/back.out" 2>/dev/null
nb=$(awk '/-123[56] +\[/ { t = 1; next } t && /^ => work_inner\+/ { n++ } /^ *[^ <=]/ { t = 0 } END { print n + 0 }' "$T/back.out")
[ "$nb" = 2 ] && [ "$(grep -c never-arrived "$T/back.out")" = 0 ] &&
	pass tracecmd-stuck-threads-come-back ||
	fail tracecmd-stuck-threads-come-back "$nb of the 2 late stacks named"
# Linear: with one stuck thread (and with 2000), 80,000 entries take
# about the time and heap of a trace without one.  Before: 3.95 s
# against 0.6 s, and a heap of 19.5 MB against 0.7 MB.  The heap is the
# peak RssAnon (the file's own pages are mapped, RssFile).
peak() { python3 - "$@" <<'PY'
import resource, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = 0
while p.poll() is None:
    try:
        for l in open("/proc/%d/status" % p.pid):
            if l.startswith("RssAnon:"):
                anon = max(anon, int(l.split()[1]))
    except OSError:
        pass
    time.sleep(0.002)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%d %.2f %d" % (anon // 1024, ru.ru_utime + ru.ru_stime, p.returncode))
PY
}
mk --count 80000 trigger "$T/plain.dat" && mk --count 80000 --stuck 1 stuck "$T/stuck1.dat" &&
	mk --count 80000 --stuck 2000 stuck "$T/stuck2k.dat"
read -r mp tp rp <<<"$(peak "$tc" report "$T/plain.dat")"
read -r m1 t1 r1 <<<"$(peak "$tc" report "$T/stuck1.dat")"
read -r m2 t2 r2 <<<"$(peak "$tc" report "$T/stuck2k.dat")"
msg="80,000 entries: none stuck ${tp} s ${mp} MB, one ${t1} s ${m1} MB, 2000 ${t2} s ${m2} MB"
if [ "$rp$r1$r2" = 000 ] && [ "$m1" -le $((mp + 6)) ] && [ "$m2" -le $((mp + 8)) ] &&
   awk -v p="$tp" -v a="$t1" -v b="$t2" 'BEGIN { exit !(a <= 2 * p + 0.3 && b <= 2 * p + 0.5) }'; then
	pass "tracecmd-stuck-threads-linear: $msg"
else
	fail tracecmd-stuck-threads-linear "$msg (exit $rp $r1 $r2)"
fi

# --profile: on a trace of events with plain kernel_stack records (mktrace
# kstack, as -T on a kernel without the option), stock 3.4's profile byte
# for byte; on a -T fixture, a call graph under the syscall events from
# the kernel stacks of the cookie records, and no stack block above it
mk --count 20 kstack "$T/ks.dat"
"$stock" report --profile "$T/ks.dat" > "$T/ks.stock" 2>&1
"$tc" report --profile "$T/ks.dat" > "$T/ks.series" 2>&1
if grep -q '^ *+ trace_event_raw_event_sys_enter' "$T/ks.stock" && cmp -s "$T/ks.stock" "$T/ks.series"; then
	pass tracecmd-profile-as-stock
else
	fail tracecmd-profile-as-stock "$(diff "$T/ks.stock" "$T/ks.series" | head -4 | tr '\n' ' ')"
fi
# The same trace without and with --stack-records: stock's output, byte
# for byte (series 0002: before, the kernel_stack records were hidden for
# " <kernel stack>" blocks under the events, and with --stack-records
# printed their format's eight slots, "=> 0x0" for the unused ones)
"$tc" report --stack-records "$T/ks.dat" > "$T/ks.recs" 2>&1
"$tc" report "$T/ks.dat" > "$T/ks.def" 2>&1
"$stock" report "$T/ks.dat" > "$T/ks.plain" 2>&1
if grep -q ': kernel_stack: ' "$T/ks.plain" && cmp -s "$T/ks.recs" "$T/ks.plain" &&
   cmp -s "$T/ks.def" "$T/ks.plain"; then
	pass tracecmd-stack-records-kernel-stack-as-stock
else
	fail tracecmd-stack-records-kernel-stack-as-stock "$(grep -c '0x0$' "$T/ks.recs") lines '=> 0x0'; --stack-records: $(diff "$T/ks.recs" "$T/ks.plain" | head -3 | tr '\n' ' '); default: $(diff "$T/ks.def" "$T/ks.plain" | head -3 | tr '\n' ' ')"
fi
"$tc" report --profile "$F/option-T.dat" > "$T/prof" 2>&1
ng=$(grep -c '^ *+ ftrace_syscall_e' "$T/prof")
if [ "$ng" -ge 20 ] && ! grep -q '<kernel stack>\|user_stack_' "$T/prof"; then
	pass "tracecmd-profile-cookie-stacks: $ng call graphs"
else
	fail tracecmd-profile-cookie-stacks "$ng call graphs, or stack blocks/records in the profile"
fi

# A library of another name next to the trace, as libc.so.6 (the maps of
# trigger-getppid.dat have no build ID): it printed
# __ieee754_atan2_sse2+0xa9a (libc.so.6), exit 0, no warning.  The
# recorded path exists: it names __libc_start_call_main.  And when the
# recorded path is gone (mktrace.py --libc, then removed), the stray file
# does not fit the mappings: no name, a mark, a warning.  report, ustack.
mkdir -p "$T/stray/gone"
cp "$F/trigger-getppid.dat" "$F/callchain" "$T/stray/"
cp /usr/lib/x86_64-linux-gnu/libm.so.6 "$T/stray/libc.so.6"
cp /usr/lib/x86_64-linux-gnu/libc.so.6 "$T/stray/gone/libc.so.6"
mk --count 2 --libc "$T/stray/gone/libc.so.6" trigger "$T/stray/gone.dat"
rm -f "$T/stray/gone/libc.so.6"
bad=
for r in report ustack; do
	if [ $r = report ]; then run() { "$tc" report "$@"; }; else run() { "$prefix/bin/ustack" "$@"; }; fi
	run "$T/stray/trigger-getppid.dat" > "$T/stray.out" 2>"$T/stray.err"
	grep -q '__libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)' "$T/stray.out" &&
		! grep -q 'atan2' "$T/stray.out" || bad+=" $r: named from the stray file ($(grep -m1 -o '[^ ]*atan2[^ ]*' "$T/stray.out"));"
	run "$T/stray/gone.dat" > "$T/stray.out" 2>"$T/stray.err"
	grep -q '/stray/gone/libc.so.6+0x[0-9a-f]* (0x[0-9a-f]*) \[not the file mapped\]' "$T/stray.out" &&
		grep -q 'no file that fits its mappings found' "$T/stray.err" &&
		! grep -q 'atan2' "$T/stray.out" || bad+=" $r: recorded path gone: $(grep -m1 'gone/libc' "$T/stray.out");"
done
[ -z "$bad" ] && pass tracecmd-stray-library-next-to-trace || fail tracecmd-stray-library-next-to-trace "$bad"

# The report path fuzzed in-process (the library's trace.dat harness,
# tests/userspace/lib/fuzz/fuzz-tracedat.c, built -DFUZZ_REPORT; libFuzzer,
# ASan+UBSan): the series' trace-read-ustack.c with libustack's look-ahead, join,
# symbols, printer, page check and the execs, against the series'
# libtracecmd.a (whose saved maps report hands libustack), the
# look-ahead limited to 256 records so that the index runs; seeds from
# mktrace.py (stuck threads, late ones, flags, large), pages damaged at
# will.  Built on the code before the fix, it finds the 1.18 GB copy in
# held_new() within seconds.  FUZZ_TIME seconds (default 30).
if command -v clang-14 > /dev/null; then
	D=$(cd "$prefix/.." && pwd)
	W=$D/work/trace-cmd
	mkdir -p "$T/fz/seeds" "$T/fz/corpus"
	mk --count 300 --stuck 2 --back stuck "$T/fz/seeds/back.dat"
	mk --count 300 --stuck 3 stuck "$T/fz/seeds/stuck.dat"
	mk --count 20 flags "$T/fz/seeds/flags.dat"
	mk --count 40 large "$T/fz/seeds/large.dat"
	for f in "$T"/fz/seeds/*.dat; do
		"$old" dump --flyrecord "$f" 2>/dev/null | awk '/\[offset, size of cpu/ { print $1, $2 }' > "$f.pages"
	done
	for i in 0 1 2 3; do printf "\\x0$i" > "$T/fz/corpus/s$i"; done
	if PKG_CONFIG_PATH=$prefix/lib/pkgconfig clang-14 -g -O1 -Wall -Werror -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -DAHEAD_MAX=256 -DHAVE_USTACK \
		-DFUZZ_REPORT \
		-I"$W/tracecmd/include" -I"$W/lib/trace-cmd/include/private" -I"$W/lib/trace-cmd/include" \
		-I"$W/include" -I"$W/include/trace-cmd" -I"$REPO/libustack/include" \
		-I"$REPO/libustack/src" \
		$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags libtraceevent libtracefs) \
		-include "$REPO/trace-cmd/compat/tc-compat.h" -o "$T/fz/fuzz-report" \
		"$REPO/tests/userspace/lib/fuzz/fuzz-tracedat.c" "$W/tracecmd/trace-read-ustack.c" \
		"$REPO"/libustack/src/{ahead,join,syms,util,print,record,execs,loads,perfmap}.c "$W/lib/trace-cmd/libtracecmd.a" \
		"$D/compat/libtccompat.a" \
		$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs libtraceevent libtracefs) \
		-ldw -lelf -lzstd -lz -lstdc++ -Wl,-rpath,"$prefix/lib" > "$T/fz/build.log" 2>&1; then
		FUZZ_SEEDS=$T/fz/seeds ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
			timeout $(( ${FUZZ_TIME:-30} + 120 )) "$T/fz/fuzz-report" -max_total_time="${FUZZ_TIME:-30}" \
			-timeout=20 -rss_limit_mb=4096 -max_len=512 -print_final_stats=1 \
			-artifact_prefix="$T/fz/" "$T/fz/corpus" > "$T/fz/run.log" 2>&1
		rc=$?
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/fz/run.log")
		if [ $rc = 0 ] && ! ls "$T"/fz/crash-* "$T"/fz/leak-* "$T"/fz/timeout-* > /dev/null 2>&1; then
			pass "tracecmd-fuzz-report: ${runs:-?} runs, no crash"
		else
			grep -m5 'ERROR\|#[0-3] ' "$T/fz/run.log"
			fail tracecmd-fuzz-report "exit $rc after ${runs:-?} runs"
		fi
	else
		tail -5 "$T/fz/build.log"
		fail tracecmd-fuzz-report "the target does not build"
	fi
else
	fail tracecmd-fuzz-report "no clang-14 (tests/userspace/lib/run.sh installs it)"
fi

# The ASan/UBSan build of the series: the fixtures give no report (no
# leak either), and damaged copies of them (cut short at 7 places, 16
# bytes flipped at 8 places each; and the three files above that crashed
# the libraries' open) give an error message or records, never
# a crash or a sanitizer report.
if asan=$("$REPO/rig/build-tracecmd.sh" --asan 2>"$T/asan-build.log") && [ -x "$asan" ]; then
	pass tracecmd-asan-build
	sanitized() { # sanitized LOG RC: no sanitizer report, no crash signal
		! grep -q 'AddressSanitizer\|LeakSanitizer\|runtime error:' "$1" &&
		case $2 in 124|134|135|136|139) false ;; *) true ;; esac
	}
	bad=
	for dat in "$F"/*.dat; do
		timeout 300 "$asan" report "$dat" > /dev/null 2>"$T/asan.err"
		sanitized "$T/asan.err" $? || bad+=" $(basename "$dat"): $(grep -m1 'Sanitizer\|runtime error' "$T/asan.err")"
	done
	# readers/: version 6 files, whose trace clock option libtracecmd
	# 3.4 parses into 12 bytes it never frees (extract_trace_clock(),
	# not the series: suppressed; the slow unwinder finds that frame
	# under sscanf())
	printf 'leak:extract_trace_clock\n' > "$T/lsan.supp"
	for dat in "$R"/*.dat; do
		ASAN_OPTIONS=fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$T/lsan.supp \
			timeout 300 "$asan" report --symdir "$F" "$dat" > /dev/null 2>"$T/asan.err"
		sanitized "$T/asan.err" $? || bad+=" $(basename "$dat"): $(grep -m1 'Sanitizer\|runtime error' "$T/asan.err")"
	done
	[ -z "$bad" ] && pass tracecmd-asan-fixtures || fail tracecmd-asan-fixtures "$bad"
	mkdir -p "$T/dmg"
	python3 - "$T/dmg" "$F"/trigger-getppid.dat "$F"/option-T.dat "$F"/two-instances.dat <<'EOF'
import os, random, sys
random.seed(8)
for path in sys.argv[2:]:
    name = os.path.basename(path)[:-4]
    data = open(path, "rb").read()
    n = len(data)
    for i, frac in enumerate([0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 0.99]):
        open("%s/%s-cut%d.dat" % (sys.argv[1], name, i), "wb").write(data[:int(n * frac)])
    for i in range(8):
        b = bytearray(data)
        for j in range(16):
            p = random.randrange(int(n * (0.1 + 0.1 * i)), n)
            b[p] ^= random.randrange(1, 256)
        open("%s/%s-flip%d.dat" % (sys.argv[1], name, i), "wb").write(bytes(b))
EOF
	bad= silent= nd=0
	for dat in "$T"/dmg/*.dat; do
		nd=$((nd + 1))
		timeout 300 "$asan" report "$dat" > "$T/dmg.out" 2>"$T/dmg.err"
		rc=$?
		sanitized "$T/dmg.err" $rc || bad+=" $(basename "$dat") (exit $rc: $(grep -m1 'Sanitizer\|runtime error' "$T/dmg.err"))"
		# nothing shown: then it must say why, and fail
		if [ "$(grep -c . "$T/dmg.out")" -le 1 ] && { [ $rc = 0 ] || ! [ -s "$T/dmg.err" ]; }; then
			silent+=" $(basename "$dat")"
		fi
	done
	# and the files that crashed the libraries' open (made above)
	for dat in "$G"/flags.dat "$G"/symbolic.dat "$G"/cut.dat; do
		[ -f "$dat" ] || { bad+=" $(basename "$dat") not made"; continue; }
		timeout 300 "$asan" report "$dat" > /dev/null 2>"$T/dmg.err"
		rc=$?
		sanitized "$T/dmg.err" $rc || bad+=" $(basename "$dat") (exit $rc: $(grep -m1 'Sanitizer\|runtime error' "$T/dmg.err"))"
	done
	[ $nd = 45 ] && [ -z "$bad" ] && pass tracecmd-asan-damaged-files ||
		fail tracecmd-asan-damaged-files "$nd files;$bad"
	[ $nd = 45 ] && [ -z "$silent" ] && pass tracecmd-damaged-files-say-why ||
		fail tracecmd-damaged-files-say-why "empty output without an error:$silent"
else
	tail -20 "$T/asan-build.log"
	fail tracecmd-asan-build "rig/build-tracecmd.sh --asan failed"
fi

if [ -r /sys/kernel/tracing/trace_options ]; then
	if diff <("$old" list -o 2>&1) <("$stock" list -o 2>&1) > "$T/diff"; then
		pass tracecmd-list-options
	else
		fail tracecmd-list-options "$(head -5 "$T/diff" | tr '\n' ' ')"
	fi
else
	echo "SKIP tracecmd-list-options # /sys/kernel/tracing/trace_options not readable"
fi
finish
