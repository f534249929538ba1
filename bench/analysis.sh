#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cost of ustack's analyses (issue 39) beside its plain output, on
# large synthetic traces: CPU time (user + system, /usr/bin/time) and peak
# memory of `ustack` (text to /dev/null) and of --folded, --summary,
# --tree, --tree=callee --no-kernel, and --weight=latency with --folded
# and --tree, --flamegraph and --json, medians of ROUNDS (default 3, odd), each as a ratio to
# the plain output.  Every run must exit 0 and print the same lines in
# every round.  CPU time, not instruction counts: this host has no
# hardware counters (perf stat: <not supported>), and no guest is needed
# for a userspace tool.
#
#   bench/analysis.sh [ENTRIES]     (default 100000 kernel entries)
#
# The files (tests/userspace/lib/mktrace.py): large-ENTRIES.dat (one task,
# enter and exit asking, bench/join.sh's file) and multi-ENTRIES.dat (8
# tasks at once, stacks of 1 to 5 frames, late and across CPUs).
set -eu
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB=$REPO/libustack
TL=$REPO/tests/userspace/lib
B=${BENCH_DIR:-/tmp/ustack-bench}
N=${1:-100000}
R=${ROUNDS:-3}
mkdir -p "$B"
"$LIB/deps.sh" >&2
# the tool's trace.dat reader needs the series' libtracecmd
# (ustack/Makefile): rig/build-tracecmd.sh's prefix, by pkg-config, and
# by rpath for the programs linked here
P=$(dirname "$(dirname "$("$REPO/rig/build-tracecmd.sh")")")
export PKG_CONFIG_PATH=$P/lib/pkgconfig LD_RUN_PATH=$P/lib
make -s -C "$LIB" OUT="$B/lib" all >&2
gcc -O1 -g -fno-omit-frame-pointer -fPIE -pie -o "$B/callchain" "$REPO/tests/workload/callchain.c"
for sc in large multi; do
	F=$B/$sc-$N.dat
	[ -f "$F" ] && continue
	echo "generating $F ($N kernel entries)..." >&2
	extra=
	[ $sc = multi ] && extra="--tasks 8"
	# shellcheck disable=SC2086
	python3 "$TL/mktrace.py" $sc "$F.tmp" --formats "$TL/data/formats" \
		--binary "$B/callchain" --count "$N" $extra >&2
	mv "$F.tmp" "$F"
done

# run ARGS...: "cpu-seconds max-rss-KiB lines" of ustack ARGS
run() {
	/usr/bin/time -f '%U %S %M' -o "$B/time" "$B/lib/ustack" -q "$@" >"$B/out"
	read -r u s m <"$B/time"
	echo "$(echo "$u + $s" | bc -l) $m $(wc -l <"$B/out")"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

MODES=("" "--folded" "--summary" "--tree" "--tree=callee --no-kernel"
       "--folded --weight=latency" "--tree --weight=latency" "--flamegraph" "--json")
bad=0
for sc in large multi; do
	F=$B/$sc-$N.dat
	printf '%s (%d entries, %s):\n' "$(basename "$F")" "$N" "$(du -h "$F" | cut -f1)"
	base=
	for m in "${MODES[@]}"; do
		: >"$B/t" ; : >"$B/lines"
		for ((i = 0; i < R; i++)); do
			# shellcheck disable=SC2086
			if ! read -r t rss lines < <(run $m "$F"); then
				bad=1
			fi
			echo "$t" >>"$B/t"
			echo "$lines" >>"$B/lines"
		done
		if [ "$(sort -u "$B/lines" | wc -l)" != 1 ]; then
			echo "  ${m:-plain}: output differs between rounds" >&2
			bad=1
		fi
		t=$(median <"$B/t")
		[ -z "$base" ] && base=$t
		printf '  %-28s %7.2f s CPU  %8d KiB peak  %9d lines  ratio to plain %.2f\n' \
			"${m:-plain (text)}" "$t" "$rss" "$(head -1 "$B/lines")" \
			"$(echo "$t / $base" | bc -l)"
	done
done
exit $bad
