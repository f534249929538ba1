#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the libustack join.  For each trace.dat it prints:
#   - join throughput in events/s: the join alone (records already in
#     memory) and end to end (libtracecmd reading + join), CPU time of
#     the process (CLOCK_PROCESS_CPUTIME_ID), median of JOIN_ROUNDS
#     (default 3, odd);
#   - the CPU time (user + system, /usr/bin/time) of "trace-cmd report" on
#     the same file without and with the libtraceevent plugin of
#     trace-cmd/plugins (TRACEEVENT_PLUGIN_DIR), and of the ustack tool,
#     medians of JOIN_ROUNDS, as ratios.
# Every command must exit 0 and print the same number of lines in every
# round, and the join must deliver as many events in memory as end to
# end; a file that fails a check gives no row and the script exits 1.
#
#   bench/join.sh [ENTRIES]      (default 100000 kernel entries, ~1M records)
#   BENCH_FILE=x.dat bench/join.sh   that trace.dat instead of the three
#
# The files: large-ENTRIES.dat, synthesized (tests/userspace/lib/mktrace.py):
# kernel entries of the workload's call chain, enter and exit events
# asking, the user stack on the other CPU; a kernel thread now and then,
# some truncated stacks (one task, one binary); and beside it the
# multi-task multi-binary and the stuck-task traces that bench/report.sh
# records in the guest ($CACHE/bench-report/multi-*.dat, stuck-*.dat;
# left out, with a line saying so, until report.sh has recorded them).
# Installs its Debian packages when missing.
set -eu
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/bench/lib.sh"
LIB=$REPO/libustack
TL=$REPO/tests/userspace/lib
PLUG=$REPO/trace-cmd/plugins
B=${BENCH_DIR:-/tmp/ustack-bench}
N=${1:-100000}
mkdir -p "$B"

"$LIB/deps.sh" >&2
# the tool's trace.dat reader needs the series' libtracecmd
# (ustack/Makefile): rig/build-tracecmd.sh's prefix, by pkg-config, and
# by rpath for the programs linked here
P=$(dirname "$(dirname "$("$REPO/rig/build-tracecmd.sh")")")
export PKG_CONFIG_PATH=$P/lib/pkgconfig LD_RUN_PATH=$P/lib
make -s -C "$LIB" OUT="$B/lib" all >&2
# the trace.dat reader is the tool's layer (ustack/file.c), not the library's
make -s -C "$REPO/ustack" OUT="$B/lib" file >&2
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
#include "ustack.h"
#include "ustack-file.h"

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

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct ustack_join_stats st;
	struct ustack_file *file;
	struct ustack_join *join;
	double t0, t[99], e2e[99];
	unsigned long long e2e_events = 0, e2e_records = 0, first = 0;
	int round, rounds = argc > 2 ? atoi(argv[2]) : 3;
	size_t i;

	if (argc < 2 || rounds < 1 || rounds > 99 || !(rounds & 1)) {
		fprintf(stderr, "usage: join-bench FILE [ODD-ROUNDS]\n");
		return 2;
	}
	/* end to end: libtracecmd reading + join, ROUNDS times */
	for (round = 0; round < rounds; round++) {
		file = ustack_file_open(argv[1]);
		if (!file)
			return 1;
		t0 = now();
		if (ustack_file_iterate(file, 0, count, NULL, &st) < 0)
			return 1;
		e2e[round] = now() - t0;
		ustack_file_close(file);
		if (round && (st.delivered != e2e_events || st.records != e2e_records)) {
			fprintf(stderr, "end to end: round %d delivered %llu, round 0 %llu\n",
				round, st.delivered, e2e_events);
			return 1;
		}
		e2e_events = st.delivered;
		e2e_records = st.records;
	}
	qsort(e2e, rounds, sizeof(*e2e), cmp_double);
	printf("end_to_end_records %llu events %llu seconds %.3f\n",
	       e2e_records, e2e_events, e2e[rounds / 2]);
	/* the join alone, records in memory (read from a second handle,
	 * libtracecmd reads forward only) */
	file = ustack_file_open(argv[1]);
	if (!file)
		return 1;
	tracecmd_iterate_events(ustack_file_handle(file), NULL, 0, keep, NULL);
	for (round = 0; round < rounds; round++) {
		delivered = 0;
		join = ustack_join_alloc(ustack_file_tep(file), count, NULL);
		if (!join)
			return 1;
		t0 = now();
		for (i = 0; i < nr; i++)
			ustack_join_add_record(join, &recs[i].r);
		ustack_join_flush(join);
		t[round] = now() - t0;
		ustack_join_get_stats(join, &st);
		ustack_join_free(join);
		if (round && delivered != first) {
			fprintf(stderr, "join: round %d delivered %llu, round 0 %llu\n",
				round, delivered, first);
			return 1;
		}
		first = delivered;
	}
	qsort(t, rounds, sizeof(*t), cmp_double);
	printf("join_records %zu events %llu seconds %.3f peak_cookies %llu\n",
	       nr, delivered, t[rounds / 2], st.peak_cookies);
	if (delivered != e2e_events) {
		fprintf(stderr, "join in memory delivered %llu events, end to end %llu\n",
			delivered, e2e_events);
		return 1;
	}
	return 0;
}
EOF
PKGS="libtracefs libtraceevent libtracecmd libdw"
# shellcheck disable=SC2046
gcc -O2 -I"$LIB/include" -I"$REPO/ustack" $(pkg-config --cflags $PKGS) -o "$B/join-bench" \
	"$B/join-bench.c" "$B/lib/libustack-file.a" "$B/lib/libustack.a" \
	$(pkg-config --libs $PKGS) -lelf -lstdc++

