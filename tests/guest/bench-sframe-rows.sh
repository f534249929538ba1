#!/bin/bash
# In-guest half of bench/sframe-rows.sh: instructions per deferred user
# stack and per frame, SFrame against frame pointers, when the addresses
# looked up are many and new (issue 37).
#
# The workload is tests/workload/sfchain (sfchain.c): K paths of D
# frames, each frame its own function, round robin, one getppid() per
# path, between the instruction-count markers of ID 61.  Two builds, one
# binary for both unwinders each (frame pointers and .sframe):
# sfchain-small (its own section: 64 chain functions, 79 FDEs) and
# sfchain-big (10000 chain functions: a section of python3.11's size).
# Each run is made with the sections registered (LD_PRELOAD=
# libsframe-preload.so) and unregistered (libsframe-unreg.so: frame
# pointers alone), untraced and with stacktrace:defer on
# syscalls:sys_enter_getppid; one stack costs (median traced - median
# untraced) / N.
#
#   cold     K = 1, and before each getppid() the process registers and
#            unregisters libsfwork.so's section (sfchain cold): the removal
#            makes the kernel forget every rule it kept for the mm, so
#            each lookup of the walk is a first lookup (a maple tree
#            lookup, a binary search over the FDEs in user memory, the
#            FRE walk).  The untraced runs do the same; what the two
#            prctl() cost is printed (untraced cold - untraced warm).
#            Both builds, at BENCH_COLD_DEPTHS (default "2 32").
#   rotate   sfchain-big, no invalidation, K = A / D paths for A in
#            BENCH_ROTATE_ADDRS (default "64 256 1024 4096" distinct chain
#            addresses), at BENCH_ROTATE_DEPTHS (default "4 16").
# The rows below run sfchain-more-small and sfchain-more-big: the same
# chains, built with sfchain.c's other modes (sfchain-more.c) and a
# hand-written frame without FDE (sfchain-nofde.S), so that the binaries
# of cold and rotate stay as they were.
#   nofde    the cost of a failed lookup before the frame-pointer fallback:
#            K = 1 path of BENCH_NOFDE_DEPTH (default 4) chain frames, its
#            rules kept (no invalidation), entered through J frames of
#            sfc_nofde (sfchain nofde N D J), code with a frame-pointer
#            prologue and no CFI, so no FDE in .eh_frame or .sframe: the
#            SFrame unwinder finds the binary's section, no FDE in it, and
#            takes that frame by frame pointers.  A failed lookup keeps
#            nothing, so every stack pays it J times.  J in
#            BENCH_NOFDE_FRAMES (default "0 1 16"), both builds
#            (BENCH_NOFDE_BINS, default "small big").  The records must
#            name unwinder=sframe+fp for every stack with J > 0
#            (sframe at J = 0, fp unregistered): a build whose sfc_nofde
#            has an FDE (make SFC_NOFDE_CFI=1) is refused.  Per stack:
#            J = 1 - J = 0; per such frame: the slope between the ends of
#            J, and sframe - fp of it, the failed lookup itself.
#   procs    many short-lived processes: BENCH_PROCS (default 200)
#            processes, each forked and exec'd fresh (sfchain procs P S D
#            1), each making BENCH_PROCS_STACKS (default 1) stacks of D
#            frames in BENCH_PROCS_DEPTHS (default "2 32") and exiting,
#            both builds.  Each process has its own pair of markers around
#            its stacks (sfchain once), and the P counts are summed (the
#            plugin's counts are per vCPU: the processes are pinned to one
#            CPU and run one at a time, so the pairs do not nest); the
#            exec, the registration of the sections and the exit are
#            outside them.  So a stack's cost here is that of the first
#            stacks of an mm: the kept-rule table's allocation, the first
#            lookup's check of the FDE table's order (and the rows'
#            decoding, decode=2), the deferred unwinder's per-task cache,
#            and a cold walk.  The table's kfree() at exit is not counted.
#            The model forgets its table every S stacks (benchtool.py chain
#            fresh=S): exact.  Besides sframe (decode=2: the rows made at
#            the first lookup, in the count) and sframe0, "sframe1" with
#            decode=1, the kernel's default, where the rows are made only
#            once lookups that read the section have paid for them: a
#            process of a few stacks checks the FDE table's order and reads
#            the section.
#   threads  one process of T threads (BENCH_THREADS, default "1 4 16")
#            on every CPU, each the rotate pattern over
#            BENCH_THREADS_ADDRS (default 256) addresses at
#            BENCH_THREADS_DEPTH (default 4) (K = A / D paths, thread I
#            from path I % K), ceil(N / T) stacks each, started together:
#            the mm's kept-rule table is shared and its slots written
#            concurrently.  sfchain-more-big; one round of the K paths
#            before the count (sfchain threads).  The count is the sum of
#            the counts of every vCPU (sfchain marks on each CPU it may run
#            on, moving itself there), so it has whatever else ran on the
#            other CPU as well: noisier than the one-CPU rows.  T = 1 is
#            the single-threaded row of the same method and binary.  Each
#            thread's first deferred stack also pays for its task's unwind
#            cache (so does T = 1's one thread).  The
#            hit column replays the records in their order (timestamps) as
#            if the walks were serial: an estimate, not exact, for T > 1
#            (two walks that interleave, or a slot being written that
#            sframe_rule_put() leaves alone, are not modelled).
# The SFrame runs are made twice where the kernel decodes the rules of a
# section into kernel memory (3-sframe 0011,
# /sys/module/sframe/parameters/decode; fde_index on kernels that had
# only the FDE index): "sframe" with the rows, "sframe0" without them
# (decode=0 while the sections are registered: every lookup reads the
# section in user memory), in the same boot; BENCH_NOIDX=0 leaves out
# the second.
# Per frame: the slope between the two depths of a row.  The hit rate of
# the kept-rule table: the kernel has no counter, so it is the exact
# user-space model of bench/benchtool.py `chain` replaying the addresses
# of the stacks the traced SFrame run recorded (round 1), as if every
# lookup went through the table: since 3-sframe 0012 a walk's lookups in
# the rows it kept are searched first and skip it.
#
# Every traced run is checked: N stacks (after the warm-up round; procs: P
# x S, threads: T x ceil(N / T)) whose innermost frame is a chain function
# (round 1; later rounds count the stacks), the unwinder the records name
# (sframe or sframe+fp registered, fp alone unregistered; nofde: exactly
# sframe+fp, or sframe at J = 0, in every record), one frame count
# for both unwinders, no ring buffer overrun or dropped event, and (procs,
# threads) one count per process or per CPU; a run that
# fails a check gives no row, and the script exits 1.
#   BENCH_N (default 1000), BENCH_ROUNDS (default 3), BENCH_CPU,
#   BENCH_ROWS (default "cold rotate nofde procs threads")
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
N=${BENCH_N:-1000}
ROUNDS=${BENCH_ROUNDS:-3}
ROWS=${BENCH_ROWS:-cold rotate nofde procs threads}
COLD_DEPTHS=${BENCH_COLD_DEPTHS:-2 32}
ROT_DEPTHS=${BENCH_ROTATE_DEPTHS:-4 16}
ROT_ADDRS=${BENCH_ROTATE_ADDRS:-64 256 1024 4096}
NOFDE_FRAMES=${BENCH_NOFDE_FRAMES:-0 1 16}
NOFDE_DEPTH=${BENCH_NOFDE_DEPTH:-4}
NOFDE_BINS=${BENCH_NOFDE_BINS:-small big}
PROCS=${BENCH_PROCS:-200}
PROCS_STACKS=${BENCH_PROCS_STACKS:-1}
PROCS_DEPTHS=${BENCH_PROCS_DEPTHS:-2 32}
THREADS=${BENCH_THREADS:-1 4 16}
THR_ADDRS=${BENCH_THREADS_ADDRS:-256}
THR_DEPTH=${BENCH_THREADS_DEPTH:-4}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
IDXP=/sys/module/sframe/parameters/decode
# the rows at a section's first lookup (2; 1, the default, makes them
# once the lookups that read the section have paid for them)
IDXON=2
[ -f $IDXP ] || { IDXP=/sys/module/sframe/parameters/fde_index IDXON=1; }
UNITS="sframe fp"
[ -f $IDXP ] && [ "${BENCH_NOIDX:-1}" = 1 ] && UNITS="sframe sframe0 fp"

ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
TOOL="python3 $REPO/bench/benchtool.py"
MARK_ID=61
TMP=/tmp/bench-sfrows.$$
mkdir -p $TMP
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/sframe-rows.sh)"; exit 1; }
for f in $WL/sfchain-small $WL/sfchain-big $WL/sfchain-more-small $WL/sfchain-more-big \
	$WL/libsframe-preload.so $WL/libsframe-unreg.so; do
	[ -f $f ] || { echo "no $f: bench/sframe-rows.sh builds it"; exit 1; }
