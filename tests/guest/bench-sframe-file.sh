#!/bin/bash
# In-guest half of bench/sframe-file.sh: instructions per frame of the
# SFrame walk with a section of the process's own (per mm) against the
# same section attached to the file (prctl(PR_ATTACH_SFRAME_FILE), kernel
# series 6-sframe-file; Documentation/decisions.md, System-wide).
#
# tests/workload/callchain-sframe (frame pointers and .sframe) runs
# `bench N DEPTH` (N getppid() between the markers of ID 63, DEPTH frames
# below work_inner) in two ways, each untraced and with stacktrace:defer on
# syscalls:sys_enter_getppid, at each depth of BENCH_DEPTHS (default
# "0 34"), BENCH_ROUNDS times (default 3), interleaved:
#   mm    LD_PRELOAD=libsframe-preload.so: its .sframe registered in its mm
#   file  LD_PRELOAD=libsframe-unreg.so (none in its mm) with the same
#         .sframe attached to its file, held by sframefile.py for the run
#         (a process's own section wins, so the mm runs never use it)
# One stack costs (median traced - median untraced) / N; the cost per
# frame is the slope between the two depths.  Every traced run is
# checked: N stacks whose innermost frame is bench_deep, the records name
# the SFrame unwinder, no event lost; a run that fails a check gives no
# row and the script exits 1.  BENCH_N (default 1000), BENCH_CPU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
N=${BENCH_N:-1000}
ROUNDS=${BENCH_ROUNDS:-3}
DEPTHS=${BENCH_DEPTHS:-0 34}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
BIN=$WL/callchain-sframe
TOOL="python3 $REPO/bench/benchtool.py"
MARK_ID=63
TMP=/tmp/bench-sframe-file.$$
mkdir -p $TMP
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/sframe-file.sh)"; exit 1; }
for f in $BIN $WL/libsframe-preload.so $WL/libsframe-unreg.so; do
	[ -f $f ] || { echo "no $f: make -C tests/workload sframe"; exit 1; }
done

# the section attached to the binary's file for the whole run
python3 $REPO/tests/guest/sframefile.py attach $BIN own --hold > $TMP/attach 2>&1 &
HOLD=$!
trap 'kill $HOLD 2>/dev/null; wait 2>/dev/null; rm -rf $TMP' EXIT
wait_for -t 60 grep -q '^ok' $TMP/attach ||
	{ echo "bench-sframe-file: the attach failed: $(cat $TMP/attach)"; exit 1; }

preload() { case $1 in mm) echo $WL/libsframe-preload.so ;; file) echo $WL/libsframe-unreg.so ;; esac; }

# one WAY DEPTH TRACED: prints "insns check"; a traced run writes what
# its stacks were to $TMP/stacks
one() {
	local w=$1 dp=$2 traced=$3 d=$TRACEFS/instances/bsff pid l i st ok=ok n
	[ -d $d ] && rmdir $d
	mkdir $d && echo 8192 > $d/buffer_size_kb
	rm -f $TMP/go && mkfifo $TMP/go
	taskset -c $CPU env LD_PRELOAD=$(preload $w) sh -c "read x < $TMP/go; exec $BIN bench $N $dp" > /dev/null &
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
		n=$(sed -n 's/^stacks=\([0-9]*\) .*/\1/p' $TMP/stacks)
		[ "${n:-0}" -ge $N ] || ok=stacks-missing-${n:-0}-of-$N
		grep -q 'unwinder=.*sframe' $TMP/stacks || ok=no-sframe-walk
		echo '!stacktrace:defer' > $d/events/syscalls/sys_enter_getppid/trigger
	fi
	rmdir $d
	echo "$i $ok"
}

reset_tracing >/dev/null
declare -A base traced why stacks
failed=0
for r in $(seq 1 $ROUNDS); do
	for dp in $DEPTHS; do
		for w in mm file; do
			for t in 0 1; do
				read -r i ok < <(one $w $dp $t)
				if [ $t = 0 ]; then base[$w.$dp]+="$i "; else traced[$w.$dp]+="$i "; fi
				[ $t = 1 ] && [ $r = 1 ] && stacks[$w.$dp]=$(cat $TMP/stacks)
				if [ "$ok" != ok ]; then
					why[$w.$dp]=${why[$w.$dp]:-}${why[$w.$dp]:+,}$ok
					failed=1
				fi
			done
		done
	done
done
reset_tracing >/dev/null

echo "SFrame walk, the section per mm against attached to the file: $BIN bench $N DEPTH"
echo "  mm: libsframe-preload.so registers its .sframe; file: libsframe-unreg.so, the same .sframe attached to the file"
echo "  stacktrace:defer on syscalls:sys_enter_getppid; median of $ROUNDS rounds; instructions (TCG plugin), CPU $CPU"
printf '%-6s %6s %7s %8s %14s %10s  %s\n' way DEPTH frames stacks insns/stack x-mm unwinders
declare -A cost fr
for dp in $DEPTHS; do
	for w in mm file; do
		k=$w.$dp
		if [ -n "${why[$k]:-}" ]; then
			printf '%-6s %6s REFUSED: %s\n' $w $dp "${why[$k]}"
			continue
		fi
		b=$(echo ${base[$k]} | median) t=$(echo ${traced[$k]} | median)
		cost[$k]=$(( (t - b) / N ))
		s=${stacks[$k]}
		fr[$k]=$(sed -n 's/.* frames=\([0-9]*\) .*/\1/p' <<< "$s")
		x=-
		[ -n "${cost[mm.$dp]:-}" ] && x=$(awk -v a=${cost[$k]} -v b=${cost[mm.$dp]} 'BEGIN { printf "%.2f", a / b }')
		printf '%-6s %6s %7s %8s %14s %10s  %s\n' $w $dp "${fr[$k]}" \
			"$(sed -n 's/^stacks=\([0-9]*\) .*/\1/p' <<< "$s")" ${cost[$k]} $x \
			"$(sed -n 's/.* unwinder=\(.*\)/\1/p' <<< "$s")"
	done
done
echo "samples (instructions of a loop, untraced / traced):"
for dp in $DEPTHS; do
	for w in mm file; do echo "  $w $dp: ${base[$w.$dp]:-}/ ${traced[$w.$dp]:-}"; done
done
set -- $DEPTHS
lo=$1 hi=${!#}
declare -A slope
if [ "$lo" != "$hi" ]; then
	echo "per frame, from depth $lo to $hi:"
	for w in mm file; do
		slope[$w]=$(awk -v a="${cost[$w.$lo]:-}" -v b="${cost[$w.$hi]:-}" \
			-v fa="${fr[$w.$lo]:-}" -v fb="${fr[$w.$hi]:-}" 'BEGIN {
			if (a == "" || b == "" || fa == "" || fb == "" || fa == fb) print "-"
			else printf "%.1f", (b - a) / (fb - fa) }')
		echo "  $w: ${slope[$w]} insns/frame (${fr[$w.$lo]:-?} to ${fr[$w.$hi]:-?} frames)"
	done
	awk -v m="${slope[mm]}" -v f="${slope[file]}" 'BEGIN {
		if (m == "-" || f == "-" || m <= 0) print "  file/mm per frame: no data"
		else printf "  file/mm per frame: %.2f\n", f / m }'
fi
if [ $failed = 1 ]; then
	echo "bench-sframe-file: some runs failed their checks; their rows are refused (REFUSED above)"
	exit 1
fi
exit 0
