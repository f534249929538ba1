#!/bin/bash
# Instructions per deferred user stack on s390x, walked by the back chain
# and by SFrame: the bench loop of tests/s390x/bcwork.c, built
# -mbackchain (bcwork-bc) and without (bcwork-nobc, which registers the
# SFrame section sframe-gen makes of its .eh_frame before the loop), in
# the s390x guest under TCG, counted by bench/tcg-plugin/insn-count.c (its
# s390x marker, brcl 0), at user stacks of 3 and 40 frames, without and
# with stacktrace:defer (tests/s390x/bench-guest.sh).  One vCPU.
#
#   bench/s390x.sh [--kernel BZIMAGE]      N=2000 REPS=3 BUF_KB=8192 (the
#                                          guest buffer) by default
#
# Prints per frames, back chain and SFrame side by side: the median
# instructions per getppid() without and with the trigger, their
# difference (the cost of the trigger, the cookie record with the kernel
# stack, the walk and the user stack record), and the frames the records
# carry (the same code: SFrame goes on past __libc_start_call_main, where
# the back chain ends, to _start).  A run with the trigger that recorded
# fewer stacks than calls, lost events (overrun, dropped) or was walked
# by another unwinder than its row's (unwinder= of the records) is
# REFUSED, and the command exits 1.  Results also in $CACHE/bench/s390x/.
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
for b in bc nobc; do
	"$xdir/usr/bin/s390x-linux-gnu-gcc" -static -O2 $([ $b = bc ] && echo -mbackchain) \
		-Wall -Wextra -Werror -I"$here/tests/workload" -o "$out/guest/bcwork-$b" \
		"$here/tests/s390x/bcwork.c"
done
"$here/sframe-gen/deps.sh" > "$out/sframe-gen.log" 2>&1
make -s -C "$here/sframe-gen" OUT="$out/sframe-gen" all >> "$out/sframe-gen.log" 2>&1
"$out/sframe-gen/sframe-gen" "$out/guest/bcwork-nobc" -o "$out/guest/bcwork-nobc.sframe"
install -m 0755 "$here/tests/s390x/bench-guest.sh" "$out/guest/"
# BENCH_PROF=1: the plugin's profile of each count too ($out/prof.log,
# mapped to functions with the guest's /proc/kallsyms, which the guest
# prints; bench/profile.sh's reading for x86)
popt=
[ "${BENCH_PROF:-0}" = 1 ] && popt=",prof=$out/prof.log"
"$here/rig/run-guest.sh" --arch s390x --kernel "$kernel" --smp 1 --add "$out/guest" \
	--cmd "N=$N REPS=$REPS BUF_KB=${BUF_KB:-8192} sh ./bench-guest.sh" --out "$out/run" --quiet --timeout 1200 \
	--qemu-arg -plugin --qemu-arg "$so,out=$out/insn-count.log$popt" > /dev/null ||
	die "the bench boot failed (see $out/run)"
python3 - "$out/run/output.log" "$out/insn-count.log" "$N" <<'PY' | tee "$out/result.txt"
import re, statistics, sys
runs = [l.split()[2:5] for l in open(sys.argv[1]) if l.startswith('=== run ')]
counts = [int(m.group(1)) for m in
          (re.search(r'id=63 insns=(\d+)', l) for l in open(sys.argv[2])) if m]
n = int(sys.argv[3])
if len(runs) != len(counts):
    sys.exit('bench/s390x.sh: %d runs but %d counts' % (len(runs), len(counts)))
by = {}
for (unw, mode, frames), c in zip(runs, counts):
    by.setdefault((unw, frames, mode), []).append(c / n)
nr, unwinder = {}, {}
for l in open(sys.argv[1]):
    m = re.search(r'^=== sample (\S+) (\d+) .* nr=(\d+).*? unwinder=(\S+)', l)
    if m:
        nr.setdefault((m.group(1), m.group(2)), set()).add(int(m.group(3)))
        unwinder.setdefault((m.group(1), m.group(2)), set()).add(m.group(4))
