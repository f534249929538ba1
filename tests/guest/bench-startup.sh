#!/bin/bash
# In-guest half of bench/startup.sh: what the SFrame registrar and the
# kernel's checks on PR_ADD_SFRAME add to the start of Debian's python3,
# and what the first deferred user stack of a fresh process costs, in
# instructions (TCG plugin) of the whole fork+exec+exit on one CPU
# (tests/workload/insn-marker run, ID 51: user and kernel alike).
#
# Modes, each a fresh `python3 -c PROG`, interleaved, BENCH_ROUNDS times
# (default 7), median:
#   plain       pass, no registrar
#   audit-off   pass, LD_AUDIT=registrar with SFREG_DISABLE=1: ld.so's
#               auditing alone, no section
#   warm        pass, registrar, its cache warm: every object's section
#               mapped from the cache, registered (prctl(PR_ADD_SFRAME):
#               the kernel's checks of each section's header and table)
#   cold        pass, registrar, an empty cache each run: every section
#               generated from .eh_frame
#   getppid-0   registrar (warm); two os.getppid() calls, each between
#               markers of its own (ID 52, 53: stubs the program writes
#               into an executable page and calls through ctypes), no
#               trigger
#   getppid-1   the same with stacktrace:defer on sys_enter_getppid: the
#               first call's count holds the first deferred stack of a
#               fresh process (its mm's rule table allocated, the FDE
#               table of each section it walks checked, a cold walk), the
#               second's a warm stack
# A traced run must give as many user stacks as calls, walked by SFrame,
# with no ring buffer loss; a run that fails a check gives no row and
# the script exits 1.
#   BENCH_ROUNDS (default 7), BENCH_CPU (default the last CPU)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
ROUNDS=${BENCH_ROUNDS:-7}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
REG=$REPO/sframe-gen/build/libsframe-register.so
PY=/usr/bin/python3
TMP=/tmp/bench-startup.$$
ID=51
mkdir -p $TMP/cache
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/startup.sh)"; exit 1; }
for f in $REG $WL/insn-marker; do
	[ -f $f ] || { echo "no $f"; exit 1; }
done
# two getppid() calls, each between the markers of its own ID
# (insn-marker.h's bytes, then ret), in an executable page
MARKED='import ctypes, mmap, os
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
for n, (kind, i) in enumerate(((1, 52), (2, 52), (1, 53), (2, 53))):
    m[n * 8:n * 8 + 8] = bytes((0x0f, 0x1f, 0x80, i, kind, 0x54, 0x46, 0xc3))
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
f = [ctypes.CFUNCTYPE(None)(base + 8 * n) for n in range(4)]
g = os.getppid
f[0](); g(); f[1](); f[2](); g(); f[3]()'
# warm the registrar's cache, so that no warm run generates
env SFREG_CACHE_DIR=$TMP/cache LD_AUDIT=$REG $PY -c pass

