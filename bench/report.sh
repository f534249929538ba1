#!/bin/bash
# Cost of reading deferred user stacks: `trace-cmd report` of stock 3.4
# (no stacks: events and raw stack records) against the report of 3.4
# with our series (each event followed by its kernel stack and its named
# user stack), side by side in one run, at two file sizes, with the peak
# memory of each.
#
#   bench/report.sh [rig/run-guest.sh options, e.g. --no-build]
#
# The files are recorded once, in the guest, by the trace-cmd of
# rig/build-tracecmd.sh (`record -T` on sys_enter_getppid of the
# callchain workload: every event has a kernel stack, a cookie and a
# deferred user stack), and kept in $CACHE/bench-report/ (REPORT_SMALL
# and REPORT_LARGE getppid() calls, default 250000 and 1000000).  Then on
# the host, REPORT_ROUNDS times (default 3), interleaved:
#   stock   stock trace-cmd 3.4 (rig/build-tracecmd.sh --stock), no
#           plugin: events and raw stack records, no frames
#   merged  trace-cmd 3.4 with trace-cmd/patches: every event, under it
#           its kernel stack and its user stack as symbol+0xoff (binary),
#           the stack records hidden (the join and the symbols of
#           libtracefs-ext, a look-ahead read of the same file)
#   plugin  stock 3.4 with plugin_unwind_deferred.so (for stock
#           trace-cmd users; not part of the goal)
# Prints per size the median seconds and the peak RSS (/usr/bin/time),
# the ratio to stock (goal for merged: <= 1.3), and whether memory stays
# flat from the small file to the large one (goal: merged peak RSS grows
# by less than 10% while the file grows 4x).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
ensure_cache
need_pkgs time

small=${REPORT_SMALL:-250000}
large=${REPORT_LARGE:-1000000}
rounds=${REPORT_ROUNDS:-3}
dir=$CACHE/bench-report
mkdir -p "$dir"
tc=$("$here/rig/build-tracecmd.sh")
stock=$("$here/rig/build-tracecmd.sh" --stock)
make -s -C "$here/trace-cmd/plugins" >&2
make -s -C "$here/tests/workload" >&2
plugins=$here/trace-cmd/plugins

# Record what is missing, in one boot
want=()
for n in $small $large; do
	[ -s "$dir/getppid-$n.dat" ] || want+=("$n")
