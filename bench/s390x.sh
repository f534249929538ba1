#!/bin/bash
# Instructions per deferred user stack on s390x, walked by the back chain:
# bcwork-bc's bench loop (tests/s390x/bcwork.c, -mbackchain) in the s390x
# guest under TCG, counted by bench/tcg-plugin/insn-count.c (its s390x
# marker, brcl 0), at user stacks of 3 and 40 frames, without and with
# stacktrace:defer (tests/s390x/bench-guest.sh).  One vCPU.
#
#   bench/s390x.sh [--kernel BZIMAGE]      N=2000 REPS=3 by default
#
# Prints per frames: the median instructions per getppid() without and
# with the trigger, their difference (the cost of the trigger, the cookie
# record with the kernel stack, the walk and the user stack record), and
# the frames the records carry.  Results also in $CACHE/bench/s390x/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
kernel=
[ "${1:-}" = --kernel ] && kernel=$2
N=${N:-2000} REPS=${REPS:-3}
xdir=$("$here/rig/fetch-cross.sh")
so=$("$here/bench/tcg-plugin/build.sh") || die "the TCG plugin did not build"
[ -n "$kernel" ] || kernel=$("$here/rig/build-kernel.sh" --arch s390x)
out=$CACHE/bench/s390x
rm -rf "$out"; mkdir -p "$out/guest"
"$xdir/usr/bin/s390x-linux-gnu-gcc" -static -O2 -mbackchain -Wall -Wextra -Werror \
	-I"$here/tests/workload" -o "$out/guest/bcwork-bc" "$here/tests/s390x/bcwork.c"
install -m 0755 "$here/tests/s390x/bench-guest.sh" "$out/guest/"
"$here/rig/run-guest.sh" --arch s390x --kernel "$kernel" --smp 1 --add "$out/guest" \
	--cmd "N=$N REPS=$REPS sh ./bench-guest.sh" --out "$out/run" --quiet --timeout 1200 \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log" > /dev/null ||
	die "the bench boot failed (see $out/run)"
python3 - "$out/run/output.log" "$out/insn-count.log" "$N" <<'PY' | tee "$out/result.txt"
import re, statistics, sys
runs = [l.split()[2:4] for l in open(sys.argv[1]) if l.startswith('=== run ')]
counts = [int(m.group(1)) for m in
          (re.search(r'id=63 insns=(\d+)', l) for l in open(sys.argv[2])) if m]
n = int(sys.argv[3])
if len(runs) != len(counts):
    sys.exit('bench/s390x.sh: %d runs but %d counts' % (len(runs), len(counts)))
by = {}
for (mode, frames), c in zip(runs, counts):
    by.setdefault((frames, mode), []).append(c / n)
frames_nr = sorted({int(m.group(1)) for m in
                    (re.search(r'=== sample .* nr=(\d+)', l) for l in open(sys.argv[1])) if m})
print('s390x, TCG, 1 vCPU, %d getppid() per run, medians of %d runs' %
      (n, len(by[next(iter(by))])))
for frames in sorted({f for f, _ in by}, key=int):
    off = statistics.median(by[(frames, 'off')])
    on = statistics.median(by[(frames, 'defer')])
    print('user stack of %s frames: %.1f insns/call without, %.1f with stacktrace:defer: '
          '%.1f per deferred stack' % (frames, off, on, on - off))
print('frames in the records: %s' % frames_nr)
print('user stacks recorded per defer run: %s' %
      sorted({int(l.split()[2]) for l in open(sys.argv[1]) if l.startswith('=== stacks ')}))
PY
