#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the libtraceevent plugin (trace-cmd/plugins) and the KernelShark
# plugin (kernelshark/).  Builds both, then:
#  - runs the stock /usr/bin/trace-cmd report with TRACEEVENT_PLUGIN_DIR on
#    synthetic trace.dat files (lib/mktrace.py) and on the real fixtures in
#    tests/fixtures/*.dat when they exist, and checks the merged stacks
#    with check_report.py;
#  - checks that a trace of the pre-release series (tests/fixtures/
#    prerelease-*.dat, and mktrace.py prerelease) gives one line saying so,
#    and no crash;
#  - runs tep_harness (libtraceevent only: records built by hand);
#  - runs valgrind on report runs and the harness;
#  - truncates and corrupts trace.dat files: no crash.
#  - builds the KernelShark plugin and runs kshark_stack (libkshark).
# The last line is "N passed, N failed[, N skipped]"; exit 1 on failure.
#
# Usage: tests/userspace/plugin/run.sh [-v]   (-v: show failing output)

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
# the synthetic trace writer and its event formats, shared with tests/userspace/lib
MKTRACE=$REPO/tests/userspace/lib/mktrace.py
FORMATS=$REPO/tests/userspace/lib/data/formats
PLUGDIR=$REPO/trace-cmd/plugins
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
	libtracefs-dev libkshark-dev libjson-c-dev \
	valgrind python3 gcc make pkg-config binutils coreutils ||
	{ echo "0 passed, 1 failed"; exit 1; }

