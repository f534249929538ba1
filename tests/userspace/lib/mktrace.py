#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write synthetic trace.dat files (format version 6) for the tests, the
fuzzer's seed corpus and the benchmark, until and besides the fixtures
recorded on the booted kernel.

The records follow Documentation/contract.md ("The records"): an event,
then on the same CPU ftrace:user_stack_cookie { cookie, flags, kernel[] }
carrying the event's kernel stack, and later, possibly on another CPU,
ftrace:user_stack_deferred { cookie, tgid, flags, depth, frames[] }.  A
kernel thread gets a plain ftrace:kernel_stack and no cookie.  The user
frames are real return addresses inside a binary built on the host
(found with nm), mapped at a chosen base, with the process maps saved the
way "trace-cmd record --proc-map" saves them, so symbols resolve.

The event IDs are those of the format files (data/formats).  The kernel
allocates the IDs of these records at boot, as for any trace event (their
TRACE_SYSTEM is ftrace, but they are no entries of enum trace_type), and
readers find the records by name: 21 and 22 there are just two IDs that
no other format of the set has.

usage: mktrace.py SCENARIO OUT.dat --formats DIR [--binary PATH]
                  [--libc PATH] [--count N] [--instances]
SCENARIO: trigger | option | large | instances | never | flags | unwinder
          | stuck | kstack
  kstack: as trigger, but each event followed by a plain
  ftrace:kernel_stack, as -T records on a kernel without deferred user
  stacks (no cookie, no user stack)
  stuck: as trigger, after --stuck threads of the process (default 1)
  that each enter getppid first and never come back to user space (a
  thread parked in futex or epoll): their requests wait to the end;
  with --back they come back last (user stacks at the end)
  flags: one kernel entry each of: complete, truncated (depth 300), late
  (the kernel's LATE flag), lost (NO_USER_STACK cookies, no user stack),
  empty (no user frames), and no kernel frames (option, no stacktrace)
  unwinder: one kernel entry each with the user stack record's unwinder
  flags: FP, SFRAME, FP|SFRAME, SFRAME truncated, FP|SFRAME late, none,
  reserved bits only, SFRAME with reserved bits
"""
import argparse
import os
import re
import struct
import subprocess
import sys

PAGE = 4096
DATA = PAGE - 16
KSYMS = [
    (0xffffffff81000000, "entry_SYSCALL_64_after_hwframe"),
    (0xffffffff81000400, "do_syscall_64"),
    (0xffffffff81001000, "x64_sys_call"),
    (0xffffffff81002000, "__x64_sys_getppid"),
    (0xffffffff81003000, "trace_event_raw_event_sys_enter"),
    (0xffffffff81003800, "trace_event_raw_event_sys_exit"),
    (0xffffffff81004000, "syscall_exit_to_user_mode"),
    (0xffffffff81005000, "event_triggers_call"),
    (0xffffffff81006000, "worker_thread"),
    (0xffffffff81007000, "process_one_work"),
    (0xffffffff81008000, "kthread"),
    (0xffffffff81009000, "ret_from_fork"),
    # as in a real kallsyms: the last function has a symbol after it
    # (libtraceevent names no address past the last symbol)
    (0xffffffff8100a000, "_etext"),
]


# flags of the records (contract.md)
NO_USER_STACK = 1      # user_stack_cookie
TRUNCATED = 1          # user_stack_deferred
LATE = 2               # user_stack_deferred
UNWIND_FP = 4          # user_stack_deferred: frames by frame pointers
UNWIND_SFRAME = 8      # user_stack_deferred: frames by SFrame


def ksym(name, off=0x10):
    for a, n in KSYMS:
        if n == name:
            return a + off
    raise KeyError(name)


def fmt_ids(text):
    return int(re.search(r"^ID: (\d+)", text, re.M).group(1))


class Formats:
    def __init__(self, d):
        self.files = {}
        for f in sorted(os.listdir(d)):
            sysname, _, ev = f.partition("_")
            text = open(os.path.join(d, f)).read()
            self.files[(sysname, ev)] = text

    def id(self, sysname, ev):
        return fmt_ids(self.files[(sysname, ev)])


def hdr(pid, eid):
    return struct.pack("<HBBi", eid, 0, 0, pid)


class Writer:
    """Per-CPU streams of (ts, payload) turned into ring buffer pages."""

    def __init__(self, ncpu):
        self.cpus = [[] for _ in range(ncpu)]

    def add(self, cpu, ts, payload):
        self.cpus[cpu].append((ts, payload))

    @staticmethod
    def event_bytes(delta, payload):
        if len(payload) % 4:
            payload += b"\0" * (4 - len(payload) % 4)
        out = b""
        if delta >= (1 << 27):
            out += struct.pack("<II", 30 | ((delta & ((1 << 27) - 1)) << 5),
                               delta >> 27)
            delta = 0
        if len(payload) <= 112:
            out += struct.pack("<I", (len(payload) // 4) | (delta << 5))
        else:
            out += struct.pack("<II", delta << 5, len(payload) + 4)
        return out + payload

    def pages(self, cpu):
        evs = sorted(self.cpus[cpu], key=lambda e: e[0])
        out = []
        cur = b""
        page_ts = prev = None
        for ts, payload in evs:
            if page_ts is None:
                page_ts = prev = ts
            b = self.event_bytes(ts - prev, payload)
            if len(cur) + len(b) > DATA:
                out.append(self.page(page_ts, cur))
                cur = b""
                page_ts = prev = ts
                b = self.event_bytes(0, payload)
            cur += b
            prev = ts
        if cur:
            out.append(self.page(page_ts, cur))
        return b"".join(out)

    @staticmethod
    def page(ts, data):
        return (struct.pack("<QQ", ts, len(data)) + data +
                b"\0" * (DATA - len(data)))


HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
HEADER_EVENT = (
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n")


def write_dat(path, fmts, buffers, cmdlines, procmaps, ncpu):
    """buffers: list of (name, Writer); name "" is the top buffer."""
    h = bytearray()
    h += b"\x17\x08\x44tracing6\0"
    h += bytes([0, 8]) + struct.pack("<I", PAGE)
    h += b"header_page\0" + struct.pack("<Q", len(HEADER_PAGE)) + \
        HEADER_PAGE.encode()
    h += b"header_event\0" + struct.pack("<Q", len(HEADER_EVENT)) + \
        HEADER_EVENT.encode()
    ftrace = [t for (s, _), t in fmts.files.items() if s == "ftrace"]
    h += struct.pack("<I", len(ftrace))
    for t in ftrace:
        h += struct.pack("<Q", len(t)) + t.encode()
    systems = {}
    for (s, e), t in fmts.files.items():
        if s != "ftrace":
            systems.setdefault(s, []).append(t)
    h += struct.pack("<I", len(systems))
    for s, ts in systems.items():
        h += s.encode() + b"\0" + struct.pack("<I", len(ts))
        for t in ts:
            h += struct.pack("<Q", len(t)) + t.encode()
    ks = "".join("%016x T %s\n" % (a, n) for a, n in KSYMS).encode()
    h += struct.pack("<I", len(ks)) + ks
    h += struct.pack("<I", 0)
    cl = "".join("%d %s\n" % (p, c) for p, c in cmdlines).encode()
    h += struct.pack("<Q", len(cl)) + cl
    h += struct.pack("<I", ncpu)
    h += b"options  \0"
    for pm in procmaps:
        data = pm.encode() + b"\0"
        h += struct.pack("<HI", 10, len(data)) + data
    # buffer options: offsets patched below
    buf_opt_pos = {}
    for name, _ in buffers:
        if not name:
            continue
        data = struct.pack("<Q", 0) + name.encode() + b"\0"
        buf_opt_pos[name] = len(h) + 6
        h += struct.pack("<HI", 3, len(data)) + data
    h += struct.pack("<H", 0)
    h += b"flyrecord\0"
    top_table = len(h)
    h += b"\0" * (16 * ncpu)
    tables = {"": top_table}
    for name, _ in buffers:
        if name:
            struct.pack_into("<Q", h, buf_opt_pos[name], len(h))
            h += b"flyrecord\0"
            tables[name] = len(h)
            h += b"\0" * (16 * ncpu)
    if len(h) % PAGE:
        h += b"\0" * (PAGE - len(h) % PAGE)
    for name, w in buffers:
        for cpu in range(ncpu):
            data = w.pages(cpu)
            struct.pack_into("<QQ", h, tables[name] + 16 * cpu,
                             len(h) if data else 0, len(data))
            h += data
    with open(path, "wb") as f:
        f.write(h)


def nm_funcs(binary):
    out = subprocess.run(["nm", "-S", "--defined-only", binary],
                         capture_output=True, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW":
            funcs[p[3]] = (int(p[0], 16), int(p[1], 16))
    return funcs


def dyn_funcs(lib):
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", lib],
                         capture_output=True, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTiW":
            funcs[p[3].split("@")[0]] = (int(p[0], 16), int(p[1], 16))
    return funcs


def load_segments(binary):
    """(vaddr, memsz) of PT_LOAD, from readelf, for the saved maps."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True,
                         text=True).stdout
    segs = []
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == "LOAD":
            segs.append((int(p[2], 16), int(p[5], 16)))
    return segs


