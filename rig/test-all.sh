#!/bin/bash
# Run every test of the project and print one total "N passed, N failed".
#
#   rig/test-all.sh [--debug] [--only SUITE]
#
# Suites, in order: kernel-static (series applies, checkpatch), rig
# (tests/rig/run.sh: the archive read from apt's sources, the accelerator
# probe and its fallback), kernel-ut (tests/rig/kernel-ut.sh: make UT=1's
# unused-tracepoint check on the built kernel), guest (the kernel built and booted under QEMU,
# tests/guest/run-all.sh inside: the tree's ftracetest and one test per
# guarantee; run as two guests side by side, the second counted as
# guest-b; --only guest runs both), guest-boot (the same kernel booted with deferred stacks asked
# for on its command line, tests/guest/boot-params.sh), guest-boot-syscall
# (booted with a stacktrace:defer trigger on a syscall event,
# tests/guest/boot-syscall-trigger.sh), guest-yama (booted with Yama's
# ptrace_scope 3, which refuses attaching SFrame sections to files:
# tests/guest/boot-yama.sh), guest-unwind-fp and
# guest-unwind-sframe (booted with unwind_user=fp, =sframe:
# tests/guest/t-96-unwind-user.sh), demo (rig/demo.sh --repeat 3: the
# README's first command, three runs in one boot, each checked), sframe-gen (tests/userspace/
# sframe-gen/run.sh: SFrame generated from .eh_frame, checked against
# readelf and the kernel's rules), sframe-register (tests/userspace/
# sframe-gen/register.sh: the SFrame registrar's cache and its promise to
# leave programs as they are), plugin (tests/userspace/plugin/run.sh),
# lib (tests/userspace/lib/run.sh), kernelshark (tests/userspace/
# kernelshark/run.sh: KernelShark 2.4.0 with kernelshark/patches, built
# once per change of the series, under Xvfb; its screenshots in
# $CACHE/test-all/kernelshark/), s390x-readers (tests/s390x/readers.sh:
# the readers on the big-endian s390x fixture), guest-vanilla (Debian's
# own 7.3 kernel, rig/fetch-debian-kernel.sh, booted with
# tests/guest/vanilla-tracecmd.sh: our trace-cmd's -T on a kernel without
# the option), s390x (tests/s390x/run.sh: the s390x kernel, cross-built in
# the background while the guest suites run, booted in qemu-system-s390x;
# user stacks by the back chain and by SFrame).
# Installs what it needs with apt (as root, or via sudo).  Each suite's own
# output goes to $CACHE/test-all/<suite>.log; a suite that ends without a
# count line, or whose count disagrees with its exit status, counts as
# one failure more.  --debug also boots the lockdep/KASAN kernel and runs
# the lifetime and concurrency tests and the SFrame tests (t-97) on it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
debug=0 only=
while [ $# -gt 0 ]; do
	case $1 in
	--debug) debug=1 ;;
	--only) only=$2; shift ;;
	*) die "usage: $0 [--debug] [--only SUITE]" ;;
	esac
	shift
done

ensure_cache
# strace and gdb: t-90 runs them under record -T (a command that traces
# its own children); node: t-94's stock JIT
need_pkgs make gcc gcc-multilib libc6-dev liburing-dev binutils python3 iputils-ping \
	strace gdb nodejs
logs=$CACHE/test-all
rm -rf "$logs"; mkdir -p "$logs"
total_pass=0 total_fail=0 total_skip=0 t0=$SECONDS
declare -a summary

# suite NAME CMD...: run it, take its last "N passed, N failed" line
suite() {
	local name=$1 start=$SECONDS
	shift
	want "$name" || return 0
	log "suite $name: $*"
	"$@" > "$logs/$name.log" 2>&1
	count "$name" $? $((SECONDS - start))
}

# want NAME: whether suite NAME runs (all, or the one --only names;
# --only guest also runs guest-b, the suite's second guest)
want() { [ -z "$only" ] || [ "$only" = "$1" ] || [ "$only/$1" = guest/guest-b ]; }