need_time() { [ -x /usr/bin/time ] || { echo "join.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }; }
need_time
ROUNDS=${JOIN_ROUNDS:-3}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# cpu LABEL CMD...: ROUNDS runs; prints the median CPU seconds and the
# output lines, or "REFUSED why"
cpu() {
	local s=() n='' x l label=$1 o=$B/cmd.out _r
	shift
	for _r in $(seq 1 "$ROUNDS"); do
		read -r u sy _ rc < <(bench_time "$o" "$@")
		[ "${rc:-}" = 0 ] || { echo "REFUSED $label exited ${rc:-?}"; return; }
		l=$(wc -l < "$o")
		[ -z "$n" ] || [ "$n" = "$l" ] || { echo "REFUSED $label printed $n then $l lines"; return; }
		[ "$l" -gt 0 ] || { echo "REFUSED $label printed nothing"; return; }
		n=$l
		s+=("$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.3f", u + s }')")
	done
	echo "$(echo "${s[*]}" | median) $n"
}

files=("$F")
if [ -z "${BENCH_FILE:-}" ]; then
	rep=${FTD_CACHE:-/var/cache/ftrace-defer}/bench-report
	for k in multi stuck; do
		f=$(ls "$rep"/$k-*.dat 2>/dev/null | head -1 || true)
		if [ -n "$f" ]; then files+=("$f"); else echo "no $k trace in $rep (bench/report.sh records it): left out"; fi
	done
fi
plug_ok=0
[ -f "$PLUG/Makefile" ] && make -s -C "$PLUG" >/dev/null 2>&1 && [ -f "$PLUG/plugin_unwind_deferred.so" ] && plug_ok=1
failed=0
echo "CPU time (user + system), median of $ROUNDS rounds"
for F in "${files[@]}"; do
	echo "== $F ($(du -h "$F" | cut -f1))"
	if ! "$B/join-bench" "$F" "$ROUNDS" >"$B/bench.out"; then
		echo "  REFUSED: join-bench failed"
		failed=1
		continue
	fi
	read -r _ e2e_recs _ e2e_events _ e2e_secs < <(grep end_to_end "$B/bench.out")
	read -r _ j_recs _ j_events _ j_secs _ peak < <(grep join_records "$B/bench.out")
	awk -v r="$j_recs" -v e="$j_events" -v s="$j_secs" -v p="$peak" 'BEGIN {
		printf "  join alone:  %d records, %d events delivered in %.3f s: %.0f events/s (%.0f records/s), peak pending cookies %d\n",
			r, e, s, e / (s > 0 ? s : 1e-9), r / (s > 0 ? s : 1e-9), p }'
	awk -v r="$e2e_recs" -v e="$e2e_events" -v s="$e2e_secs" 'BEGIN {
		printf "  end to end:  libtracecmd read + join: %.3f s: %.0f events/s (%.0f records/s)\n",
			s, e / (s > 0 ? s : 1e-9), r / (s > 0 ? s : 1e-9) }'
	read -r t_report n_report <<< "$(cpu report env -u TRACEEVENT_PLUGIN_DIR trace-cmd report "$F")"
	read -r t_ustack n_ustack <<< "$(cpu ustack "$B/lib/ustack" --raw "$F")"
	for v in "$t_report $n_report" "$t_ustack $n_ustack"; do
		case $v in REFUSED*) echo "  $v"; failed=1 ;; esac
	done
	case $t_report in REFUSED) continue ;; esac
	printf "  trace-cmd report, stock plugins:  %8.3f s  %9d lines\n" "$t_report" "$n_report"
	case $t_ustack in
	REFUSED) ;;
	*) printf "  ustack --raw (same file):          %8.3f s  %9d lines   ratio ustack/report %.2f\n" \
		"$t_ustack" "$n_ustack" "$(echo "$t_ustack / $t_report" | bc -l)" ;;
	esac
	if [ $plug_ok = 1 ]; then
		read -r t_plug n_plug <<< "$(cpu report-plugin env TRACEEVENT_PLUGIN_DIR="$PLUG" trace-cmd report "$F")"
		case $t_plug in
		REFUSED) echo "  $t_plug $n_plug"; failed=1 ;;
		*) printf "  trace-cmd report, with plugin:    %8.3f s  %9d lines   ratio with/without plugin %.2f\n" \
			"$t_plug" "$n_plug" "$(echo "$t_plug / $t_report" | bc -l)" ;;
		esac
	else
		echo "  trace-cmd report with the plugin: not measured, trace-cmd/plugins is not there or does not build"
	fi
done
[ $failed = 0 ] || { echo "join.sh: some commands failed their checks (REFUSED above)"; exit 1; }
