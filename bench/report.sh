#!/bin/bash
# Cost of reading deferred user stacks: `trace-cmd report` of stock 3.4
# (no stacks: events and raw stack records) against the report of 3.4
# with our series (each event followed by its kernel stack and its named
# user stack), side by side in one run, on recorded traces:
#   single-S, single-L  one task, one binary (the best case), at two sizes
#                       (REPORT_SMALL and REPORT_LARGE getppid() calls,
#                       default 250000 and 1000000)
#   multi-S   four tasks at once, three binaries and a shared library
#   stuck-S   one task's loop while four others sit in nanosleep and
#             get their user stacks only at the end of the trace
# (tests/guest/bench-report-record.sh records them in one boot with the
# trace-cmd of rig/build-tracecmd.sh, `record -T`, and says how).  They
# are kept in $CACHE/bench-report/ (REPORT_DIR to read others).
#
#   bench/report.sh [rig/run-guest.sh options, e.g. --no-build]
#
# Then on the host, REPORT_ROUNDS times (default 3, odd), interleaved:
#   stock   stock trace-cmd 3.4 (rig/build-tracecmd.sh --stock), no
#           plugin: events and raw stack records, no frames
#   merged  trace-cmd 3.4 with trace-cmd/patches: every event, under it
#           its kernel stack and its user stack as symbol+0xoff (binary)
#   plugin  stock 3.4 with plugin_unwind_deferred.so (for stock
#           trace-cmd users; not part of the goal)
# Each report's CPU time (user + system) and peak RSS come from
# /usr/bin/time; its exit status must be 0, its output the same number of
# lines in every round, and the number of getppid event lines the same
# as stock's (the oracle: stock trace-cmd prints every event): a report
# that fails a check gives no row and the command fails.  Prints per trace
# and mode the median CPU seconds, peak MiB, output lines, the ratio to
# stock, and the goals: merged within 1.3x of stock on every trace, and
# merged peak RSS growing by less than 10% from single-S to single-L.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
ensure_cache
need_pkgs time

small=${REPORT_SMALL:-250000}
large=${REPORT_LARGE:-1000000}
rounds=${REPORT_ROUNDS:-3}
dir=${REPORT_DIR:-$CACHE/bench-report}
mkdir -p "$dir"
tc=$("$here/rig/build-tracecmd.sh")
stock=$("$here/rig/build-tracecmd.sh" --stock)
make -s -C "$here/trace-cmd/plugins" deps >&2
make -s -C "$here/trace-cmd/plugins" >&2
plugins=$here/trace-cmd/plugins
traces=("single-$small" "single-$large" "multi-$small" "stuck-$small")

# Record what is missing, in one boot
want=()
for t in "${traces[@]}"; do
	[ -s "$dir/$t.dat" ] || want+=("${t%-*}" "${t##*-}")