# count NAME RC SECS: add the last "N passed, N failed" line of NAME's log
# to the totals; a non-zero exit with no failed test is one failure more
count() {
	local name=$1 rc=$2 secs=$3 line p f s extra=0
	line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$logs/$name.log" | tail -1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	else
		p=0 f=0 s=0
	fi
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		extra=1
		tail -30 "$logs/$name.log" >&2
		log "suite $name exited $rc without a failed test: counted as one failure"
	fi
	grep -E '^(FAIL|SKIP) ' "$logs/$name.log" | sed "s/^/  [$name] /" >&2
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f + extra))
	total_skip=$((total_skip + s))
	summary+=("$(printf '%-14s %4d passed %3d failed %3d skipped %5ds  (%s)' \
		"$name" "$p" $((f + extra)) "$s" "$secs" "$logs/$name.log")")
}

# The guest suite: results.txt has one PASS/FAIL/SKIP line per test; the
# rig itself fails on a timeout or a kernel warning in the console.
guest_suite() {
	local out=$logs/guest-run rc
	if [ "$1" = --out-name ]; then out=$logs/$2; shift 2; fi
	"$REPO/rig/run-guest.sh" --quiet --out "$out" "$@"
	rc=$?
	cat "$out/console.log" 2>/dev/null | grep -E '^(PASS|FAIL|SKIP) ' || true
	[ -f "$out/console-problems.log" ] && cat "$out/console-problems.log"
	local p f s
	p=$(grep -c '^PASS ' "$out/results.txt" 2>/dev/null)
	f=$(grep -c '^FAIL ' "$out/results.txt" 2>/dev/null)
	s=$(grep -c '^SKIP ' "$out/results.txt" 2>/dev/null)
	# the rig's own verdict: console clean, no timeout, command finished
	if [ $rc = 0 ]; then p=$((p + 1)); echo "PASS guest-run-clean"
	else f=$((f + 1)); echo "FAIL guest-run-clean # see $out"; fi
	echo "${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
	[ "$f" = 0 ]
}

make -s -C "$REPO/tests/workload" || die "cannot build the workloads"
# binutils 2.46 (SFrame version 3 as gas writes it: t-97's sframe-v3-gas,
# the sframe-gen suite's oracle), built in the background once the
# workloads' 2.44 is there: about 13 CPU-minutes cold, in the rig suite's
# idle core time rather than on the critical path; waited for before the
# guest suite (rig/build-binutils.sh takes a lock per version)
( nice -n 5 "$REPO/rig/build-binutils.sh" --version 2.46 > "$logs/binutils-2.46.out" \
	2> "$logs/binutils-2.46.log"; echo $? > "$logs/binutils-2.46.rc" ) &
bu246_pid=$!
# the SFrame generator and registrar: the guest's stock-program tests (t-98)
{ "$REPO/sframe-gen/deps.sh" && make -s -C "$REPO/sframe-gen"; } >&2 ||
	die "cannot build sframe-gen"
# the library now; the ustack tool, which the guest suite runs live
# (t-25), after rig/build-tracecmd.sh below: its trace.dat reader needs
# the series' libtracecmd
{ "$REPO/libustack/deps.sh" && make -s -C "$REPO/libustack" lib; } >&2 ||
	die "cannot build libustack"
# Our x86-64 kernel, from the start in the background: the suites before
# the guest boots (the kernel's fetch and checkpatch, the rig's tests)
# leave a core idle much of the time, and a cold make is about 25
# CPU-minutes.  The calls of build-kernel.sh below wait for its lock and
# then find the image built.
if [ -z "$only" ] || [[ $only == guest* ]] || [ "$only" = rig ] || [ "$only" = kernel-ut ] ||
   [ "$only" = demo ]; then
	( nice -n 5 "$REPO/rig/build-kernel.sh" > "$logs/kernel-build.out" 2> "$logs/kernel-build.log" ) &
