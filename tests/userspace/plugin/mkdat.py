#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Write synthetic trace.dat (version 6) files for the plugin tests.

The real fixtures (tests/fixtures/*.dat) are recorded in the guest kernel.
These synthetic ones exercise cases that are hard to get on demand from a
real kernel: a user stack that lands on another CPU, one that never comes,
a stack that was cut short or is empty, asking events on several CPUs
printed before the first cookie record, more pending cookies than the
plugin keeps, damaged records, and the records of the pre-release series
(unwind:*), which the plugin no longer reads.  The event formats are the
ones in formats/, written in the style of /sys/kernel/tracing/events/*/*/
format after the ABI in Documentation/contract.md (section 2); the two
records are ftrace events, saved with the ftrace formats.

Usage: mkdat.py SCENARIO OUT.dat      (mkdat.py --list shows scenarios)

The file layout follows trace-cmd.dat.v6(5): magic, header_page,
header_event, ftrace formats, event systems, kallsyms, printk formats,
saved cmdlines, an empty options section, "flyrecord" and one page-aligned
ring-buffer area per CPU.  `trace-cmd convert --file-version 7
--compression any` turns one into the compressed version 7 files that
trace-cmd record writes.
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
ID_COOKIE = 21          # formats/ftrace.user_stack_cookie
ID_DEFER = 22           # formats/ftrace.user_stack_deferred
ID_OLD_COOKIE = 1500    # the pre-release unwind:* records
ID_OLD_DEFER = 1501

COOKIE_NO_USER_STACK = 0x1
DEFERRED_TRUNCATED = 0x1
DEFERRED_LATE = 0x2
DEFERRED_UNWIND_FP = 0x4
DEFERRED_UNWIND_SFRAME = 0x8

COMMON_FIELDS = (
    b"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    b"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    b"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
    b"\tsigned:0;\n"
    b"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
# The formats of the pre-release series (system "unwind"), which the
# plugin no longer reads: for the test that it says so.
OLD_COOKIE_FMT = (
    b"name: user_stack_cookie\nID: 1500\nformat:\n" + COMMON_FIELDS +
    b"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n\n"
    b"print fmt: \"cookie=0x%llx\", REC->cookie\n")
OLD_DEFER_FMT = (
    b"name: user_stack_deferred\nID: 1501\nformat:\n" + COMMON_FIELDS +
    b"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n"
    b"\tfield:int tgid;\toffset:16;\tsize:4;\tsigned:1;\n"
    b"\tfield:unsigned int truncated;\toffset:20;\tsize:4;\tsigned:0;\n"
    b"\tfield:__data_loc unsigned long[] frames;\toffset:24;\tsize:4;"
    b"\tsigned:0;\n\n"
    b"print fmt: \"cookie=0x%llx tgid=%d nr=%u%s frames={%s}\", "
    b"REC->cookie, REC->tgid, __get_dynamic_array_len(frames) / "
    b"sizeof(unsigned long), REC->truncated ? \" (truncated)\" : \"\", "
    b"__print_array(__get_dynamic_array(frames), "
    b"__get_dynamic_array_len(frames) / sizeof(unsigned long), "
    b"sizeof(unsigned long))\n")

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


def cookie(cpu, ts, pid, c, kframes=(), flags=0, loc=None):
    # u64 cookie; unsigned int flags; __data_loc unsigned long[] kernel
    # (the kernel stack of the event that asked, at offset 24)
    arr = b"".join(struct.pack("<Q", a) for a in kframes)
    if loc is None:
        loc = 24 | (len(arr) << 16)
    body = struct.pack("<QII", c, flags, loc) + arr
    return Rec(cpu, ts, ID_COOKIE, pid, body)


def deferred(cpu, ts, pid, c, frames, tgid=None, flags=0, depth=None,
             loc=None):
    # u64 cookie; int tgid; unsigned int flags; unsigned int depth;
    # __data_loc unsigned long[] frames (at offset 32)
    if tgid is None:
        tgid = pid
    if depth is None:
        depth = len(frames)
    arr = b"".join(struct.pack("<Q", a) for a in frames)
    # __data_loc: offset (from the start of the record) | length << 16
    if loc is None:
        loc = 32 | (len(arr) << 16)
    body = struct.pack("<QiIII", c, tgid, flags, depth, loc) + arr
    return Rec(cpu, ts, ID_DEFER, pid, body)


def old_cookie(cpu, ts, pid, c):
    """unwind:user_stack_cookie of the pre-release series."""
    return Rec(cpu, ts, ID_OLD_COOKIE, pid, struct.pack("<Q", c))


def old_deferred(cpu, ts, pid, c, frames, truncated=0):
    """unwind:user_stack_deferred of the pre-release series."""
    arr = b"".join(struct.pack("<Q", a) for a in frames)
    body = struct.pack("<QiII", c, pid, truncated,
                       28 | (len(arr) << 16)) + arr
    return Rec(cpu, ts, ID_OLD_DEFER, pid, body)


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


def write_dat(path, recs, ncpus=2, comms=None, ftrace_formats=None,
              extra_systems=()):
    if comms is None:
        comms = {}
    out = bytearray()
    out += b"\x17\x08\x44tracing6\0"
    out += struct.pack("<BBI", 0, 8, PAGE)
    hp = read("header_page")
    he = read("header_event")
    out += b"header_page\0" + struct.pack("<Q", len(hp)) + hp
    out += b"header_event\0" + struct.pack("<Q", len(he)) + he
    # trace-cmd saves events/ftrace/* always: kernel_stack and the two
    # records of deferred user stacks
    if ftrace_formats is None:
        ftrace_formats = [read("ftrace.user_stack_cookie"),
                          read("ftrace.user_stack_deferred")]
    ftr = [read("ftrace.kernel_stack")] + list(ftrace_formats)
    out += struct.pack("<I", len(ftr))
    for f in ftr:
        out += struct.pack("<Q", len(f)) + f
    systems = [("syscalls", [read("syscalls.sys_enter_getppid"),
                             read("syscalls.sys_exit_getppid")])]
    systems += list(extra_systems)
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
    # no options (trace-cmd convert wants the section)
    out += b"options  \0" + struct.pack("<H", 0)
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
            ustack=USTACK, both=True, kstack=True, **kw):
    """One getppid entry: enter + cookie (+ exit + cookie), each cookie
    carrying the kernel stack of its event, then its user stack on
    ustack_cpu at ustack_ts (None: the stack never comes)."""
    r = [enter(cpu, ts, pid),
         cookie(cpu, ts + 200, pid, c, KSTACK_ENTER if kstack else ())]
    if both:
        r += [exit_(cpu, ts + 1000, pid),
              cookie(cpu, ts + 1200, pid, c, KSTACK_EXIT if kstack else ())]
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
    """Two tasks on two CPUs, each CPU's first event printed before the
    first cookie record; each user stack lands on the OTHER CPU, and the
    stacks come in the opposite order of the cookies."""
    r = syscall(0, T0, 1234, 0x200001, ustack_cpu=1, ustack_ts=T0 + 9000)
    r += syscall(1, T0 + 50, 1240, 0x200002, ustack_cpu=0,
                 ustack_ts=T0 + 6000,
                 ustack=[0x400100, 0x400200, 0x400300])
    return r, {1234: "callchain", 1240: "other"}


def sc_firstcpus():
    """Four CPUs whose first records are asking events printed before
    any cookie record (the plugin's wrappers are not in place yet): the
    first on each CPU follows a record of another task, and CPU 3 starts
    with an event that asks nothing."""
    r = []
    for cpu in range(4):
        pid = 3000 + cpu
        ts = T0 + cpu * 10
        if cpu == 3:
            r.append(exit_(cpu, ts - 5, 2999))
        r += [enter(cpu, ts, pid),
              cookie(cpu, ts + 100, pid, 0x900000 + cpu, KSTACK_ENTER),
              exit_(cpu, ts + 1000, pid),
              cookie(cpu, ts + 1100, pid, 0x900000 + cpu, KSTACK_EXIT),
              deferred((cpu + 1) % 4, T0 + 5000 + cpu * 100, pid,
                       0x900000 + cpu, USTACK[:3])]
    return r, {3000: "a", 3001: "b", 3002: "c", 3003: "d", 2999: "e"}


def sc_kstack():
    """-T with the trigger: ftrace:kernel_stack (the stacktrace option's
    record) sits between the event and its cookie; it is not the event
    that asked."""
    r = [enter(0, T0, 1234), kstack(0, T0 + 100, 1234, KSTACK_ENTER),
         cookie(0, T0 + 200, 1234, 0xa00001, KSTACK_ENTER),
         exit_(0, T0 + 1000, 1234), kstack(0, T0 + 1100, 1234, KSTACK_EXIT),
         cookie(0, T0 + 1200, 1234, 0xa00001, KSTACK_EXIT),
         deferred(0, T0 + 2000, 1234, 0xa00001, USTACK)]
    return r, {1234: "callchain"}


def sc_missing():
    """The first entry's user stack never comes (tracing stopped);
    a user stack whose cookie was never seen (ring buffer overwrote it);
    a cookie record with no kernel stack (the option without -T)."""
    r = syscall(0, T0, 1234, 0x300001, ustack_ts=None)
    r += [deferred(1, T0 + 3000, 1250, 0x3000ff, [0x401000])]
    r += [enter(1, T0 + 4000, 1260), cookie(1, T0 + 4100, 1260, 0x300003),
          deferred(1, T0 + 4500, 1260, 0x300003, [0x402000, 0x402100])]
    return r, {1234: "callchain", 1250: "gone", 1260: "nokstack"}


def sc_lost():
    """A cookie with NO_USER_STACK (asked from NMI, queue full): no user
    stack follows for it, and none comes; then a normal entry."""
    r = [enter(0, T0, 1234),
         cookie(0, T0 + 100, 1234, 0xb00001, KSTACK_ENTER,
                flags=COOKIE_NO_USER_STACK)]
    r += syscall(0, T0 + 10000, 1234, 0xb00002, ustack_ts=T0 + 15000)
    return r, {1234: "callchain"}


def sc_truncated():
    """A stack cut short (300 frames found), an empty one (unwind
    failed)."""
    r = syscall(0, T0, 1234, 0x400001, ustack_ts=T0 + 5000,
                flags=DEFERRED_TRUNCATED, depth=300)
    r += syscall(0, T0 + 10000, 1234, 0x400002, ustack_ts=T0 + 15000,
                 ustack=[])
    return r, {1234: "callchain"}


def sc_unwinder():
    """The unwinder flags of user stacks: frame pointers only, SFrame
    only, both, SFrame in a truncated stack, none."""
    fp, sf = DEFERRED_UNWIND_FP, DEFERRED_UNWIND_SFRAME
    r = []
    for i, (flags, depth) in enumerate(((fp, None), (sf, None),
                                        (sf | fp, None),
                                        (sf | DEFERRED_TRUNCATED, 300),
                                        (0, None))):
        ts = T0 + i * 10000
        r += syscall(0, ts, 1234, 0xd00001 + i, ustack_ts=ts + 5000,
                     flags=flags, depth=depth)
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
    the user_stack_deferred of that cookie, and no other stack comes.
    Then another entry whose stack the kernel answered from its cache
    (LATE)."""
    c = 0x800001
    r = [enter(0, T0, 1234), cookie(0, T0 + 200, 1234, c, KSTACK_ENTER),
         deferred(1, T0 + 3000, 1234, c, USTACK),
         exit_(0, T0 + 4000, 1234),
         cookie(0, T0 + 4200, 1234, c, KSTACK_EXIT),
         exit_(0, T0 + 9000, 1234),
         cookie(0, T0 + 9200, 1234, 0x800002, KSTACK_EXIT),
         deferred(0, T0 + 9300, 1234, 0x800002, USTACK,
                  flags=DEFERRED_LATE)]
    return r, {1234: "callchain"}


def sc_corrupt():
    """Damaged records: a __data_loc pointing out of the record, a
    length not a multiple of 8, a cookie whose kernel array lies."""
    r = [enter(0, T0, 1234),
         cookie(0, T0 + 200, 1234, 0x600001, KSTACK_ENTER,
                loc=(24 | (4000 << 16))),
         deferred(0, T0 + 300, 1234, 0x600001, USTACK,
                  loc=(200 | (4000 << 16))),
         enter(0, T0 + 1000, 1234),
         cookie(0, T0 + 1200, 1234, 0x600002, KSTACK_ENTER,
                loc=(24 | (12 << 16))),
         deferred(0, T0 + 1300, 1234, 0x600002, USTACK,
                  loc=(32 | (13 << 16))),
         deferred(0, T0 + 1400, 1234, 0x600003, [], loc=0xffffffff)]
    return r, {1234: "callchain"}


def sc_badformat():
    """user_stack_deferred and user_stack_cookie with formats the plugin
    does not know (fields renamed)."""
    cf = read("ftrace.user_stack_cookie").replace(b"u64 cookie",
                                                  b"u64 kooky")
    cf = cf.replace(b"REC->cookie", b"REC->kooky")
    df = read("ftrace.user_stack_deferred").replace(b"frames", b"ips")
    r = syscall(0, T0, 1234, 0x700001, ustack_ts=T0 + 5000)
    return r, {1234: "callchain"}, {"ftrace_formats": [cf, df]}


def sc_prerelease():
    """A trace of the pre-release series: unwind:user_stack_cookie after
    ftrace:kernel_stack, unwind:user_stack_deferred with a 4-byte
    truncated field.  The plugin does not read them and says so once."""
    r = []
    for i, ts in enumerate((T0, T0 + 10000)):
        c = 0xc00001 + i
        r += [enter(0, ts, 1234), kstack(0, ts + 100, 1234, KSTACK_ENTER),
              old_cookie(0, ts + 200, 1234, c),
              old_deferred(1, ts + 5000, 1234, c, USTACK)]
    return r, {1234: "callchain"}, {
        "ftrace_formats": [],
        "extra_systems": [("unwind", [OLD_COOKIE_FMT, OLD_DEFER_FMT])]}


SCENARIOS = {
    "basic": sc_basic,
    "crosscpu": sc_crosscpu,
    "firstcpus": sc_firstcpus,
    "kstack": sc_kstack,
    "missing": sc_missing,
    "lost": sc_lost,
    "truncated": sc_truncated,
    "unwinder": sc_unwinder,
    "many": sc_many,
    "late": sc_late,
    "corrupt": sc_corrupt,
    "badformat": sc_badformat,
    "prerelease": sc_prerelease,
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
    kw = res[2] if len(res) > 2 else {}
    ncpus = max(2, max(r.cpu for r in recs) + 1)
    write_dat(sys.argv[2], recs, ncpus=ncpus, comms=comms, **kw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
