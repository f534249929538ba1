#!/usr/bin/env python3
# Seeds for fuzz-records (its input format is described in fuzz-records.c):
# join scenarios built from its operations, and the records of the
# synthetic "trigger" stream of mktrace.py as RAW operations.
# usage: seed-records.py FORMATS_DIR BINARY OUT_DIR
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import mktrace

EVENT, KSTACK, COOKIE, USTACK, RAW, DAMAGE, FLUSH, PAIR = range(8)
# COOKIE arg bits; USTACK t bits 2-3
NO_USER_STACK, KFRAMES = 8, 16
TRUNCATED, LATE = 1 << 2, 2 << 2


def hdr(fmt=0, all_events=0, stop=0, cookies=0x80, events=0x80, tasks=0x80):
    return bytes([fmt | all_events << 2 | stop << 3, cookies, events, tasks])


def where(cpu, task):
    return (task << 3) | cpu


def op(kind, arg, cpu, task, *more):
    return bytes([kind | arg << 3, where(cpu, task)] + list(more))


def request(cpu, task, cookie, lost=0):
    # event, cookie with kernel frames: what the kernel writes for one
    # request
    return (op(EVENT, 0, cpu, task) +
            op(COOKIE, cookie | KFRAMES | lost, cpu, task))


def ustack(cpu, task, cookie, nr=4, t=0):
    return op(USTACK, cookie, cpu, task, nr, t)


out = sys.argv[3]
os.makedirs(out, exist_ok=True)
seeds = {}
# one request, its user stack later on another CPU
seeds["complete"] = hdr() + request(0, 0, 1) + ustack(1, 0, 1)
# two tasks interleaved, nested on one CPU; truncated and empty stacks
seeds["nested"] = (hdr(all_events=1) + op(EVENT, 1, 0, 0) +
                   request(0, 1, 2) + op(COOKIE, 1, 0, 0) +
                   ustack(1, 1, 2, 0) + ustack(1, 0, 1, 5, TRUNCATED))
# a kernel thread's plain kernel stack; a lost stack; a late one
seeds["flags"] = (hdr() + op(EVENT, 2, 1, 8) + op(KSTACK, 0, 1, 8, 4) +
                  request(0, 9, 3, NO_USER_STACK) + request(0, 10, 4) +
                  ustack(1, 10, 4, 3, LATE) + request(1, 9, 3) +
                  ustack(0, 9, 3, 2, 0x80))
# the user stack before its cookie; a late second request
seeds["early-late"] = (hdr() + ustack(1, 2, 3) + request(0, 2, 3) +
                       request(0, 2, 3))
# more cookies than the limits: eviction; more tasks than cached
s = hdr(cookies=2, events=3, tasks=3)
for t in range(8):
    s += request(t & 1, t, t & 7)
for t in range(8):
    s += ustack(0, 7 - t, (7 - t) & 7, 2)
seeds["evict"] = s
# more than 128 frames (heap buffers), more open events than a CPU keeps
s = hdr(all_events=1) + request(0, 3, 4) + ustack(1, 3, 4, 64 | 10)
for i in range(10):
    s += op(EVENT, i, 0, 4)
seeds["big"] = s + op(FLUSH, 0, 0, 0) + request(2, 5, 5)
# damage: a cut user stack, a kernel stack whose size lies, a bad byte
seeds["damage"] = (hdr() + op(EVENT, 0, 0, 6) + op(KSTACK, 1, 0, 6, 4) +
                   op(COOKIE, 6, 0, 6) + op(DAMAGE, 1, 0, 0, 30, 0) +
                   ustack(1, 6, 6) + op(DAMAGE, 0, 0, 0, 25, 0xff) +
                   ustack(1, 6, 6) + op(PAIR, 7 | 2 << 3, 3, 7))
# stop after two callbacks
seeds["stop"] = hdr(stop=2) + request(0, 0, 1) + request(0, 1, 2) + \
    ustack(1, 0, 1) + ustack(1, 1, 2) + request(0, 2, 3)
# a format file without the user stack events, if one is given
seeds["fmt1"] = hdr(fmt=1) + request(0, 0, 1) + ustack(1, 0, 1)

# the real encoding of mktrace.py's trigger stream, as RAW records
fmts = mktrace.Formats(sys.argv[1])
sc = mktrace.Scenario(fmts, sys.argv[2], None, sys.argv[2])
w = mktrace.Writer(2)
ts = 1000
for i in range(4):
    sc.entry(w, 1234, 1234, (i + 1) << 16, ts, i % 2, 1 - i % 2, i % 2 == 0)
    ts += 10000
sc.kthread(w, ts, 0)
evs = sorted([(t, c, p) for c in range(2) for t, p in w.cpus[c]])
s = hdr()
for t, c, p in evs:
    if len(p) % 4:
        p += b"\0" * (4 - len(p) % 4)
    s += bytes([RAW, c, min(len(p), 255)]) + p[:255]
seeds["trigger-raw"] = s

for name, data in seeds.items():
    open(os.path.join(out, name), "wb").write(data)
