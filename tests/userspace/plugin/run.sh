#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the libtraceevent plugin (trace-cmd/plugins) and the KernelShark
# plugin (kernelshark/).  Builds both, then:
#  - checks the libtraceevent plugin's shape: it needs libc alone, calls
#    libtraceevent's public API and nothing else of its host (no dlsym,
#    no /proc/self), and leaves the handlers of other events alone;
#  - runs the stock /usr/bin/trace-cmd report with TRACEEVENT_PLUGIN_DIR on
#    synthetic trace.dat files (lib/mktrace.py) and on the real fixtures in
#    tests/fixtures/*.dat, and checks each stack record it prints against
#    libtraceevent's own decoding of the record (report -R) and the
#    kallsyms saved in the file (oracle.py); the other lines of the report
#    are those of report without the plugin;
#  - runs tep_harness (libtraceevent only: records built by hand);
#  - runs valgrind on report runs and the harness;
#  - truncates and corrupts trace.dat files: no crash;
#  - builds the KernelShark plugin's C part (its test build, bookworm's
#    libkshark 2.2) and runs kshark_stack, and holds ustack, KernelShark and
#    the series' report to the same stacks.
# The last line is "N passed, N failed[, N skipped]"; exit 1 on failure.
#
# Usage: tests/userspace/plugin/run.sh [-v]   (-v: show failing output)

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
# the synthetic trace writer and its event formats, shared with tests/userspace/lib
MKTRACE=$REPO/tests/userspace/lib/mktrace.py
FORMATS=$REPO/tests/userspace/lib/data/formats
PLUGDIR=$REPO/trace-cmd/plugins
PLUGIN=$PLUGDIR/plugin_unwind_deferred.so
KSDIR=$REPO/kernelshark
FIXTURES=${FIXTURES:-$REPO/tests/fixtures}
VERBOSE=0
[ "$1" = -v ] && VERBOSE=1

pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
skipped() { skip=$((skip + 1)); echo "skip - $*"; }
check() { # check NAME CMD...: ok when CMD succeeds
	local name=$1; shift
	if "$@" >"$WORK/last.out" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		[ $VERBOSE = 1 ] && sed 's/^/    /' "$WORK/last.out" | head -40
	fi
}

"$PLUGDIR/install-deps.sh" trace-cmd libtraceevent-dev libtracecmd-dev \
	libtracefs-dev libkshark-dev libjson-c-dev libdw-dev \
	valgrind python3 gcc make pkg-config binutils coreutils ||
	{ echo "0 passed, 1 failed"; exit 1; }