WORK=$(mktemp -d /tmp/plugin-tests.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export TRACEEVENT_PLUGIN_DIR=$PLUGDIR
# keep user plugins out of the way
export HOME=$WORK/home
mkdir -p "$HOME"
TC=/usr/bin/trace-cmd

# ---------------------------------------------------------------- build
# plain make installs nothing: the packages are make deps' (issue 38)
check "plain make runs no apt-get (make deps does)" \
	sh -c "! make -C '$PLUGDIR' -n all | grep -q 'install-deps\\|apt-get' &&
	       ! make -C '$KSDIR' -n all | grep -q 'install-deps\\|apt-get' &&
	       make -C '$PLUGDIR' -n deps | grep -q install-deps"
make -C "$PLUGDIR" -s deps && make -C "$KSDIR" -s deps ||
	{ echo "0 passed, 1 failed"; exit 1; }
check "plugin builds with -Wall -Wextra -Werror" \
	make -C "$PLUGDIR" -s clean all
check "plugin exports the libtraceevent plugin symbols" \
	sh -c "nm -D --defined-only '$PLUGDIR/plugin_unwind_deferred.so' |
	       grep -q ' T tep_plugin_loader' &&
	       nm -D --defined-only '$PLUGDIR/plugin_unwind_deferred.so' |
	       grep -q ' T tep_plugin_unloader' &&
	       nm -D --defined-only '$PLUGDIR/plugin_unwind_deferred.so' |
	       grep -q ' D tep_plugin_options'"
check "make install honours DESTDIR and installs into libtraceevent's plugin dir" \
	sh -c "make -C '$PLUGDIR' -s install DESTDIR='$WORK/dest' &&
	       test -f '$WORK/dest'\$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins/plugin_unwind_deferred.so"
check "tep_harness builds" \
	sh -c "gcc -O1 -g -Wall -Wextra -Werror \$(pkg-config --cflags libtraceevent) \
	       -o '$WORK/tep_harness' '$HERE/tep_harness.c' \
	       \$(pkg-config --libs libtraceevent)"

# ---------------------------------------------------------- synthetic
SCENARIOS="basic crosscpu firstcpus kstack-then-cookie missing lost truncated unwinder-marks many late corrupt badformat prerelease"
for s in $SCENARIOS; do
	python3 "$MKTRACE" $s "$WORK/$s.dat" ||
		not_ok "mktrace.py $s"
done

report() { # report FILE [trace-cmd report args]: output in $WORK/r.out
	local f=$1; shift
	$TC report -i "$f" "$@" >"$WORK/r.out" 2>"$WORK/r.err"
}
checked() { # checked FILE CHECKER-ARGS... [-- REPORT-ARGS]
	local f=$1; shift
	local cargs=() rargs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do cargs+=("$1"); shift; done
	[ "$1" = -- ] && { shift; rargs=("$@"); }
	report "$f" "${rargs[@]}" || return 1
	python3 "$HERE/check_report.py" "${cargs[@]}" "$WORK/r.out"
}

export WORK TC HERE
export -f report checked

check "basic: merged stacks (kernel frames of each asking event, then user frames)" \
	checked "$WORK/basic.dat" --expect-merged-events 4 \
		--expect-kernel-frames-checked 16 --expect-user-frames-checked 20
check "basic: a cookie record prints its kernel frames as kernel_stack does" \
	bash -c "grep -c '^=> do_syscall_64 (ffffffff81300077)' '$WORK/r.out' | grep -qx 2 &&
	       grep -q 'user_stack_cookie: *cookie=0x100001 kernel=4\$' '$WORK/r.out'"
check "basic: the asking events are named, the first one too" \
	bash -c "grep -c '^ sys_enter_getppid \[000\] ' '$WORK/r.out' | grep -qx 2 &&
	       grep -c '^ sys_exit_getppid \[000\] ' '$WORK/r.out' | grep -qx 2"
check "crosscpu: user stacks on the other CPU, in reverse order, merged by (pid, cookie)" \
	checked "$WORK/crosscpu.dat" --expect-merged-deferred 2 \
		--expect-merged-events 4 --expect-kernel-frames-checked 16
check "crosscpu: each task gets its own user frames" \
	bash -c "grep -A12 'cookie=0x200002 tgid=1240' '$WORK/r.out' | grep -q '^ => 0x400100\$' &&
	       ! grep -A12 'cookie=0x200002 tgid=1240' '$WORK/r.out' | grep -q '0x55555555513a'"
check "crosscpu: the first event of each CPU, printed before the plugin's first record, is named" \
	bash -c "checked '$WORK/crosscpu.dat' --expect-unseen-events 0 &&
	       grep -q '^ sys_enter_getppid \[000\] 1.000000' '$WORK/r.out' &&
	       grep -q '^ sys_enter_getppid \[001\] 1.000000' '$WORK/r.out'"
check "firstcpus: 4 CPUs whose first asking events precede every cookie record: all named" \
	bash -c "checked '$WORK/firstcpus.dat' --expect-merged-events 8 \
		--expect-unseen-events 0 --expect-kernel-frames-checked 32 &&
	       for c in 0 1 2 3; do
		grep -q \"^ sys_enter_getppid \\[00\$c\\] \" '$WORK/r.out' || exit 1
	       done"
check "firstcpus as a compressed version 7 file (as trace-cmd record writes): all named" \
	bash -c "$TC convert -i '$WORK/firstcpus.dat' -o '$WORK/firstcpus7.dat' \
		--file-version 7 --compression any >/dev/null 2>&1 &&
	       head -c 11 '$WORK/firstcpus7.dat' | grep -aq tracing7 &&
	       checked '$WORK/firstcpus7.dat' --expect-merged-events 8 \
		--expect-unseen-events 0 --expect-kernel-frames-checked 32"
check "kstack: a kernel_stack record between the event and its cookie is not the asker" \
	checked "$WORK/kstack-then-cookie.dat" --expect-merged-events 2 \
		--expect-unseen-events 0 --expect-kernel-frames-checked 8
check "missing: unknown cookie says so, event without kernel stack has no <kernel stack>, lost stack left pending" \
	bash -c "checked '$WORK/missing.dat' --expect-no-pending 1 --expect-never-completed 2 &&
	       grep -q 'cookie=0x300003 kernel=0\$' '$WORK/r.out' &&
	       grep -A1 'cookie=0x300003 tgid=' '$WORK/r.out' | tail -1 | grep -q '^ [a-z_]* \[00[0-9]\] ' &&
	       grep -A2 'cookie=0x300003 tgid=' '$WORK/r.out' | tail -1 | grep -q '^ <user stack>\$'"
check "lost: a cookie with NO_USER_STACK shows the stack lost at once, nothing left pending" \
	bash -c "checked '$WORK/lost.dat' --expect-lost 1 --expect-never-completed 0 \
		--expect-merged-events 3 &&
	       grep -q 'cookie=0xb00001 kernel=4 (no user stack) events=1\$' '$WORK/r.out' &&
	       grep -q '^ <user stack> lost\$' '$WORK/r.out'"
check "truncated/empty user stacks are marked (flags, depth)" \
	bash -c "checked '$WORK/truncated.dat' --expect-merged-deferred 2 &&
	       grep -q 'nr=5 depth=300 (truncated) events=2' '$WORK/r.out' &&
	       grep -q '^ <user stack> truncated (300 frames found)\$' '$WORK/r.out' &&
	       grep -q 'nr=0 empty (user unwind failed) events=2' '$WORK/r.out' &&
	       grep -q '^ <user stack> empty\$' '$WORK/r.out'"
check "unwinder: [sframe] and [sframe+fp] after <user stack> and on the record line; frame pointers, none: no mark" \
	bash -c "checked '$WORK/unwinder-marks.dat' --expect-merged-deferred 5 \
		--expect-merged-events 10 --expect-sframe-blocks 4 \
		--expect-sframe-fp-blocks 2 &&
	       grep -q 'cookie=0xd00001 tgid=1234 nr=5 events=2\$' '$WORK/r.out' &&
	       grep -q 'cookie=0xd00002 tgid=1234 nr=5 \[sframe\] events=2\$' '$WORK/r.out' &&
	       grep -q 'cookie=0xd00003 tgid=1234 nr=5 \[sframe+fp\] events=2\$' '$WORK/r.out' &&
	       grep -q 'cookie=0xd00004 tgid=1234 nr=5 depth=300 (truncated) \[sframe\] events=2\$' '$WORK/r.out' &&
	       grep -q 'cookie=0xd00005 tgid=1234 nr=5 events=2\$' '$WORK/r.out' &&
	       test \$(grep -c '^ <user stack>\$' '$WORK/r.out') = 4 &&
	       test \$(grep -c '^ <user stack> \[sframe\]\$' '$WORK/r.out') = 2 &&
	       test \$(grep -c '^ <user stack> \[sframe+fp\]\$' '$WORK/r.out') = 2 &&
	       test \$(grep -c '^ <user stack> truncated (300 frames found) \[sframe\]\$' '$WORK/r.out') = 2 &&
	       report '$WORK/unwinder-marks.dat' -O unwind_deferred:merge=0 &&
	       grep -q 'cookie=0xd00002 tgid=1234 nr=5 \[sframe\]\$' '$WORK/r.out' &&
	       grep -q 'cookie=0xd00001 tgid=1234 nr=5\$' '$WORK/r.out'"
check "many: 300 interleaved cookies all merged with the defaults" \
	checked "$WORK/many.dat" --expect-merged-events 300 \
		--expect-evictions 0
check "many: -O unwind_deferred:max_pending=50 evicts 250 cookies and says so" \
	checked "$WORK/many.dat" --expect-evictions 250 --expect-merged-events 50 \
		--expect-no-pending 250 -- -O unwind_deferred:max_pending=50
check "many: -O unwind_deferred:max_events=10 bounds the asking events kept" \
	bash -c "checked '$WORK/many.dat' --expect-merged-events 10 \
		-- -O unwind_deferred:max_events=10 &&
	       grep -q 'max_events=10 reached' '$WORK/r.out'"
check "late request (cookie after its user stack, same entry): merged at the cookie; LATE shown" \
	bash -c "checked '$WORK/late.dat' --expect-late-merged 1 --expect-merged-events 3 \
		--expect-never-completed 0 --expect-kernel-frames-checked 8 &&
	       grep -q 'cookie=0x800002 tgid=1234 nr=5 (late) events=1' '$WORK/r.out'"
check "merge=0: no merged blocks, frames one per line, output differs" \
	bash -c "report '$WORK/basic.dat' && cp '$WORK/r.out' '$WORK/merge1.out' &&
	       report '$WORK/basic.dat' -O unwind_deferred:merge=0 &&
	       ! cmp -s '$WORK/merge1.out' '$WORK/r.out' &&
	       ! grep -q '^ <user stack>' '$WORK/r.out' &&
	       grep -A5 'cookie=0x100001 tgid=1234 nr=5\$' '$WORK/r.out' | grep -c '^ => 0x' | grep -qx 5"
# report --cpu and -F hide records the plugin would need (issue 20 item 6):
# its note no longer blames an overwrite, and it says nothing when
# nothing was hidden
check "--cpu 0 (user stack on CPU 1): no 'overwritten' note; the shown stack's note names --cpu" \
	bash -c "report '$WORK/crosscpu.dat' --cpu 0 &&
	       ! grep -q 'overwritten' '$WORK/r.out' &&
	       grep -q 'no event shown for this cookie: report --cpu may hide its cookie record' '$WORK/r.out'"
check "no line on stderr without a filter, nor when every stack was shown (3.1.6 applies no -F given after -i)" \
	bash -c "report '$WORK/basic.dat' && ! grep -q '^unwind_deferred:' '$WORK/r.err' &&
	       report '$WORK/basic.dat' -F sys_enter_getppid &&
	       grep -q ' <user stack>' '$WORK/r.out' && ! grep -q '^unwind_deferred:' '$WORK/r.err'"
# The same hosts, stock 3.1.6 and stock 3.4: at the end, one line that says
# what the filter hid and what shows it (issue 20 item 6).  Oracles: the
# unfiltered report's blocks (how many events on CPU 0 have a user stack;
# the sys_exit_getppid blocks), and the advice run as given.
STOCK34=$("$REPO/rig/build-tracecmd.sh" --stock 2>"$WORK/stock34-build.log") || STOCK34=
export STOCK34
report_f() { # report_f FILE ARGS...: report with ARGS before -i FILE
	local f=$1; shift
	$TC report "$@" -i "$f" >"$WORK/r.out" 2>"$WORK/r.err"
}
hidden_cpu_counted() { # hidden_cpu_counted TRACE-CMD
	local tc=$1 want
	[ -x "$tc" ] || { tail -3 "$WORK/stock34-build.log"; return 1; }
	TC=$tc report "$WORK/crosscpu.dat" || return 1
	want=$(grep -c '^ sys_[a-z_]* \[000\] ' "$WORK/r.out")
	[ "$want" -gt 0 ] || return 1
	TC=$tc report "$WORK/crosscpu.dat" --cpu 0 || return 1
	cat "$WORK/r.err"
	test "$(grep -c '^unwind_deferred:' "$WORK/r.err")" = 1 &&
	grep -q "^unwind_deferred: report --cpu: $want events shown here asked for a user stack that this report does not show (filtered out by --cpu, or never recorded); ustack or the series' trace-cmd report shows them\$" "$WORK/r.err" &&
	! grep -q overwritten "$WORK/r.out" "$WORK/r.err"
}
hidden_filter_advice() { # hidden_filter_advice TRACE-CMD
	local tc=$1 want
	[ -x "$tc" ] || { tail -3 "$WORK/stock34-build.log"; return 1; }
	TC=$tc report "$WORK/crosscpu.dat" || return 1
	want=$(grep -c '^ sys_exit_getppid \[' "$WORK/r.out")
	[ "$want" -gt 0 ] || return 1
	# 3.1.6 applies -F to the inputs after it (-i FILE -F X filters nothing)
	TC=$tc report_f "$WORK/crosscpu.dat" -F sys_exit_getppid || return 1
	cat "$WORK/r.err"
	test "$(grep -c '^unwind_deferred:' "$WORK/r.err")" = 1 &&
	grep -q "^unwind_deferred: report -F filtered out the stack records (user_stack_cookie, user_stack_deferred): add -F user_stack_cookie -F user_stack_deferred to see them, or use ustack or the series' trace-cmd report\$" "$WORK/r.err" &&
	! grep -q ' <user stack>' "$WORK/r.out" &&
	TC=$tc report_f "$WORK/crosscpu.dat" -F sys_exit_getppid -F user_stack_cookie -F user_stack_deferred &&
	test "$(grep -c '^ sys_exit_getppid \[' "$WORK/r.out")" = "$want" &&
	test "$(grep -c '^unwind_deferred:' "$WORK/r.err")" = 0
}
export -f report_f hidden_cpu_counted hidden_filter_advice
for h in "3.1.6:$TC" "3.4:$STOCK34"; do
	check "stock ${h%%:*} --cpu 0: one line at the end counts the events shown whose user stack --cpu hid (as many as the unfiltered report's CPU 0 blocks)" \
		hidden_cpu_counted "${h#*:}"
	check "stock ${h%%:*} -F sys_exit_getppid: one line says -F filtered out the stack records; its advice shows every sys_exit_getppid stack" \
		hidden_filter_advice "${h#*:}"
done
check "corrupt records: error markers, no crash" \
	bash -c "report '$WORK/corrupt.dat' &&
	       test \$(grep -c 'unwind_deferred: bad or missing frames array' '$WORK/r.out') = 3 &&
	       test \$(grep -c 'unwind_deferred: bad or missing kernel array' '$WORK/r.out') = 2"
check "unknown event formats: error markers, no crash" \
	bash -c "report '$WORK/badformat.dat' &&
	       grep -q 'unwind_deferred: no cookie field' '$WORK/r.out' &&
	       grep -q 'unwind_deferred: bad or missing frames array' '$WORK/r.out'"
check "without the plugin (-N): libtraceevent prints the records by their formats, kernel frames named" \
	bash -c "report '$WORK/basic.dat' -N && ! grep -q 'events=2' '$WORK/r.out' &&
	       grep -q 'user_stack_cookie: *cookie=0x100001 flags=0x0 kernel=ftrace_syscall_enter,syscall_trace_enter,do_syscall_64,entry_SYSCALL_64_after_hwframe,0x0,0x0,0x0,0x0\$' '$WORK/r.out' &&
	       grep -q 'user_stack_deferred: *cookie=0x100001 pid=1234 tgid=1234 flags=0x0 depth=5 frames=' '$WORK/r.out'"
check "prerelease (synthetic unwind:* records): one line says so, nothing merged" \
	bash -c "checked '$WORK/prerelease.dat' --expect-prerelease-lines 1 \
		--expect-prerelease-records 4 --expect-merged-events 0 &&
	       test \$(grep -c 'pre-release unwind:\\* record format: record the trace again' '$WORK/r.out') = 1"
check "two copies of the plugin on the path: one is used, output unchanged" \
	bash -c "mkdir -p '$HOME/.local/lib/traceevent/plugins' &&
	       cp '$PLUGDIR/plugin_unwind_deferred.so' '$HOME/.local/lib/traceevent/plugins/' &&
	       report '$WORK/basic.dat'; rc=\$?;
	       rm -rf '$HOME/.local/lib/traceevent';
	       [ \$rc = 0 ] && cmp -s '$WORK/merge1.out' '$WORK/r.out'"
# the copy that is not used says nothing at exit either (it saw no stack
# record: a copy that did not stay idle said -F had hidden them all)
check "two copies of the plugin, report -F with the stack records: stacks shown, no line on stderr" \
	bash -c "mkdir -p '$HOME/.local/lib/traceevent/plugins' &&
	       cp '$PLUGDIR/plugin_unwind_deferred.so' '$HOME/.local/lib/traceevent/plugins/' &&
	       report_f '$WORK/crosscpu.dat' -F sys_exit_getppid -F user_stack_cookie -F user_stack_deferred; rc=\$?;
	       rm -rf '$HOME/.local/lib/traceevent';
	       [ \$rc = 0 ] && grep -q ' <user stack>' '$WORK/r.out' &&
	       ! grep -q '^unwind_deferred:' '$WORK/r.err'"

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
check "valgrind: report with eviction (max_pending=50)" \
	vg_report "$WORK/many.dat" -O unwind_deferred:max_pending=50
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
	report "$1" && grep -q 'pre-release unwind:\* record format' "$WORK/r.out"
}
fixture_checked() { # fixture_checked FILE: every merged stack checks out
	report "$1" || return 1
	if grep -q 'pre-release unwind:\* record format' "$WORK/r.out"; then
		echo "$1: recorded with the pre-release series (unwind:* records): record it again (tests/fixtures/record.sh)"
		return 1
	fi
	python3 "$HERE/check_report.py" "$WORK/r.out" >"$WORK/cr.json"
	local rc=$?
	cat "$WORK/cr.json"
	[ $rc = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["merged_events"] > 0 else 1)' "$WORK/cr.json"
}
export -f prerelease fixture_checked
for f in "${fixtures[@]}"; do
	b=$(basename "$f")
	check "fixture $b: every merged stack checks out" fixture_checked "$f"
	check "fixture $b: valgrind clean" vg_report "$f"
	check "fixture $b: truncated copies do not crash" truncations "$f"