def maps_lines(binary, name, base):
    """Mappings of binary at base, one line per segment, like trace-cmd."""
    lines = []
    segs = load_segments(binary)
    first = segs[0][0] & ~(PAGE - 1)
    for vaddr, memsz in segs:
        start = base + (vaddr & ~(PAGE - 1)) - first
        end = base + ((vaddr + memsz + PAGE - 1) & ~(PAGE - 1)) - first
        if lines and start < lines[-1][1]:
            start = lines[-1][1]
        if end > start:
            lines.append((start, end, name))
    return lines


def procmap_option(pid, exe_name, lines, build_id=None):
    """The PROCMAPS option; with build_id, trace-cmd 3.4 with our series'
    4th field on the lines of exe_name."""
    s = "%x %x %s\n" % (pid, len(lines), exe_name)
    for a, b, n in lines:
        if build_id and n == exe_name:
            s += "%x %x %s %s\n" % (a, b, n, build_id)
        else:
            s += "%x %x %s\n" % (a, b, n)
    return s


class Scenario:
    def __init__(self, fmts, binary, libc, binname):
        self.f = fmts
        self.ids = {k: fmts.id(*k) for k in fmts.files}
        self.binary = binary
        self.funcs = nm_funcs(binary)
        self.base = 0x555555554000
        segs = load_segments(binary)
        if segs[0][0] >= 0x400000:          # not PIE: fixed addresses
            self.base = segs[0][0] & ~(PAGE - 1)
        self.binname = binname
        self.lines = maps_lines(binary, binname, self.base)
        self.libc = libc
        self.libc_base = 0x7ffff7d80000
        if libc:
            self.libc_funcs = dyn_funcs(libc)
            self.lines += maps_lines(libc, libc, self.libc_base)
        self.first = segs[0][0] & ~(PAGE - 1)

    def ret_addr(self, fn, frac=0.5):
        a, size = self.funcs[fn]
        return self.base + a - self.first + max(1, int(size * frac))

    def user_frames(self):
        fr = [self.ret_addr("work_inner", 0.6), self.ret_addr("work_middle"),
              self.ret_addr("work_outer"), self.ret_addr("main", 0.8)]
        if self.libc and "__libc_start_main" in self.libc_funcs:
            a, size = self.libc_funcs["__libc_start_main"]
            fr.append(self.libc_base + a + size // 2)
        return fr

    def kstack(self, enter):
        if enter:
            names = ["trace_event_raw_event_sys_enter", "do_syscall_64",
                     "entry_SYSCALL_64_after_hwframe"]
        else:
            names = ["trace_event_raw_event_sys_exit",
                     "syscall_exit_to_user_mode", "do_syscall_64",
                     "entry_SYSCALL_64_after_hwframe"]
        return [ksym(n) for n in names]

    def ev_enter(self, pid):
        return hdr(pid, self.ids[("syscalls", "sys_enter_getppid")]) + \
            struct.pack("<i", 110) + b"\0" * 4

    def ev_exit(self, pid):
        return hdr(pid, self.ids[("syscalls", "sys_exit_getppid")]) + \
            struct.pack("<iiq", 110, 0, 1)

    def kernel_stack(self, pid, frames):
        return hdr(pid, self.ids[("ftrace", "kernel_stack")]) + \
            struct.pack("<i4x", len(frames)) + \
            b"".join(struct.pack("<Q", a) for a in frames)

    @staticmethod
    def frames_loc(fixed, frames):
        """a __data_loc array right after the fixed fields, 8-byte words"""
        loc = struct.pack("<I", (len(frames) * 8) << 16 | len(fixed) + 4)
        return fixed + loc + b"".join(struct.pack("<Q", a) for a in frames)

    def cookie(self, pid, c, kframes, flags=0):
        """ftrace:user_stack_cookie: cookie @8, flags @16, kernel @20"""
        fixed = hdr(pid, self.ids[("ftrace", "user_stack_cookie")]) + \
            struct.pack("<QI", c, flags)
        return self.frames_loc(fixed, kframes)

    def ustack(self, pid, tgid, c, frames, flags=0, depth=None):
        """ftrace:user_stack_deferred: cookie @8, tgid @16, flags @20,
        depth @24, frames @28"""
        if depth is None:
            depth = len(frames)
        fixed = hdr(pid, self.ids[("ftrace", "user_stack_deferred")]) + \
            struct.pack("<QiII", c, tgid, flags, depth)
        return self.frames_loc(fixed, frames)

    def sched_switch(self, pid, nxt):
        return hdr(pid, self.ids[("sched", "sched_switch")]) + \
            b"callchain".ljust(16, b"\0") + struct.pack("<iiq", pid, 120, 1) + \
            b"swapper/1".ljust(16, b"\0") + struct.pack("<ii", nxt, 120)

    def entry(self, w, pid, tgid, cookie, ts, cpu, ucpu, trigger,
              udelay=5000, ustack=True, truncated=False, late=False,
              lost=False, nframes=None, kernel=True, unwinder=0):
        """One getppid kernel entry: enter and exit events asking (and
        sched_switch, with the option), each followed by its cookie.
        truncated: 2 frames of depth 300; late: the kernel's LATE flag;
        lost: NO_USER_STACK cookies and no user stack; nframes: cut the
        user frames; kernel: the cookies carry the kernel stacks;
        unwinder: more flags of the user stack record."""
        cflags = NO_USER_STACK if lost else 0
        asks = [(self.ev_enter(pid), self.kstack(True)),
                (self.ev_exit(pid), self.kstack(False))]
        if not trigger:
            asks.append((self.sched_switch(pid, 0), self.kstack(False)))
        for i, (ev, ks) in enumerate(asks):
            w.add(cpu, ts + 1000 * i, ev)
            w.add(cpu, ts + 1000 * i + 100,
                  self.cookie(pid, cookie, ks if kernel else [], cflags))
        if not ustack or lost:
            return
        fr = self.user_frames()[:nframes]
        uflags, depth = 0, None
        if truncated:
            fr, uflags, depth = fr[:2], TRUNCATED, 300
        if late:
            uflags |= LATE
        uflags |= unwinder
        w.add(ucpu, ts + udelay, self.ustack(pid, tgid, cookie, fr, uflags,
                                            depth))

    def kthread(self, w, ts, cpu):
        w.add(cpu, ts, hdr(33, self.ids[("sched", "sched_switch")]) +
              b"kworker/0:1".ljust(16, b"\0") +
              struct.pack("<iiq", 33, 120, 1) +
              b"swapper/0".ljust(16, b"\0") + struct.pack("<ii", 0, 120))
        w.add(cpu, ts + 100, self.kernel_stack(33, [
            ksym("process_one_work"), ksym("worker_thread"), ksym("kthread"),
            ksym("ret_from_fork")]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("out")
    ap.add_argument("--formats", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--binname", help="path of the binary in the maps")
    ap.add_argument("--libc")
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--pid", type=int, default=1234)
    ap.add_argument("--stuck", type=int, default=1,
                    help="stuck: how many threads never come back")
    ap.add_argument("--back", action="store_true",
                    help="stuck: the threads come back at the end (their "
                    "user stacks are the last records)")
    ap.add_argument("--build-id", help="hex build ID saved after the binary's "
                    "map lines, as trace-cmd record with our series saves it")
    a = ap.parse_args()

    fmts = Formats(a.formats)
    sc = Scenario(fmts, a.binary, a.libc, a.binname or a.binary)
    pid = a.pid
    ncpu = 2
    w = Writer(ncpu)
    buffers = [("", w)]
    ts = 1000000000
    if a.scenario in ("trigger", "option", "never", "large", "stuck"):
        trig = a.scenario != "option"
        n = a.count
        if a.scenario == "stuck":
            # each stuck thread asks once, on entry, and stays in the kernel
            for k in range(a.stuck):
                tid = pid + 1 + k
                cpu = k % 2
                w.add(cpu, ts, sc.ev_enter(tid))
                w.add(cpu, ts + 100, sc.cookie(tid, 1 << 40 | (k + 1) << 16,
                                               sc.kstack(True)))
                ts += 1000
        for i in range(n):
            cpu = i % 2
            # the user stack lands on the other CPU, a bit later
            sc.entry(w, pid, pid, (i + 1) << 16 | cpu, ts, cpu, 1 - cpu, trig,
                     ustack=not (a.scenario == "never" and i == n - 1),
                     truncated=(a.scenario == "large" and i % 97 == 5))
            if a.scenario == "large" and i % 50 == 0:
                sc.kthread(w, ts + 3000, cpu)
            ts += 10000
        if a.scenario == "stuck" and a.back:
            for k in range(a.stuck):
                w.add(k % 2, ts, sc.ustack(pid + 1 + k, pid,
                                           1 << 40 | (k + 1) << 16,
                                           sc.user_frames()))
                ts += 1000
        if a.scenario != "large":
            sc.kthread(w, ts, 0)
    elif a.scenario == "kstack":
        for i in range(a.count):
            cpu = i % 2
            for j, enter in enumerate((True, False)):
                ev = sc.ev_enter(pid) if enter else sc.ev_exit(pid)
                w.add(cpu, ts + 1000 * j, ev)
                w.add(cpu, ts + 1000 * j + 100,
                      sc.kernel_stack(pid, sc.kstack(enter)))
            ts += 10000
    elif a.scenario == "instances":
        w2 = Writer(ncpu)
        buffers.append(("second", w2))
        for i in range(a.count):
            c = (i + 1) << 16
            sc.entry(w, pid, pid, c, ts, 0, 1, True)
            # the second instance asked only for even entries
            if i % 2 == 0:
                sc.entry(w2, pid, pid, c, ts, 0, 0, True)
            ts += 10000
    elif a.scenario == "flags":
        kinds = [{}, {"truncated": True}, {"late": True}, {"lost": True},
                 {"nframes": 0}, {"kernel": False}]
        for i, kw in enumerate(kinds):
            sc.entry(w, pid, pid, (i + 1) << 16, ts, i % 2, 1 - i % 2, True,
                     **kw)
            ts += 10000
        sc.kthread(w, ts, 0)
    elif a.scenario == "unwinder":
        sf = UNWIND_SFRAME
        kinds = [{"unwinder": UNWIND_FP}, {"unwinder": sf},
                 {"unwinder": sf | UNWIND_FP},
                 {"unwinder": sf, "truncated": True},
                 {"unwinder": sf | UNWIND_FP, "late": True}, {},
                 {"unwinder": 0xfffffff0}, {"unwinder": 0xfffffff0 | sf}]
        for i, kw in enumerate(kinds):
            sc.entry(w, pid, pid, (i + 1) << 16, ts, i % 2, 1 - i % 2, True,
                     **kw)
            ts += 10000
    else:
        sys.exit("unknown scenario " + a.scenario)
    pm = procmap_option(pid, sc.binname, sc.lines, a.build_id)
    write_dat(a.out, fmts, buffers, [(pid, "callchain"), (33, "kworker/0:1")],
              [pm], ncpu)


if __name__ == "__main__":
    main()
