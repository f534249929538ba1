#!/bin/bash
# What the tracing client's per-task record (struct trace_unwind_task,
# 2-tracing 0003) costs in memory, from the kernel's kmem events in a
# guest: task_struct's size, and the records allocated when the first
# instance asks, for 100 tasks forked after, and freed when they end.
# tests/guest/bench-task-record.sh says how.  Run it on two kernels (the
# record inside task_struct, and allocated) for the side by side figures
# in bench/results-notes.md.
#
#   bench/task-record.sh --kernel IMAGE [run-guest.sh options]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-task-record "$@"
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-900}" \
	--cmd "$here/tests/guest/bench-task-record.sh"
