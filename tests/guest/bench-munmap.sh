#!/bin/bash
# In-guest half of bench/munmap.sh: what an munmap() costs a process with
# N .sframe sections, when it drops none (issue 35: the kernel's munmap
# hook, sframe_mm_unmapped()).
#
# tests/workload/sfmaps (sframe_maps.c) makes K sections in memory (K the
# largest N: every run has the same mappings, and so the same cost of
# placing and removing a page among them) and registers N of them, then
# mmap()s and munmap()s an anonymous page BENCH_N times
# (default 2000) between the instruction-count markers of ID 70, and a
# page of a file (sfmaps itself) as often between those of ID 71, pinned
# to one CPU; it checks that its sections are all still there after.
# N in BENCH_MUNMAP_NS (default "0 1 64"; 0: a process with no section,
# the kernel's floor), BENCH_ROUNDS (default 3) rounds, the median kept.
# Prints one machine-readable line per row,
#	munmap KIND n=N per_op=INSNS rounds=I,I,I
# (per_op: instructions per mmap() + munmap() pair), then a table with
# each row's cost over N=0.  Exit 1 when a run failed or lost a count.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
N=${BENCH_N:-2000}
ROUNDS=${BENCH_ROUNDS:-3}
NS=${BENCH_MUNMAP_NS:-0 1 64}
K=$(printf '%s\n' $NS | sort -n | tail -1)
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/munmap.sh)"; exit 1; }
[ -x "$WL/sfmaps" ] || { echo "no $WL/sfmaps: bench/munmap.sh builds it"; exit 1; }

declare -A per
failed=0
for n in $NS; do
	for r in $(seq 1 "$ROUNDS"); do
		l=$(wc -l < "$ICLOG")
		if ! out=$(taskset -c "$CPU" "$WL/sfmaps" bench "$K" "$n" "$N" "$WL/sfmaps" 2>&1); then
			echo "n=$n round $r: sfmaps failed: $out"
			failed=1
			continue
		fi
		for k in anon:70 file:71; do
			i=$(bench_insns "$l" "${k#*:}")
			if [ "$i" = - ]; then
				echo "n=$n round $r: no instruction count for ${k%:*}"
				failed=1
				continue
			fi
			per[${k%:*}.$n]+="$((i / N)) "
		done
	done
done
for k in anon file; do
	for n in $NS; do
		m=$(echo ${per[$k.$n]:-} | median)
		echo "munmap $k n=$n per_op=$m rounds=$(echo ${per[$k.$n]:-} | tr ' ' ',')"
	done
done
echo
echo "instructions per mmap()+munmap() of a page, sections untouched ($N per run, median of $ROUNDS)"
printf '%-6s %9s %12s %12s\n' mapping sections per_op over_n=0
for k in anon file; do
	b=$(echo ${per[$k.0]:-} | median)
	for n in $NS; do
		m=$(echo ${per[$k.$n]:-} | median)
		d=-
		[ "$b" != - ] && [ "$m" != - ] && d=$((m - b))
		printf '%-6s %9s %12s %12s\n' $k $n "$m" "$d"
	done
done
exit $failed
