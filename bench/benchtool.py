#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a benchmark run wrote, read back for tests/guest/bench-*.sh.

  benchtool.py perfdata PERF.DATA
      one line: samples=N deferred=N lost=N lost_samples=N throttle=N
      bytes=N, read from the records of the file's data section:
      samples and deferred are the PERF_RECORD_SAMPLE and
      PERF_RECORD_CALLCHAIN_DEFERRED records, bytes their sizes summed,
      lost the samples that PERF_RECORD_LOST records say were lost,
      lost_samples those of PERF_RECORD_LOST_SAMPLES, throttle the
      PERF_RECORD_THROTTLE records
  benchtool.py ftrace-depth TRACE BINARY FUNC
      the user stacks of a tracefs `trace` text dump whose innermost frame
      lies in FUNC of BINARY (its symbol table, read with nm): the
      user_stack_deferred records (their frames={...}) and the in-place
      <user stack trace> blocks.  One line: stacks=N frames=F names=A,B,...
      where F is the most common number of frames among them and names
      the frames of one such stack (a frame outside BINARY prints as
      [other], a run of one name as NAME*COUNT); then unwinder=U:N,... the unwinders the records name
      (unwinder= of user_stack_deferred; in-place for the option)
  benchtool.py perf-depth SCRIPT BINARY FUNC
      the same for the output of `perf script -F comm,event,ip,sym`:
      the user frames of each sample (addresses below the kernel's; the
      "(inlined)" lines of perf's inline expansion are not frames)
  benchtool.py selftest
      checks the readers on records built here (no perf or tracefs
      needed); ends with an "N passed, N failed" line

Exits 1 with a reason on stderr when a file cannot be read.
"""
import bisect
import collections
import re
import struct
import subprocess
import sys

PERF_MAGIC = b'PERFILE2'
REC_LOST, REC_THROTTLE, REC_SAMPLE = 2, 5, 9
REC_LOST_SAMPLES, REC_CALLCHAIN_DEFERRED = 13, 22
KERNEL_START = 0xffff800000000000


def perfdata(path):
    """Count what a perf.data file's data section holds."""
    with open(path, 'rb') as f:
        head = f.read(104)
        if len(head) < 104 or head[:8] != PERF_MAGIC:
            raise ValueError('%s: not a perf.data file (PERFILE2)' % path)
        data_off, data_size = struct.unpack_from('<QQ', head, 40)
        f.seek(data_off)
        data = f.read(data_size)
    if len(data) != data_size:
        raise ValueError('%s: data section cut short (%d of %d bytes)'
                         % (path, len(data), data_size))
    c = collections.Counter()
    pos = 0
    while pos + 8 <= len(data):
        typ, _misc, size = struct.unpack_from('<IHH', data, pos)
        if size < 8 or pos + size > len(data):
            raise ValueError('%s: bad record at data offset %d (size %d)'
                             % (path, pos, size))
        if typ == REC_SAMPLE:
            c['samples'] += 1
            c['bytes'] += size
        elif typ == REC_CALLCHAIN_DEFERRED:
            c['deferred'] += 1
            c['bytes'] += size
        elif typ == REC_LOST:
            # struct { header; u64 id; u64 lost; }
            c['lost'] += struct.unpack_from('<Q', data, pos + 16)[0] \
                if size >= 24 else 1
        elif typ == REC_LOST_SAMPLES:
            # struct { header; u64 lost; }
            c['lost_samples'] += struct.unpack_from('<Q', data, pos + 8)[0] \
                if size >= 16 else 1
        elif typ == REC_THROTTLE:
            c['throttle'] += 1
        pos += size
    if pos != len(data):
        raise ValueError('%s: %d bytes left over at the end of the data'
                         % (path, len(data) - pos))
    return c


def perfdata_line(c):
    return ' '.join('%s=%d' % (k, c[k]) for k in
                    ('samples', 'deferred', 'lost', 'lost_samples',
                     'throttle', 'bytes'))


class Symbols:
    """Function symbols of a binary, from nm (the oracle)."""

    def __init__(self, binary):
        out = subprocess.run(['nm', '-n', '-S', '--defined-only', binary],
                             check=True, capture_output=True,
                             text=True).stdout
        self.addrs, self.ends, self.names = [], [], []
        for line in out.splitlines():
            p = line.split()
            if len(p) == 4 and p[2] in 'tTwW':
                a = int(p[0], 16)
                self.addrs.append(a)
                self.ends.append(a + int(p[1], 16))
                self.names.append(p[3])

    def name(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i >= 0 and addr < self.ends[i]:
            return self.names[i]
        return '[other]'


def summarize(stacks, syms, func, unwinders=None):
    """stacks: lists of user addresses, innermost first; unwinders: the
    unwinder= of each (ftrace's user_stack_deferred), or None"""
    if unwinders is None:
        unwinders = [None] * len(stacks)
    mine = [(s, u) for s, u in zip(stacks, unwinders)
            if s and syms.name(s[0]) == func]
    if not mine:
        return 'stacks=0 frames=- names=-'
    depth = collections.Counter(len(s) for s, _ in mine).most_common(1)[0][0]
    one = next(s for s, _ in mine if len(s) == depth)
    names = []
    for a in one:       # runs of one name as NAME*COUNT
        n = syms.name(a)
        if names and names[-1][0] == n:
            names[-1][1] += 1
        else:
            names.append([n, 1])
    line = 'stacks=%d frames=%d names=%s' % (
        len(mine), depth, ','.join(n if c == 1 else '%s*%d' % (n, c)
                                   for n, c in names))
    unw = collections.Counter(u for _, u in mine if u)
    if unw:
        line += ' unwinder=' + ','.join(
            '%s:%d' % kv for kv in sorted(unw.items()))
    return line


HEX = re.compile(r'0x([0-9a-fA-F]+)|<([0-9a-fA-F]+)>')


def ftrace_stacks(lines, unwinders=None):
    stacks, cur = [], None
    if unwinders is None:
        unwinders = []
    for line in lines:
        if 'user_stack_deferred:' in line:
            cur = None
            m = re.search(r'frames=\{([^}]*)\}', line)
            if m:
                stacks.append([int(x, 16) for x in m.group(1).split(',')
                               if x.strip()])
                u = re.search(r'\bunwinder=(\S+)', line)
                unwinders.append(u.group(1) if u else 'unknown')
        elif '<user stack trace>' in line:
            cur = []
            stacks.append(cur)
            unwinders.append('in-place')
        elif cur is not None and line.lstrip().startswith('=>'):
            m = HEX.search(line)
            if m:
                a = int(m.group(1) or m.group(2), 16)
                if a:
                    cur.append(a)
        else:
            cur = None
    return stacks


FRAME = re.compile(r'^\s+([0-9a-f]+)\s')


def perf_stacks(lines):
    stacks, cur = [], None
    for line in lines:
        m = FRAME.match(line)
        if m and '(inlined)' in line:
            continue            # perf's inline expansion, not a frame
        if m and cur is not None:
            a = int(m.group(1), 16)
            if a < KERNEL_START:
                cur.append(a)
        elif line.strip() and not line[0].isspace():
            cur = []
            stacks.append(cur)
        elif not line.strip():
            cur = None
    return stacks


def selftest():
    import os
    import tempfile
    ok = bad = 0

    def check(what, got, want):
        nonlocal ok, bad
        if got == want:
            ok += 1
            print('ok: %s' % what)
        else:
            bad += 1
            print('FAIL: %s: got %r, want %r' % (what, got, want))

    def rec(typ, payload):
        return struct.pack('<IHH', typ, 0, 8 + len(payload)) + payload

    body = (rec(REC_SAMPLE, b'\0' * 24) + rec(REC_CALLCHAIN_DEFERRED, b'\0' * 40)
            + rec(REC_LOST, struct.pack('<QQ', 7, 1609))
            + rec(REC_LOST_SAMPLES, struct.pack('<Q', 3))
            + rec(REC_THROTTLE, b'\0' * 24) + rec(3, b'\0' * 16)
            + rec(REC_SAMPLE, b'\0' * 8))
    head = PERF_MAGIC + struct.pack('<QQ', 104, 0) + struct.pack('<QQ', 0, 0)
    head += struct.pack('<QQ', 104, len(body)) + b'\0' * (104 - len(head) - 16)
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, 'perf.data')
        with open(p, 'wb') as f:
            f.write(head + body)
        c = perfdata(p)
        check('perfdata counts', perfdata_line(c),
              'samples=2 deferred=1 lost=1609 lost_samples=3 throttle=1 '
              'bytes=%d' % (32 + 48 + 16))
        with open(p, 'wb') as f:
            f.write(head + body[:-4])
        try:
            perfdata(p)
            check('perfdata refuses a cut file', 'read', 'error')
        except ValueError:
            check('perfdata refuses a cut file', 'error', 'error')
    tr = ['x-1 [001] ..... 1.0: user_stack_deferred: cookie=0x1 tgid=1 nr=3'
          ' unwinder=fp frames={0x1010,0x2010,0x7f0000001000}',
          'x-1 [001] ..... 1.0: user_stack_deferred: cookie=0x2 tgid=1 nr=3'
          ' unwinder=fp frames={0x1010,0x2010,0x7f0000001000}',
          'x-1 [001] ..... 1.0: user_stack_deferred: cookie=0x3 tgid=1 nr=2'
          ' unwinder=fp frames={0x3000,0x2010}',
          'x-1 [001] ..... 1.0: <user stack trace>',
          ' => <0000000000001010>', ' => <0000000000002010>', 'x-1 next']
    check('ftrace stacks', ftrace_stacks(tr),
          [[0x1010, 0x2010, 0x7f0000001000]] * 2 + [[0x3000, 0x2010],
                                                    [0x1010, 0x2010]])
    ps = ['callchain raw_syscalls:sys_enter:',
          '\tffffffff81000010 do_syscall_64', '\t1010 leaf',
          '\t2010 main', '\t3010 inner (inlined)', '\t3010 outer', '',
          'callchain raw_syscalls:sys_exit:',
          '\t1010 leaf', '']
    syms = Symbols.__new__(Symbols)
    syms.addrs, syms.ends, syms.names = [0x1000, 0x2000], [0x1100, 0x2100], \
        ['leaf', 'main']
    unw = []
    check('ftrace summary', summarize(ftrace_stacks(tr, unw), syms, 'leaf', unw),
          'stacks=3 frames=3 names=leaf,main,[other] '
          'unwinder=fp:2,in-place:1')
    check('runs of a name', summarize([[0x1010, 0x2010, 0x2020, 0x2030]], syms,
                                      'leaf'),
          'stacks=1 frames=4 names=leaf,main*3')
    check('perf stacks', perf_stacks(ps), [[0x1010, 0x2010, 0x3010],
                                           [0x1010]])
    print('%d passed, %d failed' % (ok, bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == 'selftest':
        return selftest()
    try:
        if len(argv) == 3 and argv[1] == 'perfdata':
            print(perfdata_line(perfdata(argv[2])))
        elif len(argv) == 5 and argv[1] in ('ftrace-depth', 'perf-depth'):
            with open(argv[2], errors='replace') as f:
                lines = f.read().splitlines()
            if argv[1] == 'ftrace-depth':
                unw = []
                stacks = ftrace_stacks(lines, unw)
            else:
                unw, stacks = None, perf_stacks(lines)
            print(summarize(stacks, Symbols(argv[3]), argv[4], unw))
        else:
            sys.stderr.write(__doc__)
            return 2
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print('benchtool.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