done
if [ ${#want[@]} -gt 0 ]; then
	log "recording ${want[*]} getppid() calls with trace-cmd record -T in the guest"
	# the guest sees the host read-only but for the run's output dir
	rm -rf "$dir/run"
	cmd="set -e; cd \$FTD_RESULTS; for n in ${want[*]}; do"
	cmd+=" $(printf %q "$tc") record -q -T -e syscalls:sys_enter_getppid"
	cmd+=" -b 20000 -o getppid-\$n.dat.tmp -F $(printf %q "$here/tests/workload/callchain") getppid \$n;"
	cmd+=" mv getppid-\$n.dat.tmp getppid-\$n.dat; done"
	"$here/rig/run-guest.sh" --quiet --mem 2G --timeout ${REPORT_TIMEOUT:-5400} \
		--out "$dir/run" "$@" --cmd "$cmd" >&2 ||
		die "recording failed (see $dir/run)"
	for n in "${want[@]}"; do
		[ -s "$dir/run/getppid-$n.dat" ] || die "no getppid-$n.dat in $dir/run after the guest run"
		mv "$dir/run/getppid-$n.dat" "$dir/"
	done
fi

# one MODE FILE: "seconds peak_kib" of one report, output to /dev/null
one() {
	local pdir=/nonexistent bin=$stock r
	[ "$1" = plugin ] && pdir=$plugins
	[ "$1" = merged ] && bin=$tc
	r=$(TRACEEVENT_PLUGIN_DIR=$pdir /usr/bin/time -f '%e %M' \
		"$bin" report -i "$2" 2>&1 >/dev/null | tail -1)
	echo "$r"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

declare -A secs mem
for r in $(seq 1 "$rounds"); do
	for n in $small $large; do
		for m in stock merged plugin; do
			read -r s k < <(one $m "$dir/getppid-$n.dat")
			secs[$m.$n]+="$s "
			mem[$m.$n]+="$k "
		done
	done
done

echo "trace-cmd report of getppid() traces recorded with record -T (median of $rounds rounds; peak RSS)"
printf '%-9s %-8s %10s %8s %12s %9s\n' calls mode MB s peak-MiB ratio
declare -A med pk
for n in $small $large; do
	mb=$(( $(stat -c %s "$dir/getppid-$n.dat") / 1048576 ))
	for m in stock merged plugin; do
		med[$m.$n]=$(echo ${secs[$m.$n]} | tr ' ' '\n' | median)
		pk[$m.$n]=$(echo ${mem[$m.$n]} | tr ' ' '\n' | median)
	done
	for m in stock merged plugin; do
		printf '%-9s %-8s %10s %8s %12s %9s\n' "$n" $m "$mb" "${med[$m.$n]}" \
			"$(awk -v k="${pk[$m.$n]}" 'BEGIN { printf "%.1f", k / 1024 }')" \
			"$(awk -v a="${med[$m.$n]}" -v b="${med[stock.$n]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
	done
done
echo "goals:"
ratio=$(awk -v a="${med[merged.$large]}" -v b="${med[stock.$large]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
awk -v r="$ratio" 'BEGIN { printf "  merged report within 1.3x of stock (%s calls)     %s: %s, wanted <= 1.3\n", "'"$large"'", (r <= 1.3 ? "met" : "missed"), r }'
growth=$(awk -v a="${pk[merged.$large]}" -v b="${pk[merged.$small]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
awk -v g="$growth" 'BEGIN { printf "  merged peak memory flat, %s -> %s calls          %s: x%s, wanted < x1.10\n", "'"$small"'", "'"$large"'", (g < 1.1 ? "met" : "missed"), g }'

# Tasks that stay in the kernel (issue 20 item 2): synthetic traces
# (tests/userspace/lib/mktrace.py stuck: one thread enters getppid()
# first and never comes back, then STUCK_N and 4 x STUCK_N getppid()
# entries of another thread), made on the host.  The merged report read
# to the end of the file for the stuck thread's event and kept every
# stack on the way (quadratic: 15.96 s for 200k entries).  Goal: time
# linear (x4 file, at most x5.2 time) and within 1.3x of stock.
sn=${STUCK_N:-50000}
for n in $sn $((4 * sn)); do
	[ -s "$dir/stuck-$n.dat" ] && continue
	python3 "$here/tests/userspace/lib/mktrace.py" --formats "$here/tests/userspace/lib/data/formats" \
		--binary "$here/tests/fixtures/callchain" --count "$n" stuck "$dir/stuck-$n.dat.tmp" &&
		mv "$dir/stuck-$n.dat.tmp" "$dir/stuck-$n.dat"
done
declare -A ss sm
for r in $(seq 1 "$rounds"); do
	for n in $sn $((4 * sn)); do
		for m in stock merged; do
			read -r s k < <(one $m "$dir/stuck-$n.dat")
			ss[$m.$n]+="$s "
			sm[$m.$n]+="$k "
		done
	done
done
echo "one task that never comes back (synthetic, median of $rounds rounds; peak RSS)"
printf '%-9s %-8s %10s %8s %12s %9s\n' entries mode MB s peak-MiB ratio
for n in $sn $((4 * sn)); do
	mb=$(( $(stat -c %s "$dir/stuck-$n.dat") / 1048576 ))
	for m in stock merged; do
		med[st.$m.$n]=$(echo ${ss[$m.$n]} | tr ' ' '\n' | median)
		k=$(echo ${sm[$m.$n]} | tr ' ' '\n' | median)
		printf '%-9s %-8s %10s %8s %12s %9s\n' "$n" $m "$mb" "${med[st.$m.$n]}" \
			"$(awk -v k="$k" 'BEGIN { printf "%.1f", k / 1024 }')" \
			"$(awk -v a="${med[st.$m.$n]}" -v b="${med[st.stock.$n]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
	done
done
lin=$(awk -v a="${med[st.merged.$((4 * sn))]}" -v b="${med[st.merged.$sn]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
awk -v g="$lin" 'BEGIN { printf "  stuck task: merged time linear, x4 entries           %s: x%s, wanted <= x5.2\n", (g <= 5.2 ? "met" : "missed"), g }'
ratio=$(awk -v a="${med[st.merged.$((4 * sn))]}" -v b="${med[st.stock.$((4 * sn))]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
awk -v r="$ratio" 'BEGIN { printf "  stuck task: merged within 1.3x of stock              %s: %s, wanted <= 1.3\n", (r <= 1.3 ? "met" : "missed"), r }'
echo "  (peak RSS counts the file's pages each handle maps: stock reads with one handle, merged"
echo "   with two, and three while it makes its index; the heap, RssAnon, is checked by"
echo "   tests/rig/tracecmd.sh tracecmd-stuck-threads-linear)"
