#!/bin/bash
# Bytes per event on s390x: stacktrace:defer (the cookie record with the
# kernel stack and the deferred user stack record) beside perf record on
# the same event, sys_enter_getppid of tests/s390x/bcwork.c's bench loop
# built -mbackchain (bcwork-bc), at user stacks of 3 and 40 frames, as
# bench/s390x.sh runs it; in the s390x guest under TCG, one vCPU
# (bench/s390x-perf-guest.sh).  perf is rig/build-perf.sh --arch s390x,
# a static cross-built perf; its call graphs: dwarf (the default 8192-byte
# user stack dump), dwarf,SIZE for each SIZE in DWARF_SIZES, fp (the
# kernel's back-chain walk in the sample) and fp,defer (a deferred
# callchain record from unwind_user, as ours).
#
#   bench/s390x-perf.sh [--kernel BZIMAGE]
#   Environment: N (getppid() calls per run, default 500), DWARF_SIZES
#   (more dwarf dump sizes, bytes, multiples of 8 up to 65528; default
#   "4096", which does not hold 40 frames; each size adds 3-6 minutes
#   of TCG, most of it perf script unwinding)
#
# Method: ours, the ring buffer's per-cpu "bytes" (every written event,
# headers included) over the getppid() calls; perf, the bytes of its
# PERF_RECORD_SAMPLE and PERF_RECORD_CALLCHAIN_DEFERRED records (perf
# report -D) over the calls, and the user frames perf script gives per
# sample (most common count; the range when they differ).  Ratios:
# dwarf over ours (how many times ours), ours over fp and fp,defer.  A
# run that lost data (ftrace overrun, fewer stacks than calls; perf
# failed, fewer samples or deferred callchains than calls, lost or
# throttled) has no figure: the table says why and the script exits 1.
# perf needs CONFIG_PERF_EVENTS in the guest kernel
# (kernel-config/s390x.config).  Results also in $CACHE/bench/s390x-perf/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
kernel=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || die "--kernel needs an image"; kernel=$2; shift ;;
	*) die "usage: $0 [--kernel BZIMAGE]" ;;
	esac
	shift
done
[ -z "$kernel" ] || [ -f "$kernel" ] || die "no kernel image $kernel"
N=${N:-500}
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N=$N: a number of calls, please"
DWARF_SIZES=${DWARF_SIZES-4096}
for sz in $DWARF_SIZES; do
	[[ $sz =~ ^[1-9][0-9]*$ ]] && [ $((sz % 8)) = 0 ] && [ "$sz" -le 65528 ] ||
		die "DWARF_SIZES: $sz is not a dump size (a multiple of 8, at most 65528)"
done
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
	--cmd "N=$N DWARF_SIZES='$DWARF_SIZES' sh ./s390x-perf-guest.sh" --out "$out/run" --quiet --timeout 2400 > /dev/null ||
	die "the boot failed (see $out/run)"
python3 - "$out/run/output.log" "$DWARF_SIZES" <<'PY' | tee "$out/result.txt"
import re, sys
kv = lambda l: dict(re.findall(r'(\w+)=(\S+)', l))
ours, perf, notes = {}, {}, []
for l in open(sys.argv[1]):
    f = l.split()
    if l.startswith('=== ours '):
        ours[f[2]] = kv(l)
    elif l.startswith('=== perf ') and len(f) > 3:
        perf[(f[2], f[3])] = kv(l)
    elif l.startswith(('=== perf-version', '=== perf-events', '=== perf-out', '=== sample ours')):
        notes.append(l.rstrip()[4:])
modes = [('dwarf', 'dwarf (8192)')] + [('dwarf-' + s, 'dwarf,' + s) for s in sys.argv[2].split()] + \
        [('fp', 'fp'), ('fpdefer', 'fp,defer')]
bad = []
def ours_b(fr):
    o = ours.get(fr)
    if not o:
        bad.append('ours %s: no result' % fr)
        return None
    c = int(o['calls'])
    if int(o['overrun']) or int(o['stacks']) != c:
        bad.append('ours %s: %s stacks of %d calls, overrun %s' % (fr, o['stacks'], c, o['overrun']))
        return None
    return int(o['bytes']) / c
def perf_b(m, fr):
    d = perf.get((m, fr))
    if not d:
        bad.append('perf %s %s: no result' % (m, fr))
        return None, 'no result'
    c = int(d['calls'])
    if d.get('rc') != '0':
        bad.append('perf %s %s: rc=%s' % (m, fr, d.get('rc')))
        return None, 'failed (rc=%s)' % d.get('rc')
    why = []
    if int(d['samples']) != c:
        why.append('%s samples of %d calls' % (d['samples'], c))
    if m == 'fpdefer' and int(d['deferred']) != c:
        why.append('%s deferred callchains of %d calls' % (d['deferred'], c))
    if int(d['lost']) or int(d['throttle']):
        why.append('lost %s, throttled %s' % (d['lost'], d['throttle']))
    if why:
        bad.append('perf %s %s: %s' % (m, fr, ', '.join(why)))
        return None, ', '.join(why)
    b = (int(d['sample_bytes']) + int(d['deferred_bytes'])) / c
    rng = '' if d['frames_min'] == d['frames_max'] else ' (%s-%s)' % (d['frames_min'], d['frames_max'])
    return b, '%.0f B, %s fr%s' % (b, d['frames'], rng)
print('s390x, TCG, 1 vCPU; sys_enter_getppid of bcwork-bc (-mbackchain); bytes per event '
      '(ours: the ring buffer; perf: its sample and deferred callchain records), '
      'user frames (perf script)')
w = 22
print('%-10s | %-12s | %s' % ('user stack', 'defer', ' | '.join('%-*s' % (w, t) for _, t in modes)))
ratios = []
for fr in sorted(set(list(ours) + [k[1] for k in perf]), key=int):
    ob = ours_b(fr)
    cells, r = [], []
    for m, t in modes:
        pb, txt = perf_b(m, fr)
        cells.append('%-*s' % (w, txt))
        if ob and pb:
            # dwarf: how many times ours; fp: ours as a fraction of it
            r.append('%s/defer %.1fx' % (t, pb / ob) if m.startswith('dwarf')
                     else 'defer/%s %.2fx' % (t, ob / pb))
    print('%-10s | %-12s | %s' % ('%s frames' % fr, '%.0f B' % ob if ob else 'failed',
                                  ' | '.join(cells)))
    ratios.append('%s frames: %s' % (fr, ', '.join(r) if r else '-'))
print('ratios:')
for r in ratios:
    print('  ' + r)
for n in notes:
    print(n)
for b in bad:
    print('FAILED: ' + b)
sys.exit(1 if bad else 0)
PY
