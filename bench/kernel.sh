#!/bin/bash
# Benchmark: cost per event of no stack, stacktrace, stacktrace plus the
# in-place userstacktrace option, and stacktrace:defer, measured side by
# side in one boot of the test kernel.  Prints a table with ratios to
# plain stacktrace and the ring-buffer bytes written per syscall.
#
#   bench/kernel.sh [--debug]       (BENCH_N, BENCH_ROUNDS tune the run)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$here/tests/workload" >&2
exec "$here/rig/run-guest.sh" "$@" --timeout 1200 \
	--cmd "BENCH_N=${BENCH_N:-20000} BENCH_ROUNDS=${BENCH_ROUNDS:-7} $here/tests/guest/bench-guest.sh"
