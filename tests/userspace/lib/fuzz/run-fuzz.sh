#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the two libFuzzer targets (clang, ASan, in-process) with the
# library's sources and run each for a bounded time, or a number of runs.
#
#   run-fuzz.sh BUILD_DIR SEED_DIR SECONDS       CI: a short run of each
#   FUZZ_RUNS=N run-fuzz.sh BUILD_DIR SEED_DIR   long run: N executions of
#                                                each target, no time limit
#   FUZZ_TARGETS=fuzz-records ...                only the targets named
#
# run.sh calls it with its build directory and traces (BUILD_DIR/traces);
# a long run (not in CI) reuses them, one target at a time, e.g.
#   FUZZ_RUNS=10000000 FUZZ_TARGETS=fuzz-records nice -n 19 \
#     run-fuzz.sh tests/userspace/lib/build tests/userspace/lib/build/traces
#
# fuzz-tracedat: the trace.dat reader on files whose ring-buffer pages are
#   damaged (headers intact, so libtracecmd opens them in-process).  Its
#   seeds (FUZZ_SEEDS) are the synthetic traces of SEED_DIR, uncompressed,
#   each with NAME.pages; FUZZ_FIXTURES=1 adds the recorded fixtures (real
#   records, but their 1.3 MB of kallsyms make each run 30x slower).
# fuzz-records: records built from operations (event, kernel stack,
#   cookie, user stack, raw bytes, damage, flush) with the formats of two
#   synthetic traces, fed straight to the join and the record decoding;
#   seeds from seed-records.py.  data/regress/records/ holds inputs it once
#   failed on: they run before it fuzzes, every time.
# Crash inputs land in BUILD_DIR/fuzz/artifacts-TARGET/.
# ustack/file.c needs the series' libtracecmd: run.sh sets PKG_CONFIG_PATH
# to rig/build-tracecmd.sh's prefix (a long run needs the same).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
LIB=$REPO/libustack
B=$1/fuzz
SEEDS=$2
SECS=${3:-30}
RUNS=${FUZZ_RUNS:-}
mkdir -p "$B"
PKGS="libtracefs libtraceevent libtracecmd libdw"
CC="clang-14 -g -O1 -fsanitize=fuzzer,address -fno-omit-frame-pointer -D_GNU_SOURCE"
for t in fuzz-tracedat fuzz-records; do
	# shellcheck disable=SC2046,SC2086
	$CC -I"$LIB/include" -I"$LIB/src" -I"$REPO/ustack" $(pkg-config --cflags $PKGS) \
		-o "$B/$t" "$HERE/$t.c" "$LIB"/src/*.c "$REPO"/ustack/file.c \
		-Wl,-rpath,"$(pkg-config --variable=libdir libtracecmd)" \
		$(pkg-config --libs $PKGS) -lelf -lstdc++ || { echo "build $t failed"; exit 1; }
done

# ---- seeds of fuzz-tracedat: uncompressed trace.dat files + their pages ----
S=$B/seeds
rm -rf "$S" && mkdir -p "$S"
pages() { # pages FILE: "offset size" of each CPU's data (file versions 6 and 7)
	trace-cmd dump --flyrecord "$1" 2>/dev/null | awk '
		/\[offset, size of cpu/ { print $1, $2 }
		/\[id, data offset and size\]/ { print $2, $3 }'
}
fixtures=()
[ "${FUZZ_FIXTURES:-0}" = 1 ] && fixtures=("$REPO"/tests/fixtures/*.dat)
for f in "$SEEDS"/*.dat "${fixtures[@]}"; do
	[ -f "$f" ] || continue
	case $(basename "$f") in flip*|random*|trunc*|empty*|pagedamage*|unc*|badfmt*) continue ;; esac
	n=$(basename "$(dirname "$f")")-$(basename "$f")
	trace-cmd convert -i "$f" -o "$S/$n" --compression none >/dev/null 2>&1 ||
		cp "$f" "$S/$n"
	pages "$S/$n" > "$S/$n.pages"
	[ -s "$S/$n.pages" ] || rm -f "$S/$n" "$S/$n.pages"
done
nseeds=$(ls "$S"/*.dat 2>/dev/null | wc -l)
echo "fuzz-tracedat seeds: $nseeds files"
[ "$nseeds" -gt 0 ] || { echo "no seed files"; exit 1; }
# starting inputs: each seed untouched, and each with a few bytes set
mkdir -p "$B/corpus-tracedat"
python3 - "$B/corpus-tracedat" "$nseeds" <<'PY'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
for i in range(n):
    open(os.path.join(out, "seed%02d" % i), "wb").write(bytes([i]))
    e = bytes([i]) + bytes(r.randrange(256) for _ in range(3 * 8))
    open(os.path.join(out, "seed%02d-8" % i), "wb").write(e)
PY

# Leaks inside the uninstrumented libtracecmd/libtraceevent error paths
# are theirs, not ours.
cat >"$B/lsan.supp" <<'SUPP'
leak:libtracecmd.so
leak:libtraceevent.so
SUPP
export LSAN_OPTIONS=suppressions=$B/lsan.supp
# a short malloc context and quarantine: a third more runs a second, a
# sixth of the memory
export ASAN_OPTIONS=allocator_may_return_null=1:malloc_context_size=4:quarantine_size_mb=16
want() { case " ${FUZZ_TARGETS:-fuzz-tracedat fuzz-records} " in *" $1 "*) return 0 ;; esac; return 1; }
fuzz() { # fuzz TARGET CORPUS MAX_LEN
	local t=$1 corpus=$2 limit rc runs rate done
	rm -rf "$B/artifacts-$t"
	mkdir -p "$B/artifacts-$t"
	if [ -n "$RUNS" ]; then limit=-runs=$RUNS; else limit=-max_total_time=$SECS; fi
	"$B/$t" "$limit" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=65536 \
		-max_len="$3" -print_final_stats=1 -artifact_prefix="$B/artifacts-$t/" \
		"$corpus" >"$B/$t.log" 2>&1
	rc=$?
	tail -3 "$B/$t.log"
	if [ $rc != 0 ] || ls "$B/artifacts-$t"/* >/dev/null 2>&1; then
		grep -A30 'ERROR\|SUMMARY' "$B/$t.log" | head -60
		echo "$t: crash (exit $rc), see $B/artifacts-$t"
		return 1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$t.log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$B/$t.log" | tail -1)
	done=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$B/$t.log" | tail -1)
	RESULT="$RESULT${RESULT:+; }$t: ${runs:-?} runs, ${rate:-?}/s, $done"
}
RESULT=
ok=0
export FUZZ_SEEDS=$S
want fuzz-tracedat && { fuzz fuzz-tracedat "$B/corpus-tracedat" 4096 || ok=1; }
# records: the formats of a synthetic trace and of one without the user
# stack record; seeds: join scenarios and the trigger stream
# (seed-records.py)
rm -rf "$B/corpus-records"
python3 "$HERE/seed-records.py" "$HERE/../data/formats" "$1/work/callchain" \
	"$B/corpus-records" || ok=1
export FUZZ_FORMATS=$SEEDS/trigger.dat:$SEEDS/nouserstack.dat
# the inputs it once failed on, every run
R=$HERE/../data/regress/records
if ls "$R"/* >/dev/null 2>&1 &&
   ! "$B/fuzz-records" "$R"/* >"$B/regress-records.log" 2>&1; then
	grep -A30 'ERROR\|SUMMARY' "$B/regress-records.log" | head -60
	echo "fuzz-records: a regression input fails"
	ok=1
fi
want fuzz-records && { fuzz fuzz-records "$B/corpus-records" 512 || ok=1; }
[ $ok = 0 ] && echo "$RESULT, no crash"
exit $ok
