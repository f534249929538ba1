#!/bin/bash
# In-guest half of bench/kernel.sh: the cost of stack traces per event,
# measured side by side in one boot.  A getppid() loop; four events fire
# per syscall (sys_enter_getppid, sys_exit_getppid, raw_syscalls
# sys_enter and sys_exit), only for the benchmark's own pid.
#
# Modes: off (no event enabled), none (the events, no stacks),
# stacktrace, userstacktrace (stacktrace plus the in-place option),
# defer (stacktrace:defer), and defer-first (stacktrace:defer on the
# first event of each syscall, stacktrace on the other three: the cost of
# one request per kernel entry).  Rounds interleave the modes.
#
# Columns:
#   ns/event     (ns/syscall - off) / 4: what one traced event costs
#   ratio        ns/event / ns/event of stacktrace
#   stack-ns     (ns/syscall - none) / 4: the stack part of an event
#   stack-ratio  stack-ns / stack-ns of stacktrace
#
# Every run is pinned to one CPU (BENCH_CPU, default the last) with
# taskset.  callchain's loop runs between two instruction-count markers
# (tests/workload/insn-marker.h).  When QEMU runs the TCG plugin
# bench/tcg-plugin/insn-count.c with its log at
# $FTD_RESULTS/insn-count.log (bench/kernel.sh does that), a second table
# gives instructions instead of ns: the plugin counts all that CPU
# executes between the markers (the loop's user and kernel code, and
# interrupts that land in it):
#   insn/syscall  instructions of the loop / N, median over rounds
#   insn/event    (insn/syscall - that of off) / 4
#   ratio         insn/event / insn/event of stacktrace
#   stack-insn    (insn/syscall - that of none) / 4, and its ratio
# Without the plugin's log the second table is left out.
#
# With perf (BENCH_PERF, the perf of rig/build-perf.sh), the perf modes
# sample the two raw_syscalls tracepoints of the same loop, every event
# (-c 1), pinned to the same CPU, with perf itself on another one:
# perf-none (no callchain), perf-fp, perf-fpdefer (fp,defer) and
# perf-dwarf.  A perf row's events are 2 per syscall, and its loop runs
# BENCH_PERF_N syscalls (default N / 10: dwarf copies 8 KiB per sample);
# its B/event counts the sample records (and the deferred callchain
# records) in perf.data, read with perf report -D.
#
# BENCH_DEPTH: the loop runs that many frames deeper (callchain bench N
# DEPTH); the user stack is DEPTH + 6 frames deep.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
N=${BENCH_N:-20000}
ROUNDS=${BENCH_ROUNDS:-5}
DEPTH=${BENCH_DEPTH:-0}
PERF=${BENCH_PERF:-}
NP=${BENCH_PERF_N:-$((N / 10))}
EVENTS="syscalls/sys_enter_getppid syscalls/sys_exit_getppid raw_syscalls/sys_enter raw_syscalls/sys_exit"
MODES=${BENCH_MODES:-"off none stacktrace userstacktrace defer defer-first"}
if [ -n "$PERF" ] && [ -z "${BENCH_MODES:-}" ]; then
	MODES+=" perf-none perf-fp perf-fpdefer perf-dwarf"
fi
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
ICLOG=${BENCH_INSN_LOG:-${FTD_RESULTS:-/results}/insn-count.log}
MARK_ID=63	# INSN_MARKER_BENCH in tests/workload/insn-marker.h
insn=0
[ -f "$ICLOG" ] && insn=1

setup() { # MODE
	local d=$TRACEFS/instances/bench e
	reset_tracing >/dev/null
	mkdir $d && echo 65536 > $d/buffer_size_kb
	[ $1 = off ] && return 0
	for e in $EVENTS; do
		echo 1 > $d/events/$e/enable
		case $1 in
		stacktrace|userstacktrace) echo stacktrace > $d/events/$e/trigger ;;
		defer) echo stacktrace:defer > $d/events/$e/trigger ;;
		defer-first)
			# the first event of the entry asks, the others take
			# kernel stacks only: the cost of one request per entry
			if [ $e = raw_syscalls/sys_enter ]; then
				echo stacktrace:defer > $d/events/$e/trigger
			else
				echo stacktrace > $d/events/$e/trigger
			fi ;;
		esac
	done
	[ $1 = userstacktrace ] && echo 1 > $d/options/userstacktrace
	return 0
}

