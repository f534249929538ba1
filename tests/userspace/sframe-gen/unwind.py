#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Walk live stacks with generated SFrame, as the kernel would; compare with eu-stack.

    unwind.py TOOL

For each workload (stock Debian programs blocked in a system call:
python3.11 a few Python calls deep, bash, cat, sleep) this attaches with
ptrace, reads the registers, and walks the user stack the way the
kernel's deferred unwinder does (kernel/unwind/user.c with patches
0007-0013): for each frame the SFrame rule of the generated section
(`TOOL OBJECT --dump`, for every object mapped) at ip (ip - 1 below the
top), else the frame-pointer rule; an FRE with no offset ends the walk.
It detaches and runs elfutils' eu-stack, an unwinder no one here wrote,
on the same blocked task.  The SFrame walk must give eu-stack's frames,
the same number, each the same address; the walk with frame pointers
alone is printed beside it.  Prints PASS:/FAIL: lines.
"""
import bisect
import ctypes
import os
import re
import subprocess
import sys
import time

PTRACE_GETREGS, PTRACE_ATTACH, PTRACE_DETACH = 12, 16, 17
REGS = ('r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs '
        'eflags rsp ss fs_base gs_base ds es fs gs').split()


class Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in REGS]


libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def attach_and_read(pid):
    """Registers and a reader of the stopped task's memory."""
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) < 0:
        raise OSError(ctypes.get_errno(), 'PTRACE_ATTACH')
    os.waitpid(pid, 0)
    regs = Regs()
    if libc.ptrace(PTRACE_GETREGS, pid, None, ctypes.byref(regs)) < 0:
        raise OSError(ctypes.get_errno(), 'PTRACE_GETREGS')
    return regs


def detach(pid):
    libc.ptrace(PTRACE_DETACH, pid, None, None)


class Mem:
    def __init__(self, pid):
        self.f = open('/proc/%d/mem' % pid, 'rb', buffering=0)

    def word(self, addr):
        try:
            self.f.seek(addr)
            b = self.f.read(8)
        except (OSError, OverflowError, ValueError):
            return None
        return int.from_bytes(b, 'little') if len(b) == 8 else None