fi
suite kernel-static "$REPO/tests/kernel-static.sh"
suite rig "$REPO/tests/rig/run.sh"
# perf for the guest (t-45 asks with --call-graph fp,defer); a test that
# needs it and finds none fails
perf_bin=
if want guest-b || { [ $debug = 1 ] && [ "$only" = guest-debug ]; }; then
	perf_bin=$("$REPO/rig/build-perf.sh") || log "cannot build perf: the guest tests that need it fail"
fi
# trace-cmd 3.4 with trace-cmd/patches for the guest (t-90 records with
# it), stock 3.4 (t-95 runs both builds' utest), and the libtraceevent
# plugin; a test that needs them and finds none fails
tracecmd_bin=
if want guest-b || [ "$only" = guest-vanilla ] || [ "$only" = s390x-readers ]; then
	tracecmd_bin=$("$REPO/rig/build-tracecmd.sh") || log "cannot build trace-cmd: the guest tests that need it fail"
	"$REPO/rig/build-tracecmd.sh" --stock > /dev/null || log "cannot build stock trace-cmd: t-95 fails"
	{ make -s -C "$REPO/trace-cmd/plugins" deps && make -s -C "$REPO/trace-cmd/plugins"; } >&2 || log "cannot build the libtraceevent plugin: the guest tests that need it fail"
	[ -n "$tracecmd_bin" ] &&
		PKG_CONFIG_PATH=$(dirname "$(dirname "$tracecmd_bin")")/lib/pkgconfig \
		make -s -C "$REPO/libustack" >&2 || log "cannot build the ustack tool: t-25 fails"
fi
# The guest suites boot our kernel, built here once; the s390x kernel is
# built meanwhile, in the background: the guest runs TCG on one host
# thread, so a cold run had a core idle for the 20-odd minutes of the
# guest suite.  The build runs at a lower priority than the guest, so the
# guest's timing is not the one that suffers.  The guest suites get the
# image with --kernel: they must not wait for the build lock.
kimg=
if [ -z "$only" ] || { [[ $only == guest* ]] && [ "$only" != guest-vanilla ]; }; then
	kimg=$("$REPO/rig/build-kernel.sh") || log "our kernel did not build: the guest suites fail"
fi
kopt=(); [ -n "$kimg" ] && kopt=(--kernel "$kimg")
# the series' kselftests for t-97 and t-96-sframe-file, with the harness of the kernel source
# (fetched by the build above; a cold cache has none before it)
if [ -z "$only" ] || [[ $only == guest* ]]; then
	make -s -C "$REPO/tests/workload" sframe-test sframe-file-test >&2 ||
		log "the prctl kselftests did not build: t-97's sframe-prctl-kselftest and t-96's sframe-file-kselftest fail"
fi
# The s390x kernel (suite s390x), cross-built in the background.
s390x_pid=
if [ -z "$only" ] || [ "$only" = s390x ]; then
	( t=$SECONDS
	  nice -n 10 "$REPO/rig/build-kernel.sh" --arch s390x > "$logs/s390x-build.out" \
		2> "$logs/s390x-build.log"
	  echo $? > "$logs/s390x-build.rc"
	  echo "s390x kernel (cross toolchain fetch + build): $((SECONDS - t)) s" >> "$logs/s390x-build.log" ) &
	s390x_pid=$!
fi
# make UT=1's check of unused tracepoints, on that kernel's vmlinux.o
if [ -z "$only" ] || [ "$only" = kernel-ut ]; then
	[ -n "$kimg" ] || kimg=$("$REPO/rig/build-kernel.sh")
	suite kernel-ut "$REPO/tests/rig/kernel-ut.sh" "$kimg"
fi
# gas 2.46's library for t-97 (a failed build fails that case only)
wait "$bu246_pid"
make -s -C "$REPO/tests/workload" sframe3 >&2 ||
	log "binutils 2.46 or its workload did not build (see $logs/binutils-2.46.log): t-97's sframe-v3-gas fails"