insns() { # LINES: the plugin's count of the loop, written after line LINES
	local l
	l=$(tail -n +$(($1 + 1)) "$ICLOG")
	case $l in
	"insn-count vcpu=$CPU id=$MARK_ID insns="*) echo "${l##*insns=}" ;;
	*) echo "warning: no instruction count for the loop: '$l'" >&2; echo - ;;
	esac
}

# perf_bytes DATA: bytes of sample and deferred callchain records per
# sample, and the frames of the last sample's callchain(s)
perf_bytes() {
	"$PERF" report -D -i "$1" 2>/dev/null | awk '
		# mawk has no strtonum
		function hex(h,  i, v) {
			v = 0
			for (i = 3; i <= length(h); i++)
				v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}
		/PERF_RECORD_SAMPLE|PERF_RECORD_CALLCHAIN_DEFERRED/ {
			if (match($0, /\[0x[0-9a-f]+\]/))
				b += hex(substr($0, RSTART + 1, RLENGTH - 2))
			if (/PERF_RECORD_SAMPLE/) n++
		}
		END { printf "%d\n", n ? b / n : 0 }'
}

run_perf() { # MODE -> as run(), per syscall of its own loop of NP
	local data=/tmp/bench-perf.data ns l i=- cg=() b
	case $1 in
	perf-fp) cg=(--call-graph fp) ;;
	perf-fpdefer) cg=(--call-graph fp,defer) ;;
	perf-dwarf) cg=(--call-graph dwarf) ;;
	esac
	reset_tracing >/dev/null
	rm -f $data
	[ $insn = 1 ] && l=$(wc -l < "$ICLOG")
	ns=$(taskset -c 0 "$PERF" record -q -o $data -c 1 \
		-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit "${cg[@]}" \
		-- taskset -c $CPU $WL/callchain bench $NP $DEPTH 2>/dev/null)
	[ $insn = 1 ] && i=$(insns $l)
	b=$(perf_bytes $data)
	# bytes per syscall: 2 events
	echo "$ns $((b * 2)) $i"
}

run() { # MODE -> prints "ns_per_syscall bytes_per_syscall insns_of_the_loop"
	local d=$TRACEFS/instances/bench ns bytes overrun l i=-
	case $1 in perf-*) run_perf $1; return ;; esac
	setup $1
	[ $insn = 1 ] && l=$(wc -l < "$ICLOG")
	ns=$(taskset -c $CPU sh -c "echo \$\$ > $d/set_event_pid; exec $WL/callchain bench $N $DEPTH")
	[ $insn = 1 ] && i=$(insns $l)
	bytes=$(cat $d/per_cpu/cpu*/stats | awk '/^bytes:/ { s += $2 } END { print s }')
	overrun=$(cat $d/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s }')
	[ "$overrun" = 0 ] || echo "warning: $1 overran the buffer ($overrun)" >&2
	echo "$ns $((bytes / N)) $i"
}

declare -A samples bytes isamples
for r in $(seq 1 $ROUNDS); do
	for m in $MODES; do
		read -r ns b i < <(run $m)
		samples[$m]+="$ns "
		isamples[$m]+="$i "
		bytes[$m]=$b
	done
done
reset_tracing >/dev/null

median() { tr ' ' '\n' | grep -x '[0-9-]*[0-9]' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
declare -A med
for m in $MODES; do med[$m]=$(echo ${samples[$m]} | median); done
off=${med[off]} none=${med[none]} st=${med[stacktrace]}
ratio() { awk -v a=$1 -v b=$2 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# per mode: traced events per syscall, syscalls per loop, the mode the
# stack columns subtract (the same events without stacks)
nev() { case $1 in perf-*) echo 2 ;; *) echo 4 ;; esac; }
nloop() { case $1 in perf-*) echo $NP ;; *) echo $N ;; esac; }
base() { case $1 in perf-*) echo perf-none ;; *) echo none ;; esac; }
echo "deferred user stack benchmark: getppid() loop, $N syscalls x 4 traced events ($NP x 2 for perf), user stack $((DEPTH + 6)) frames deep, median of $ROUNDS rounds, $(nproc) CPUs, pinned to CPU $CPU"
printf '%-14s %10s %9s %6s %9s %11s %8s\n' mode ns/syscall ns/event ratio stack-ns stack-ratio B/event
for m in $MODES; do
	k=$(nev $m) b=$(base $m)
	ev=$(( (${med[$m]} - off) / k ))
	stk=$(( (${med[$m]} - ${med[$b]:-$none}) / k ))
	[ $m = off ] && stk=0
	printf '%-14s %10d %9d %6s %9d %11s %8d\n' $m ${med[$m]} $ev \
		$(ratio $ev $(( (st - off) / 4 ))) $stk $(ratio $stk $(( (st - none) / 4 ))) \
		$(( ${bytes[$m]} / k ))
