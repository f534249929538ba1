#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Write synthetic trace.dat (version 6) files for the plugin tests.

The real fixtures (tests/fixtures/*.dat) are recorded in the guest kernel.
These synthetic ones exercise cases that are hard to get on demand from a
real kernel: a user stack that lands on another CPU, one that never comes,
a stack that was cut short or is empty, more pending cookies than the
plugin keeps, and damaged records.  The event formats are the ones in
formats/, written in the style of /sys/kernel/tracing/events/*/*/format
after the ABI in Documentation/contract.md.

Usage: mkdat.py SCENARIO OUT.dat      (mkdat.py --list shows scenarios)

The file layout follows trace-cmd.dat.v6(5): magic, header_page,
header_event, ftrace formats, event systems, kallsyms, printk formats,
saved cmdlines, "flyrecord" and one page-aligned ring-buffer area per CPU.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FMT = os.path.join(HERE, "formats")
PAGE = 4096
PAGE_HDR = 16           # u64 timestamp + local_t commit (64-bit kernel)

ID_KSTACK = 4
ID_ENTER = 301
ID_EXIT = 300
ID_COOKIE = 1500
ID_DEFER = 1501

# Kernel symbols of the synthetic kernel (sorted; kallsyms style).
KSYMS = [
    (0xffffffff81000000, "T", "_stext"),
    (0xffffffff81100000, "T", "ftrace_syscall_enter"),
    (0xffffffff81100400, "T", "ftrace_syscall_exit"),
    (0xffffffff81200000, "T", "syscall_trace_enter"),
    (0xffffffff81200800, "T", "syscall_exit_work"),
    (0xffffffff81300000, "T", "do_syscall_64"),
    (0xffffffff81400000, "T", "entry_SYSCALL_64_after_hwframe"),
    (0xffffffff81500000, "T", "_etext"),
]
# Kernel stacks as the stacktrace trigger records them (innermost first).
KSTACK_ENTER = [0xffffffff81100042, 0xffffffff81200123,
                0xffffffff81300077, 0xffffffff81400046]
KSTACK_EXIT = [0xffffffff81100444, 0xffffffff81200856,
               0xffffffff813000a1, 0xffffffff81400046]
# User frames of callchain: work_inner, work_middle, work_outer, main,
# __libc_start_call_main (innermost first).
USTACK = [0x55555555513a, 0x555555555160, 0x555555555180,
          0x5555555551c0, 0x7ffff7df018a]


def read(name):
    with open(os.path.join(FMT, name), "rb") as f:
        return f.read()


class Rec:
    def __init__(self, cpu, ts, eid, pid, payload):
        self.cpu, self.ts, self.eid, self.pid = cpu, ts, eid, pid
        self.payload = payload

    def data(self):
        return struct.pack("<HBBi", self.eid, 0, 0, self.pid) + self.payload


def enter(cpu, ts, pid):
    return Rec(cpu, ts, ID_ENTER, pid, struct.pack("<i", 110))


def exit_(cpu, ts, pid, ret=1):
    return Rec(cpu, ts, ID_EXIT, pid, struct.pack("<iiq", 110, 0, ret))


def kstack(cpu, ts, pid, frames, nr=None):
    # int size; (pad) unsigned long caller[]: the record holds exactly
    # the frames taken, as the kernel's kernel_stack event does.
    if nr is None:
        nr = len(frames)
    body = struct.pack("<ii", nr, 0)
    body += b"".join(struct.pack("<Q", a) for a in frames)
    return Rec(cpu, ts, ID_KSTACK, pid, body)


def cookie(cpu, ts, pid, c):
    return Rec(cpu, ts, ID_COOKIE, pid, struct.pack("<Q", c))


def deferred(cpu, ts, pid, c, frames, tgid=None, truncated=0,
             loc=None):
    if tgid is None:
        tgid = pid
    arr = b"".join(struct.pack("<Q", a) for a in frames)
    # __data_loc: offset (from the start of the record) | length << 16
    if loc is None:
        loc = 28 | (len(arr) << 16)
    body = struct.pack("<QiII", c, tgid, truncated, loc) + arr
    return Rec(cpu, ts, ID_DEFER, pid, body)


def event_record(rec, delta):
    """One ring-buffer event: header word(s) plus data, 4-byte aligned."""
    data = rec.data()
    data += b"\0" * (-len(data) % 4)
    out = b""
    if delta >= (1 << 27):
        # TIME_EXTEND (type_len 30): delta split over two words
        out += struct.pack("<II", 30 | ((delta & ((1 << 27) - 1)) << 5),
                           delta >> 27)
        delta = 0
    if len(data) <= 28 * 4:
        out += struct.pack("<I", (len(data) // 4) | (delta << 5)) + data
    else:
        out += struct.pack("<II", delta << 5, len(data) + 4) + data
    return out


def cpu_pages(recs):
    pages = []
    cur = b""
    page_ts = None
    last = None
    for r in recs:
        if page_ts is None:
            page_ts, last = r.ts, r.ts
        ev = event_record(r, r.ts - last)
        if PAGE_HDR + len(cur) + len(ev) > PAGE:
            pages.append((page_ts, cur))
            cur, page_ts, last = b"", r.ts, r.ts
            ev = event_record(r, 0)
        cur += ev
        last = r.ts
    if cur:
        pages.append((page_ts, cur))
    out = b""
    for ts, body in pages:
        pg = struct.pack("<QQ", ts, len(body)) + body
        out += pg + b"\0" * (PAGE - len(pg))
    return out


def write_dat(path, recs, ncpus=2, comms=None, extra_formats=(),
              unwind_formats=None):
    if comms is None:
        comms = {}
    out = bytearray()
    out += b"\x17\x08\x44tracing6\0"
    out += struct.pack("<BBI", 0, 8, PAGE)
    hp = read("header_page")
    he = read("header_event")
    out += b"header_page\0" + struct.pack("<Q", len(hp)) + hp
    out += b"header_event\0" + struct.pack("<Q", len(he)) + he
    ks = read("ftrace.kernel_stack")
    out += struct.pack("<I", 1) + struct.pack("<Q", len(ks)) + ks
    systems = [("syscalls", [read("syscalls.sys_enter_getppid"),
                             read("syscalls.sys_exit_getppid")])]
    if unwind_formats is None:
        unwind_formats = [read("unwind.user_stack_cookie"),
                          read("unwind.user_stack_deferred")]
    systems.append(("unwind", list(unwind_formats)))
    systems += list(extra_formats)
    out += struct.pack("<I", len(systems))
    for name, fmts in systems:
        out += name.encode() + b"\0" + struct.pack("<I", len(fmts))
        for f in fmts:
            out += struct.pack("<Q", len(f)) + f
    kall = "".join("%x %s %s\n" % s for s in KSYMS).encode()
    out += struct.pack("<I", len(kall)) + kall
    out += struct.pack("<I", 0)                     # printk formats
    cmd = "".join("%d %s\n" % (p, c) for p, c in comms.items()).encode()
    out += struct.pack("<Q", len(cmd)) + cmd
    out += struct.pack("<I", ncpus)
    out += b"flyrecord\0"
    table_at = len(out)
    out += b"\0" * (16 * ncpus)
    datas = []
    for cpu in range(ncpus):
        rs = sorted((r for r in recs if r.cpu == cpu), key=lambda r: r.ts)
        datas.append(cpu_pages(rs))
    off = (len(out) + PAGE - 1) // PAGE * PAGE
    table = b""
    body = bytearray()
    for d in datas:
        table += struct.pack("<QQ", off + len(body), len(d))
        body += d
    out[table_at:table_at + len(table)] = table
    out += b"\0" * (off - len(out))
    out += body
    with open(path, "wb") as f:
        f.write(out)


T0 = 1000000000         # 1 s, in ns


def syscall(cpu, ts, pid, c, ustack_cpu=None, ustack_ts=None,
            ustack=USTACK, both=True, **kw):
    """One getppid entry: enter + kstack + cookie (+ exit + kstack +
    cookie), then its user stack on ustack_cpu at ustack_ts (None: the
    stack never comes)."""
    r = [enter(cpu, ts, pid), kstack(cpu, ts + 100, pid, KSTACK_ENTER),
         cookie(cpu, ts + 200, pid, c)]
    if both:
        r += [exit_(cpu, ts + 1000, pid),
              kstack(cpu, ts + 1100, pid, KSTACK_EXIT),
              cookie(cpu, ts + 1200, pid, c)]
    if ustack_ts is not None:
        r.append(deferred(cpu if ustack_cpu is None else ustack_cpu,
                          ustack_ts, pid, c, ustack, **kw))
    return r


def sc_basic():
    """Two entries of one task, each stack on the same CPU."""
    r = syscall(0, T0, 1234, 0x100001, ustack_ts=T0 + 5000)
    r += syscall(0, T0 + 10000, 1234, 0x100002, ustack_ts=T0 + 15000)
    return r, {1234: "callchain"}


def sc_crosscpu():
    """Two tasks on two CPUs; each user stack lands on the OTHER CPU,
    and the stacks come in the opposite order of the cookies."""
    r = syscall(0, T0, 1234, 0x200001, ustack_cpu=1, ustack_ts=T0 + 9000)
    r += syscall(1, T0 + 50, 1240, 0x200002, ustack_cpu=0,
                 ustack_ts=T0 + 6000,
                 ustack=[0x400100, 0x400200, 0x400300])
    return r, {1234: "callchain", 1240: "other"}


def sc_missing():
    """The first entry's user stack never comes (tracing stopped);
    a user stack whose cookie was never seen (ring buffer overwrote it);
    a cookie record with no kernel stack before it."""
    r = syscall(0, T0, 1234, 0x300001, ustack_ts=None)
    r += [deferred(1, T0 + 3000, 1250, 0x3000ff, [0x401000])]
    r += [enter(1, T0 + 4000, 1260), cookie(1, T0 + 4100, 1260, 0x300003),
          deferred(1, T0 + 4500, 1260, 0x300003, [0x402000, 0x402100])]
    return r, {1234: "callchain", 1250: "gone", 1260: "nokstack"}


def sc_truncated():
    """A stack cut short, an empty one (unwind failed)."""
    r = syscall(0, T0, 1234, 0x400001, ustack_ts=T0 + 5000, truncated=1)
    r += syscall(0, T0 + 10000, 1234, 0x400002, ustack_ts=T0 + 15000,
                 ustack=[])
    return r, {1234: "callchain"}


def sc_many():
    """300 entries of 3 tasks whose stacks come late and interleaved
    (for the eviction test with a small max_pending)."""
    r = []
    for i in range(300):
        pid = 2000 + i % 3
        ts = T0 + i * 10000
        r += syscall(i % 2, ts, pid, 0x500000 + i, both=False,
                     ustack_cpu=(i + 1) % 2,
                     ustack_ts=T0 + 300 * 10000 + 1000 + (299 - i) * 100)
    return r, {2000: "a", 2001: "b", 2002: "c"}


def sc_late():
    """A request after the user stack was written in the same kernel
    entry (signal delivery on the way out): its cookie record comes after
    the user_stack_deferred of that cookie, and no other stack comes."""
    c = 0x800001
    r = [enter(0, T0, 1234), kstack(0, T0 + 100, 1234, KSTACK_ENTER),
         cookie(0, T0 + 200, 1234, c),
         deferred(1, T0 + 3000, 1234, c, USTACK),
         exit_(0, T0 + 4000, 1234),
         kstack(0, T0 + 4100, 1234, KSTACK_EXIT),
         cookie(0, T0 + 4200, 1234, c)]
    return r, {1234: "callchain"}


def sc_corrupt():
    """Damaged records: a __data_loc pointing out of the record, a
    length not a multiple of 8, a kernel_stack whose size field lies."""
    r = [enter(0, T0, 1234),
         kstack(0, T0 + 100, 1234, KSTACK_ENTER, nr=100000),
         cookie(0, T0 + 200, 1234, 0x600001),
         deferred(0, T0 + 300, 1234, 0x600001, USTACK,
                  loc=(200 | (4000 << 16))),
         enter(0, T0 + 1000, 1234),
         kstack(0, T0 + 1100, 1234, KSTACK_ENTER, nr=-5),
         cookie(0, T0 + 1200, 1234, 0x600002),
         deferred(0, T0 + 1300, 1234, 0x600002, USTACK,
                  loc=(28 | (13 << 16))),
         deferred(0, T0 + 1400, 1234, 0x600003, [], loc=0xffffffff)]
    return r, {1234: "callchain"}


def sc_badformat():
    """user_stack_deferred and user_stack_cookie with formats the plugin
    does not know (fields renamed)."""
    cf = read("unwind.user_stack_cookie").replace(b"u64 cookie",
                                                  b"u64 kooky")
    cf = cf.replace(b"REC->cookie", b"REC->kooky")
    df = read("unwind.user_stack_deferred").replace(b"frames", b"ips")
    r = syscall(0, T0, 1234, 0x700001, ustack_ts=T0 + 5000)
    return r, {1234: "callchain"}, [cf, df]


SCENARIOS = {
    "basic": sc_basic,
    "crosscpu": sc_crosscpu,
    "missing": sc_missing,
    "truncated": sc_truncated,
    "many": sc_many,
    "late": sc_late,
    "corrupt": sc_corrupt,
    "badformat": sc_badformat,
}


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        for k, v in SCENARIOS.items():
            print("%-10s %s" % (k, " ".join(v.__doc__.split())))
        return 0
    if len(sys.argv) != 3 or sys.argv[1] not in SCENARIOS:
        sys.stderr.write("usage: mkdat.py SCENARIO OUT.dat "
                         "(--list for scenarios)\n")
        return 2
    res = SCENARIOS[sys.argv[1]]()
    recs, comms = res[0], res[1]
    uf = res[2] if len(res) > 2 else None
    write_dat(sys.argv[2], recs, comms=comms, unwind_formats=uf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
