#!/bin/bash
# trace-cmd's own unit tests (utest: CUnit, they record with the running
# kernel's tracefs) still pass with our series applied.  Both utest
# binaries are built by rig/build-tracecmd.sh next to their trace-cmd:
# the series' (FTD_TRACECMD's prefix) and stock 3.4's
# (rig/build-tracecmd.sh --stock).  Every test stock 3.4 passes on this
# kernel must pass with the series; the ones stock fails here are named
# (an environment the tests do not expect), and the series must pass at
# least 5 of utest's 8.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
. "$(dirname "$0")/tracecmd-lib.sh"
reset_tracing
TESTS="tracecmd-utest-series"
tc_require $TESTS
D=$FTD_RESULTS/t95
rm -rf "$D"
mkdir -p "$D"
# $CACHE/tracecmd/prefix/bin/trace-cmd -> $CACHE/tracecmd/{,stock/}work
tc_dir=$(cd "$(dirname "$TCMD")/../.." && pwd)
SERIES=$tc_dir/work/trace-cmd/utest/trace-utest
STOCK=$tc_dir/stock/work/trace-cmd/utest/trace-utest

# utest NAME BIN: run it in $D/NAME (it writes its trace.dat in the
# working directory); the names of the tests that failed in $D/NAME.fail
utest() {
	mkdir -p "$D/$1"
	(cd "$D/$1" && timeout 1200 "$2" -r trace-cmd) > "$D/$1.out" 2>&1
	echo "  $1: exit $?: $(grep -E 'tests +[0-9]+' "$D/$1.out" | tr -s ' ')"
	sed -n 's/^ *Test: \(.*\) \.\.\.FAILED.*/\1/p' "$D/$1.out" | sort -u > "$D/$1.fail"
	reset_tracing
}

t_begin tracecmd-utest-series
if [ ! -x "$SERIES" ] || [ ! -x "$STOCK" ]; then
	t_fail "no utest: $SERIES or $STOCK (rig/build-tracecmd.sh, and --stock)"
else
	utest stock "$STOCK"
	utest series "$SERIES"
	ran=$(awk '$1 == "tests" { print $3; exit }' "$D/series.out")
	passed=$(awk '$1 == "tests" { print $4; exit }' "$D/series.out")
	sed 's/^/    stock failed: /' "$D/stock.fail"
	sed 's/^/    series failed: /' "$D/series.fail"
	check "utest ran its 8 tests" test "${ran:-0}" = 8 &&
	check "at least 5 pass with the series" test "${passed:-0}" -ge 5 &&
	check "no test fails with the series that passes with stock 3.4" \
		test -z "$(grep -vxF -f "$D/stock.fail" "$D/series.fail")" &&
	t_pass
fi
t_summary
