#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How soon a program mapped after the SFrame feeder started gets whole
user stacks (t-96-sframe-feed-event).

  feedlatency.py --trace FILE --pid PID [--lib PATH]

PID (tests/workload/lateload) is blocked in its last read() of fd 7; all
its reads came from one call site.  `eu-stack -p PID` (elfutils, CFI
through ptrace) is the oracle: a deferred stack equal to it address by
address is whole.  From the instance's trace (a stacktrace:defer trigger
on those reads, sched_process_exec and mmap:exec_mapping enabled) it
prints one line:

  stacks=N cut=K first_ms=R first_whole_ms=T eu=F cut_frames=L,...

K: the stacks before the first whole one; R and T: the time from the
exec of PID (or, with --lib, from the exec_mapping of PATH) to its first
read, and to the read of that stack; L: the numbers of frames of the cut
stacks.  Exit 1 when no stack is whole,
or one after the first whole is not.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stockcheck  # noqa: E402
import tracecheck  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--trace', required=True)
    ap.add_argument('--pid', type=int, required=True)
    ap.add_argument('--lib')
    a = ap.parse_args()
    eu, _ = stockcheck.eu_stack(a.pid)
    if a.pid not in eu:
        sys.exit('eu-stack has no stack for %d' % a.pid)
    want = [addr for addr, _ in eu[a.pid]]
    recs = tracecheck.parse(a.trace)
    t0 = None
    for r in recs:
        if a.lib is None and r.event == 'sched_process_exec' and r.pid == a.pid:
            t0 = r.ts
        elif (a.lib is not None and r.event == 'exec_mapping' and
              r.field('tgid') == str(a.pid) and r.field('path') == a.lib):
            t0 = r.ts
            break
    if t0 is None:
        sys.exit('no %s of %d in the trace' % (a.lib or 'exec', a.pid))
    stacks = {}
    for r in recs:
        if r.event == 'user_stack_deferred':
            stacks[r.field('cookie')] = r.frames()
    asked = [(r.ts, r.field('cookie')) for r in recs
             if r.event == 'user_stack_cookie' and r.pid == a.pid and r.ts >= t0]
    got = [(ts, stacks[c]) for ts, c in asked if c in stacks]
    if not got:
        sys.exit('no stack of %d after its %s' % (a.pid, a.lib or 'exec'))
    first_ms = (got[0][0] - t0) * 1e3
    first = next((i for i, (_, s) in enumerate(got) if s == want), None)
    if first is None:
        print('stacks=%d cut=%d first_ms=%.1f first_whole_ms=none eu=%d cut_frames=%s' % (
            len(got), len(got), first_ms, len(want),
            ','.join(sorted(set(str(len(s)) for _, s in got)))))
        sys.exit(1)
    later = [i for i in range(first, len(got)) if got[i][1] != want]
    print('stacks=%d cut=%d first_ms=%.1f first_whole_ms=%.1f eu=%d cut_frames=%s' % (
        len(got), first, first_ms, (got[first][0] - t0) * 1e3, len(want),
        ','.join(sorted(set(str(len(s)) for _, s in got[:first]))) or '-'))
    if later:
        sys.exit('%d stacks after the first whole one are not: %s' % (
            len(later), stockcheck.fmt(got[later[0]][1], dict(eu[a.pid]))))


if __name__ == '__main__':
    main()
