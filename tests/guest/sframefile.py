#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""prctl(PR_ATTACH_SFRAME_FILE) from a test, and a check of its effect.

  sframefile.py probe
      Prints EFAULT on a kernel that has the call (as root), EINVAL on one
      that has not.

  sframefile.py attach OBJ SECTION [--build-id HEX] [--size N] [--from ELF]
                       [--hold]
      Attach SECTION (raw bytes, as `sframe-gen OBJ -o SECTION` writes
      them: read at ELF vaddr 0; "own": OBJ's own .sframe, at its vaddr,
      or with --from that of ELF, a copy of OBJ whose section differs)
      to OBJ, its text range, PT_LOAD and build ID read from OBJ's headers.  --build-id claims another build ID,
      --size passes only the first N bytes (a truncated section).  Prints
      "ok FD" (exit 0) or the errno's name (exit 1); with --hold, after
      "ok" it keeps the descriptor until killed.

  sframefile.py check --trace FILE --pid PID --fifo PATH --want same|short|cut
                      [--keep DIR]
      PID, already running and reading PATH on fd 0 (blocked in read()),
      is given a line: its next read() fires the caller's stacktrace:defer
      trigger in the instance whose trace is FILE.  Once it blocks again,
      `eu-stack -p PID` (elfutils, CFI through ptrace) stops it, which
      delivers the deferred stack of that read; the two must be equal
      address by address (same), or the deferred one must miss a frame
      of eu-stack's (short).  Where ptrace is refused (Yama's ptrace_scope
      3), cut asks neither eu-stack nor /proc/PID/syscall (PID must be
      single-threaded): the deferred stack of a read() must have at most
      CUT_MAX frames (a stock program's stack cut at its first frame
      pointer step; whole, python3's has about 20).  Exit 0 when that
      holds, else 1 and why.
"""
import argparse
import ctypes
import errno
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stockcheck  # noqa: E402
import tracecheck  # noqa: E402

PR_ATTACH_SFRAME_FILE = 84
PT_LOAD, PT_NOTE, PF_X = 1, 4, 1
NT_GNU_BUILD_ID = 3
CUT_MAX = 3


class Attach(ctypes.Structure):
    _fields_ = [('sframe', ctypes.c_uint64), ('sframe_size', ctypes.c_uint64),
                ('sframe_addr', ctypes.c_uint64),
                ('text_start', ctypes.c_uint64), ('text_end', ctypes.c_uint64),
                ('seg_vaddr', ctypes.c_uint64), ('seg_offset', ctypes.c_uint64),
                ('object_fd', ctypes.c_int32), ('owner_fd', ctypes.c_int32),
                ('flags', ctypes.c_uint32), ('build_id_size', ctypes.c_uint32),
                ('build_id', ctypes.c_uint8 * 20), ('reserved', ctypes.c_uint32)]


def elf_info(path):
    """(text_start, text_end, seg_vaddr, seg_offset, build_id) of an x86-64 ELF"""
    with open(path, 'rb') as f:
        data = f.read()
    phoff, = struct.unpack_from('<Q', data, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
    text, seg, bid = None, None, b''
    for i in range(phnum):
        typ, flags, off, vaddr, _, filesz, memsz, _ = struct.unpack_from(
            '<IIQQQQQQ', data, phoff + i * phentsize)
        if typ == PT_LOAD and flags & PF_X:
            lo, hi = vaddr, vaddr + memsz
            text = (min(text[0], lo), max(text[1], hi)) if text else (lo, hi)
            if seg is None:
                seg = (vaddr, off)
        elif typ == PT_NOTE and not bid:
            pos = off
            while pos + 12 <= off + filesz:
                namesz, descsz, ntype = struct.unpack_from('<III', data, pos)
                name = pos + 12
                desc = name + ((namesz + 3) & ~3)
                if ntype == NT_GNU_BUILD_ID and data[name:name + 4] == b'GNU\0':
                    bid = data[desc:desc + descsz]
                    break
                pos = desc + ((descsz + 3) & ~3)
    return text[0], text[1], seg[0], seg[1], bid


def own_sframe(path):
    """(bytes, vaddr) of the .sframe section of an x86-64 ELF"""
    with open(path, 'rb') as f:
        data = f.read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    hdr = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
           for i in range(shnum)]
    strs = hdr[shstrndx][4]
    for h in hdr:
        name = data[strs + h[0]:data.index(b'\0', strs + h[0])]
        if name == b'.sframe':
            return data[h[4]:h[4] + h[5]], h[3]
    raise SystemExit('%s has no .sframe' % path)


def probe(_a):
    """EFAULT from a kernel that has the call (it reads the struct's
    trailing bytes from NULL), EINVAL from one without (unknown option)"""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(PR_ATTACH_SFRAME_FILE, None, 8192, 0, 0) < 0:
        print(errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())))
    else:
        print('ok')
    return 0


def attach(a):
    libc = ctypes.CDLL(None, use_errno=True)
    ts, te, sv, so, bid = elf_info(a.obj)
    if a.build_id:
        bid = bytes.fromhex(a.build_id)
    addr = 0
    if a.section == 'own':
        sec, addr = own_sframe(getattr(a, 'from') or a.obj)
    else:
        with open(a.section, 'rb') as f:
            sec = f.read()
    size = len(sec) if a.size is None else a.size
    buf = ctypes.create_string_buffer(sec, len(sec))
    fd = os.open(a.obj, os.O_RDONLY)
    at = Attach(sframe=ctypes.addressof(buf), sframe_size=size, sframe_addr=addr,
                text_start=ts, text_end=te, seg_vaddr=sv, seg_offset=so,
                object_fd=fd, owner_fd=-1, build_id_size=len(bid))
    ctypes.memmove(at.build_id, bid, len(bid))
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong, ctypes.c_ulong]
    ret = libc.prctl(PR_ATTACH_SFRAME_FILE, ctypes.addressof(at),
                     ctypes.sizeof(at), 0, 0)
    if ret < 0:
        print(errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())))
        return 1
    print('ok %d' % ret, flush=True)
    os.close(fd)
    if a.hold:
        while True:
            signal.pause()
    return 0


def blocked_in_read(pid):
    return stockcheck.blocked_task(pid, stockcheck.SYSCALLS['read'], 0)


def cookies(trace, tid):
    return [r.field('cookie') for r in tracecheck.parse(trace)
            if r.event == 'user_stack_cookie' and r.pid == tid]


def stack_of(trace, cookie):
    for r in tracecheck.parse(trace):
        if r.event == 'user_stack_deferred' and r.field('cookie') == cookie:
            return r.frames()
    return None


def wait_stack(trace, cookie, secs):
    """stack_of(), polled for up to secs seconds"""
    end = time.time() + secs
    while True:
        got = stack_of(trace, cookie)
        if got is not None or time.time() >= end:
            return got
        time.sleep(0.2)


def wait_cookie(a, tid, ready=lambda: True):
    """the cookie of tid's next read() once a line is given now and
    ready() holds, or None after 60 s"""
    before = len(cookies(a.trace, tid))
    with open(a.fifo, 'wb') as w:
        w.write(b'x\n')
    end = time.time() + 60
    while time.time() < end:
        got = cookies(a.trace, tid)
        if len(got) > before and ready():
            return got[-1]
        time.sleep(0.2)
    return None


def check_cut(a):
    """No ptrace and no /proc/PID/syscall (both refused at Yama's scope
    3): PID is single-threaded; a line makes its blocked read() return and
    the next one ask; a second line makes that one return, which delivers
    its stack."""
    tid = a.pid
    cookie = wait_cookie(a, tid)
    if cookie is None:
        return 'no new read() of task %d traced' % tid
    wait_cookie(a, tid)
    got = wait_stack(a.trace, cookie, 30)
    if got is None:
        return 'no deferred user stack for cookie %s of task %d' % (cookie, tid)
    if len(got) > CUT_MAX:
        return 'not cut: %d frames: %s' % (
            len(got), ' '.join('0x%x' % f for f in got))
    print('task %d: %d frames (cut)' % (tid, len(got)))
    return None


def check(a):
    if a.want == 'cut':
        return check_cut(a)
    tid = blocked_in_read(a.pid)
    if tid is None:
        return 'task %d is not blocked in read(0)' % a.pid
    # its next read: a new cookie, and blocked again
    if wait_cookie(a, tid, lambda: blocked_in_read(a.pid) == tid) is None:
        return 'no new read() of task %d traced' % tid
    time.sleep(0.5)
    cookie = cookies(a.trace, tid)[-1]
    eu, text = stockcheck.eu_stack(a.pid)
    if a.keep:
        with open(os.path.join(a.keep, 'eu-stack-%d-%s.txt'
                               % (a.pid, a.want)), 'w') as f:
            f.write(text)
    if tid not in eu:
        return 'eu-stack has no stack for task %d' % tid
    want = [addr for addr, _ in eu[tid]]
    names = {addr: name for addr, name in eu[tid]}
    got = wait_stack(a.trace, cookie, 10)
    if got is None:
        return 'no deferred user stack for cookie %s of task %d' % (cookie, tid)
    if a.want == 'same':
        if got != want:
            return ('differs from eu-stack\n  eu-stack: %s\n  deferred: %s'
                    % (stockcheck.fmt(want, names), stockcheck.fmt(got, names)))
        print('task %d = eu-stack, %d frames: %s' % (
            tid, len(want), ' <- '.join(n.split('(')[0] or '?'
                                        for _, n in eu[tid])))
    else:
        if len(got) >= len(want):
            return 'all %d frames of eu-stack: %s' % (
                len(want), stockcheck.fmt(got, names))
        print('task %d: %d frames, eu-stack %d' % (tid, len(got), len(want)))
    return None


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('probe')
    p = sub.add_parser('attach')
    p.add_argument('obj')
    p.add_argument('section')
    p.add_argument('--build-id')
    p.add_argument('--size', type=int)
    p.add_argument('--from')
    p.add_argument('--hold', action='store_true')
    p = sub.add_parser('check')
    p.add_argument('--trace', required=True)
    p.add_argument('--pid', type=int, required=True)
    p.add_argument('--fifo', required=True)
    p.add_argument('--want', choices=('same', 'short', 'cut'), required=True)
    p.add_argument('--keep')
    a = ap.parse_args()
    if a.cmd == 'probe':
        sys.exit(probe(a))
    if a.cmd == 'attach':
        sys.exit(attach(a))
    why = check(a)
    if why:
        sys.exit(why)


if __name__ == '__main__':
    main()
