#!/bin/bash
# In-guest half of bench/sframe-python.sh: instructions per deferred user
# stack of Debian's own python3 (no frame pointers, no .sframe), walked
# with the SFrame sections the registrar generates from .eh_frame, beside
# a frame-pointer walk of a program we build (callchain-sframe with its
# sections unregistered) in the same boot.
#
# python3 runs `os.getppid()` N times at the bottom of D Python-level
# calls made through map() (Python 3.11 runs a plain Python call in the
# same C frame; a call from C code, map()'s, adds the interpreter's C
# frames), with LD_AUDIT=registrar
# (warm cache) and PYTHONHASHSEED=0, between the markers of ID 50
# (tests/workload/insn-marker run); callchain-sframe runs `bench N DEPTH`
# between its own (ID 63).  Each untraced, then with stacktrace:defer on
# syscalls:sys_enter_getppid (one asking event, one stack per kernel
# entry), BENCH_ROUNDS times (default 3), interleaved.  One stack costs
# (median traced - median untraced) / N.  Every traced run must give N
# stacks or more, no ring buffer loss, and (python3) stacks walked by
# SFrame; a run that fails a check gives no row and the script exits 1.
# The frames printed are the most common user_stack_deferred nr; the
# per-frame cost is the slope between the two depths of each program.
#   BENCH_N (default 1000), BENCH_PY_DEPTHS (default "0 6"),
#   BENCH_FP_DEPTHS (default "0 34"), BENCH_CPU (default the last CPU)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
N=${BENCH_N:-1000}
ROUNDS=${BENCH_ROUNDS:-3}
PY_DEPTHS=${BENCH_PY_DEPTHS:-0 6}
FP_DEPTHS=${BENCH_FP_DEPTHS:-0 34}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
REG=$REPO/sframe-gen/build/libsframe-register.so
PY=/usr/bin/python3
FPBIN=$WL/callchain-sframe
TMP=/tmp/bench-python.$$
mkdir -p $TMP/cache
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/sframe-python.sh)"; exit 1; }
for f in $REG $FPBIN $WL/libsframe-unreg.so $WL/insn-marker; do
	[ -f $f ] || { echo "no $f"; exit 1; }
done
pyprog() { # DEPTH: the Python program
	printf 'import os\ndef rec(n):\n    if n:\n        return list(map(rec, [n - 1]))[0]\n    g = os.getppid\n    for i in range(%d):\n        g()\nrec(%d)\n' "$N" "$1"
}
# warm the registrar's cache, so that no run generates
env SFREG_CACHE_DIR=$TMP/cache LD_AUDIT=$REG $PY -c pass

# one PROG DEPTH TRACED: prints "insns check frames unwinder"
one() {
	local prog=$1 dp=$2 traced=$3 d=$TRACEFS/instances/bpy l i st ok=ok id
	reset_tracing >/dev/null
	mkdir $d && echo 8192 > $d/buffer_size_kb
	[ $traced = 1 ] && echo stacktrace:defer > $d/events/syscalls/sys_enter_getppid/trigger
	l=$(wc -l < "$ICLOG")
	if [ $prog = python3 ]; then
		id=50
		pyprog $dp > $TMP/prog.py
		taskset -c $CPU env PYTHONHASHSEED=0 SFREG_CACHE_DIR=$TMP/cache LD_AUDIT=$REG \
			$WL/insn-marker run $id -p $d/set_event_pid $PY $TMP/prog.py || ok=workload-exit-$?
	else
		id=63
		taskset -c $CPU env LD_PRELOAD=$WL/libsframe-unreg.so $FPBIN bench $N $dp > /dev/null ||
			ok=workload-exit-$?
	fi
	i=$(bench_insns "$l" $id)
	[ "$i" = - ] && ok=no-instruction-count
	echo 0 > $d/tracing_on
	st=$(bench_lost $d)
	[ "$st" = 0 ] || ok=ftrace-lost-$st
	local n=- fr=- unw=-
	if [ $traced = 1 ]; then
		read -r n fr unw < <(awk '/ user_stack_deferred: / {
			s++; for (i = 1; i <= NF; i++) {
				if ($i ~ /^nr=/) { sub(/^nr=/, "", $i); c[$i]++ }
				if ($i ~ /^unwinder=/) { sub(/^unwinder=/, "", $i); u[$i]++ } } }
			END { m = 0; for (k in c) if (c[k] > m) { m = c[k]; f = k }
			      w = ""; for (k in u) w = w (w ? "," : "") k ":" u[k]
			      print s + 0, (f == "" ? "-" : f), (w == "" ? "-" : w) }' $d/trace)
		[ "$n" -ge $N ] || ok=stacks-missing-$n-of-$N
		[ $prog = python3 ] && { [[ $unw == *sframe* ]] || ok=not-walked-by-sframe; }
		[ $prog = fp ] && { [[ $unw == fp:* && $unw != *,* ]] || ok=not-fp-alone; }
	fi
	echo "$i $ok $fr $unw"
}

