#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the libtracefs-ext join, on a large trace.dat.  One run
# prints:
#   - join throughput in events/s: the join alone (records already in
#     memory) and end to end (libtracecmd reading + join);
#   - the time of "trace-cmd report" on the same file without and with the
#     libtraceevent plugin of trace-cmd/plugins (TRACEEVENT_PLUGIN_DIR), and
#     of the ustack tool, as ratios.
#
#   bench/join.sh [ENTRIES]      (default 100000 kernel entries, ~1M records)
#   BENCH_FILE=x.dat bench/join.sh   use that trace.dat instead
#
# The large file is synthesized (tests/userspace/lib/mktrace.py): kernel
# entries of the workload's call chain, enter and exit events asking, the
# user stack on the other CPU; a kernel thread now and then, some
# truncated stacks.  Installs its Debian packages when missing.
set -eu
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB=$REPO/libtracefs-ext
TL=$REPO/tests/userspace/lib
PLUG=$REPO/trace-cmd/plugins
B=${BENCH_DIR:-/tmp/ustack-bench}
N=${1:-100000}
mkdir -p "$B"

"$LIB/deps.sh" >&2
make -s -C "$LIB" OUT="$B/lib" all >&2
gcc -O1 -g -fno-omit-frame-pointer -fPIE -pie -o "$B/callchain" "$REPO/tests/workload/callchain.c"

F=${BENCH_FILE:-$B/large-$N.dat}
if [ -z "${BENCH_FILE:-}" ] && [ ! -f "$F" ]; then
	echo "generating $F ($N kernel entries)..." >&2
	python3 "$TL/mktrace.py" large "$F.tmp" --formats "$TL/data/formats" \
		--binary "$B/callchain" --count "$N"
	mv "$F.tmp" "$F"
fi

cat >"$B/join-bench.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <trace-cmd.h>
#include "tracefs-ext.h"

struct rec { struct tep_record r; };
static struct rec *recs;
static size_t nr, alloc;
static unsigned long long delivered;

static int keep(struct tracecmd_input *h, struct tep_record *r, int cpu, void *d)
{
	(void)h; (void)d;
	if (nr == alloc) {
		alloc = alloc ? alloc * 2 : 65536;
		recs = realloc(recs, alloc * sizeof(*recs));
	}
	recs[nr].r = *r;
	recs[nr].r.cpu = cpu;
	recs[nr].r.data = malloc(r->size);
	memcpy(recs[nr].r.data, r->data, r->size);
	nr++;
	return 0;
}

static int count(const struct ustack_event *ev, void *d)
{
	(void)ev; (void)d;
	delivered++;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ustack_join_stats st;
	struct ustack_file *file;
	struct ustack_join *join;
	double t0, t1, best = 1e9;
	size_t i;
	int round;

	file = ustack_file_open(argv[1]);
	if (!file)
		return 1;
	/* end to end: libtracecmd reading + join */
	t0 = now();
	ustack_file_iterate(file, 0, count, NULL, &st);
	t1 = now();
	printf("end_to_end_records %llu events %llu seconds %.3f\n",
	       st.records, st.delivered, t1 - t0);
	/* the join alone, records in memory (read from a second handle,
	 * libtracecmd reads forward only), best of 3 */
	ustack_file_close(file);
	file = ustack_file_open(argv[1]);
	if (!file)
		return 1;
	tracecmd_iterate_events(ustack_file_handle(file), NULL, 0, keep, NULL);
	for (round = 0; round < 3; round++) {
		delivered = 0;
		join = ustack_join_alloc(ustack_file_tep(file), count, NULL);
		t0 = now();
		for (i = 0; i < nr; i++)
			ustack_join_add_record(join, &recs[i].r);
		ustack_join_flush(join);
		t1 = now();
		ustack_join_get_stats(join, &st);
		ustack_join_free(join);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	printf("join_records %zu events %llu seconds %.3f peak_cookies %llu\n",
	       nr, delivered, best, st.peak_cookies);
	(void)argc;
	return 0;
}
EOF
PKGS="libtracefs libtraceevent libtracecmd libdw"
# shellcheck disable=SC2046
gcc -O2 -I"$LIB/include" $(pkg-config --cflags $PKGS) -o "$B/join-bench" \
	"$B/join-bench.c" "$B/lib/libtracefs-ext.a" $(pkg-config --libs $PKGS) -lelf -lstdc++

echo "file: $F ($(du -h "$F" | cut -f1))"
"$B/join-bench" "$F" >"$B/bench.out"
read -r _ e2e_recs _ e2e_events _ e2e_secs < <(grep end_to_end "$B/bench.out")
read -r _ j_recs _ j_events _ j_secs _ peak < <(grep join_records "$B/bench.out")
awk -v r="$j_recs" -v e="$j_events" -v s="$j_secs" -v p="$peak" 'BEGIN {
	printf "join alone:  %d records, %d events delivered in %.3f s: %.0f events/s (%.0f records/s), peak pending cookies %d\n",
		r, e, s, e / s, r / s, p }'
awk -v r="$e2e_recs" -v e="$e2e_events" -v s="$e2e_secs" 'BEGIN {
	printf "end to end:  libtracecmd read + join: %.3f s: %.0f events/s (%.0f records/s)\n",
		s, e / s, r / s }'

timeit() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
t_ustack=$(timeit "$B/lib/ustack" --raw "$F")
t_report=$(timeit env -u TRACEEVENT_PLUGIN_DIR trace-cmd report "$F")
printf "trace-cmd report, stock plugins:  %.3f s\n" "$t_report"
printf "ustack --raw (same file):          %.3f s   ratio ustack/report %.2f\n" \
	"$t_ustack" "$(echo "$t_ustack / $t_report" | bc -l)"
if [ -f "$PLUG/Makefile" ] && make -s -C "$PLUG" >/dev/null 2>&1 &&
   [ -f "$PLUG/plugin_unwind_deferred.so" ]; then
	t_plug=$(timeit env TRACEEVENT_PLUGIN_DIR="$PLUG" trace-cmd report "$F")
	printf "trace-cmd report, with plugin:    %.3f s   ratio with/without plugin %.2f\n" \
		"$t_plug" "$(echo "$t_plug / $t_report" | bc -l)"
else
	echo "trace-cmd report with the plugin: skipped, trace-cmd/plugins is not there or does not build"
fi
