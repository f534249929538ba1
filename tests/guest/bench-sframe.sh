#!/bin/bash
# In-guest half of bench/sframe.sh: instructions per deferred user stack,
# SFrame against frame pointers, on one binary.
#
# tests/workload/callchain-sframe is callchain built with frame pointers
# and -Wa,--gsframe; `callchain-sframe bench N DEPTH` runs N getppid()
# between the markers of ID 63, DEPTH frames below work_inner.  It runs
# with its .sframe sections registered (LD_PRELOAD=libsframe-preload.so;
# the kernel tries SFrame first) and unregistered
# (LD_PRELOAD=libsframe-unreg.so: frame pointers alone), each untraced and
# with stacktrace:defer on syscalls:sys_enter_getppid (one asking event,
# one deferred stack per kernel entry), at each depth of BENCH_DEPTHS
# (default "0 34"), BENCH_ROUNDS times (default 3), interleaved.  One
# stack costs (median traced - median untraced) / N: trigger, kernel
# stack, cookie record, deferred walk, user stack record.
#
# BENCH_WAYS (default "sframe fp", the order each round runs them) may
# add `file`: libsframe-unreg.so with the same .sframe attached to the
# binary's file (prctl(PR_ATTACH_SFRAME_FILE), series 6-sframe-file;
# held by sframefile.py for the file runs alone), printed beside the
# section per mm.
#
# Every traced run is checked: N stacks whose innermost frame is
# bench_deep (counted from the instance's trace), the unwinder the records
# name (sframe or sframe+fp registered, fp unregistered), no ring buffer
# overrun or dropped event; a run that fails a check gives no row, and
# the script exits 1.  The frames printed are those the walk returned
# (the most common nr), the slopes per frame come from two depths:
# (cost at the deeper - cost at the shallower) / (their frame difference).
#   BENCH_N (default 1000), BENCH_CPU (default the last CPU), BENCH_WAYS
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
N=${BENCH_N:-1000}
ROUNDS=${BENCH_ROUNDS:-3}
DEPTHS=${BENCH_DEPTHS:-0 34}
WAYS=${BENCH_WAYS:-sframe fp}
# printed with fp first: the other rows are read against it
SHOW=$(for w in fp $WAYS; do [ $w != fp ] || [[ " $WAYS " == *" fp "* ]] && echo $w; done | awk '!seen[$0]++')
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
BIN=$WL/callchain-sframe
TOOL="python3 $REPO/bench/benchtool.py"
MARK_ID=63
TMP=/tmp/bench-sframe.$$
mkdir -p $TMP
kill_on_exit $TMP
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/sframe.sh)"; exit 1; }
for f in $BIN $WL/libsframe-preload.so $WL/libsframe-unreg.so; do
	[ -f $f ] || { echo "no $f: make -C tests/workload sframe"; exit 1; }
done

# attach WAY: for the file way, the section attached to the binary's file
# (held by a process of its own, in $hold, until detach); only for its
# runs: the fp runs must walk by frame pointers alone
hold=
attach() {
	[ $1 = file ] || return 0
	python3 $REPO/tests/guest/sframefile.py attach $BIN own --hold > $TMP/attach 2>&1 &
	hold=$!
	pids+=($hold)
	wait_for -t 60 grep -q '^ok' $TMP/attach
}
detach() {
	[ -n "$hold" ] || return 0
	kill $hold && wait $hold
	hold=
}

preload() { case $1 in sframe) echo $WL/libsframe-preload.so ;; fp | file) echo $WL/libsframe-unreg.so ;; esac; }

# one UNWINDER DEPTH TRACED: prints "insns check" (check: ok, or why the
# run is refused); a traced run writes what its stacks were to $TMP/stacks
one() {
	local u=$1 dp=$2 traced=$3 d=$TRACEFS/instances/bsf pid l i st ok=ok
	reset_tracing >/dev/null
	attach $u || { echo "- attach-failed"; detach; return; }
	mkdir $d && echo 8192 > $d/buffer_size_kb
	rm -f $TMP/go && mkfifo $TMP/go
	taskset -c $CPU env LD_PRELOAD=$(preload $u) sh -c "read x < $TMP/go; exec $BIN bench $N $dp" > /dev/null &
	pid=$!
	echo $pid > $d/set_event_pid
	[ $traced = 1 ] && echo stacktrace:defer > $d/events/syscalls/sys_enter_getppid/trigger
	l=$(wc -l < "$ICLOG")
	echo go > $TMP/go
	wait $pid || ok=workload-exit-$?
	i=$(bench_insns "$l" $MARK_ID)
	[ "$i" = - ] && ok=no-instruction-count
	echo 0 > $d/tracing_on
	st=$(bench_lost $d)
	[ "$st" = 0 ] || ok=ftrace-lost-$st
	if [ $traced = 1 ]; then
		$TOOL ftrace-depth $d/trace $BIN bench_deep > $TMP/stacks
		local n
		n=$(sed -n 's/^stacks=\([0-9]*\) .*/\1/p' $TMP/stacks)
		[ "${n:-0}" -ge $N ] || ok=stacks-missing-${n:-0}-of-$N
		case $u in
		sframe | file) grep -q 'unwinder=.*sframe' $TMP/stacks || ok=no-sframe-walk ;;
		fp) grep -q 'unwinder=fp:[0-9]*$' $TMP/stacks || ok=not-fp-alone ;;
		esac
	fi
	detach
	echo "$i $ok"
}