done

preload() { case $1 in sframe*) echo $WL/libsframe-preload.so ;; fp) echo $WL/libsframe-unreg.so ;; esac; }

# What the rows other than cold and rotate change in one() (unset for
# those two, which run as they always did):
#   NS     the stacks a traced run must have after the warm-up (N)
#   SKIP   the warm-up stacks (the K of `bench N D K`)
#   MODEL  benchtool.py chain's last argument (cold, fresh=S)
#   EXPU   the one unwinder every record of a registered run must name
#   MARKS  the counts of ID 61 to sum (bench_insns_sum), one per process
#          or per CPU; unset: the one count on CPU (bench_insns)
#   RUNCPUS the CPUs of the run (taskset -c; CPU)
#   FORK   1: event-fork on, for the processes and threads it makes
NS= SKIP= MODEL= EXPU= MARKS= RUNCPUS= FORK=

# one BIN UNWINDER TRACED FULL ARGS...: prints "insns check"; a traced
# run writes `benchtool.py chain` of its stacks to $TMP/chain (FULL=1;
# else only its count and main unwinder)
one() {
	local bin=$1 u=$2 u2=${2%[01]} traced=$3 full=$4 d=$TRACEFS/instances/bsr pid l i st ok=ok n skip cold=
	shift 4
	# the rows are made when a section is registered: set before the run
	if [ -f $IDXP ]; then
		case $u in sframe0) echo 0 ;; sframe1) echo 1 ;; *) echo $IDXON ;; esac > $IDXP
	fi
	# sfchain bench N D K [cold]: the warm-up round is K stacks
	skip=${SKIP:-$4}
	[ "${5:-}" = cold ] && cold=cold
	[ -n "$MODEL" ] && cold=$MODEL
	reset_tracing >/dev/null
	mkdir $d && echo 16384 > $d/buffer_size_kb
	[ "$FORK" = 1 ] && echo 1 > $d/options/event-fork
	rm -f $TMP/go && mkfifo $TMP/go
	taskset -c ${RUNCPUS:-$CPU} env LD_PRELOAD=$(preload $u) sh -c "read x < $TMP/go; exec $bin $*" > /dev/null &
	pid=$!
	echo $pid > $d/set_event_pid
	[ $traced = 1 ] && echo stacktrace:defer > $d/events/syscalls/sys_enter_getppid/trigger
	l=$(wc -l < "$ICLOG")
	echo go > $TMP/go
	wait $pid || ok=workload-exit-$?
	if [ -n "$MARKS" ]; then i=$(bench_insns_sum "$l" $MARK_ID $MARKS); else i=$(bench_insns "$l" $MARK_ID); fi
	case $i in "" | *[!0-9]*) ok=no-instruction-count ;; esac
	echo 0 > $d/tracing_on
	st=$(bench_lost $d)
	[ "$st" = 0 ] || ok=ftrace-lost-$st
	if [ $traced = 1 ] && [ $full = 0 ]; then
		# rounds after the first: the count and the unwinders only
		# (the model in Python is slow under TCG)
		n=$(grep -c 'user_stack_deferred:' $d/trace)
		n=$((n - skip))
		u=$(grep -o 'unwinder=[^ ]*' $d/trace | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
		echo "stacks=$n frames=- $u" > $TMP/chain
		[ $n -ge ${NS:-$N} ] || ok=stacks-missing-$n-of-${NS:-$N}
		case $u in
		unwinder=*sframe*) [ $u2 = sframe ] || ok=not-fp-alone ;;
		unwinder=fp) [ $u2 = fp ] || ok=no-sframe-walk ;;
		*) ok=unwinder-$u ;;
		esac
		# every record (the warm-up's too) names EXPU
		if [ -n "$EXPU" ] && [ $u2 = sframe ]; then
			u=$(grep -o 'unwinder=[^ ]*' $d/trace | sort -u | tr '\n' ' ')
			[ "$u" = "unwinder=$EXPU " ] || ok=unwinder-not-$EXPU
		fi
	elif [ $traced = 1 ]; then
		$TOOL chain $d/trace $bin $skip $cold > $TMP/chain || ok=benchtool-failed
		n=$(sed -n 's/^stacks=\([0-9]*\) .*/\1/p' $TMP/chain)
		[ "${n:-0}" -ge ${NS:-$N} ] || ok=stacks-missing-${n:-0}-of-${NS:-$N}
		case $u2 in
		sframe) grep -q 'unwinder=[^ ]*sframe' $TMP/chain || ok=no-sframe-walk ;;
		fp) grep -q 'unwinder=fp:[0-9]* ' $TMP/chain || ok=not-fp-alone ;;
		esac
		if [ -n "$EXPU" ] && [ $u2 = sframe ]; then
			grep -q "unwinder=$EXPU:[0-9]* " $TMP/chain || ok=unwinder-not-$EXPU
		fi
	fi
	echo "$i $ok"
}