done
if [ -f "$HERE/fixtures.sh" ] && [ ${#fixtures[@]} -gt 0 ]; then
	# fixture-specific checks (frame counts, names) live there
	# shellcheck source=/dev/null
	. "$HERE/fixtures.sh"
fi

# ------------------------------------------------- pre-release recordings
# tests/fixtures/prerelease-*.dat were recorded with the pre-release series
# (unwind:* records) and kept when the others were recorded again: the
# plugin does not read them and says so in one line.
prerelease_once() { # prerelease_once FILE
	report "$1" || return 1
	local n
	n=$(grep -c 'pre-release unwind:\* record format: record the trace again' "$WORK/r.out")
	echo "pre-release lines: $n"
	[ "$n" = 1 ] && ! grep -q '^ <user stack>' "$WORK/r.out" &&
		! grep -q 'events=' "$WORK/r.out"
}
if [ ${#prerelease_files[@]} = 0 ]; then
	skipped "pre-release recordings: none in tests/fixtures/ (prerelease-*.dat)"
fi
for f in "${prerelease_files[@]}"; do
	check "pre-release recording $(basename "$f"): one line says so, nothing merged, no crash" \
		prerelease_once "$f"
	check "pre-release recording $(basename "$f"): valgrind clean" \
		vg_report "$f"
	check "pre-release recording $(basename "$f"): truncated copies do not crash" \
		truncations "$f"
done

# ---------------------------------------------------------- KernelShark
# kshark_stack opens a trace.dat with libkshark as the GUI does, registers
# the plugin to the stream, loads the entries and prints the info text
# (with the plugin's innermost user function) and the merged stack of each
# entry.  The GUI part (the stack view, the graph's marks) is tested by
# tests/userspace/kernelshark/run.sh.
KS="$KSDIR/kshark_stack $KSDIR/test/plugin-unwind_stack.so"
ks_run() { # ks_run FILE [EVENT]: output in $WORK/ks.out
	$KS "$@" >"$WORK/ks.out" 2>"$WORK/ks.err"
}
export KS KSDIR
export -f ks_run
check "KernelShark plugin, its test build and kshark_stack build (libkshark 2.2)" \
	make -C "$KSDIR" -s clean all test
check "KernelShark plugin: libustack's join linked in, none of it exported" \
	sh -c "nm '$KSDIR/plugin-unwind_stack.so' | grep -q ' t ustack_join_add_record\$' &&
	       test \"\$(nm -D --defined-only '$KSDIR/plugin-unwind_stack.so' |
			awk '\$2 == \"T\" {print \$3}' | sort | tr '\n' ' ')\" = \
		'kshark_data_plugin_deinitializer kshark_data_plugin_initializer kshark_plugin_menu_initializer '"
check "KernelShark: every asking event of crosscpu.dat gets its merged stack" \
	bash -c "ks_run '$WORK/crosscpu.dat' syscalls/sys_enter_getppid &&
	       grep -q 'merged stacks shown: 2' '$WORK/ks.out' &&
	       grep -q '^sys_enter_getppid pid=1240 cpu=1 cookie=0x200002' '$WORK/ks.out' &&
	       grep -A8 '^sys_enter_getppid pid=1240' '$WORK/ks.out' | grep -q '=> do_syscall_64+0x77 (ffffffff81300077)' &&
	       grep -A8 '^sys_enter_getppid pid=1240' '$WORK/ks.out' | tail -3 | grep -q '=> 0x400300 (user)'"
check "KernelShark: the info text carries the innermost user frame only (no maps: its address)" \
	bash -c "grep -q 'pid=1234 cpu=0:  \[ustack: 0x55555555513a\]\$' '$WORK/ks.out' &&
	       ! grep -q '0x555555555160' <(grep '^#' '$WORK/ks.out')"
check "KernelShark: the first event of the trace is named (all records seen)" \
	bash -c "ks_run '$WORK/basic.dat' ftrace/user_stack_deferred &&
	       grep -c '^sys_enter_getppid pid=1234' '$WORK/ks.out' | grep -qx 2 &&
	       grep -q 'completes 2 events' '$WORK/ks.out'"
check "KernelShark: a late request (cookie after its user stack) is merged" \
	bash -c "ks_run '$WORK/late.dat' syscalls/sys_exit_getppid &&
	       grep -A9 '^sys_exit_getppid pid=1234' '$WORK/ks.out' | grep -q '=> 0x7ffff7df018a (user)'"
check "KernelShark: a user stack that never came says so" \
	bash -c "ks_run '$WORK/missing.dat' && grep -q 'user stack never arrived' '$WORK/ks.out'"
check "KernelShark: a cookie with NO_USER_STACK says the stack is lost" \
	bash -c "ks_run '$WORK/lost.dat' syscalls/sys_enter_getppid &&
	       grep -A6 '^sys_enter_getppid pid=1234 cpu=0 cookie=0xb00001' '$WORK/ks.out' |
		grep -q '(user stack lost: none will follow)' &&
	       grep -q ' \[user stack lost\]' '$WORK/ks.out'"
check "KernelShark: the first event of each CPU is named (firstcpus.dat)" \
	bash -c "ks_run '$WORK/firstcpus.dat' ftrace/user_stack_deferred &&
	       grep -c '^sys_enter_getppid pid=300[0-3] cpu=[0-3] cookie=0x90000[0-3]' '$WORK/ks.out' | grep -qx 4"
check "KernelShark: a kernel_stack record between event and cookie is skipped" \
	bash -c "ks_run '$WORK/kstack-then-cookie.dat' ftrace/user_stack_deferred &&
	       grep -q '^sys_enter_getppid pid=1234 cpu=0 cookie=0xa00001' '$WORK/ks.out' &&
	       grep -q '^sys_exit_getppid pid=1234 cpu=0 cookie=0xa00001' '$WORK/ks.out'"
check "KernelShark: truncated/empty stacks are marked" \
	bash -c "ks_run '$WORK/truncated.dat' &&
	       grep -q '(user stack cut short: 300 frames found)' '$WORK/ks.out' &&
	       grep -q '(no user frames: unwind failed)' '$WORK/ks.out'"
check "KernelShark: the unwinder next to the status when SFrame took part (Info column, text, view); frame pointers, none: no mark" \
	bash -c "ks_run '$WORK/unwinder-marks.dat' syscalls/sys_enter_getppid &&
	       test \$(grep -c ':  \[ustack: 0x55555555513a\]\$' '$WORK/ks.out') = 2 &&
	       grep -q ':  \[ustack: 0x55555555513a, sframe\]\$' '$WORK/ks.out' &&
	       grep -q ':  \[ustack: 0x55555555513a, sframe+fp\]\$' '$WORK/ks.out' &&
	       grep -q ':  \[ustack: 0x55555555513a, cut short, sframe\]\$' '$WORK/ks.out' &&
	       test \$(grep -c '^   (user stack: sframe)\$' '$WORK/ks.out') = 2 &&
	       test \$(grep -c '^   (user stack: sframe+fp)\$' '$WORK/ks.out') = 1 &&
	       grep -A11 'cookie=0xd00004\$' '$WORK/ks.out' | tail -2 | head -1 | grep -q '(user stack cut short: 300 frames found)' &&
	       KSHARK_STACK_VIEW=1 ks_run '$WORK/unwinder-marks.dat' syscalls/sys_enter_getppid &&
	       test \$(grep -c '^J [0-9]* User stack (5 frames): in the ' '$WORK/ks.out') = 2 &&
	       test \$(grep -c '^J [0-9]* User stack (5 frames) \[sframe\]: in the ' '$WORK/ks.out') = 2 &&
	       test \$(grep -c '^J [0-9]* User stack (5 frames) \[sframe+fp\]: in the ' '$WORK/ks.out') = 1"
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
		       ks_run '$f' && grep -q '(user)\$' '$WORK/ks.out'"
done

# ------------------------------------------------- every reader, one answer
# The three readers (ustack from libustack, trace-cmd report with the
# libtraceevent plugin, the KernelShark plugin through kshark_stack) must
# see the same requests in every fixture, normalised by readers.py: the
# KernelShark plugin the tool's (pid, cookie, asking event, kernel frames,
# user frames, status) by address; the libtraceevent plugin, which names
# user frames as the series' report does, the tool's named requests.
readers_agree() { # readers_agree FILE
	"$WORK/lib/ustack" -r -q "$1" >"$WORK/rd.ustack" 2>/dev/null
	[ $? -le 3 ] || return 1
	"$WORK/lib/ustack" -q --tracer-frames "$1" >"$WORK/rd.named" 2>/dev/null
	[ $? -le 3 ] || return 1
	report "$1" && cp "$WORK/r.out" "$WORK/rd.report" || return 1
	$KS "$1" ftrace/user_stack_cookie >"$WORK/rd.kshark" 2>/dev/null
	python3 "$HERE/readers.py" "$WORK/rd.ustack" "$WORK/rd.kshark" &&
	python3 "$HERE/readers.py" --plugin "$WORK/rd.named" "$WORK/rd.report"
}
export -f readers_agree
# The plugin names user frames from the maps in the trace file it finds
# open in the process and the binaries next to it; -O symdir= adds a
# directory, -O file= names the file.
plugin_names() { # plugin_names: a copy of a fixture away from its binaries
	local d=$WORK/names f=trigger-getppid.dat
	rm -rf "$d"; mkdir -p "$d" && cp "$FIXTURES/$f" "$d/" || return 1
	report "$d/$f" &&
	grep -A2 '^ <user stack>$' "$WORK/r.out" | grep -q '^ => /results/fixtures/callchain+0x[0-9a-f]* (0x[0-9a-f]*)$' &&
	! grep -q 'work_inner' "$WORK/r.out" || { echo "named without the binaries"; return 1; }
	report "$d/$f" -O unwind_deferred:symdir="$FIXTURES" &&
	grep -q '^ => work_inner+0x[0-9a-f]* (/results/fixtures/callchain) callchain.c:[0-9]*$' "$WORK/r.out" ||
		{ echo "symdir: not named"; return 1; }
	report "$FIXTURES/$f" -O unwind_deferred:file=/nonexistent.dat &&
	grep -A1 '^ <user stack>$' "$WORK/r.out" | grep -q '^ => 0x[0-9a-f]*$' &&
	! grep -q 'work_inner' "$WORK/r.out" &&
	[ "$(grep -c 'unwind_deferred: user frames not named' "$WORK/r.err")" = 1 ] ||
		{ echo "file=/nonexistent: named, or not one line on stderr"; cat "$WORK/r.err"; return 1; }
}
export -f plugin_names
[ -f "$FIXTURES/trigger-getppid.dat" ] &&
	check "plugin: user frames named from the trace's maps and binaries; -O symdir= and -O file= honoured" \
		plugin_names
# Two -i inputs, each recorded with its own binary: each file's frames are
# named from its own maps, as each file alone names them (issue 20 item 6).
# OPT: more report arguments (-O unwind_deferred:file=B shows the check
# failing when one file's maps name both).
two_inputs() { # two_inputs TRACE-CMD [OPT...]
	local tc=$1 d=$WORK/two; shift
	[ -x "$tc" ] || { tail -3 "$WORK/stock34-build.log"; return 1; }
	rm -rf "$d"; mkdir -p "$d"
	python3 "$MKTRACE" trigger "$d/a.dat" --binary "$FIXTURES/callchain" --count 2 &&
	python3 "$MKTRACE" trigger "$d/b.dat" --binary "$FIXTURES/callchain-pie" --count 2 --pid 2000 || return 1
	for f in a b; do
		$tc report -i "$d/$f.dat" 2>/dev/null | grep '^ => work_' > "$d/$f.alone" || return 1
	done
	grep -q 'callchain)' "$d/a.alone" && grep -q 'callchain-pie)' "$d/b.alone" || return 1
	$tc report -i "$d/a.dat" -i "$d/b.dat" "$@" > "$d/both" 2>/dev/null || return 1
	for f in a b; do
		awk -v f="$f.dat:" '/^[a-z]\.dat: / { on = ($1 == f) } on && /^ => work_/' "$d/both" |
			cmp -s - "$d/$f.alone" || { echo "$f.dat's frames differ from $f.dat alone"; return 1; }
	done
}
export -f two_inputs
for h in "3.1.6:$TC" "3.4:$STOCK34"; do
	check "stock ${h%%:*} -i A -i B: each file's frames named from its own maps, as alone" \
		two_inputs "${h#*:}"
done
check "ustack (libustack) builds, for the comparison of readers" \
	make -s -C "$REPO/libustack" OUT="$WORK/lib" all
for f in "${fixtures[@]}"; do
	check "every reader (ustack, trace-cmd report, KernelShark) sees the same requests in $(basename "$f")" \
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
	grep -q 'not the file mapped' "$WORK/rd.report"
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
TCR=$("$REPO/rig/build-tracecmd.sh" 2>"$WORK/tc-build.log") || TCR=
export TCR
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
