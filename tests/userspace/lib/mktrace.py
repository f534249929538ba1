#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write synthetic trace.dat files (format version 6) for the userspace
tests (lib, plugin, kernelshark, tests/rig/tracecmd.sh), the fuzzers'
seeds and the benchmark: the cases that are hard to get on demand from a
real kernel, beside the fixtures recorded on the booted kernel
(tests/fixtures/).

The records follow Documentation/contract.md ("The records"); the event
formats are the files of data/formats (one file per event, SYSTEM_EVENT,
in the words of /sys/kernel/tracing/events/*/*/format), and the IDs are
theirs.  The kernel allocates the IDs of these records at boot, as for
any trace event, and readers find the records by name: 21 and 22 are
just two IDs no other format of the set has.

The file layout follows trace-cmd.dat.v6(5): magic, header_page,
header_event, ftrace formats, event systems, kallsyms, printk formats,
saved cmdlines, options (saved process maps, buffer instances),
"flyrecord" and page-aligned ring-buffer pages per CPU.  `trace-cmd
convert --file-version 7 --compression any` turns one into the
compressed version 7 files that trace-cmd record writes.

Two kinds of scenario:
- with --binary: the user frames are real return addresses inside a
  binary built on the host (found with nm), mapped at a chosen base,
  with the process maps saved as "trace-cmd record --proc-map" saves
  them, so symbols resolve (ustack, the series' report, the fuzzers);
- without: fixed kernel and user addresses, for the plugins' tests
  (records on other CPUs, damage, renamed fields, the pre-release
  records).

The same layout, big-endian, holds the s390x fixture: --guest-log lays
out what tests/s390x/record-guest.sh printed in the s390x guest (the
kernel's own ring-buffer pages, formats, kallsyms and maps) as trace-cmd
on s390x would (tests/s390x/record-fixture.sh).

usage: mktrace.py SCENARIO OUT.dat [--formats DIR] [--binary PATH]
                  [--libc PATH] [--count N] ...
       mktrace.py --list
       mktrace.py --guest-log OUTPUT_LOG OUT.dat
"""
import argparse
import base64
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = os.path.join(HERE, "data", "formats")
PAGE = 4096
OPTION_BUFFER = 3
OPTION_PROCMAPS = 10
DATA = PAGE - 16        # a page: u64 timestamp, local_t commit, data
T0 = 1000000000         # 1 s, in ns

# Kernel symbols of the synthetic kernel (sorted; kallsyms style).  The
# first part names the frames of the --binary scenarios, the second
# those of the others.  As in a real kallsyms, the last function has a
# symbol after it (libtraceevent names no address past the last symbol).
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
    (0xffffffff8100a000, "_einittext"),
    (0xffffffff81100000, "ftrace_syscall_enter"),
    (0xffffffff81100400, "ftrace_syscall_exit"),
    (0xffffffff81200000, "syscall_trace_enter"),
    (0xffffffff81200800, "syscall_exit_work"),
    (0xffffffff81300000, "do_syscall_64"),
    (0xffffffff81400000, "entry_SYSCALL_64_after_hwframe"),
    (0xffffffff81500000, "_etext"),
]

# flags of the records (contract.md), as libustack's header names them:
# written once, there
def _record_flags():
    h = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "..", "..", "..", "libustack", "include", "ustack.h")
    with open(h) as f:
        return {k: 1 << int(v) for k, v in re.findall(
            r"#define (USTACK_\w+)\s+\(1U << (\d+)\)", f.read())}


_FLAGS = _record_flags()


# the registrar's trace_marker lines (the dlopen scenario), as libustack's
# ustack.h defines them (USTACK_MAP_*): read from it, so that a change of
# the format there changes these lines too.  Each macro is string
# literals and macros, concatenated (or a number); a printf() format
# becomes Python's (no length modifiers).
def _map_line_defs():
    h = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "..", "..", "..", "libustack", "include", "ustack.h")
    with open(h) as f:
        raw = dict(re.findall(r"^#define (USTACK_MAP_\w+)[ \t]+(.*?)[ \t]*$",
                              f.read(), re.M))

    def value(name):
        v = raw[name]
        if re.fullmatch(r"\d+", v):
            return int(v)
        out = ""
        for lit, mac in re.findall(r'"((?:[^"\\]|\\.)*)"|(\w+)', v):
            if mac:
                out += value(mac)
            else:
                out += lit.encode().decode("unicode_escape")
        return out
    d = {k: value(k) for k in raw}
    for k in d:
        if k.endswith("_FMT"):
            d[k] = re.sub(r"%(?:hh|h|ll|l|z)([dux])", r"%\1", d[k])
    return d


MAP = _map_line_defs()


def map_open_line(pid, tid, base, segs, path, build_id=None):
    # an open line (without its newline): segs, (start, end, pgoff)
    return (MAP["USTACK_MAP_OPEN_FMT"] %
            (MAP["USTACK_MAP_VERSION"], pid, tid, base) +
            (build_id or MAP["USTACK_MAP_NO_BUILD_ID"]) +
            MAP["USTACK_MAP_SEGS_KEY"] +
            MAP["USTACK_MAP_SEG_SEP"].join(MAP["USTACK_MAP_SEG_FMT"] % s
                                           for s in segs) +
            MAP["USTACK_MAP_PATH_KEY"] + path)


def map_close_line(pid, tid, base):
    return (MAP["USTACK_MAP_CLOSE_FMT"] %
            (MAP["USTACK_MAP_VERSION"], pid, tid, base)).rstrip("\n")


NO_USER_STACK = _FLAGS["USTACK_COOKIE_NO_USER_STACK"]   # user_stack_cookie
TRUNCATED = _FLAGS["USTACK_STACK_TRUNCATED"]            # user_stack_deferred
LATE = _FLAGS["USTACK_STACK_LATE"]
UNWIND_FP = _FLAGS["USTACK_STACK_UNWIND_FP"]
UNWIND_SFRAME = _FLAGS["USTACK_STACK_UNWIND_SFRAME"]

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

# The formats of the pre-release series (system "unwind"), which no
# reader reads any more: for the tests that they say so.
COMMON_FIELDS = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
    "\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
# The exec scenario's events, as Linux 7.3 has them
EXEC_FMT = (
    "name: sched_process_exec\nID: 311\nformat:\n" + COMMON_FIELDS +
    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), "
    "REC->pid, REC->old_pid\n")
EXECVE_EXIT_FMT = (
    "name: sys_exit_execve\nID: 312\nformat:\n" + COMMON_FIELDS +
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
    "print fmt: \"0x%lx\", REC->ret\n")
# ftrace:print (trace_marker), as Linux 7.3 has it: the dlopen scenario's
# registrar lines
PRINT_FMT = (
    "name: print\nID: 5\nformat:\n" + COMMON_FIELDS +
    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
    "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n")
OLD_COOKIE_FMT = (
    "name: user_stack_cookie\nID: 1500\nformat:\n" + COMMON_FIELDS +
    "\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"cookie=0x%llx\", REC->cookie\n")
OLD_DEFER_FMT = (
    "name: user_stack_deferred\nID: 1501\nformat:\n" + COMMON_FIELDS +
    "\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int tgid;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int truncated;\toffset:20;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc unsigned long[] frames;\toffset:24;\tsize:4;"
    "\tsigned:0;\n\n"
    "print fmt: \"cookie=0x%llx tgid=%d nr=%u%s frames={%s}\", "
    "REC->cookie, REC->tgid, __get_dynamic_array_len(frames) / "
    "sizeof(unsigned long), REC->truncated ? \" (truncated)\" : \"\", "
    "__print_array(__get_dynamic_array(frames), "
    "__get_dynamic_array_len(frames) / sizeof(unsigned long), "
    "sizeof(unsigned long))\n")


def ksym(name, off=0x10):
    for a, n in KSYMS:
        if n == name:
            return a + off
    raise KeyError(name)


def fmt_ids(text):
    return int(re.search(r"^ID: (\d+)", text, re.M).group(1))


class Formats:
    """The format files of a folder, by (system, event)."""

    def __init__(self, d=FORMATS):
        self.files = {}
        for f in sorted(os.listdir(d)):
            sysname, _, ev = f.partition("_")
            with open(os.path.join(d, f)) as fh:
                self.files[(sysname, ev)] = fh.read()

    def id(self, sysname, ev):
        return fmt_ids(self.files[(sysname, ev)])


def hdr(pid, eid):
    return struct.pack("<HBBi", eid, 0, 0, pid)


def words(frames):
    return b"".join(struct.pack("<Q", a) for a in frames)


class Writer:
    """Per-CPU streams of (ts, payload) turned into ring buffer pages."""

    def __init__(self, ncpu=2):
        self.cpus = [[] for _ in range(ncpu)]

    def add(self, cpu, ts, payload):
        while cpu >= len(self.cpus):
            self.cpus.append([])
        self.cpus[cpu].append((ts, payload))

    @staticmethod
    def event_bytes(delta, payload):
        """One ring-buffer event: header word(s), data 4-byte aligned."""
        if len(payload) % 4:
            payload += b"\0" * (4 - len(payload) % 4)
        out = b""
        if delta >= (1 << 27):
            # TIME_EXTEND (type_len 30): delta split over two words
            out += struct.pack("<II", 30 | ((delta & ((1 << 27) - 1)) << 5),
                               delta >> 27)
            delta = 0
        if len(payload) <= 112:
            out += struct.pack("<I", (len(payload) // 4) | (delta << 5))
        else:
            out += struct.pack("<II", delta << 5, len(payload) + 4)
        return out + payload

    def pages(self, cpu):
        evs = sorted(self.cpus[cpu], key=lambda e: e[0]) \
            if cpu < len(self.cpus) else []
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


def dat_bytes(e, header_page, header_event, ftrace, systems, kallsyms,
              printk, cmdlines, options, buffers, ncpu):
    """A trace.dat of file version 6 (trace-cmd.dat.v6(5)), its numbers
    in byte order e ("<" or ">", struct's).  Every part is bytes:
    ftrace, the formats of events/ftrace; systems, (name, [formats]) of
    the others; options, (id, data); buffers, (name, [pages of each
    CPU]), name "" the top buffer, the others saved as buffer options
    (their offsets patched in)."""
    def num(f, *v):
        return struct.pack(e + f, *v)

    h = bytearray(b"\x17\x08\x44tracing6\0")
    h += bytes([e == ">", 8]) + num("I", PAGE)
    h += b"header_page\0" + num("Q", len(header_page)) + header_page
    h += b"header_event\0" + num("Q", len(header_event)) + header_event
    h += num("I", len(ftrace))
    for t in ftrace:
        h += num("Q", len(t)) + t
    h += num("I", len(systems))
    for name, ts in systems:
        h += name.encode() + b"\0" + num("I", len(ts))
        for t in ts:
            h += num("Q", len(t)) + t
    h += num("I", len(kallsyms)) + kallsyms
    h += num("I", len(printk)) + printk
    h += num("Q", len(cmdlines)) + cmdlines
    h += num("I", ncpu)
    h += b"options  \0"
    for oid, data in options:
        h += num("HI", oid, len(data)) + data
    buf_opt_pos = {}
    for name, _ in buffers:
        if not name:
            continue
        data = num("Q", 0) + name.encode() + b"\0"
        buf_opt_pos[name] = len(h) + 6
        h += num("HI", OPTION_BUFFER, len(data)) + data
    h += num("H", 0)
    h += b"flyrecord\0"
    tables = {"": len(h)}
    h += b"\0" * (16 * ncpu)
    for name, _ in buffers:
        if name:
            struct.pack_into(e + "Q", h, buf_opt_pos[name], len(h))
            h += b"flyrecord\0"
            tables[name] = len(h)
            h += b"\0" * (16 * ncpu)
    if len(h) % PAGE:
        h += b"\0" * (PAGE - len(h) % PAGE)
    for name, cpus in buffers:
        for cpu, data in enumerate(cpus):
            struct.pack_into(e + "QQ", h, tables[name] + 16 * cpu,
                             len(h) if data else 0, len(data))
            h += data
    return bytes(h)


def write_dat(path, fmts, buffers, cmdlines, procmaps, ncpu):
    """buffers: list of (name, Writer); name "" is the top buffer."""
    # trace-cmd saves events/ftrace/* always
    ftrace = [t.encode() for (s, _), t in fmts.files.items() if s == "ftrace"]
    systems = {}
    for (s, e), t in fmts.files.items():
        if s != "ftrace":
            systems.setdefault(s, []).append(t.encode())
    ks = "".join("%016x T %s\n" % (a, n) for a, n in KSYMS).encode()
    cl = "".join("%d %s\n" % (p, c) for p, c in cmdlines).encode()
    options = [(OPTION_PROCMAPS, pm.encode() + b"\0") for pm in procmaps]
    data = dat_bytes("<", HEADER_PAGE.encode(), HEADER_EVENT.encode(),
                     ftrace, list(systems.items()), ks, b"", cl, options,
                     [(name, [w.pages(cpu) for cpu in range(ncpu)])
                      for name, w in buffers], ncpu)
    with open(path, "wb") as f:
        f.write(data)


def guest_log_dat(log, out):
    """A trace.dat from what tests/s390x/record-guest.sh printed in the
    s390x guest: the ring buffer pages exactly as the kernel gave them
    (big-endian), its formats, kallsyms, printk formats, saved_cmdlines,
    and the traced program's maps as the PROCMAPS option that
    "trace-cmd record --proc-map" writes.  The numbers of the file's own
    headers are big-endian too, as trace-cmd on s390x writes them."""
    files, cur, buf = {}, None, []
    pid = None
    with open(log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^=== file (\S+)$", line)
            if m:
                cur, buf = m.group(1), []
                continue
            if cur and line == "=== end " + cur:
                files[cur] = base64.b64decode("".join(buf))
                cur = None
                continue
            if cur:
                buf.append(line.strip())
            m = re.match(r"^=== pid (\d+)$", line)
            if m:
                pid = int(m.group(1))
    need = ["header_page", "header_event", "ftrace/user_stack_cookie",
            "ftrace/user_stack_deferred", "syscalls/sys_enter_getppid",
            "kallsyms", "printk_formats", "saved_cmdlines", "maps"]
    missing = [n for n in need if n not in files]
    cpus = sorted(int(n[3:]) for n in files if re.match(r"^cpu\d+$", n))
    if missing or not cpus or pid is None:
        sys.exit("mktrace.py: the log lacks %s" %
                 (missing or "cpu data" if cpus else "the pid"))
    # the PROCMAPS option: "pid count exe" then "start end path" per
    # mapping of a file, as trace-cmd keeps them
    maps = []
    for line in files["maps"].decode().splitlines():
        f = line.split()
        if len(f) >= 6 and f[5].startswith("/"):
            a, b = (int(x, 16) for x in f[0].split("-"))
            maps.append((a, b, f[5]))
    exe = maps[0][2]
    pm = "%x %x %s\n" % (pid, len(maps), exe) + \
        "".join("%x %x %s\n" % m for m in maps)
    # kallsyms: the text symbols only (what names kernel frames), a third
    # of the size with KALLSYMS_ALL
    ks = b"".join(
        line for line in files["kallsyms"].splitlines(keepends=True)
        if len(line.split()) >= 3 and line.split()[1] in (b"T", b"t", b"W", b"w"))
    pages = []
    for c in cpus:
        raw = files["cpu%d" % c]
        if len(raw) % PAGE:
            sys.exit("mktrace.py: cpu%d data is %d bytes, not whole pages" %
                     (c, len(raw)))
        pages.append(raw)
    data = dat_bytes(">", files["header_page"], files["header_event"],
                     [files[n] for n in files if n.startswith("ftrace/")],
                     [("syscalls", [files["syscalls/sys_enter_getppid"]])],
                     ks, files["printk_formats"], files["saved_cmdlines"],
                     [(OPTION_PROCMAPS, pm.encode() + b"\0")],
                     [("", pages)], len(cpus))
    with open(out, "wb") as f:
        f.write(data)
    print("%s: %d bytes, %d CPUs (%s bytes of pages), pid %d, %s" %
          (out, len(data), len(cpus), "+".join(str(len(p)) for p in pages),
           pid, exe))


class Records:
    """The records, laid out by the formats' IDs."""

    def __init__(self, fmts):
        self.f = fmts
        self.ids = {k: fmts.id(*k) for k in fmts.files}

    def ev_enter(self, pid):
        return hdr(pid, self.ids[("syscalls", "sys_enter_getppid")]) + \
            struct.pack("<i", 110) + b"\0" * 4

    def ev_exit(self, pid, ret=1):
        return hdr(pid, self.ids[("syscalls", "sys_exit_getppid")]) + \
            struct.pack("<iiq", 110, 0, ret)

    def kernel_stack(self, pid, frames):
        """int size; (pad) unsigned long caller[]: the record holds
        exactly the frames taken, as the kernel's kernel_stack does."""
        return hdr(pid, self.ids[("ftrace", "kernel_stack")]) + \
            struct.pack("<i4x", len(frames)) + words(frames)

    @staticmethod
    def frames_loc(fixed, frames, loc=None):
        """a __data_loc array (offset | length << 16) after the fixed
        fields, 8-byte words starting 8-byte aligned, as the kernel lays
        them out; loc: a location that lies"""
        pad = b"\0" * (-(len(fixed) + 4) % 8)
        if loc is None:
            loc = (len(frames) * 8) << 16 | len(fixed) + 4 + len(pad)
        return fixed + struct.pack("<I", loc) + pad + words(frames)

    def cookie(self, pid, c, kframes, flags=0, loc=None):
        """ftrace:user_stack_cookie: cookie @8, flags @16, kernel @20"""
        fixed = hdr(pid, self.ids[("ftrace", "user_stack_cookie")]) + \
            struct.pack("<QI", c, flags)
        return self.frames_loc(fixed, kframes, loc)

    def ustack(self, pid, tgid, c, frames, flags=0, depth=None, loc=None):
        """ftrace:user_stack_deferred: cookie @8, pid @16 (the entry's
        first request: here the record's), tgid @20, flags @24, depth @28,
        frames @32; formats without pid (kernels before it): tgid @16,
        flags @20, depth @24, frames @28"""
        if depth is None:
            depth = len(frames)
        fixed = hdr(pid, self.ids[("ftrace", "user_stack_deferred")])
        if re.search(r"\bint pid;",
                     self.f.files[("ftrace", "user_stack_deferred")]):
            fixed += struct.pack("<i", pid)
        fixed += struct.pack("<iII", tgid, flags, depth)
        fixed = fixed[:8] + struct.pack("<Q", c) + fixed[8:]
        return self.frames_loc(fixed, frames, loc)

    def sched_switch(self, pid, nxt):
        return hdr(pid, self.ids[("sched", "sched_switch")]) + \
            b"callchain".ljust(16, b"\0") + struct.pack("<iiq", pid, 120, 1) + \
            b"swapper/1".ljust(16, b"\0") + struct.pack("<ii", nxt, 120)

    @staticmethod
    def old_cookie(pid, c):
        """unwind:user_stack_cookie of the pre-release series"""
        return hdr(pid, fmt_ids(OLD_COOKIE_FMT)) + struct.pack("<Q", c)

    @staticmethod
    def old_ustack(pid, c, frames, truncated=0):
        """unwind:user_stack_deferred of the pre-release series"""
        arr = words(frames)
        return hdr(pid, fmt_ids(OLD_DEFER_FMT)) + \
            struct.pack("<QiII", c, pid, truncated,
                        28 | (len(arr) << 16)) + arr


# ------------------------------------------- scenarios with a binary

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


def load_segments(binary, offsets=False):
    """(vaddr, memsz) of PT_LOAD, from readelf, for the saved maps;
    (vaddr, memsz, offset) with offsets."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True,
                         text=True).stdout
    segs = []
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == "LOAD":
            seg = (int(p[2], 16), int(p[5], 16))
            segs.append(seg + (int(p[1], 16),) if offsets else seg)
    return segs


def maps_lines(binary, name, base):
    """Mappings of binary at base, one line per segment, like trace-cmd:
    (start, end, name, pgoff)."""
    lines = []
    segs = load_segments(binary, offsets=True)
    first = segs[0][0] & ~(PAGE - 1)
    for vaddr, memsz, offset in segs:
        start = base + (vaddr & ~(PAGE - 1)) - first
        end = base + ((vaddr + memsz + PAGE - 1) & ~(PAGE - 1)) - first
        pgoff = offset & ~(PAGE - 1)
        if lines and start < lines[-1][1]:
            pgoff += lines[-1][1] - start
            start = lines[-1][1]
        if end > start:
            lines.append((start, end, name, pgoff))
    return lines


def procmap_option(pid, exe_name, lines, build_id=None, execs=0,
                   pgoff=False):
    """The PROCMAPS option; with build_id, trace-cmd 3.4 with our series'
    4th field on the lines of exe_name; with execs, the maps of an image
    that many execs before the last (series 0012); with pgoff, where each
    mapping starts in its file (series 0017)."""
    s = "%x %x %s%s\n" % (pid, len(lines), exe_name,
                          " execs=%d" % execs if execs else "")
    for a, b, n, off in lines:
        s += "%x %x %s" % (a, b, n)
        if build_id and n == exe_name:
            s += " " + build_id
        s += " pgoff=%x\n" % off if pgoff else "\n"
    return s


class Scenario(Records):
    def __init__(self, fmts, binary, libc, binname):
        Records.__init__(self, fmts)
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


def binary_scenario(a, fmts):
    """trigger | option | large | never | stuck | multi | latency | kstack |
    instances | flags | unwinder; returns (buffers, cmdlines, procmaps)."""
    sc = Scenario(fmts, a.binary, a.libc, a.binname or a.binary)
    pid = a.pid
    w = Writer(2)
    buffers = [("", w)]
    ts = T0
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
    elif a.scenario == "latency":
        # the trigger on sys_enter_getppid (every third exit asks too);
        # the task blocks: switched out (sched_switch asks), back in on
        # CPU 1 (swapper's switch, no stack), then returns; its user
        # stack of 1 to 3 frames (three paths) after the exit.  Each
        # entry takes its own time
        for i in range(a.count):
            c = (i + 1) << 16
            lat = 10000 * (1 + i % 3) + 100 * i     # enter to exit
            off = lat // 2                          # out to back in
            w.add(0, ts, sc.ev_enter(pid))
            w.add(0, ts + 10, sc.cookie(pid, c, sc.kstack(True)))
            w.add(0, ts + 100, sc.sched_switch(pid, 0))
            w.add(0, ts + 110, sc.cookie(pid, c, sc.kstack(False)))
            w.add(1, ts + 100 + off, sc.sched_switch(0, pid))
            w.add(1, ts + lat, sc.ev_exit(pid))
            if i % 3 == 2:
                w.add(1, ts + lat + 10, sc.cookie(pid, c, sc.kstack(False)))
            w.add(1, ts + lat + 50,
                  sc.ustack(pid, pid, c, sc.user_frames()[:1 + i % 3]))
            ts += lat + 1000
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
        w2 = Writer(2)
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
                 {"unwinder": 0xffffffe0}, {"unwinder": 0xffffffe0 | sf}]
        for i, kw in enumerate(kinds):
            sc.entry(w, pid, pid, (i + 1) << 16, ts, i % 2, 1 - i % 2, True,
                     **kw)
            ts += 10000
    elif a.scenario == "multi":
        # --tasks processes at once, two per CPU taking turns; each
        # entry's user stack on its own CPU, every 7th on the other one
        cmdlines, pms = [(33, "kworker/0:1")], []
        for k in range(a.tasks):
            tid = pid + 10 * k
            cmdlines.append((tid, "callchain" if k == 0 else "task%d" % k))
            pms.append(procmap_option(tid, sc.binname, sc.lines,
                                      a.build_id))
        for i in range(a.count):
            k = i % a.tasks
            tid, cpu = pid + 10 * k, k % 2
            ucpu = 1 - cpu if i % 7 == 3 else cpu
            # stacks of 1 to 5 frames, so that a stack given to the wrong
            # entry shows
            sc.entry(w, tid, tid, (i // a.tasks + 1) << 16 | k, ts, cpu,
                     ucpu, True, udelay=4000, nframes=1 + i % 5)
            ts += 2500
        sc.kthread(w, ts, 0)
        return buffers, cmdlines, pms
    elif a.scenario == "dlopen":
        # a plugin loader: dlopen(A), --count entries in it, dlclose(A),
        # dlopen(B) at the same base, --count entries with the same
        # addresses from the same call site; B kept to the end, so the
        # maps read at the end show B where A was.  The loads are the
        # SFrame registrar's trace_marker lines (sframe-gen/preload/maps.c)
        lib_a, lib_b = a.dl_libs.split(",")
        funcs = dyn_funcs(lib_a)
        base = 0x7ffff7fb0000
        segs = [(s0, s1, off) for s0, s1, _, off in
                maps_lines(lib_a, lib_a, base)]
        fr = [base + funcs["dl%s_%s" % ("a", fn)][0] +
              funcs["dl%s_%s" % ("a", fn)][1] // 2
              for fn in ("inner", "middle", "work")]
        fr += [sc.ret_addr("main", 0.8)]
        sc.user_frames = lambda: fr

        def mark(ts, text):
            w.add(0, ts, hdr(pid, fmts.id("ftrace", "print")) +
                  struct.pack("<Q", 0xffffffff81000010) +
                  (text + "\n").encode() + b"\0")
        n = 0
        for lib in (lib_a, lib_b):
            mark(ts, map_open_line(pid, pid, base, segs,
                                   os.path.abspath(lib)))
            ts += 10000
            for i in range(a.count):
                n += 1
                sc.entry(w, pid, pid, n << 16, ts, i % 2, 1 - i % 2, True)
                ts += 10000
            if lib == lib_a:
                mark(ts, map_close_line(pid, pid, base))
                ts += 10000
        sc.kthread(w, ts, 0)
        lines = sc.lines + maps_lines(lib_b, os.path.abspath(lib_b), base)
        return buffers, [(pid, "callchain"), (33, "kworker/0:1")], \
            [procmap_option(pid, sc.binname, lines)]
    elif a.scenario == "exec":
        # the process runs the binary at one base, execs (sched_process_
        # exec, or with --exec-event sys_exit_execve its successful
        # return), and runs it again at a base 0x3000 lower (ASLR): a
        # frame of the old image falls in the new image's maps 0x3000
        # further into the file, where it names the wrong place
        old_lines = sc.lines
        for i in range(a.count):
            sc.entry(w, pid, pid, (i + 1) << 16, ts, i % 2, i % 2, True)
            ts += 10000
        fname = b"./callchain"
        if a.exec_event == "sched_process_exec":
            w.add(0, ts, hdr(pid, fmts.id("sched", "sched_process_exec")) +
                  struct.pack("<Iii", (len(fname) + 1) << 16 | 20, pid, pid) +
                  fname + b"\0")
        else:
            w.add(0, ts, hdr(pid, fmts.id("syscalls", "sys_exit_execve")) +
                  struct.pack("<iiq", 59, 0, 0))
        ts += 10000
        new = Scenario(fmts, a.binary, a.libc, a.binname or a.binary)
        new.base = sc.base - a.exec_shift
        new.lines = maps_lines(a.binary, new.binname, new.base)
        if a.libc:
            new.lines += maps_lines(a.libc, a.libc, new.libc_base)
        new.ids = sc.ids
        for i in range(a.count):
            new.entry(w, pid, pid, (a.count + i + 1) << 16, ts, i % 2,
                      i % 2, True)
            ts += 10000
        pms = []
        if not a.no_old_maps:
            pms.append(procmap_option(pid, sc.binname, old_lines,
                                      a.build_id, execs=1))
        pms.append(procmap_option(pid, new.binname, new.lines, a.build_id))
        return buffers, [(pid, "callchain"), (33, "kworker/0:1")], pms
    lines = sc.lines
    if a.pieces:
        # the binary's first segment not mapped: its maps start at the next
        lines = [l for l in lines if l[2] != sc.binname or l[3] != 0]
    pm = procmap_option(pid, sc.binname, lines, a.build_id,
                        pgoff=a.pgoff or a.pieces)
    return buffers, [(pid, "callchain"), (33, "kworker/0:1")], [pm]


BINARY_SCENARIOS = {
    "trigger": "entries of one task asking with the trigger (enter and "
               "exit), each user stack on the other CPU; a kernel thread's "
               "kernel_stack at the end",
    "option": "as trigger, with the option: sched_switch asks too",
    "never": "as trigger, the last entry's user stack never comes",
    "large": "as trigger, every 97th stack truncated, a kernel thread "
             "every 50 entries (bench/join.sh)",
    "stuck": "as trigger, after --stuck threads of the process (default "
             "1) that each enter getppid first and never come back to user "
             "space (a thread parked in futex or epoll): their requests "
             "wait to the end; with --back they come back last",
    "multi": "--tasks processes (default 4; pids PID, PID+10, ...; comms "
             "callchain, task1, ...) asking with the trigger at once, two "
             "per CPU taking turns; each user stack on its own CPU, every "
             "7th on the other (bench/report.sh's multi trace, "
             "synthetic)",
    "latency": "the trigger on sys_enter_getppid (every third exit asks "
               "too); each entry blocks (sched_switch out asks, back in on "
               "the other CPU by swapper), then returns, taking its own "
               "time; user stacks of 1 to 3 frames (--weight=latency)",
    "kstack": "each event followed by a plain ftrace:kernel_stack, as -T "
              "records on a kernel without deferred user stacks (no "
              "cookie, no user stack)",
    "instances": "two buffer instances; the second asks for every other "
                 "entry",
    "exec": "--count entries, an exec (sched:sched_process_exec, or "
            "--exec-event sys_exit_execve), --count entries of the binary "
            "mapped 0x3000 (--exec-shift) lower; the maps of both images saved (the old "
            "with execs=1, as record -T saves them), the new one's only "
            "with --no-old-maps",
    "dlopen": "--dl-libs A,B (two libraries of one layout: "
              "tests/workload/dlwork_lib.c): A dlopen()ed, --count entries "
              "in dla_*, A dlclose()d, B dlopen()ed at the same base, "
              "--count entries with the same addresses; the loads as the "
              "registrar's trace_marker lines (ftrace:print), B in the "
              "maps saved at the end",
    "flags": "one kernel entry each of: complete, truncated (depth 300), "
             "late (the kernel's LATE flag), lost (NO_USER_STACK cookies, "
             "no user stack), empty (no user frames), and no kernel frames "
             "(option, no stacktrace)",
    "unwinder": "one kernel entry each with the user stack record's "
                "unwinder flags: FP, SFRAME, FP|SFRAME, SFRAME truncated, "
                "FP|SFRAME late, none, reserved bits only, SFRAME with "
                "reserved bits",
}


# ------------------------------- scenarios at fixed addresses (plugins)

# Kernel stacks as the stacktrace trigger records them (innermost first).
KSTACK_ENTER = [0xffffffff81100042, 0xffffffff81200123,
                0xffffffff81300077, 0xffffffff81400046]
KSTACK_EXIT = [0xffffffff81100444, 0xffffffff81200856,
               0xffffffff813000a1, 0xffffffff81400046]
# User frames of callchain: work_inner, work_middle, work_outer, main,
# __libc_start_call_main (innermost first).
USTACK = [0x55555555513a, 0x555555555160, 0x555555555180,
          0x5555555551c0, 0x7ffff7df018a]


def syscall(r, w, cpu, ts, pid, c, ustack_cpu=None, ustack_ts=None,
            ustack=USTACK, both=True, kstack=True, **kw):
    """One getppid entry: enter + cookie (+ exit + cookie), each cookie
    carrying the kernel stack of its event, then its user stack on
    ustack_cpu at ustack_ts (None: the stack never comes)."""
    w.add(cpu, ts, r.ev_enter(pid))
    w.add(cpu, ts + 200, r.cookie(pid, c, KSTACK_ENTER if kstack else ()))
    if both:
        w.add(cpu, ts + 1000, r.ev_exit(pid))
        w.add(cpu, ts + 1200,
              r.cookie(pid, c, KSTACK_EXIT if kstack else ()))
    if ustack_ts is not None:
        w.add(cpu if ustack_cpu is None else ustack_cpu, ustack_ts,
              r.ustack(pid, pid, c, ustack, **kw))


def sc_basic(r, w):
    """Two entries of one task, each stack on the same CPU."""
    syscall(r, w, 0, T0, 1234, 0x100001, ustack_ts=T0 + 5000)
    syscall(r, w, 0, T0 + 10000, 1234, 0x100002, ustack_ts=T0 + 15000)
    return {1234: "callchain"}


def sc_nostacks(r, w):
    """A recording from a kernel with the series, but without -T or a
    stack trigger: the stack records' formats, no stack record."""
    for i in range(4):
        w.add(i % 2, T0 + i * 1000, r.ev_enter(1234))
        w.add(i % 2, T0 + i * 1000 + 500, r.ev_exit(1234))
    return {1234: "callchain"}


def sc_crosscpu(r, w):
    """Two tasks on two CPUs, each CPU's first event printed before the
    first cookie record; each user stack lands on the OTHER CPU, and the
    stacks come in the opposite order of the cookies."""
    syscall(r, w, 0, T0, 1234, 0x200001, ustack_cpu=1, ustack_ts=T0 + 9000)
    syscall(r, w, 1, T0 + 50, 1240, 0x200002, ustack_cpu=0,
            ustack_ts=T0 + 6000, ustack=[0x400100, 0x400200, 0x400300])
    return {1234: "callchain", 1240: "other"}


def sc_firstcpus(r, w):
    """Four CPUs whose first records are asking events printed before
    any cookie record (the plugin's wrappers are not in place yet): the
    first on each CPU follows a record of another task, and CPU 3 starts
    with an event that asks nothing."""
    for cpu in range(4):
        pid = 3000 + cpu
        ts = T0 + cpu * 10
        if cpu == 3:
            w.add(cpu, ts - 5, r.ev_exit(2999))
        w.add(cpu, ts, r.ev_enter(pid))
        w.add(cpu, ts + 100, r.cookie(pid, 0x900000 + cpu, KSTACK_ENTER))
        w.add(cpu, ts + 1000, r.ev_exit(pid))
        w.add(cpu, ts + 1100, r.cookie(pid, 0x900000 + cpu, KSTACK_EXIT))
        w.add((cpu + 1) % 4, T0 + 5000 + cpu * 100,
              r.ustack(pid, pid, 0x900000 + cpu, USTACK[:3]))
    return {3000: "a", 3001: "b", 3002: "c", 3003: "d", 2999: "e"}


def sc_kstack_then_cookie(r, w):
    """-T with the trigger: ftrace:kernel_stack (the stacktrace option's
    record) sits between the event and its cookie; it is not the event
    that asked."""
    w.add(0, T0, r.ev_enter(1234))
    w.add(0, T0 + 100, r.kernel_stack(1234, KSTACK_ENTER))
    w.add(0, T0 + 200, r.cookie(1234, 0xa00001, KSTACK_ENTER))
    w.add(0, T0 + 1000, r.ev_exit(1234))
    w.add(0, T0 + 1100, r.kernel_stack(1234, KSTACK_EXIT))
    w.add(0, T0 + 1200, r.cookie(1234, 0xa00001, KSTACK_EXIT))
    w.add(0, T0 + 2000, r.ustack(1234, 1234, 0xa00001, USTACK))
    return {1234: "callchain"}


def sc_missing(r, w):
    """The first entry's user stack never comes (tracing stopped);
    a user stack whose cookie was never seen (ring buffer overwrote it);
    a cookie record with no kernel stack (the option without -T)."""
    syscall(r, w, 0, T0, 1234, 0x300001, ustack_ts=None)
    w.add(1, T0 + 3000, r.ustack(1250, 1250, 0x3000ff, [0x401000]))
    w.add(1, T0 + 4000, r.ev_enter(1260))
    w.add(1, T0 + 4100, r.cookie(1260, 0x300003, []))
    w.add(1, T0 + 4500, r.ustack(1260, 1260, 0x300003, [0x402000, 0x402100]))
    return {1234: "callchain", 1250: "gone", 1260: "nokstack"}


def sc_lost(r, w):
    """A cookie with NO_USER_STACK: no user stack follows for it, and
    none comes; then a normal entry."""
    w.add(0, T0, r.ev_enter(1234))
    w.add(0, T0 + 100, r.cookie(1234, 0xb00001, KSTACK_ENTER,
                                flags=NO_USER_STACK))
    syscall(r, w, 0, T0 + 10000, 1234, 0xb00002, ustack_ts=T0 + 15000)
    return {1234: "callchain"}


def sc_truncated(r, w):
    """A stack cut short (300 frames found), an empty one (unwind
    failed)."""
    syscall(r, w, 0, T0, 1234, 0x400001, ustack_ts=T0 + 5000,
            flags=TRUNCATED, depth=300)
    syscall(r, w, 0, T0 + 10000, 1234, 0x400002, ustack_ts=T0 + 15000,
            ustack=[])
    return {1234: "callchain"}


def sc_unwinder_marks(r, w):
    """The unwinder flags of user stacks: frame pointers only, SFrame
    only, both, SFrame in a truncated stack, none."""
    fp, sf = UNWIND_FP, UNWIND_SFRAME
    for i, (flags, depth) in enumerate(((fp, None), (sf, None),
                                        (sf | fp, None),
                                        (sf | TRUNCATED, 300),
                                        (0, None))):
        ts = T0 + i * 10000
        syscall(r, w, 0, ts, 1234, 0xd00001 + i, ustack_ts=ts + 5000,
                flags=flags, depth=depth)
    return {1234: "callchain"}


def sc_many(r, w):
    """300 entries of 3 tasks whose stacks come late and interleaved
    (for the eviction test with a small max_pending)."""
    for i in range(300):
        pid = 2000 + i % 3
        ts = T0 + i * 10000
        syscall(r, w, i % 2, ts, pid, 0x500000 + i, both=False,
                ustack_cpu=(i + 1) % 2,
                ustack_ts=T0 + 300 * 10000 + 1000 + (299 - i) * 100)
    return {2000: "a", 2001: "b", 2002: "c"}


def sc_late(r, w):
    """A request after the user stack was written in the same kernel
    entry (signal delivery on the way out): its cookie record comes after
    the user_stack_deferred of that cookie, and no other stack comes.
    Then another entry whose stack the kernel answered from its cache
    (LATE)."""
    c = 0x800001
    w.add(0, T0, r.ev_enter(1234))
    w.add(0, T0 + 200, r.cookie(1234, c, KSTACK_ENTER))
    w.add(1, T0 + 3000, r.ustack(1234, 1234, c, USTACK))
    w.add(0, T0 + 4000, r.ev_exit(1234))
    w.add(0, T0 + 4200, r.cookie(1234, c, KSTACK_EXIT))
    w.add(0, T0 + 9000, r.ev_exit(1234))
    w.add(0, T0 + 9200, r.cookie(1234, 0x800002, KSTACK_EXIT))
    w.add(0, T0 + 9300, r.ustack(1234, 1234, 0x800002, USTACK, flags=LATE))
    return {1234: "callchain"}


def sc_corrupt(r, w):
    """Damaged records: a __data_loc pointing out of the record, a
    length not a multiple of 8, a cookie whose kernel array lies."""
    w.add(0, T0, r.ev_enter(1234))
    w.add(0, T0 + 200, r.cookie(1234, 0x600001, KSTACK_ENTER,
                                loc=24 | (4000 << 16)))
    w.add(0, T0 + 300, r.ustack(1234, 1234, 0x600001, USTACK,
                                loc=200 | (4000 << 16)))
    w.add(0, T0 + 1000, r.ev_enter(1234))
    w.add(0, T0 + 1200, r.cookie(1234, 0x600002, KSTACK_ENTER,
                                 loc=24 | (12 << 16)))
    w.add(0, T0 + 1300, r.ustack(1234, 1234, 0x600002, USTACK,
                                 loc=32 | (13 << 16)))
    w.add(0, T0 + 1400, r.ustack(1234, 1234, 0x600003, [], loc=0xffffffff))
    return {1234: "callchain"}


def sc_badformat(r, w):
    """user_stack_deferred and user_stack_cookie with formats the readers
    do not know (fields renamed)."""
    syscall(r, w, 0, T0, 1234, 0x700001, ustack_ts=T0 + 5000)
    f = r.f.files
    k = ("ftrace", "user_stack_cookie")
    f[k] = f[k].replace("u64 cookie", "u64 kooky")
    f[k] = f[k].replace("REC->cookie", "REC->kooky")
    k = ("ftrace", "user_stack_deferred")
    f[k] = f[k].replace("frames", "ips")
    return {1234: "callchain"}


def sc_prerelease(r, w):
    """A trace of the pre-release series: unwind:user_stack_cookie after
    ftrace:kernel_stack, unwind:user_stack_deferred with a 4-byte
    truncated field.  The readers do not read them and say so once."""
    for i, ts in enumerate((T0, T0 + 10000)):
        c = 0xc00001 + i
        w.add(0, ts, r.ev_enter(1234))
        w.add(0, ts + 100, r.kernel_stack(1234, KSTACK_ENTER))
        w.add(0, ts + 200, r.old_cookie(1234, c))
        w.add(1, ts + 5000, r.old_ustack(1234, c, USTACK))
    f = r.f.files
    del f[("ftrace", "user_stack_cookie")], f[("ftrace", "user_stack_deferred")]
    f[("unwind", "user_stack_cookie")] = OLD_COOKIE_FMT
    f[("unwind", "user_stack_deferred")] = OLD_DEFER_FMT
    return {1234: "callchain"}


FIXED_SCENARIOS = {
    "basic": sc_basic,
    "nostacks": sc_nostacks,
    "crosscpu": sc_crosscpu,
    "firstcpus": sc_firstcpus,
    "kstack-then-cookie": sc_kstack_then_cookie,
    "missing": sc_missing,
    "lost": sc_lost,
    "truncated": sc_truncated,
    "unwinder-marks": sc_unwinder_marks,
    "many": sc_many,
    "late": sc_late,
    "corrupt": sc_corrupt,
    "badformat": sc_badformat,
    "prerelease": sc_prerelease,
}


def main():
    if sys.argv[1:2] == ["--guest-log"]:
        if len(sys.argv) != 4:
            sys.exit("usage: mktrace.py --guest-log OUTPUT_LOG OUT.dat")
        guest_log_dat(sys.argv[2], sys.argv[3])
        return 0
    if sys.argv[1:] == ["--list"]:
        for k, v in BINARY_SCENARIOS.items():
            print("%-18s (--binary) %s" % (k, v))
        for k, v in FIXED_SCENARIOS.items():
            print("%-18s %s" % (k, " ".join(v.__doc__.split())))
        return 0
    ap = argparse.ArgumentParser(
        usage="mktrace.py SCENARIO OUT.dat [options] (--list: scenarios)")
    ap.add_argument("scenario",
                    choices=list(BINARY_SCENARIOS) + list(FIXED_SCENARIOS))
    ap.add_argument("out")
    ap.add_argument("--formats", default=FORMATS)
    ap.add_argument("--binary", help="the traced program (scenarios that "
                    "name user frames need it)")
    ap.add_argument("--binname", help="path of the binary in the maps")
    ap.add_argument("--libc")
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--pid", type=int, default=1234)
    ap.add_argument("--stuck", type=int, default=1,
                    help="stuck: how many threads never come back")
    ap.add_argument("--tasks", type=int, default=4,
                    help="multi: how many processes")
    ap.add_argument("--back", action="store_true",
                    help="stuck: the threads come back at the end (their "
                    "user stacks are the last records)")
    ap.add_argument("--exec-event", default="sched_process_exec",
                    choices=["sched_process_exec", "sys_exit_execve"],
                    help="exec: the event that records the exec")
    ap.add_argument("--exec-shift", type=lambda v: int(v, 0), default=0x3000,
                    help="exec: how much lower the new image is mapped")
    ap.add_argument("--no-old-maps", action="store_true",
                    help="exec: save the maps of the last image only")
    ap.add_argument("--build-id", help="hex build ID saved after the binary's "
                    "map lines, as trace-cmd record with our series saves it")
    ap.add_argument("--pgoff", action="store_true",
                    help="save where each mapping starts in its file "
                    "(pgoff=HEX, as trace-cmd record with our series)")
    ap.add_argument("--pieces", action="store_true",
                    help="the binary mapped in pieces: no mapping of its "
                    "first segment (implies --pgoff; trigger, option, ...)")
    ap.add_argument("--dl-libs", help="dlopen: the two libraries, A,B")
    a = ap.parse_args()

    fmts = Formats(a.formats)
    if a.scenario == "exec":
        fmts.files[("sched", "sched_process_exec")] = EXEC_FMT
        fmts.files[("syscalls", "sys_exit_execve")] = EXECVE_EXIT_FMT
    if a.scenario == "dlopen":
        fmts.files[("ftrace", "print")] = PRINT_FMT
        if not a.dl_libs or len(a.dl_libs.split(",")) != 2:
            ap.error("scenario dlopen needs --dl-libs A,B")
    if a.scenario in BINARY_SCENARIOS:
        if not a.binary:
            ap.error("scenario %s needs --binary" % a.scenario)
        buffers, cmdlines, procmaps = binary_scenario(a, fmts)
        ncpu = 2
    else:
        w = Writer(2)
        comms = FIXED_SCENARIOS[a.scenario](Records(fmts), w)
        buffers, cmdlines, procmaps = [("", w)], list(comms.items()), []
        ncpu = len(w.cpus)
    write_dat(a.out, fmts, buffers, cmdlines, procmaps, ncpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