declare -A base traced why chainof nst
failed=0
# measure KEY BIN ARGS...: ROUNDS rounds of sframe and fp, untraced and
# traced, into base[u.KEY], traced[u.KEY], chainof[u.KEY] (round 1)
measure() {
	local key=$1 bin=$2 r u t i ok
	shift 2
	nst[$key]=${NS:-$N}
	for r in $(seq 1 $ROUNDS); do
		for u in $UNITS; do
			for t in 0 1; do
				read -r i ok < <(one $bin $u $t $((r == 1)) "$@")
				if [ $t = 0 ]; then base[$u.$key]+="$i "; else traced[$u.$key]+="$i "; fi
				[ $t = 1 ] && [ $r = 1 ] && chainof[$u.$key]=$(cat $TMP/chain)
				if [ "$ok" != ok ]; then
					why[$u.$key]=${why[$u.$key]:-}${why[$u.$key]:+,}$ok
					failed=1
				fi
			done
		done
	done
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< " $2"; }
cost() { # KEY U: insns per stack, or -
	local b t
	[ -n "${why[$2.$1]:-}" ] && { echo -; return; }
	b=$(echo ${base[$2.$1]} | median) t=$(echo ${traced[$2.$1]} | median)
	[ "$b" = - ] || [ "$t" = - ] && { echo -; return; }
	echo $(( (t - b) / ${nst[$1]:-$N} ))
}
# row KEY LABEL: one line per unwinder
row() {
	local k=$1 label=$2 u c f x
	for u in $UNITS_SHOWN; do
		if [ -n "${why[$u.$k]:-}" ]; then
			printf '%-22s %-7s REFUSED: %s\n' "$label" $u "${why[$u.$k]}"
			continue
		fi
		c=$(cost $k $u) f=$(field frames "${chainof[$u.$k]}")
		x=-
		[ $u != fp ] && x=$(awk -v a=$c -v b=$(cost $k fp) 'BEGIN {
			if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }')
		printf '%-22s %-7s %6s %9s %7s %9s %8s %6s  %s\n' "$label" $u "$f" "$c" "$x" \
			"$(field hit_rate "${chainof[$u.$k]}")" "$(field distinct "${chainof[$u.$k]}")" \
			"$(field norule "${chainof[$u.$k]}")" "$(field unwinder "${chainof[$u.$k]}")"
	done
	[ "$(field frames "${chainof[fp.$k]:-}")" = "$(field frames "${chainof[sframe.$k]:-}")" ] ||
		echo "  (the two unwinders returned different frame counts)"
}
# slope LABEL KEY_LO KEY_HI: insns per frame of each unwinder
slope() {
	local label=$1 lo=$2 hi=$3 u s sf=- fp=- s0=
	for u in $UNITS_SHOWN; do
		s=$(awk -v a="$(cost $lo $u)" -v b="$(cost $hi $u)" \
			-v fa="$(field frames "${chainof[$u.$lo]:-}")" -v fb="$(field frames "${chainof[$u.$hi]:-}")" 'BEGIN {
			if (a == "-" || b == "-" || fa == "" || fb == "" || fa == fb) print "-"
			else printf "%.1f", (b - a) / (fb - fa) }')
		case $u in fp) fp=$s ;; sframe) sf=$s ;; sframe0) s0=$s ;; esac
	done
	awk -v l="$label" -v f=$fp -v s=$sf -v z="$s0" 'BEGIN {
		printf "  %-34s fp %7s  sframe %7s  x-fp %s", l, f, s,
			(f == "-" || s == "-" || f <= 0) ? "-" : sprintf("%.2f", s / f)
		if (z != "")
			printf "   sframe0 (no rows)  %7s  x-fp %s", z,
				(f == "-" || z == "-" || f <= 0) ? "-" : sprintf("%.2f", z / f)
		printf "\n" }'
}

