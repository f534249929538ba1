#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the libFuzzer target (clang, ASan) with the library's sources and
# run it for a bounded time from a seed corpus: the synthetic traces and
# the recorded fixtures.  usage: run-fuzz.sh BUILD_DIR SEED_DIR SECONDS
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
LIB=$REPO/libtracefs-ext
B=$1/fuzz
SEEDS=$2
SECS=${3:-30}
mkdir -p "$B/corpus" "$B/artifacts"
PKGS="libtracefs libtraceevent libtracecmd libdw"
CC="clang-14 -g -O1 -fsanitize=fuzzer,address -fno-omit-frame-pointer -D_GNU_SOURCE"
for t in fuzz-tracedat fuzz-records; do
	# shellcheck disable=SC2046,SC2086
	$CC -I"$LIB/include" -I"$LIB/src" -I"$LIB/../common" $(pkg-config --cflags $PKGS) \
		-o "$B/$t" "$HERE/$t.c" "$LIB"/src/*.c \
		$(pkg-config --libs $PKGS) -lelf || { echo "build $t failed"; exit 1; }
done
for f in "$SEEDS"/*.dat "$REPO"/tests/fixtures/*.dat "$HERE"/../data/regress/*.dat; do
	[ -f "$f" ] || continue
	case $(basename "$f") in flip*|random*|trunc*|empty*) continue ;; esac
	[ "$(stat -c %s "$f")" -le 4000000 ] && cp "$f" "$B/corpus/"
done
echo "seeds: $(ls "$B/corpus" | wc -l)"
# Leaks inside the uninstrumented libtracecmd/libtraceevent error paths
# are theirs, not ours.
cat >"$B/lsan.supp" <<'SUPP'
leak:libtracecmd.so
leak:libtraceevent.so
SUPP
export LSAN_OPTIONS=suppressions=$B/lsan.supp
export ASAN_OPTIONS=allocator_may_return_null=1
fuzz() {
	local t=$1 corpus=$2
	mkdir -p "$B/artifacts-$t"
	"$B/$t" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=65536 \
		-max_len=1048576 -artifact_prefix="$B/artifacts-$t/" \
		"$corpus" >"$B/$t.log" 2>&1
	rc=$?
	tail -3 "$B/$t.log"
	if [ $rc != 0 ] || ls "$B/artifacts-$t"/* >/dev/null 2>&1; then
		grep -A30 'ERROR\|SUMMARY' "$B/$t.log" | head -60
		echo "$t: crash (exit $rc), see $B/artifacts-$t"
		return 1
	fi
	runs=$(grep -o 'Done [0-9]* runs' "$B/$t.log" | tail -1)
	RESULT="$RESULT${RESULT:+; }$t: ${runs:-?} in ${SECS}s"
}
RESULT=
ok=0
fuzz fuzz-tracedat "$B/corpus" || ok=1
# records: formats from a synthetic trace, seeds from its stream
mkdir -p "$B/corpus-records"
python3 "$HERE/seed-records.py" "$HERE/../data/formats" "$1/work/callchain" \
	"$B/corpus-records/trigger" || ok=1
export FUZZ_FORMATS=$SEEDS/trigger.dat
fuzz fuzz-records "$B/corpus-records" || ok=1
[ $ok = 0 ] && echo "$RESULT, no crash"
exit $ok