WORK=$(mktemp -d /tmp/plugin-tests.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export TRACEEVENT_PLUGIN_DIR=$PLUGDIR
# keep user plugins out of the way
export HOME=$WORK/home
mkdir -p "$HOME" "$WORK/noplugin"
TC=/usr/bin/trace-cmd

# ---------------------------------------------------------------- build
# plain make installs nothing: the packages are make deps' (issue 38)
check "plain make runs no apt-get (make deps does)" \
	sh -c "! make -C '$PLUGDIR' -n all | grep -q 'install-deps\\|apt-get' &&
	       ! make -C '$KSDIR' -n all | grep -q 'install-deps\\|apt-get' &&
	       make -C '$PLUGDIR' -n deps | grep -q install-deps"
make -C "$PLUGDIR" -s deps ||
	{ echo "0 passed, 1 failed"; exit 1; }
check "plugin builds with -Wall -Wextra -Werror" \
	make -C "$PLUGDIR" -s clean all
check "plugin exports the libtraceevent plugin symbols" \
	sh -c "nm -D --defined-only '$PLUGIN' | grep -q ' T tep_plugin_loader' &&
	       nm -D --defined-only '$PLUGIN' | grep -q ' T tep_plugin_unloader'"
check "make install honours DESTDIR and installs into libtraceevent's plugin dir" \
	sh -c "make -C '$PLUGDIR' -s install DESTDIR='$WORK/dest' &&
	       test -f '$WORK/dest'\$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins/plugin_unwind_deferred.so"
check "tep_harness builds" \
	sh -c "gcc -O1 -g -Wall -Wextra -Werror \$(pkg-config --cflags libtraceevent) \
	       -o '$WORK/tep_harness' '$HERE/tep_harness.c' \
	       \$(pkg-config --libs libtraceevent)"

# ------------------------------------------------------------ its shape
# Every program that loads libtraceevent plugins (trace-cmd, KernelShark,
# perf, rtla) loads this one: it may bring no library with it (issue 38)
needed_libc_only() {
	readelf -d "$PLUGIN" | grep NEEDED
	test "$(readelf -d "$PLUGIN" | awk '/NEEDED/ { print $NF }' | grep -v '^\[libc\.so\.6\]$' | wc -l)" = 0
}
# Its undefined symbols: libtraceevent's, each declared in the public
# headers libtraceevent installs, or libc's; none to look into its host
public_api_only() {
	local hdrs bad=0 s
	hdrs=$(pkg-config --cflags-only-I libtraceevent | sed 's/^ *-I//; s/ .*//')
	[ -f "$hdrs/event-parse.h" ] || { echo "no event-parse.h in '$hdrs'"; return 1; }
	for s in $(nm -D --undefined-only "$PLUGIN" | awk '$1 == "U" { print $2 }'); do
		case $s in
		*@GLIBC*)
			case ${s%%@*} in
			dl*|opendir|readdir*|readlink*|open|open64|fopen*|pread*|atexit)
				echo "libc $s: looks into its host"; bad=1 ;;
			esac ;;
		*)
			grep -qw "$s" "$hdrs"/*.h || { echo "$s: not in $hdrs/*.h"; bad=1; } ;;
		esac
	done
	if strings "$PLUGIN" | grep -q '/proc/self'; then
		echo "/proc/self in the plugin"; bad=1
	fi
	return $bad
}
check "the plugin's NEEDED libraries: libc alone (no libtracecmd, libdw, libstdc++)" \
	needed_libc_only
check "the plugin calls libtraceevent's public API and libc only: no dlsym, no /proc/self" \
	public_api_only
# one program that loads libtraceevent plugins and links nothing else
# of the series: the harness, with libtraceevent alone
check "a program linked with libtraceevent alone loads it (tep_load_plugins)" \
	sh -c "! ldd '$WORK/tep_harness' | grep -q 'libtracecmd\\|libdw\\|libstdc' &&
	       '$WORK/tep_harness' '$FORMATS' | grep -q '^ok - plugin loaded after the formats: handlers on its 2 records'"

# ---------------------------------------------------------- synthetic
SCENARIOS="basic crosscpu firstcpus kstack-then-cookie missing lost truncated unwinder-marks many late corrupt badformat prerelease"
GOOD="basic crosscpu firstcpus kstack-then-cookie missing lost truncated unwinder-marks many late"
for s in $SCENARIOS; do
	python3 "$MKTRACE" $s "$WORK/$s.dat" ||
		not_ok "mktrace.py $s"
done

report() { # report FILE [trace-cmd report args]: output in $WORK/r.out
	local f=$1; shift
	$TC report -i "$f" "$@" >"$WORK/r.out" 2>"$WORK/r.err"
}
# oracled FILE [REPORT-ARGS]: every stack record the plugin prints is
# the record as libtraceevent decodes it (report -R), kernel frames named
# by the file's kallsyms; and with the plugin or without, the report
# differs only in those records
oracled() {
	local f=$1; shift
	$TC report -i "$f" "$@" >"$WORK/o.plugin" 2>/dev/null &&
	$TC report -R -i "$f" "$@" >"$WORK/o.raw" 2>/dev/null &&
	$TC dump --kallsyms "$f" >"$WORK/o.kallsyms" 2>/dev/null &&
	python3 "$HERE/oracle.py" "$WORK/o.plugin" "$WORK/o.raw" "$WORK/o.kallsyms" || return 1
	TRACEEVENT_PLUGIN_DIR=$WORK/noplugin $TC report -i "$f" "$@" >"$WORK/o.none" 2>/dev/null &&
	python3 "$HERE/oracle.py" --others "$WORK/o.plugin" "$WORK/o.none"
}
export WORK TC HERE
export -f report oracled

for s in $GOOD; do
	check "$s: each stack record as libtraceevent decodes it, kernel frames by the kallsyms; the rest as without the plugin" \
		oracled "$WORK/$s.dat"
done
check "firstcpus as a compressed version 7 file (as trace-cmd record writes): the same" \
	bash -c "$TC convert -i '$WORK/firstcpus.dat' -o '$WORK/firstcpus7.dat' \
		--file-version 7 --compression any >/dev/null 2>&1 &&
	       head -c 11 '$WORK/firstcpus7.dat' | grep -aq tracing7 &&
	       oracled '$WORK/firstcpus7.dat'"
# No state: the records a filter shows print as in the whole report
# (the plugin of before printed stacks at the record that completed
# them, and said what a filter had hidden)
shown_as_whole() { # shown_as_whole FILE REPORT-ARGS...
	local f=$1; shift
	report "$f" && cp "$WORK/r.out" "$WORK/whole" &&
	report "$f" "$@" && [ -s "$WORK/r.out" ] &&
	! grep -q '^unwind_deferred' "$WORK/r.err" &&
	python3 "$HERE/oracle.py" --subset "$WORK/r.out" "$WORK/whole"
}
export -f shown_as_whole
check "crosscpu --cpu 0: each record shown prints as in the whole report, nothing on stderr" \
	shown_as_whole "$WORK/crosscpu.dat" --cpu 0
check "crosscpu -F sys_exit_getppid -F user_stack_deferred: the same" \
	bash -c "cd '$WORK' && TC='$TC' && report_f() { local f=\$1; shift; \$TC report \"\$@\" -i \"\$f\" >'$WORK/r.out' 2>'$WORK/r.err'; } &&
	       \$TC report -i crosscpu.dat >whole 2>/dev/null &&
	       report_f crosscpu.dat -F sys_exit_getppid -F user_stack_deferred &&
	       grep -q 'user_stack_deferred: ' r.out && ! grep -q 'user_stack_cookie: ' r.out &&
	       python3 '$HERE/oracle.py' --subset r.out whole"
check "corrupt records: error markers, no crash" \
	bash -c "report '$WORK/corrupt.dat' &&
	       test \$(grep -c 'unwind_deferred: bad or missing frames array' '$WORK/r.out') = 3 &&
	       test \$(grep -c 'unwind_deferred: bad or missing kernel array' '$WORK/r.out') = 2"
check "unknown event formats: error markers, no crash" \
	bash -c "report '$WORK/badformat.dat' &&
	       grep -q 'unwind_deferred: no cookie field' '$WORK/r.out' &&
	       grep -q 'unwind_deferred: bad or missing frames array' '$WORK/r.out'"
check "without the plugin (-N): libtraceevent prints the records by their formats, kernel frames named" \
	bash -c "report '$WORK/basic.dat' -N && ! grep -q '^=> ' '$WORK/r.out' &&
	       grep -q 'user_stack_cookie: *cookie=0x100001 flags=0x0 kernel=ftrace_syscall_enter,syscall_trace_enter,do_syscall_64,entry_SYSCALL_64_after_hwframe,0x0,0x0,0x0,0x0\$' '$WORK/r.out' &&
	       grep -q 'user_stack_deferred: *cookie=0x100001 pid=1234 tgid=1234 flags=0x0 depth=5 frames=' '$WORK/r.out'"
# pre-release records: their print formats, and one warning through
# tep_warning(), which trace-cmd shows from --verbose=warning on
check "prerelease (synthetic unwind:* records): print formats; one warning at --verbose=warning" \
	bash -c "report '$WORK/prerelease.dat' --verbose=warning &&
	       TRACEEVENT_PLUGIN_DIR='$WORK/noplugin' $TC report -i '$WORK/prerelease.dat' >'$WORK/pre.none' 2>/dev/null &&
	       cmp '$WORK/r.out' '$WORK/pre.none' &&
	       test \$(grep -c 'unwind_deferred: pre-release unwind:\\* records: record the trace again' '$WORK/r.err') = 1 &&
	       report '$WORK/prerelease.dat' && ! grep -q unwind_deferred '$WORK/r.err'"
check "two copies of the plugin on the path: output unchanged" \
	bash -c "report '$WORK/basic.dat' && cp '$WORK/r.out' '$WORK/one.out' &&
	       mkdir -p '$HOME/.local/lib/traceevent/plugins' &&
	       cp '$PLUGIN' '$HOME/.local/lib/traceevent/plugins/' &&
	       report '$WORK/basic.dat'; rc=\$?;
	       rm -rf '$HOME/.local/lib/traceevent';
	       [ \$rc = 0 ] && cmp -s '$WORK/one.out' '$WORK/r.out' && [ ! -s '$WORK/r.err' ]"

# ------------------------------------------------------------ harness
if [ -x "$WORK/tep_harness" ]; then
	check "tep_harness (libtraceevent only, records built by hand)" \
		"$WORK/tep_harness" "$FORMATS"
	[ $VERBOSE = 1 ] || grep -E '^(ok|not ok)' "$WORK/last.out" | sed 's/^/    /'
fi

# ------------------------------------------------------------ valgrind
VG="valgrind -q --suppressions=$HERE/ldso.supp --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
vg_report() { # vg_report FILE [args]
	local f=$1; shift
	$VG $TC report -i "$f" "$@" >/dev/null 2>"$WORK/vg.err"
	local rc=$?
	[ $rc != 99 ] && ! grep -q 'plugin_unwind_deferred' "$WORK/vg.err"
}
for s in $SCENARIOS; do
	check "valgrind: trace-cmd report $s.dat, no errors, no leaks" \
		vg_report "$WORK/$s.dat"
done
[ -f "$WORK/firstcpus7.dat" ] &&
	check "valgrind: trace-cmd report firstcpus7.dat (compressed), no errors, no leaks" \
		vg_report "$WORK/firstcpus7.dat"
[ -x "$WORK/tep_harness" ] &&
	check "valgrind: tep_harness, no errors, no leaks" \
		$VG "$WORK/tep_harness" "$FORMATS"
# ------------------------------------------------- damaged trace.dat files
no_crash() { # no_crash FILE: trace-cmd exits, not killed by a signal
	timeout 60 $TC report -i "$1" >/dev/null 2>&1
	local rc=$?
	# 124: timed out; 129-192: killed by signal rc-128 (SEGV, ABRT...)
	if [ $rc = 124 ] || { [ $rc -gt 128 ] && [ $rc -le 192 ]; }; then
		echo "$1: exit $rc"
		return 1
	fi
}
truncations() { # truncations FILE: cut at several offsets
	local f=$1 size off bad=0
	size=$(stat -c %s "$f")
	for off in 3 11 17 40 300 1000 2000 3000 $((size / 3)) $((size / 2)) \
		   $((size - 4096)) $((size - 100)) $((size - 1)); do
		[ $off -gt 0 ] && [ $off -lt $size ] || continue
		head -c $off "$f" >"$WORK/cut.dat"
		no_crash "$WORK/cut.dat" || { echo "cut at $off"; bad=1; }
	done
	# a truncated header: error message and non-zero exit
	head -c 9 "$f" >"$WORK/cut.dat"
	if $TC report -i "$WORK/cut.dat" >/dev/null 2>"$WORK/cut.err"; then
		echo "9-byte file accepted"; bad=1
	fi
	return $bad
}
flips() { # flips FILE N: overwrite bytes in the data pages, N variants
	python3 - "$1" "$2" "$WORK" <<'EOF'
import random, sys
src, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = bytearray(open(src, "rb").read())
start = (len(data) // 4096 - 2) * 4096 if len(data) > 8192 else 0
rng = random.Random(4242)
for i in range(n):
    d = bytearray(data)
    for _ in range(8):
        p = rng.randrange(max(start, len(d) // 2), len(d))
        d[p] = rng.randrange(256)
    open("%s/flip%d.dat" % (work, i), "wb").write(d)
EOF
	local i bad=0
	for ((i = 0; i < $2; i++)); do
		no_crash "$WORK/flip$i.dat" || bad=1
	done
	# two of them under valgrind: nothing from the plugin
	for i in 0 1; do
		$VG $TC report -i "$WORK/flip$i.dat" >/dev/null 2>"$WORK/vg.err"
		grep -q plugin_unwind_deferred "$WORK/vg.err" &&
			{ cat "$WORK/vg.err"; bad=1; }
	done
	return $bad
}
check "truncated synthetic trace.dat: no crash; a cut header is an error" \
	truncations "$WORK/crosscpu.dat"
check "corrupted data pages (20 variants): no crash, valgrind clean in the plugin" \
	flips "$WORK/many.dat" 20

# ---------------------------------------------------------- real fixtures
shopt -s nullglob
# prerelease-*.dat are kept in the pre-release layout on purpose
fixtures=() prerelease_files=()
# current/: recorded on the series as it is now (tests/fixtures/README.md)
for f in "$FIXTURES"/*.dat "$FIXTURES"/current/*.dat; do
	case $(basename "$f") in
	prerelease-*) prerelease_files+=("$f") ;;
	*) fixtures+=("$f") ;;
	esac
done
if [ ${#fixtures[@]} = 0 ]; then
	skipped "real fixtures: none in tests/fixtures/ yet"
fi
prerelease() { # prerelease FILE: recorded with the pre-release series?
	$TC dump --systems "$1" 2>/dev/null | grep -q '^[[:space:]]*unwind [0-9]'
}
fixture_oracled() { # fixture_oracled FILE: its records as oracle.py says
	if prerelease "$1"; then
		echo "$1: recorded with the pre-release series (unwind:* records): record it again (tests/fixtures/record.sh)"
		return 1
	fi
	oracled "$1"
}
export -f prerelease fixture_oracled
for f in "${fixtures[@]}"; do
	b=$(basename "$f")
	check "fixture $b: each stack record as libtraceevent decodes it, kernel frames by its kallsyms; the rest as without the plugin" \
		fixture_oracled "$f"
	check "fixture $b: valgrind clean" vg_report "$f"
	check "fixture $b: truncated copies do not crash" truncations "$f"
done

# ------------------------------------------------- pre-release recordings
# tests/fixtures/prerelease-*.dat were recorded with the pre-release series
# (unwind:* records) and kept when the others were recorded again: the
# plugin leaves them to their print formats and warns once.
prerelease_once() { # prerelease_once FILE: as without the plugin, one warning
	report "$1" --verbose=warning || return 1
	TRACEEVENT_PLUGIN_DIR=$WORK/noplugin $TC report -i "$1" >"$WORK/pre.none" 2>/dev/null &&
	cmp "$WORK/r.out" "$WORK/pre.none" &&
	test "$(grep -c 'unwind_deferred: pre-release unwind:\* records: record the trace again' "$WORK/r.err")" = 1
}
if [ ${#prerelease_files[@]} = 0 ]; then
	skipped "pre-release recordings: none in tests/fixtures/ (prerelease-*.dat)"
fi
for f in "${prerelease_files[@]}"; do
	check "pre-release recording $(basename "$f"): printed as without the plugin, one warning, no crash" \
		prerelease_once "$f"
	check "pre-release recording $(basename "$f"): valgrind clean" \
		vg_report "$f"
	check "pre-release recording $(basename "$f"): truncated copies do not crash" \
		truncations "$f"
done

# ---------------------------------------------------------- KernelShark
# kshark_stack opens a trace.dat with libkshark as the GUI does, registers
# the plugin's C part (its test build) to the stream, loads the entries,
# runs the second pass and prints what the dock shows for each entry: the
# stack block libustack prints.  The C part is built against bookworm's
# libkshark 2.2 here, and, as its trace.dat reader (ustack/file.c) and
# the ustack tool below need, the series' libtracecmd (rig/build-
# tracecmd.sh's prefix: PKG_CONFIG_PATH, and rpath); the whole plugin
# needs KernelShark with the hooks of kernelshark/patches
# (tests/userspace/kernelshark/run.sh).
TCR=$("$REPO/rig/build-tracecmd.sh" 2>"$WORK/tc-build.log") || TCR=
TC_PKG=$(dirname "$(dirname "${TCR:-/none/bin/trace-cmd}")")/lib/pkgconfig
export TCR
KS="$KSDIR/kshark_stack $KSDIR/test/plugin-unwind_stack.so"
ks_run() { # ks_run FILE [EVENT]: output in $WORK/ks.out
	$KS "$@" >"$WORK/ks.out" 2>"$WORK/ks.err"
}
export KS KSDIR
export -f ks_run
check "KernelShark plugin's C part (test build) and kshark_stack build (libkshark 2.2)" \
	env PKG_CONFIG_PATH="$TC_PKG" make -C "$KSDIR" -s clean test
check "KernelShark plugin's C part: libustack's join linked in, none of it exported" \
	sh -c "nm '$KSDIR/test/plugin-unwind_stack.so' | grep -q ' t ustack_join_add_record\$' &&
	       ! nm -D --defined-only '$KSDIR/test/plugin-unwind_stack.so' | grep -q ' ustack_'"
check "KernelShark: every asking event of crosscpu.dat gets its merged stack" \
	bash -c "ks_run '$WORK/crosscpu.dat' syscalls/sys_enter_getppid &&
	       grep -q 'stacks shown: 2' '$WORK/ks.out' &&
	       grep -q '^sys_enter_getppid pid=1240 cpu=1 cookie=0x200002' '$WORK/ks.out' &&
	       grep -A8 '^sys_enter_getppid pid=1240' '$WORK/ks.out' | grep -q '^ => do_syscall_64+0x77 (ffffffff81300077)' &&
	       grep -A10 '^sys_enter_getppid pid=1240' '$WORK/ks.out' | tail -3 | grep -q '^ => 0x400300\$'"
check "KernelShark: the first event of the trace is named (all records seen)" \
	bash -c "ks_run '$WORK/basic.dat' ftrace/user_stack_deferred &&
	       grep -c '^sys_enter_getppid pid=1234' '$WORK/ks.out' | grep -qx 2 &&
	       grep -q '^This user stack completes:' '$WORK/ks.out'"
check "KernelShark: a late request (cookie after its user stack) is merged" \
	bash -c "ks_run '$WORK/late.dat' syscalls/sys_exit_getppid &&
	       grep -A14 '^sys_exit_getppid pid=1234' '$WORK/ks.out' | grep -q '^ => 0x7ffff7df018a\$'"
check "KernelShark: a user stack that never came says so" \
	bash -c "ks_run '$WORK/missing.dat' && grep -q '^ <user stack> never-arrived' '$WORK/ks.out'"
check "KernelShark: a cookie with NO_USER_STACK says the stack is lost" \
	bash -c "ks_run '$WORK/lost.dat' syscalls/sys_enter_getppid &&
	       grep -A8 '^sys_enter_getppid pid=1234 cpu=0 cookie=0xb00001' '$WORK/ks.out' |
		grep -q '^ <user stack> lost'"
check "KernelShark: the first event of each CPU is named (firstcpus.dat)" \
	bash -c "ks_run '$WORK/firstcpus.dat' ftrace/user_stack_deferred &&
	       grep -c '^sys_enter_getppid pid=300[0-3] cpu=[0-3] cookie=0x90000[0-3]' '$WORK/ks.out' | grep -qx 4"
check "KernelShark: a kernel_stack record between event and cookie is skipped" \
	bash -c "ks_run '$WORK/kstack-then-cookie.dat' ftrace/user_stack_deferred &&
	       grep -q '^sys_enter_getppid pid=1234 cpu=0 cookie=0xa00001' '$WORK/ks.out' &&
	       grep -q '^sys_exit_getppid pid=1234 cpu=0 cookie=0xa00001' '$WORK/ks.out'"
check "KernelShark: truncated/empty stacks are marked" \
	bash -c "ks_run '$WORK/truncated.dat' &&
	       grep -q '^ <user stack> truncated (300 frames found)' '$WORK/ks.out' &&
	       grep -q '^ <user stack> empty' '$WORK/ks.out'"
check "KernelShark: the unwinder next to the status when SFrame took part; frame pointers, none: no mark" \
	bash -c "ks_run '$WORK/unwinder-marks.dat' syscalls/sys_enter_getppid &&
	       test \$(grep -c '^ <user stack>\$' '$WORK/ks.out') = 2 &&
	       test \$(grep -c '^ <user stack>.* \[sframe\]\$' '$WORK/ks.out') = 2 &&
	       test \$(grep -c '^ <user stack> \[sframe+fp\]\$' '$WORK/ks.out') = 1 &&
	       grep -A11 'cookie=0xd00004\$' '$WORK/ks.out' | grep -q '^ <user stack> truncated (300 frames found) \[sframe\]\$'"
check "KernelShark: corrupt records and unknown formats, no crash" \
	bash -c "ks_run '$WORK/corrupt.dat'; [ \$? -lt 2 ] && ks_run '$WORK/badformat.dat'; [ \$? -lt 2 ]"
check "KernelShark: not applicable to a trace without the unwind events" \
	bash -c "python3 - '$WORK/basic.dat' '$WORK/nounwind.dat' <<'PY'
import sys
d = open(sys.argv[1], 'rb').read().replace(b'name: user_stack_', b'name: uSer_stack_')
open(sys.argv[2], 'wb').write(d)
PY
	       ks_run '$WORK/nounwind.dat'; [ \$? = 1 ]"
check "KernelShark: a pre-release trace (unwind:* records): one line on stderr, not applicable" \
	bash -c "ks_run '$WORK/prerelease.dat'; [ \$? = 1 ] &&
	       test \$(grep -c 'pre-release unwind:\\* record format: record the trace again' '$WORK/ks.err') = 1"
for f in "${prerelease_files[@]}"; do
	check "KernelShark: pre-release recording $(basename "$f"): one line on stderr, not applicable" \
		bash -c "ks_run '$f'; [ \$? = 1 ] &&
		       test \$(grep -c 'pre-release unwind:\\* record format' '$WORK/ks.err') = 1"
done
KSVG="$VG --suppressions=$HERE/kshark.supp"
for s in crosscpu firstcpus lost many corrupt prerelease; do
	check "valgrind: kshark_stack $s.dat, no errors, no leaks (libkshark leak suppressed)" \
		bash -c "$KSVG $KS '$WORK/$s.dat' >/dev/null 2>'$WORK/vg.err'; [ \$? != 99 ]"
done
for f in "${fixtures[@]}"; do
	check "KernelShark: fixture $(basename "$f") shows merged stacks" \
		bash -c "if prerelease '$f'; then
			echo '$f: pre-release unwind:* records: record it again'; exit 1
		       fi
		       ks_run '$f' && grep -q '^ <user stack>' '$WORK/ks.out'"
done

# ------------------------------------------------- every reader, one answer
# The readers that join (ustack from libustack, the KernelShark plugin
# through kshark_stack, the series' trace-cmd report below) must see the
# same requests in every fixture, normalised by readers.py: the
# KernelShark plugin the tool's (pid, cookie, asking event, kernel frames,
# user frames, status) by address; the series' report the tool's named
# requests.  (The libtraceevent plugin joins nothing: oracle.py above.)
readers_agree() { # readers_agree FILE
	"$WORK/lib/ustack" -r -q "$1" >"$WORK/rd.ustack" 2>/dev/null
	[ $? -le 3 ] || return 1
	"$WORK/lib/ustack" -q --tracer-frames "$1" >"$WORK/rd.named" 2>/dev/null
	[ $? -le 3 ] || return 1
	KSHARK_STACK_RAW=1 $KS "$1" ftrace/user_stack_cookie >"$WORK/rd.kshark" 2>/dev/null
	python3 "$HERE/readers.py" "$WORK/rd.ustack" "$WORK/rd.kshark"
}
export -f readers_agree
check "ustack (libustack) builds, for the comparison of readers" \
	env PKG_CONFIG_PATH="$TC_PKG" make -s -C "$REPO/libustack" OUT="$WORK/lib" all
for f in "${fixtures[@]}"; do
	check "every reader (ustack, KernelShark) sees the same requests in $(basename "$f")" \
		readers_agree "$f"
done

# Issue 38's cases, synthetic (mktrace.py): a library unloaded and another
# loaded at its base, stacks of the same addresses in each (dlopen); and
# a trace without build IDs read beside a PIE renamed over the non-PIE
# it recorded (no reader names those frames) and beside a rebuilt copy
# (named, with the warning).  Every reader the same requests and names.
mkdir -p "$WORK/i38"
for l in a b; do
	gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DDLW_PREFIX=dl${l}_ \
		-o "$WORK/i38/libdlwork-$l.so" "$REPO/tests/workload/dlwork_lib.c"
done
python3 "$MKTRACE" dlopen "$WORK/i38/dl.dat" --binary "$FIXTURES/callchain" --count 2 \
	--dl-libs "$WORK/i38/libdlwork-a.so,$WORK/i38/libdlwork-b.so" || not_ok "mktrace.py dlopen"
for v in pie rebuilt; do
	mkdir -p "$WORK/i38/$v"
	python3 "$MKTRACE" trigger "$WORK/i38/$v/t.dat" --binary "$FIXTURES/callchain" \
		--binname /gone/callchain --count 2 || not_ok "mktrace.py trigger"
done
cp "$FIXTURES/callchain-pie" "$WORK/i38/pie/callchain"
gcc -O2 -g -fno-omit-frame-pointer -no-pie -fno-pie -o "$WORK/i38/rebuilt/callchain" "$REPO/tests/workload/callchain.c"
i38_dl() {
	readers_agree "$WORK/i38/dl.dat" &&
	test "$(grep -c '^  u dla_inner' "$WORK/rd.named")" = 4 &&
	test "$(grep -c '^  u dlb_inner' "$WORK/rd.named")" = 4
}
i38_pie() {
	readers_agree "$WORK/i38/pie/t.dat" && ! grep -q '^  u work_' "$WORK/rd.named" &&
	grep -q 'not the file mapped' "$WORK/rd.named"
}
check "dlopen at one address: every reader names the stacks before the unload in a, after it in b" \
	i38_dl
check "a PIE renamed over the non-PIE recorded, no build ID: every reader the same, none names it" \
	i38_pie
check "a rebuilt binary, no build ID: every reader the same names" \
	readers_agree "$WORK/i38/rebuilt/t.dat"

# trace-cmd 3.4 with our series prints the stacks under each event, user
# frames named through libustack's symbols: the same requests, the
# same names, as the tool (readers.py --named).  The binaries sit next to
# the fixtures, where both look by default.
tcreport_agrees() { # tcreport_agrees FILE
	[ -x "$TCR" ] || { tail -5 "$WORK/tc-build.log"; return 1; }
	"$WORK/lib/ustack" -q --tracer-frames "$1" >"$WORK/rn.ustack" 2>/dev/null
	[ $? -le 3 ] || return 1
	"$TCR" report "$1" >"$WORK/rn.report" 2>"$WORK/rn.err" ||
		{ cat "$WORK/rn.err"; return 1; }
	grep -q ' <user stack>' "$WORK/rn.report" &&
	python3 "$HERE/readers.py" --named "$WORK/rn.ustack" "$WORK/rn.report"
}
export -f tcreport_agrees
for f in "${fixtures[@]}" "$WORK/i38/dl.dat"; do
	check "trace-cmd report (the series) shows the tool's requests and names under the events of $(basename "$f")" \
		tcreport_agrees "$f"
done

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