declare -A base traced why frames unws
failed=0
for r in $(seq 1 $ROUNDS); do
	for prog in python3 fp; do
		[ $prog = python3 ] && depths=$PY_DEPTHS || depths=$FP_DEPTHS
		for dp in $depths; do
			for t in 0 1; do
				read -r i ok fr unw < <(one $prog $dp $t)
				k=$prog.$dp
				if [ $t = 0 ]; then base[$k]+="$i "; else traced[$k]+="$i "; fi
				[ $t = 1 ] && frames[$k]=$fr unws[$k]=$unw
				bench_refuse $k "$ok"
			done
		done
	done
done
reset_tracing >/dev/null
rm -rf $TMP

echo "deferred user stacks of Debian's python3 (SFrame generated from .eh_frame, registrar as LD_AUDIT)"
echo "  beside callchain-sframe's frame-pointer walk (sections unregistered); stacktrace:defer on"
echo "  syscalls:sys_enter_getppid; median of $ROUNDS rounds of $N calls; instructions (TCG plugin), CPU $CPU"
printf '%-9s %6s %7s %14s  %s\n' program depth frames insns/stack unwinders
declare -A cost
for prog in python3 fp; do
	[ $prog = python3 ] && depths=$PY_DEPTHS || depths=$FP_DEPTHS
	for dp in $depths; do
		k=$prog.$dp
		if [ -n "${why[$k]:-}" ]; then
			printf '%-9s %6s REFUSED: %s\n' $prog $dp "${why[$k]}"
			continue
		fi
		b=$(echo ${base[$k]} | median) t=$(echo ${traced[$k]} | median)
		cost[$k]=$(( (t - b) / N ))
		printf '%-9s %6s %7s %14s  %s\n' $prog $dp "${frames[$k]}" ${cost[$k]} "${unws[$k]}"
	done
done
echo "samples (instructions of a run, untraced / traced):"
for k in "${!base[@]}"; do echo "  $k: ${base[$k]}/ ${traced[$k]:-}"; done
declare -A slope
for prog in python3 fp; do
	[ $prog = python3 ] && set -- $PY_DEPTHS || set -- $FP_DEPTHS
	lo=$1 hi=${!#}
	slope[$prog]=$(awk -v a="${cost[$prog.$lo]:-}" -v b="${cost[$prog.$hi]:-}" \
		-v fa="${frames[$prog.$lo]:-}" -v fb="${frames[$prog.$hi]:-}" 'BEGIN {
		if (a == "" || b == "" || fa == fb || fa == "-" || fb == "-") print "-"
		else printf "%.1f", (b - a) / (fb - fa) }')
	echo "per frame, $prog: ${slope[$prog]} insns/frame (${frames[$prog.$lo]:-?} to ${frames[$prog.$hi]:-?} frames)"
done
awk -v s="${slope[python3]}" -v f="${slope[fp]}" 'BEGIN {
	if (s == "-" || f == "-" || f <= 0) print "python3 SFrame per frame over frame pointers: no data"
	else printf "python3 SFrame per frame over frame pointers: %.2fx\n", s / f }'
if [ $failed = 1 ]; then
	echo "bench-python: some runs failed their checks; their rows are refused (REFUSED above)"
	exit 1
fi
exit 0
