#!/bin/bash
# In-guest half of bench/exec-mapping.sh: what mmap:exec_mapping costs an
# mmap() of an executable file page (series 7-exec-mapping), off and on.
#
# tests/workload/execmap bench N mmap()s a page of its own file
# PROT_READ|PROT_EXEC and munmap()s it N times (default 2000) between the
# instruction-count markers of ID 72, then PROT_READ (never an event)
# between those of ID 73, pinned to one CPU: with the event off (the
# static branch alone), then on in an instance (kmalloc, d_path(), the
# build ID from the page cache, the record), BENCH_ROUNDS (default 3)
# rounds each, the median kept.  Prints one machine-readable line per row,
#	exec_mapping STATE KIND per_op=INSNS rounds=I,I,I
# then a table with the ratios.  Exit 1 when a run failed, lost a count,
# or (on) wrote another number of events for the page than it made
# mappings of it (off: any).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/bench-lib.sh"
N=${BENCH_N:-2000}
ROUNDS=${BENCH_ROUNDS:-3}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
ICLOG=${BENCH_INSN_LOG:-$FTD_RESULTS/insn-count.log}
[ -f "$ICLOG" ] || { echo "no $ICLOG: boot with the TCG plugin (bench/exec-mapping.sh)"; exit 1; }
[ -f "$TRACEFS/events/mmap/exec_mapping/format" ] || { echo "no mmap:exec_mapping in this kernel"; exit 1; }
reset_tracing
mkinst bem || exit 1
echo 16384 > "$(idir bem)/buffer_size_kb"
E=$(idir bem)/events/mmap/exec_mapping

declare -A per
failed=0
for state in off on; do
	[ $state = on ] && echo 1 > "$E/enable"
	for r in $(seq 1 "$ROUNDS"); do
		echo > "$(idir bem)/trace"
		l=$(wc -l < "$ICLOG")
		if ! out=$(taskset -c "$CPU" "$WL/execmap" bench "$N" 2>&1); then
			echo "$state round $r: execmap failed: $out"
			failed=1
			continue
		fi
		# the bench's page: offset 0 of execmap (its code is past it)
		got=$(grep -c " exec_mapping: .* pgoff=0x0 .* path=$WL/execmap\$" "$(idir bem)/trace")
		want=0
		[ $state = on ] && want=$((N + 2))
		if [ "$got" != "$want" ] || [ "$(bench_lost "$(idir bem)")" != 0 ]; then
			echo "$state round $r: $got events for $want mappings (lost $(bench_lost "$(idir bem)"))"
			failed=1
		fi
		for k in exec:72 data:73; do
			i=$(bench_insns "$l" "${k#*:}")
			if [ "$i" = - ]; then
				echo "$state round $r: no instruction count for ${k%:*}"
				failed=1
				continue
			fi
			per[$state.${k%:*}]+="$((i / N)) "
		done
	done
	echo 0 > "$E/enable"
done
rmdir "$(idir bem)"
for state in off on; do
	for k in exec data; do
		echo "exec_mapping $state $k per_op=$(echo ${per[$state.$k]:-} | median) rounds=$(echo ${per[$state.$k]:-} | tr ' ' ',')"
	done
done
echo
echo "instructions per mmap()+munmap() of a page of a file ($N per run, median of $ROUNDS)"
printf '%-22s %10s %10s %8s\n' mapping event_off event_on on/off
for k in exec data; do
	a=$(echo ${per[off.$k]:-} | median)
	b=$(echo ${per[on.$k]:-} | median)
	ratio=-
	[ "$a" != - ] && [ "$b" != - ] && ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')
	printf '%-22s %10s %10s %8s\n' "$k (PROT_READ$([ $k = exec ] && echo '|EXEC'))" "$a" "$b" "$ratio"
done
exit $failed