# added LABEL KEY_LO KEY_HI: the instructions each unwinder adds per frame
# between two rows (per stack when they differ by one frame), and what
# SFrame adds over frame pointers
added() {
	local label=$1 lo=$2 hi=$3 u s fp=- line
	for u in $UNITS_SHOWN; do
		s=$(awk -v a="$(cost $lo $u)" -v b="$(cost $hi $u)" \
			-v fa="$(field frames "${chainof[$u.$lo]:-}")" -v fb="$(field frames "${chainof[$u.$hi]:-}")" 'BEGIN {
			if (a == "-" || b == "-" || fa == "" || fb == "" || fa == fb) print "-"
			else printf "%.1f", (b - a) / (fb - fa) }')
		if [ $u = fp ]; then
			fp=$s line=$(printf '  %-34s fp %7s' "$label" $s)
		else
			line+=$(awk -v u=$u -v s=$s -v f=$fp 'BEGIN {
				printf "  %s %7s (fp %s)", u, s,
					(s == "-" || f == "-") ? "-" : sprintf("%+.1f", s - f) }')
		fi
	done
	echo "$line"
}

UNITS_SHOWN=fp
for u in $UNITS; do [ $u = fp ] || UNITS_SHOWN+=" $u"; done
# procs also with sframe.decode=1, the default, where the rows are made
# only once the lookups that read the section have paid for them: a
# short-lived process never does (sframe1)
UNITS_ALL=$UNITS UNITS_SHOWN_ALL=$UNITS_SHOWN PROCS_UNITS=$UNITS PROCS_SHOWN=$UNITS_SHOWN
if [ "$IDXON" = 2 ] && [[ " $UNITS " == *" sframe0 "* ]]; then
	PROCS_UNITS="sframe sframe1 sframe0 fp" PROCS_SHOWN="fp sframe sframe1 sframe0"
