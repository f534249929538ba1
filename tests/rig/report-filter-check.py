#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series' `trace-cmd report` under a filter keeps each shown event's
stacks (issue 20 item 9, report's side).

Usage: report-filter-check.py STOCK SERIES USTACK [USTACK_FILTERED]

  STOCK     `trace-cmd report -t FILTER FILE` of stock 3.4: the events a
            user of stock trace-cmd sees with that filter (the oracle for
            which events are shown)
  SERIES    `trace-cmd report -t FILTER FILE` of 3.4 with the series
  USTACK    `ustack -q FILE`: every request's kernel and user frames (the
            oracle for the stacks)
  USTACK_FILTERED  `ustack -q` with the same filter, when ustack has it:
            its requests must be those the series' report shows

An event is (pid, cpu, time in ns, name without its system).  Checks:
the series shows the events stock shows (stack records left out of
both), in the same order; each event the series shows with stacks has
the kernel and user frames ustack gives that event (source lines and
inlined frames left out, as ustack prints none), and the same status;
each event ustack has a request for and the series shows, the series
shows with its stacks.  Exits 1 with the differences, or when no event
with stacks is shown at all.
"""
import os
import re
import sys

# the block parser and frame normaliser of the readers' comparison
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "userspace", "plugin"))
from readers import named_kframe, stacks  # noqa: E402

STACK_RECORDS = ("user_stack_cookie", "user_stack_deferred")
EV = re.compile(r"^\s*\S.*-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}): "
                r"(\S+):")
UHEAD = re.compile(r"^\S.*-(\d+) \[(\d+)\] (\d+)\.(\d{9}) (?:\(\S+\) )?(\S+) "
                   r"status=([a-z-]+)")


def key(m):
    return (int(m.group(1)), int(m.group(2)),
            int(m.group(3)) * 10**9 + int(m.group(4)),
            m.group(5).split(":")[-1])


def report(path):
    """[(event, stacks or None)] in order; stacks: (kernel, user, status)"""
    out = []
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = EV.match(lines[i])
        i += 1
        if not m:
            continue
        k, u, status, i = stacks(lines, i)
        if key(m)[3] in STACK_RECORDS:
            continue
        out.append((key(m), (tuple(k), tuple(u), status) if status else None))
    return out


def ustack(path):
    reqs, cur = {}, None
    for line in open(path):
        m = UHEAD.match(line)
        if m:
            cur = key(m)
            reqs[cur] = ([], [], m.group(6))
            if m.group(6) == "no-cookie":   # a kernel_stack, shown as stock
                del reqs[cur]
                cur = None
        elif cur and line.startswith("  k "):
            reqs[cur][0].append(named_kframe(line[4:]))
        elif cur and line.startswith("  u "):
            reqs[cur][1].append(line[4:].rstrip("\n"))
    return {k: (tuple(a), tuple(b), s) for k, (a, b, s) in reqs.items()}


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__)
        return 2
    stock = [e for e, _ in report(sys.argv[1])]
    series = report(sys.argv[2])
    ref = ustack(sys.argv[3])
    bad = []
    if [e for e, _ in series] != stock:
        s = set(e for e, _ in series)
        bad.append("events differ from stock's: %d shown, stock %d; only "
                   "in the series %r; only in stock %r" %
                   (len(series), len(stock),
                    sorted(s - set(stock))[:3], sorted(set(stock) - s)[:3]))
    with_stacks = 0
    for ev, st in series:
        want = ref.get(ev)
        if st is None and want is None:
            continue
        if st is None:
            bad.append("%r: no stacks shown; ustack has %r" % (ev, want))
        elif want is None:
            bad.append("%r: stacks shown, but ustack has none" % (ev,))
        elif st != want:
            bad.append("%r: shown %r, ustack %r" % (ev, st, want))
        else:
            with_stacks += 1
    if len(sys.argv) == 5:
        filt = set(ustack(sys.argv[4]))
        shown = set(ev for ev, st in series if st)
        if filt != shown:
            bad.append("ustack with the same filter: %d requests, the "
                       "series shows %d events with stacks; only in ustack "
                       "%r" % (len(filt), len(shown),
                               sorted(filt - shown)[:3]))
    print("events: stock %d, series %d; with stacks as ustack has them: %d"
          % (len(stock), len(series), with_stacks))
    if not with_stacks:
        bad.append("no event shown with stacks")
    for b in bad[:10]:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