done
echo "samples (ns/syscall):"
for m in $MODES; do echo "  $m: ${samples[$m]}"; done

[ $insn = 1 ] || exit 0
declare -A imed
for m in $MODES; do imed[$m]=$(echo ${isamples[$m]} | median); done
if [ -z "${imed[off]:-}" ] || [ -z "${imed[none]:-}" ] || [ -z "${imed[stacktrace]:-}" ]; then
	echo "instruction counts incomplete (see warnings); no instruction table"
	exit 0
fi
# awk: the counts go past 2^31 and the ratios want decimals.  Every
# count is taken per syscall of its own loop first.
declare -A iev
echo
echo "instructions (TCG plugin insn-count, CPU $CPU; median of $ROUNDS rounds; per event = (insn/syscall - off) / events per syscall):"
printf '%-14s %12s %10s %6s %10s %11s %8s\n' mode insn/syscall insn/event ratio stack-insn stack-ratio B/event
for m in $MODES; do
	b=$(base $m)
	line=$(awk -v m=$m -v n=$(nloop $m) -v k=$(nev $m) -v i=${imed[$m]} \
	    -v off=${imed[off]} -v N=$N -v none=${imed[none]} \
	    -v bn=$(nloop $b) -v bi=${imed[$b]:-0} -v st=${imed[stacktrace]} \
	    -v bytes=$(( ${bytes[$m]} / $(nev $m) )) 'BEGIN {
		o = off / N; ev = (i / n - o) / k
		stk = (m == "off") ? 0 : (i / n - bi / bn) / k
		stev = (st / N - o) / 4; ststk = (st - none) / N / 4
		r = (stev > 0) ? ev / stev : 0; sr = (ststk > 0) ? stk / ststk : 0
		printf "%-14s %12.1f %10.1f %6.2f %10.1f %11.2f %8d\n", m, i / n, ev, r, stk, sr, bytes
	}')
	echo "$line"
	iev[$m]=$(awk '{ print $3 }' <<< "$line")
done
echo "samples (instructions of a loop):"
for m in $MODES; do echo "  $m: ${isamples[$m]}"; done

# The goals of the kernel series (issue 7), checked on this run's numbers
goal() { # DESCRIPTION A OP B: "met" or "missed" with the numbers
	local v
	v=$(awk -v a=$2 -v b=$4 -v op="$3" 'BEGIN {
		ok = (op == "<=") ? a <= b : a >= b; print ok ? "met" : "missed" }')
	printf '  %-58s %s: %s, wanted %s %s\n' "$1" $v $2 "$3" $4
}
echo
echo "goals:"
[ -n "${iev[defer]:-}" ] &&
	goal "defer insn/event within 1.15x of stacktrace" \
		"$(ratio ${iev[defer]%.*} ${iev[stacktrace]%.*})" "<=" 1.15
if [ -n "${iev[perf-fpdefer]:-}" ] && [ -n "${iev[defer]:-}" ]; then
	goal "defer insn/event <= perf fp,defer insn/sample" ${iev[defer]} "<=" ${iev[perf-fpdefer]}
	goal "defer B/event <= perf fp,defer B/sample" $((bytes[defer] / 4)) "<=" $((bytes[perf-fpdefer] / 2))
	[ -n "${bytes[perf-dwarf]:-}" ] &&
		goal "perf dwarf B/sample / defer B/event >= 20" \
			"$(ratio $((bytes[perf-dwarf] / 2)) $((bytes[defer] / 4)))" ">=" 20
fi