fi
declare -A inval
for row in $ROWS; do
	case $row in
	cold)
		for b in small big; do
			for dp in $COLD_DEPTHS; do
				measure cold.$b.$dp $WL/sfchain-$b bench $N $dp 1 cold
				# what the invalidation costs: untraced, cold - warm
				w=
				for r in $(seq 1 $ROUNDS); do
					read -r i ok < <(one $WL/sfchain-$b sframe 0 0 bench $N $dp 1)
					[ "$ok" = ok ] && w+="$i "
				done
				inval[$b.$dp]=$(awk -v c="$(echo ${base[sframe.cold.$b.$dp]} | median)" \
					-v w="$(echo $w | median)" -v n=$N 'BEGIN {
					if (c == "-" || w == "-") print "-"; else printf "%d", (c - w) / n }')
			done
		done ;;
	rotate)
		for a in $ROT_ADDRS; do
			for dp in $ROT_DEPTHS; do
				measure rot.$a.$dp $WL/sfchain-big bench $N $dp $((a / dp))
			done
		done ;;
	nofde)
		SKIP=1
		for b in $NOFDE_BINS; do
			for j in $NOFDE_FRAMES; do
				EXPU=sframe
				[ $j -gt 0 ] && EXPU=sframe+fp
				measure nofde.$b.$j $WL/sfchain-more-$b nofde $N $NOFDE_DEPTH $j
			done
		done
		SKIP= EXPU= ;;
	procs)
		NS=$((PROCS * PROCS_STACKS)) SKIP=0 MODEL=fresh=$PROCS_STACKS MARKS=$PROCS FORK=1
		UNITS=$PROCS_UNITS
		for b in small big; do
			for dp in $PROCS_DEPTHS; do
				measure procs.$b.$dp $WL/sfchain-more-$b procs $PROCS $PROCS_STACKS $dp 1
			done
		done
		UNITS=$UNITS_ALL NS= SKIP= MODEL= MARKS= FORK= ;;
	threads)
		RUNCPUS=0-$(($(nproc) - 1)) MARKS=$(nproc) FORK=1 SKIP=$((THR_ADDRS / THR_DEPTH))
		for t in $THREADS; do
			NS=$((t * ((N + t - 1) / t)))
			measure thr.$t $WL/sfchain-more-big threads $t $N $THR_DEPTH $((THR_ADDRS / THR_DEPTH))
		done
		NS= SKIP= MARKS= RUNCPUS= FORK= ;;
	*) echo "unknown row $row"; exit 1 ;;
	esac