def load_vaddr0(path):
    """p_vaddr - p_offset of the PT_LOAD at file offset 0 (0 for PIE)."""
    out = subprocess.run(['readelf', '-lW', path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == 'LOAD' and int(f[1], 16) == 0:
            return int(f[2], 16)
    return 0


class Rules:
    """The generated SFrame rows of every object mapped in the task."""

    def __init__(self, tool, pid):
        self.objs = []          # (lo, hi, base, starts, rows)
        first = {}
        spans = {}
        for line in open('/proc/%d/maps' % pid):
            f = line.split()
            if len(f) < 6 or not f[5].startswith('/'):
                continue
            lo, hi = (int(x, 16) for x in f[0].split('-'))
            off = int(f[2], 16)
            path = f[5]
            if off == 0 and path not in first:
                first[path] = lo
            s = spans.setdefault(path, [lo, hi])
            s[0], s[1] = min(s[0], lo), max(s[1], hi)
        self.generated = []
        for path, lo in first.items():
            base = lo - load_vaddr0(path)
            r = subprocess.run([tool, path, '--dump'], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            if r.returncode:
                continue        # no section for it: frame pointers there
            rows = []
            for line in r.stdout.splitlines():
                a, b, rule = line.split(None, 2)
                rows.append((int(a, 16) + base, int(b, 16) + base, rule))
            rows.sort()
            self.objs.append((spans[path][0], spans[path][1], [x[0] for x in rows], rows))
            self.generated.append(os.path.basename(path))

    def find(self, ip):
        for lo, hi, starts, rows in self.objs:
            if lo <= ip < hi:
                i = bisect.bisect_right(starts, ip) - 1
                if i >= 0 and rows[i][0] <= ip < rows[i][1]:
                    return rows[i][2]
                return None
        return None


def parse_rule(rule):
    """(outermost, use_fp, cfa_off, fp_off, ra_off) of a --dump rule."""
    if rule.startswith('ra=u'):
        return True, False, 0, 0, 0
    m = re.match(r'cfa=(sp|fp)([+-]\d+)(?: fp=cfa([+-]\d+))? ra=cfa([+-]\d+)$', rule)
    return False, m.group(1) == 'fp', int(m.group(2)), int(m.group(3) or 0), int(m.group(4))


def walk(regs, mem, rules, use_sframe, limit=128):
    """kernel/unwind/user.c: the ips of the frames, and who found each."""
    ip, sp, fp = regs.rip, regs.rsp, regs.rbp
    top = True
    out = []
    while len(out) < limit:
        out.append(ip)
        frame = None
        if use_sframe:
            rule = rules.find(ip if top else ip - 1)
            if rule:
                frame = parse_rule(rule)
                if frame[0]:
                    break                   # outermost: the walk ends
        nxt = step(frame, sp, fp, mem) if frame else None
        if nxt is None:
            # frame pointers (the task is in a syscall: not at a function start)
            nxt = step((False, True, 16, -16, -8), sp, fp, mem)
        if nxt is None:
            break
        ip, sp, fp = nxt
        top = False
    return out


def step(frame, sp, fp, mem):
    """unwind_user_next_common(): the caller's ip, sp, fp, or None."""
    _, use_fp, cfa_off, fp_off, ra_off = frame
    if use_fp:
        if fp < sp:
            return None
        cfa = fp + cfa_off
    else:
        cfa = sp + cfa_off
    if cfa <= sp or cfa & 7:
        return None
    ra = mem.word(cfa + ra_off)
    if ra is None:
        return None
    if fp_off:
        nfp = mem.word(cfa + fp_off)
        if nfp is None:
            return None
        fp = nfp
    return ra, cfa, fp


def eu_stack(pid):
    r = subprocess.run(['eu-stack', '-1', '-p', str(pid)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    pcs = []
    for line in r.stdout.splitlines():
        m = re.match(r'#\d+\s+0x([0-9a-f]+)', line)
        if m:
            pcs.append(int(m.group(1), 16))
    return pcs, r.stdout


def blocked(pid, want):
    """Wait until the task sleeps in syscall @want (0 read, 230 clock_nanosleep)."""
    for _ in range(200):
        try:
            s = open('/proc/%d/syscall' % pid).read().split()
            st = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()[0]
        except OSError:
            return False
        if s and s[0] == str(want) and st == 'S':
            time.sleep(0.2)
            return True
        time.sleep(0.05)
    return False


PY = '''
import sys
def a(n):
    return b(n)
def b(n):
    return a(n - 1) if n else sys.stdin.read()
a(4)
'''

WORKLOADS = [
    ('python3.11', ['/usr/bin/python3.11', '-c', PY], 0),
    ('bash', ['/bin/bash', '-c', 'read x'], 0),
    ('cat', ['/bin/cat'], 0),
    ('sleep', ['/bin/sleep', '60'], 230),
]


def main():
    tool = sys.argv[1]
    passed = failed = 0
    for name, argv, sysno in WORKLOADS:
        r, w = os.pipe()
        p = subprocess.Popen(argv, stdin=r, stdout=subprocess.DEVNULL)
        os.close(r)
        try:
            if not blocked(p.pid, sysno):
                print('FAIL: %s: never blocked in syscall %d' % (name, sysno))
                failed += 1
                continue
            rules = Rules(tool, p.pid)
            regs = attach_and_read(p.pid)
            mem = Mem(p.pid)
            sf = walk(regs, mem, rules, True)
            fpw = walk(regs, mem, rules, False)
            detach(p.pid)
            eu, eu_out = eu_stack(p.pid)
            # eu-stack names the pc of frame 0 and the return address of the others
            same = len(sf) == len(eu) and all(a == b for a, b in zip(sf, eu))
            msg = ('%s: SFrame walk %d frames, eu-stack %d, frame pointers alone %d '
                   '(sections for %s)' % (name, len(sf), len(eu), len(fpw),
                                          ' '.join(rules.generated)))
            if same and len(sf) > len(fpw):
                print('PASS: ' + msg)
                passed += 1
            else:
                print('FAIL: ' + msg)
                print('  sframe:   ' + ' '.join('%x' % a for a in sf))
                print('  eu-stack: ' + ' '.join('%x' % a for a in eu))
                print('  ' + eu_out.replace('\n', '\n  '))
                failed += 1
        finally:
            p.kill()
            os.close(w)
            p.wait()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
