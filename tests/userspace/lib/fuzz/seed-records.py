#!/usr/bin/env python3
# Seeds for fuzz-records: the records of the synthetic "trigger" stream,
# in its input format ([u8 cpu][u8 len][data]), built with mktrace.py's
# encoders.  usage: seed-records.py FORMATS_DIR BINARY OUT
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import mktrace
fmts = mktrace.Formats(sys.argv[1])
sc = mktrace.Scenario(fmts, sys.argv[2], None, sys.argv[2])
w = mktrace.Writer(2)
ts = 1000
for i in range(4):
    sc.entry(w, 1234, 1234, (i + 1) << 16, ts, i % 2, 1 - i % 2, i % 2 == 0)
    ts += 10000
sc.kthread(w, ts, 0)
evs = sorted([(t, c, p) for c in range(2) for t, p in w.cpus[c]])
out = b""
for t, c, p in evs:
    if len(p) % 4:
        p += b"\0" * (4 - len(p) % 4)
    out += bytes([c, len(p)]) + p
open(sys.argv[3], "wb").write(out)