done
reset_tracing >/dev/null
rm -rf $TMP
[ -f $IDXP ] && echo 1 > $IDXP

echo "deferred user stacks when the addresses are many and new: tests/workload/sfchain bench $N DEPTH K [cold]"
echo "  (-O1, frame pointers and .sframe), registered (libsframe-preload.so) and unregistered (libsframe-unreg.so);"
echo "  stacktrace:defer on syscalls:sys_enter_getppid; median of $ROUNDS rounds; instructions (TCG plugin), CPU $CPU"
echo "  hit: the kept-rule table's hit rate, from an exact model replaying the recorded stacks (benchtool.py chain;"
echo "  the kernel counts none); distinct: addresses looked up inside FDEs; norule: lookups per run outside them"
case " $UNITS " in
*" sframe0 "*) echo "  sframe: with the rules decoded into kernel memory ($IDXP=$IDXON); sframe0: without ($IDXP=0: every lookup reads the section in user memory)" ;;
esac
hdr() { printf '%-22s %-7s %6s %9s %7s %9s %8s %6s  %s\n' row unwinder frames insns/stk x-fp hit distinct norule unwinders; }
for row in $ROWS; do
	case $row in
	cold)
		echo
		echo "sframe-cold: K=1, every kept rule forgotten before each getppid (PR_ADD_SFRAME + PR_REMOVE_SFRAME of libsfwork.so's section)"
		for b in small big; do
			set -- $COLD_DEPTHS
			echo "  sfchain-$b: $(field fdes "${chainof[sframe.cold.$b.$1]:-}") FDEs in its .sframe"
		done
		hdr
		for b in small big; do
			for dp in $COLD_DEPTHS; do row cold.$b.$dp "cold $b D=$dp"; done
		done
		echo "the invalidation's own cost (untraced, cold - warm, per getppid; subtracted by the untraced run):"
		for b in small big; do
			for dp in $COLD_DEPTHS; do echo "  $b D=$dp: ${inval[$b.$dp]} insns"; done
		done
		echo "per frame (slope between D=${COLD_DEPTHS% *} and D=${COLD_DEPTHS#* }):"
		set -- $COLD_DEPTHS
		for b in small big; do slope "cold, sfchain-$b" cold.$b.$1 cold.$b.${!#}; done ;;
	rotate)
		echo
		echo "sframe-rotate: sfchain-big, K = A/D paths of D frames round robin, no invalidation"
		hdr
		for a in $ROT_ADDRS; do
			for dp in $ROT_DEPTHS; do row rot.$a.$dp "rotate A=$a D=$dp"; done
		done
		echo "per frame (slope between D=${ROT_DEPTHS% *} and D=${ROT_DEPTHS#* } at the same A):"
		set -- $ROT_DEPTHS
		for a in $ROT_ADDRS; do slope "rotate A=$a" rot.$a.$1 rot.$a.${!#}; done ;;
	nofde)
		echo
		echo "sframe-nofde: path 0 of D=$NOFDE_DEPTH chain frames (rules kept) under J frames of sfc_nofde (no FDE in any section:"
		echo "  the SFrame lookup finds the section, no FDE, and the frame is taken by frame pointers: unwinder=sframe+fp)"
		set -- $NOFDE_FRAMES
		for b in $NOFDE_BINS; do
			echo "  sfchain-more-$b: $(field fdes "${chainof[sframe.nofde.$b.$1]:-}") FDEs in its .sframe"
		done
		hdr
		for b in $NOFDE_BINS; do
			for j in $NOFDE_FRAMES; do row nofde.$b.$j "nofde $b J=$j"; done
		done
		echo "per frame without FDE (between J=$1 and J=${!#}; in brackets what the unwinder adds over fp: the failed lookup):"
		for b in $NOFDE_BINS; do added "nofde, sfchain-more-$b" nofde.$b.$1 nofde.$b.${!#}; done
		if [[ " $NOFDE_FRAMES " == *" 0 "* ]] && [[ " $NOFDE_FRAMES " == *" 1 "* ]]; then
			echo "per stack with one frame without FDE (J=1 - J=0):"
			for b in $NOFDE_BINS; do added "nofde, sfchain-more-$b" nofde.$b.0 nofde.$b.1; done
		fi ;;
	procs)
		echo
		echo "sframe-procs: $PROCS processes one after the other, each a fork + exec of sfchain-more-B once $PROCS_STACKS D 1 (a fresh mm)"
		echo "  making $PROCS_STACKS stack(s) between markers of its own; the $PROCS counts summed, insns/stk = their sum / $((PROCS * PROCS_STACKS))"
		set -- $PROCS_DEPTHS
		for b in small big; do
			echo "  sfchain-more-$b: $(field fdes "${chainof[sframe.procs.$b.$1]:-}") FDEs in its .sframe"
		done
		[ "$PROCS_SHOWN" = "$UNITS_SHOWN" ] ||
			echo "  sframe1: with $IDXP=1, the default (the rows made once lookups have paid for them; a process of a few stacks never does)"
		UNITS_SHOWN=$PROCS_SHOWN
		hdr
		for b in small big; do
			for dp in $PROCS_DEPTHS; do row procs.$b.$dp "procs $b D=$dp"; done
		done
		echo "per frame (slope between D=$1 and D=${!#}; in brackets what the unwinder adds over fp):"
		for b in small big; do added "procs, sfchain-more-$b" procs.$b.$1 procs.$b.${!#}; done
		UNITS_SHOWN=$UNITS_SHOWN_ALL ;;
	threads)
		echo
		echo "sframe-threads: sfchain-more-big, T threads on CPUs 0-$(($(nproc) - 1)), each rotating over A=$THR_ADDRS addresses at D=$THR_DEPTH"
		echo "  (K=$((THR_ADDRS / THR_DEPTH)) paths, thread I from path I % K), ceil($N/T) stacks each; the counts of all $(nproc) vCPUs summed;"
		echo "  hit: the model replays the records in their order, as if the walks were serial (an estimate for T > 1)"
		hdr
		for t in $THREADS; do row thr.$t "threads T=$t A=$THR_ADDRS D=$THR_DEPTH"; done
		set -- $THREADS
		echo "against T=$1 (insns/stk of T / of T=$1):"
		for t in $THREADS; do
			[ $t = $1 ] && continue
			line=$(printf '  %-34s' "T=$t")
			for u in $UNITS_SHOWN; do
				line+=$(awk -v u=$u -v a="$(cost thr.$t $u)" -v b="$(cost thr.$1 $u)" 'BEGIN {
					printf "  %s %s", u, (a == "-" || b == "-" || b <= 0) ? "-" : sprintf("%.2f", a / b) }')
			done
			echo "$line"
		done ;;
	esac
done
echo "samples (instructions of a loop, untraced / traced):"
for k in "${!base[@]}"; do echo "  $k: ${base[$k]}/ ${traced[$k]:-}"; done | sort
if [ $failed = 1 ]; then
	echo "bench-sframe-rows: some runs failed their checks; their rows are refused (REFUSED above)"
	exit 1
fi
exit 0
