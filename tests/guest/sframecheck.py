#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Name the user frames of deferred stacks across an executable and its
shared libraries, with a copy of the process's /proc/PID/maps, and check
them against a call chain (the SFrame tests, t-97-sframe.sh).

  sframecheck.py chain TRACE MAPS COMM FUNC[,FUNC...] [--min N]
      every user stack of COMM starts with FUNC,FUNC,... (innermost first)
  sframecheck.py lost TRACE MAPS COMM FUNC[,FUNC...] [--min N]
      no user stack of COMM has the whole chain (a walk that loses it),
      yet each starts in the first FUNC (it did take the stack)
  sframecheck.py show TRACE MAPS COMM
      each stack as names

Every cookie of COMM must have exactly one stack, at least N (default 1).
Exits 0 when the check holds, 1 with the stacks as names when not.
"""
import argparse
import bisect
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import check_complete, cookies, parse  # noqa: E402


class Object:
    """the symbols of one mapped file, by file offset"""

    def __init__(self, path):
        self.base = os.path.basename(path)
        data = open(path, 'rb').read()
        phoff, = struct.unpack_from('<Q', data, 0x20)
        phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
        self.loads = []
        for i in range(phnum):
            t, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(
                '<IIQQQQQQ', data, phoff + i * phentsize)
            if t == 1:
                self.loads.append((off, vaddr, filesz))
        out = subprocess.run(['nm', '--defined-only', path], check=True,
                             capture_output=True, text=True).stdout
        syms = sorted((int(p[0], 16), p[2]) for p in
                      (line.split() for line in out.splitlines())
                      if len(p) == 3 and p[1] in 'tTwW')
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, foff):
        for off, vaddr, filesz in self.loads:
            if off <= foff < off + filesz:
                v = foff - off + vaddr
                i = bisect.bisect_right(self.addrs, v) - 1
                return self.names[i] if i >= 0 else '?'
        return '?'


class Maps:
    def __init__(self, path):
        self.maps, self.objs = [], {}
        for line in open(path):
            p = line.split()
            if len(p) < 6 or not p[5].startswith('/'):
                continue
            lo, hi = (int(x, 16) for x in p[0].split('-'))
            self.maps.append((lo, hi, int(p[2], 16), p[5]))

    def name(self, addr):
        for lo, hi, off, path in self.maps:
            if lo <= addr < hi:
                if path not in self.objs:
                    try:
                        self.objs[path] = Object(path)
                    except (OSError, subprocess.CalledProcessError):
                        self.objs[path] = None
                o = self.objs[path]
                return o.name(addr - lo + off) if o else '?'
        return '?'


def stacks(a):
    cs = cookies(parse(a.trace), a.comm)
    check_complete(cs, a.min)
    m = Maps(a.maps)
    return [(c, [m.name(x) for x in d['frames']]) for c, d in cs.items()]


def show(st):
    return '; '.join('%s: %s' % (c, ' <- '.join(n)) for c, n in st)


def cmd_chain(a):
    want, st = a.funcs.split(','), stacks(a)
    bad = [(c, n) for c, n in st if n[:len(want)] != want]
    if bad:
        sys.exit('stacks without %s: %s' % (' <- '.join(want), show(bad)))
    print('%d stacks: %s' % (len(st), show(st[:1])))


def cmd_lost(a):
    want, st = a.funcs.split(','), stacks(a)
    bad = [(c, n) for c, n in st if n[:len(want)] == want or
           not n or n[0] != want[0]]
    if bad:
        sys.exit('stacks with the whole chain or not from %s: %s' %
                 (want[0], show(bad)))
    print('%d stacks, chain lost: %s' % (len(st), show(st[:1])))


def cmd_show(a):
    print(show(stacks(a)))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    for name, fn in (('chain', cmd_chain), ('lost', cmd_lost),
                     ('show', cmd_show)):
        s = sub.add_parser(name)
        s.add_argument('trace')
        s.add_argument('maps')
        s.add_argument('comm')
        if name != 'show':
            s.add_argument('funcs')
        s.add_argument('--min', type=int, default=1)
        s.set_defaults(fn=fn)
    a = p.parse_args()
    a.fn(a)


if __name__ == '__main__':
    main()