declare -A base traced why stacks
failed=0
for r in $(seq 1 $ROUNDS); do
	for dp in $DEPTHS; do
		for u in $WAYS; do
			for t in 0 1; do
				read -r i ok < <(one $u $dp $t)
				if [ $t = 0 ]; then base[$u.$dp]+="$i "; else traced[$u.$dp]+="$i "; fi
				[ $t = 1 ] && [ $r = 1 ] && stacks[$u.$dp]=$(cat $TMP/stacks)
				if [ "$ok" != ok ]; then
					why[$u.$dp]=${why[$u.$dp]:-}${why[$u.$dp]:+,}$ok
					failed=1
				fi
			done
		done
	done
done
reset_tracing >/dev/null

echo "deferred user stacks, SFrame against frame pointers: $BIN bench $N DEPTH"
echo "  (-O1, frame pointers and .sframe), registered (libsframe-preload.so) and unregistered (libsframe-unreg.so);"
[[ " $WAYS " == *" file "* ]] && echo "  file: unregistered, the same .sframe attached to the binary's file"
echo "  stacktrace:defer on syscalls:sys_enter_getppid; median of $ROUNDS rounds; instructions (TCG plugin), CPU $CPU"
printf '%-8s %6s %7s %8s %14s %12s  %s\n' unwinder DEPTH frames stacks insns/stack x-fp unwinders
declare -A cost fr
for dp in $DEPTHS; do
	for u in $SHOW; do
		k=$u.$dp
		if [ -n "${why[$k]:-}" ]; then
			printf '%-8s %6s REFUSED: %s\n' $u $dp "${why[$k]}"
			continue
		fi
		b=$(echo ${base[$k]} | median) t=$(echo ${traced[$k]} | median)
		cost[$k]=$(( (t - b) / N ))
		s=${stacks[$k]}
		fr[$k]=$(sed -n 's/.* frames=\([0-9]*\) .*/\1/p' <<< "$s")
		x=-
		[ -n "${cost[fp.$dp]:-}" ] && x=$(awk -v a=${cost[$k]} -v b=${cost[fp.$dp]} 'BEGIN { printf "%.2f", a / b }')
		printf '%-8s %6s %7s %8s %14s %12s  %s\n' $u $dp "${fr[$k]}" \
			"$(sed -n 's/^stacks=\([0-9]*\) .*/\1/p' <<< "$s")" ${cost[$k]} $x \
			"$(sed -n 's/.* unwinder=\(.*\)/\1/p' <<< "$s")"
	done
done
echo "frames (one stack of each, names by nm of the binary):"
for dp in $DEPTHS; do
	for u in $SHOW; do
		echo "  $u $dp: $(sed -n 's/.* names=\([^ ]*\).*/\1/p' <<< "${stacks[$u.$dp]:-}")"
	done
done
echo "samples (instructions of a loop, untraced / traced):"
for dp in $DEPTHS; do
	for u in $SHOW; do echo "  $u $dp: ${base[$u.$dp]:-}/ ${traced[$u.$dp]:-}"; done
done
set -- $DEPTHS
lo=$1 hi=${!#}
declare -A slope
if [ "$lo" != "$hi" ]; then
	echo "per frame, from depth $lo to $hi:"
	for u in $SHOW; do
		slope[$u]=$(awk -v a="${cost[$u.$lo]:-}" -v b="${cost[$u.$hi]:-}" \
			-v fa="${fr[$u.$lo]:-}" -v fb="${fr[$u.$hi]:-}" 'BEGIN {
			if (a == "" || b == "" || fa == "" || fb == "" || fa == fb) print "-"
			else printf "%.1f", (b - a) / (fb - fa) }')
		echo "  $u: ${slope[$u]} insns/frame (${fr[$u.$lo]:-?} to ${fr[$u.$hi]:-?} frames)"
	done
	awk -v m="${slope[sframe]:--}" -v f="${slope[file]:--}" 'BEGIN {
		if (f != "-" && m != "-" && m > 0) printf "  file/sframe per frame: %.2f\n", f / m }'
	echo "goals (issue 23):"
	awk -v f="${slope[fp]:--}" -v s="${slope[sframe]:--}" 'BEGIN {
		if (f == "-") printf "  %-48s no data\n", "frame-pointer walk insns/frame"
		else printf "  %-48s %s: %s, wanted <= 60\n", "frame-pointer walk insns/frame", f <= 60 ? "met" : "missed", f
		if (f == "-" || s == "-" || f <= 0) printf "  %-48s no data\n", "SFrame insns/frame over frame pointers"
		else printf "  %-48s %s: %.2f, wanted <= 2\n", "SFrame insns/frame over frame pointers", s / f <= 2 ? "met" : "missed", s / f
	}'
fi
if [ $failed = 1 ]; then
	echo "bench-sframe: some runs failed their checks; their rows are refused (REFUSED above)"
	exit 1
fi
exit 0