# Background lanes.  After our kernel is built everything left is CPU
# work on a 2-core machine, and TCG runs a guest on one host thread: a
# single guest suite left a core idle for its last 15-odd minutes in a
# cold run (the host suites and the s390x build were done by then).  So
# the guest suite runs as two guests side by side, guest and guest-b,
# split by run time (a new script goes to the first, which runs every
# script the second does not name), and the host-only suites run one
# after another in a third lane.  A lane's suites are counted when all
# lanes end (lane_count).  The guests see the plugin through a copy: the
# plugin suite rebuilds trace-cmd/plugins.
lane_pids=() lane_names=()
# lane SUITE...: run the suites (lane_suite) one after another, in the
# background
lane() {
	local n t
	( for n in "$@"; do
		want "$n" || continue
		t=$SECONDS
		log "suite $n (in a background lane)"
		lane_suite "$n" > "$logs/$n.log" 2>&1
		echo "$? $((SECONDS - t))" > "$logs/$n.done"
	  done ) &
	lane_pids+=($!)
	lane_names+=("$@")
}
# lane_count: wait for every lane, count each of its suites
lane_count() {
	local n rc secs
	wait "${lane_pids[@]}"
	for n in "${lane_names[@]}"; do
		want "$n" || continue
		read -r rc secs < "$logs/$n.done" 2>/dev/null || { rc=1 secs=0; }
		count "$n" "$rc" "$secs"
	done
}
mkdir -p "$logs/guest-plugins"
cp "$REPO/trace-cmd/plugins/"*.so "$logs/guest-plugins/" 2>/dev/null
# T_TIMEOUT (per script, run-all.sh): 1200 s, not 900: each guest has
# about two thirds of a core while the lanes share the machine (t-10
# takes 420 s with a whole one)
guest_env="FTD_PERF=$(printf %q "$perf_bin") FTD_TRACECMD=$(printf %q "$tracecmd_bin")"
guest_env+=" FTD_PLUGIN_DIR=$(printf %q "$logs/guest-plugins") T_TIMEOUT=1200"
# guest-b's scripts: with the demo and guest-vanilla after them, about
# as long as the other guest's with the boot suites (in the cold run of
# 2026-11-29 guest-b's lane ended 7 minutes after the foreground's boot
# suites: t-96-sframe-file, 170 s there, moved over since)
guest_b=(t-98-stock t-90-tracecmd t-97-sframe t-91-sframe-attach t-99-sframe-gen
	t-94-jit t-92-tracecmd-switches t-93-analysis-perf t-96-unwind-user)
# The README's first command, three runs in one boot, each checked: a
# check that depends on the order or timing of events fails here first
demo_suite() {
	local rc
	"$REPO/rig/demo.sh" --repeat 3 "${kopt[@]}"
	rc=$?
	[ $rc = 0 ] || echo "FAIL demo # rig/demo.sh --repeat 3 exited $rc"
	echo "$(grep -c '^PASS demo-run-' "$logs/demo.log") passed, $((rc != 0)) failed"
	return $rc
}
# trace-cmd's -T on a real vanilla kernel: Debian's own 7.3 kernel, as
# its users run it (fetched, not built: rig/fetch-debian-kernel.sh), a
# boot of its own.  A failed fetch counts as a failure.
vanilla_suite() {
	local img
	if ! img=$("$REPO/rig/fetch-debian-kernel.sh"); then
		echo "FAIL guest-vanilla-kernel # rig/fetch-debian-kernel.sh failed"
		echo "0 passed, 1 failed"
		return 1
	fi
	guest_suite --out-name guest-vanilla-run --kernel "$img" \
		--modules "$(dirname "$img")/modules" "$@"
}
lane_suite() {
	case $1 in
	sframe-gen) "$REPO/tests/userspace/sframe-gen/run.sh" ;;
	sframe-register) "$REPO/tests/userspace/sframe-gen/register.sh" ;;
	plugin) "$REPO/tests/userspace/plugin/run.sh" ;;
	lib) "$REPO/tests/userspace/lib/run.sh" ;;
	kernelshark) KS_ARTIFACTS="$logs/kernelshark" "$REPO/tests/userspace/kernelshark/run.sh" ;;
	s390x-readers) FTD_TRACECMD="$tracecmd_bin" "$REPO/tests/s390x/readers.sh" ;;
	guest-b) guest_suite --out-name guest-run-b "${kopt[@]}" --timeout 3000 \
		--cmd "$guest_env $REPO/tests/guest/run-all.sh ${guest_b[*]}" ;;
	demo) demo_suite ;;
	guest-vanilla) vanilla_suite --timeout 600 \
		--cmd "FTD_TRACECMD=$(printf %q "$tracecmd_bin") $REPO/tests/guest/vanilla-tracecmd.sh" ;;
	esac
}
lane sframe-gen sframe-register plugin lib kernelshark s390x-readers
lane guest-b demo guest-vanilla