print('s390x, TCG, 1 vCPU, %d getppid() per run, medians of %d runs; instructions per call' %
      (n, len(by[next(iter(by))])))
print('%-14s | %-40s | %-40s' % ('user stack', 'back chain (bcwork-bc)',
                                 'SFrame (bcwork-nobc, section registered)'))
print('%-14s | %-40s | %-40s' % ('', 'without / with / per stack (frames)',
                                 'without / with / per stack (frames)'))
for frames in sorted({f for _, f, _ in by}, key=int):
    cols = []
    for unw in ('backchain', 'sframe'):
        if (unw, frames, 'off') not in by:
            cols.append('-')
            continue
        off = statistics.median(by[(unw, frames, 'off')])
        on = statistics.median(by[(unw, frames, 'defer')])
        cols.append('%.1f / %.1f / %.1f (%s, %s)' % (
            off, on, on - off, ','.join(map(str, sorted(nr.get((unw, frames), [])))),
            ','.join(sorted(unwinder.get((unw, frames), [])))))
    print('%-14s | %-40s | %-40s' % ('%s frames' % frames, cols[0], cols[1]))
# every run with the trigger must have recorded a stack per call, lost
# nothing, and been walked by the unwinder its row names alone
refused = []
for l in open(sys.argv[1]):
    m = re.match(r'=== stacks (\S+) (\d+) (\d+) overrun=(\d+) dropped=(\d+) unwinders=(\S*)', l)
    if not l.startswith('=== stacks '):
        continue
    if not m:
        refused.append('unreadable: %s' % l.strip())
        continue
    unw, frames, stacks, ov, dr = m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5))
    names = sorted(set(filter(None, m.group(6).split(','))))
    if stacks < n:
        refused.append('%s %s frames: %d stacks of %d calls' % (unw, frames, stacks, n))
    if ov or dr:
        refused.append('%s %s frames: overrun %d, dropped %d' % (unw, frames, ov, dr))
    if names != [unw]:
        refused.append('%s %s frames: unwinders %s' % (unw, frames, ','.join(names) or 'none'))
print('user stacks recorded per defer run: %s' %
      sorted({' '.join(l.split()[2:5]) for l in open(sys.argv[1]) if l.startswith('=== stacks ')}))
for r in refused:
    print('REFUSED: %s' % r)
sys.exit(1 if refused else 0)
PY
[ "${BENCH_PROF:-0}" = 1 ] || exit 0
# where a frame goes: per function, the slope from 3 to 40 frames of the
# runs with the trigger, less the runs without, per call
python3 - "$out/run/output.log" "$out/prof.log" "$N" "$here/bench" <<'PY' | tee "$out/profile.txt"
import sys
out, prof, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
import profmap
runs = [l.split()[2:5] for l in open(out) if l.startswith('=== run ')]
# the guest's kallsyms; s390x's kernel text is one block, user space elsewhere
sym = profmap.Symbols([(int(l.split()[2], 16), l.split()[4]) for l in open(out)
                       if l.startswith('=== ksym ')], max_size=0x100000)
profiles = profmap.profiles(prof, sym, ids={'63'})
if len(profiles) != len(runs):
    sys.exit('bench/s390x.sh: %d profiles, %d runs' % (len(profiles), len(runs)))
by = {tuple(r): p for r, p in zip(runs, profiles)}
for unw in ('backchain', 'sframe'):
    lo, hi = by[(unw, 'defer', '3')], by[(unw, 'defer', '40')]
    olo, ohi = by[(unw, 'off', '3')], by[(unw, 'off', '40')]
    per = {s: ((hi.get(s, 0) - ohi.get(s, 0)) - (lo.get(s, 0) - olo.get(s, 0))) / 37 / n
           for s in set(lo) | set(hi) | set(olo) | set(ohi)}
    print('%s: %.1f instructions a frame (3 to 40 frames), by function:' % (unw, sum(per.values())))
    for s, v in sorted(per.items(), key=lambda kv: -abs(kv[1])):
        if abs(v) < 0.5:
            break
        print('  %8.1f  %s' % (v, s))
PY
