#!/bin/bash
# What the SFrame registrar and the kernel's checks on PR_ADD_SFRAME add to
# the start of Debian's python3 (`python3 -c pass`: no registrar, ld.so's
# auditing alone, warm cache, cold cache), and what the first deferred
# user stack of a fresh process costs against its second, in instructions
# of the whole fork+exec+exit (TCG plugin), one boot; rows and checks in
# tests/guest/bench-startup.sh.  Wall time on the host, without the
# kernel's part (the host kernel has no PR_ADD_SFRAME): bench/sframe-register.sh.
#
#   bench/startup.sh [run-guest.sh options]
#   BENCH_ROUNDS (default 7), BENCH_CPU
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
. "$here/bench/lib.sh"
bench_out bench-startup "$@"
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
make -s -C "$here/tests/workload" insn-marker
make -s -C "$here/sframe-gen"
: > "$out/insn-count.log"
export FTD_ACCEL=tcg
env=("BENCH_ROUNDS=${BENCH_ROUNDS:-7}")
[ -n "${BENCH_CPU:-}" ] && env+=("BENCH_CPU=$BENCH_CPU")
exec "$here/rig/run-guest.sh" "${extra[@]}" "$@" --timeout "${BENCH_TIMEOUT:-1800}" \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" \
	--cmd "${env[*]} $here/tests/guest/bench-startup.sh"