suite guest guest_suite "${kopt[@]}" --timeout 3000 \
	--cmd "$guest_env $REPO/tests/guest/run-all.sh --except ${guest_b[*]}"
# Deferred user stacks asked for on the kernel command line: a boot of its own
suite guest-boot guest_suite --out-name guest-boot-run "${kopt[@]}" --timeout 600 \
	--append "trace_options=userstacktrace_defer trace_event=syscalls:sys_enter_getppid trace_trigger=signal_generate.stacktrace:defer" \
	--cmd "$REPO/tests/guest/boot-params.sh"
# A deferred stack trigger on a syscall event on the kernel command line
# (stock 7.3 left every syscall event dead: patch 0001), a boot of its own
suite guest-boot-syscall guest_suite --out-name guest-boot-syscall-run "${kopt[@]}" --timeout 600 \
	--append "trace_event=syscalls:sys_enter_getppid trace_trigger=sys_enter_getppid.stacktrace:defer" \
	--cmd "$REPO/tests/guest/boot-syscall-trigger.sh"
# Yama's ptrace_scope 3 refuses attaching SFrame sections to files
# (8-sframe-lsm); scope 3 cannot be lowered, so a boot of its own
suite guest-yama guest_suite --out-name guest-yama-run "${kopt[@]}" --timeout 900 \
	--append "sysctl.kernel.yama.ptrace_scope=3" \
	--cmd "$REPO/tests/guest/boot-yama.sh"
# The user unwinders limited on the command line (unwind_user=, 3-sframe
# 10), a boot for each: frame pointers alone, SFrame alone
for m in fp sframe; do
	suite guest-unwind-$m guest_suite --out-name guest-unwind-$m-run "${kopt[@]}" --timeout 600 \
		--append "unwind_user=$m" --cmd "$REPO/tests/guest/run-all.sh t-96-unwind-user"
done
if [ $debug = 1 ]; then
	# 4 vCPUs (issue 35): more interleavings for lockdep and the races
	suite guest-debug guest_suite --debug --smp 4 --timeout 3600 \
		--cmd "FTD_PERF=$(printf %q "$perf_bin") $REPO/tests/guest/run-all.sh lifetime sframe exec-races"
fi
lane_count
# s390x: the kernel built above, one boot of tests/s390x/run.sh's cases
# built_image PID BUILD TEST WHAT: wait for the kernel built in the
# background (its logs $logs/BUILD-build.*), show its log and set img to
# its image; when it failed, one failure TEST and status 1
built_image() {
	[ -n "$1" ] && wait "$1"
	cat "$logs/$2-build.log"
	img=$(cat "$logs/$2-build.out" 2>/dev/null)
	if [ "$(cat "$logs/$2-build.rc" 2>/dev/null)" != 0 ] || [ ! -f "$img" ]; then
		echo "FAIL $3 # $4 failed"
		echo "0 passed, 1 failed"
		return 1
	fi
}
s390x_suite() {
	local img
	built_image "$s390x_pid" s390x s390x-build \
		"rig/build-kernel.sh --arch s390x" || return 1
	"$REPO/tests/s390x/run.sh" --kernel "$img" --out "$logs/s390x-run"
}
suite s390x s390x_suite

wait "$bu246_pid" 2>/dev/null
echo
echo "test-all: $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"
printf '  %s\n' "${summary[@]}"
[ $total_skip -gt 0 ] && echo "$total_skip skipped (not counted as passed)"
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ]
