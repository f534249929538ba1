#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The oracle of ustack --weight=latency: from stock `trace-cmd report -t`
(TRACE), each task's sys_enter_X to its next sys_exit_X (both weigh the
gap), and sched_switch out of a task (prev pid) to the next switch back
in (next pid).  Prints "time weight" lines, the time as report prints it.
"""
import re, sys
# stock trace-cmd report -t: each task's sys_enter_X to its next sys_exit_X,
# sched_switch out (prev pid) to the next switch in (next pid)
ev = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*(.*)-(\d+)\s+\[\d+\]\s+(\d+\.\d+): (\w+):\s*(.*)", line)
    if m:
        ev.append((m.group(3), int(m.group(2)), m.group(4), m.group(5)))
ns = lambda t: int(t.replace(".", ""))
open_ = {}
w = []
for ts, pid, name, rest in ev:
    if name.startswith("sys_enter_"):
        open_[(pid, name[10:])] = ts
    elif name.startswith("sys_exit_") and (pid, name[9:]) in open_:
        t0 = open_.pop((pid, name[9:]))
        w += [(t0, ns(ts) - ns(t0)), (ts, ns(ts) - ns(t0))]
    elif name == "sched_switch":
        m = re.match(r".*:(\d+) \[\d+\] \S+ ==> .*:(\d+) \[", rest)
        prev, nxt = int(m.group(1)), int(m.group(2))
        if (nxt, "[off]") in open_:
            t0 = open_.pop((nxt, "[off]"))
            w.append((t0, ns(ts) - ns(t0)))
        if prev:
            open_[(prev, "[off]")] = ts
for t, v in w:
    print(t, v)
