#!/bin/bash
# What the tracing client's per-task record (struct trace_unwind_task,
# 2-tracing 0003) costs in memory, read from /proc/slabinfo in a guest
# booted with slab_nomerge: task_struct's object size, and the records
# allocated before any instance asks, when the first one asks, and for
# 100 tasks forked after.  tests/guest/bench-task-record.sh says how.
# Run it on two kernels (the record inside task_struct, and allocated)
# for the side by side figures in bench/results-notes.md.
#
#   bench/task-record.sh --kernel IMAGE [run-guest.sh options]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-task-record "$@"
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-900}" \
	--append slab_nomerge --cmd "$here/tests/guest/bench-task-record.sh"