# one MODE: prints "insns check"
one() {
	local mode=$1 d=$TRACEFS/instances/bstart l i ok=ok calls=0 prog=pass
	local env=(PYTHONHASHSEED=0 SFREG_CACHE_DIR=$TMP/cache LD_AUDIT=$REG)
	reset_tracing >/dev/null
	mkdir $d && echo 4096 > $d/buffer_size_kb
	case $mode in
	plain) env=(PYTHONHASHSEED=0) ;;
	audit-off) env+=(SFREG_DISABLE=1) ;;
	cold) rm -rf $TMP/cold; mkdir $TMP/cold; env=(PYTHONHASHSEED=0 SFREG_CACHE_DIR=$TMP/cold LD_AUDIT=$REG) ;;
	getppid-*) prog=$MARKED; [ $mode = getppid-1 ] && calls=2 ;;
	esac
	l=$(wc -l < "$ICLOG")
	if [ $mode = getppid-0 ] || [ $mode = getppid-1 ]; then
		[ $calls -gt 0 ] && echo 'stacktrace:defer if comm == "python3"' > \
			$d/events/syscalls/sys_enter_getppid/trigger
		taskset -c $CPU env "${env[@]}" $PY -c "$prog" || ok=workload-exit-$?
		i="$(bench_insns "$l" 52)/$(bench_insns "$l" 53)"
		[[ $i == *-* ]] && ok=no-instruction-count
	else
		taskset -c $CPU env "${env[@]}" $WL/insn-marker run $ID -p $d/set_event_pid \
			$PY -c "$prog" || ok=workload-exit-$?
		i=$(bench_insns "$l" $ID)
		[ "$i" = - ] && ok=no-instruction-count
	fi
	echo 0 > $d/tracing_on
	[ "$(bench_lost $d)" = 0 ] || ok=ftrace-lost
	if [ $calls -gt 0 ]; then
		local n unw
		n=$(grep -c ' user_stack_deferred: ' $d/trace)
		unw=$(grep ' user_stack_deferred: ' $d/trace | grep -c 'unwinder=[a-z+]*sframe')
		[ "$n" = $calls ] || ok=stacks-$n-of-$calls
		[ "$unw" = $calls ] || ok=not-walked-by-sframe
		grep -m1 ' user_stack_deferred: ' $d/trace | grep -o 'nr=[0-9]*' > $TMP/frames
	fi
	echo "$i $ok"
}

MODES="plain audit-off warm cold getppid-0 getppid-1"
declare -A got why
failed=0
for r in $(seq 1 $ROUNDS); do
	for m in $MODES; do
		read -r i ok < <(one $m)
		got[$m]+="$i "
		bench_refuse $m "$ok"
	done
done
reset_tracing >/dev/null
frames=$(cat $TMP/frames 2>/dev/null)
rm -rf $TMP

echo "start of Debian's python3 with the SFrame registrar (LD_AUDIT), and its first deferred stack"
echo "  instructions of fork+exec+exit on CPU $CPU (TCG plugin, user and kernel), median of $ROUNDS rounds"
printf '%-10s %12s %7s   %s\n' mode insns x-plain runs
declare -A med
for m in $MODES; do
	if [ -n "${why[$m]:-}" ]; then
		printf '%-10s REFUSED: %s\n' $m "${why[$m]}"
		continue
	fi
	case $m in getppid-*)
		# first and second call apart: ID 52 and 53
		med[$m.1]=$(tr ' ' '\n' <<< "${got[$m]}" | cut -d/ -f1 | median)
		med[$m.2]=$(tr ' ' '\n' <<< "${got[$m]}" | cut -d/ -f2 | median)
		printf '%-10s %12s %7s   %s\n' "$m" "${med[$m.1]}/${med[$m.2]}" - "${got[$m]}"
		continue
	esac
	med[$m]=$(median <<< "${got[$m]}")
	printf '%-10s %12s %7s   %s\n' $m ${med[$m]} \
		"$(awk -v a=${med[$m]} -v b=${med[plain]:-0} 'BEGIN { if (b) printf "%.3f", a / b; else print "-" }')" \
		"${got[$m]}"
done
d() { # A B: A - B, or - when either is missing
	[ -n "${med[$1]:-}" ] && [ -n "${med[$2]:-}" ] && echo $((med[$1] - med[$2])) || echo -
}
echo "  registrar, warm (sections registered, the kernel's checks included): $(d warm plain) insns over plain"
echo "    of which ld.so's auditing alone (audit-off): $(d audit-off plain)"
echo "  registrar, cold (sections generated): $(d cold plain) insns over plain"
echo "  getppid-N: the first call's count / the second's (IDs 52/53)"
echo "  first deferred stack of a fresh process ($frames): $(d getppid-1.1 getppid-0.1) insns"
echo "  a second stack, same process: $(d getppid-1.2 getppid-0.2) insns"
exit $failed
