#!/bin/bash
# Bytes per event on s390x: stacktrace:defer (the cookie record with the
# kernel stack and the deferred user stack record) beside perf record
# --call-graph dwarf (and --call-graph fp, for context) on the same event,
# sys_enter_getppid of tests/s390x/bcwork.c's bench loop built
# -mbackchain (bcwork-bc), at user stacks of 3 and 40 frames, as
# bench/s390x.sh runs it; in the s390x guest under TCG, one vCPU
# (bench/s390x-perf-guest.sh).  perf is rig/build-perf.sh --arch s390x,
# a static cross-built perf.
#
#   bench/s390x-perf.sh [--kernel BZIMAGE]      N=500 by default
#
# Method: ours, the ring buffer's per-cpu "bytes" (every written event,
# headers included) over the getppid() calls; perf, the bytes of its
# PERF_RECORD_SAMPLE records (perf report -D) over the samples, and the
# perf.data file size over the calls (headers, mmap and comm records
# included).  perf needs CONFIG_PERF_EVENTS in the guest kernel: without
# it perf record fails, and the perf columns say so.
# Results also in $CACHE/bench/s390x-perf/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
kernel=
[ "${1:-}" = --kernel ] && kernel=$2
N=${N:-500}
xdir=$("$here/rig/fetch-cross.sh")
perf=$("$here/rig/build-perf.sh" --arch s390x)
[ -n "$kernel" ] || kernel=$("$here/rig/build-kernel.sh" --arch s390x)
out=$CACHE/bench/s390x-perf
rm -rf "$out"; mkdir -p "$out/guest"
"$xdir/usr/bin/s390x-linux-gnu-gcc" -static -O2 -mbackchain -Wall -Wextra -Werror \
	-I"$here/tests/workload" -o "$out/guest/bcwork-bc" "$here/tests/s390x/bcwork.c"
install -m 0755 "$perf" "$out/guest/perf"
install -m 0755 "$here/bench/s390x-perf-guest.sh" "$out/guest/"
"$here/rig/run-guest.sh" --arch s390x --no-build --kernel "$kernel" --smp 1 --add "$out/guest" \
	--cmd "N=$N sh ./s390x-perf-guest.sh" --out "$out/run" --quiet --timeout 1200 > /dev/null ||
	die "the boot failed (see $out/run)"
python3 - "$out/run/output.log" <<'PY' | tee "$out/result.txt"
import re, sys
kv = lambda l: dict(re.findall(r'(\w+)=(\S+)', l))
ours, perf, notes = {}, {}, []
for l in open(sys.argv[1]):
    f = l.split()
    if l.startswith('=== ours '):
        ours[f[2]] = kv(l)
    elif l.startswith('=== perf ') and len(f) > 3:
        perf[(f[2], f[3])] = kv(l)
    elif l.startswith(('=== perf-version', '=== perf-events', '=== perf-out', '=== sample')):
        notes.append(l.rstrip()[4:])
print('s390x, TCG, 1 vCPU; sys_enter_getppid of bcwork-bc (-mbackchain); bytes per event')
print('%-10s | %-34s | %-34s | %-34s' % ('user stack', 'stacktrace:defer (ring buffer bytes)',
      'perf --call-graph dwarf', 'perf --call-graph fp'))
def pcol(d):
    if not d or d.get('rc') != '0' or int(d.get('samples', 0)) == 0:
        return 'failed (rc=%s)' % (d or {}).get('rc', '?')
    s = int(d['samples'])
    return '%.0f/sample, %.0f/call file (%d)' % (int(d['sample_bytes']) / s,
                                                 int(d['file_bytes']) / int(d['calls']), s)
for fr in sorted(ours, key=int):
    o = ours[fr]
    c = int(o['calls'])
    print('%-10s | %-34s | %-34s | %-34s' % ('%s frames' % fr,
          '%.0f/call (%s stacks, %s calls)' % (int(o['bytes']) / c, o['stacks'], c),
          pcol(perf.get(('dwarf', fr))), pcol(perf.get(('fp', fr)))))
for n in notes:
    print(n)
PY