done
if [ ${#want[@]} -gt 0 ]; then
	# the workloads (and the binutils they are built with) only to record
	make -s -C "$here/tests/workload" >&2
	log "recording ${want[*]} with trace-cmd record -T in the guest"
	rm -rf "$dir/run"
	"$here/rig/run-guest.sh" --quiet --mem 2G --timeout ${REPORT_TIMEOUT:-5400} \
		--out "$dir/run" "$@" --cmd "$here/tests/guest/bench-report-record.sh $(printf %q "$tc") ${want[*]}" >&2 ||
		die "recording failed (see $dir/run)"
	for t in "${traces[@]}"; do
		[ -s "$dir/$t.dat" ] && continue
		[ -s "$dir/run/$t.dat" ] || die "no $t.dat in $dir/run after the guest run"
		mv "$dir/run/$t.dat" "$dir/"
	done
fi

# one MODE FILE OUT: "cpu_seconds peak_kib exit_status" of one report,
# its output in OUT
one() {
	local pdir=/nonexistent bin=$stock r
	[ "$1" = plugin ] && pdir=$plugins
	[ "$1" = merged ] && bin=$tc
	# a report that fails (an exit status, or a signal: signal-N) is a
	# row to refuse, not the end of this script
	r=$(TRACEEVENT_PLUGIN_DIR=$pdir bench_time "$3" "$bin" report -i "$2")
	set -- $r
	[ "$1" != - ] || { echo "- - no-time-line"; return; }
	echo "$(awk -v u=$1 -v s=$2 'BEGIN { printf "%.2f", u + s }') $3 $4"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# the getppid events a report printed (stock: the oracle)
events() { grep -c ': sys_enter_getppid:' "$1" || true; }

declare -A secs mem lines evs why
failed=0
o=$(mktemp)
trap 'rm -f "$o"' EXIT
for r in $(seq 1 "$rounds"); do
	for t in "${traces[@]}"; do
		for m in stock merged plugin; do
			k=$m.$t
			read -r s kb x < <(one $m "$dir/$t.dat" "$o")
			secs[$k]+="$s " mem[$k]+="$kb "
			n=$(wc -l < "$o")
			if [ "$x" != 0 ]; then
				why[$k]="exit status $x"; failed=1
			elif [ -n "${lines[$k]:-}" ] && [ "${lines[$k]}" != "$n" ]; then
				why[$k]="output lines differ between rounds (${lines[$k]}, $n)"; failed=1
			fi
			lines[$k]=$n
			evs[$k]=$(events "$o")
		done
	done
done

echo "trace-cmd report of traces recorded with record -T (median of $rounds rounds; CPU time user+system; peak RSS)"
printf '%-14s %-7s %6s %8s %9s %9s %9s %6s\n' trace mode MB cpu-s peak-MiB lines events ratio
declare -A med pk
for t in "${traces[@]}"; do
	mb=$(awk -v b=$(stat -c %s "$dir/$t.dat") 'BEGIN { printf "%.1f", b / 1048576 }')
	for m in stock merged plugin; do
		k=$m.$t
		med[$k]=$(echo ${secs[$k]} | median)
		pk[$k]=$(echo ${mem[$k]} | median)
		# every getppid event stock prints, the others print too
		if [ -z "${why[$k]:-}" ] && [ $m != stock ] && [ "${evs[$k]}" != "${evs[stock.$t]}" ]; then
			why[$k]="${evs[$k]} getppid events, stock printed ${evs[stock.$t]}"; failed=1
		fi
		[ -n "${why[$k]:-}" ] || [ "${evs[$k]}" -gt 0 ] || { why[$k]="no getppid event in the output"; failed=1; }
	done
	for m in stock merged plugin; do
		k=$m.$t
		if [ -n "${why[$k]:-}" ]; then
			printf '%-14s %-7s REFUSED: %s\n' "$t" $m "${why[$k]}"
			continue
		fi
		printf '%-14s %-7s %6s %8s %9s %9s %9s %6s\n' "$t" $m "$mb" "${med[$k]}" \
			"$(awk -v k="${pk[$k]}" 'BEGIN { printf "%.1f", k / 1024 }')" "${lines[$k]}" "${evs[$k]}" \
			"$(awk -v a="${med[$k]}" -v b="${med[stock.$t]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
	done
done
echo "goals:"
for t in "${traces[@]}"; do
	if [ -n "${why[merged.$t]:-}${why[stock.$t]:-}" ]; then
		printf '  %-52s no data\n' "merged report within 1.3x of stock ($t)"
		continue
	fi
	awk -v a="${med[merged.$t]}" -v b="${med[stock.$t]}" -v t="$t" 'BEGIN {
		r = (b > 0 ? a / b : 0)
		printf "  %-52s %s: %.2f, wanted <= 1.3\n", "merged report within 1.3x of stock (" t ")", (r <= 1.3 ? "met" : "missed"), r }'
done
awk -v a="${pk[merged.single-$large]}" -v b="${pk[merged.single-$small]}" -v s="$small" -v l="$large" \
    -v refused="${why[merged.single-$large]:-}${why[merged.single-$small]:-}" 'BEGIN {
	if (refused != "") { printf "  %-52s no data\n", "merged peak memory flat, single " s " -> " l; exit }
	g = (b > 0 ? a / b : 0)
	printf "  %-52s %s: x%.2f, wanted < x1.10\n", "merged peak memory flat, single " s " -> " l, (g < 1.1 ? "met" : "missed"), g }'
if [ $failed = 1 ]; then
	echo "report.sh: some reports failed their checks; their rows are refused"
	exit 1
fi
