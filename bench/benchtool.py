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
  benchtool.py chain TRACE BINARY SKIP [cold|fresh=S]
      the user stacks of a tracefs `trace` dump whose innermost frame is a
      chain function of BINARY (sfchain: sfc_fn_*), after its first SKIP
      such stacks (a warm-up round): stacks=N frames=F unwinder=U:N,...
      Then the kernel's per-mm kept-rule table (kernel/unwind/
      sframe_rules.h: 2^8 direct-mapped slots, slot hash_64(ip, 8), a rule
      kept only when found, all forgotten when a section goes) replayed
      exactly on every stack's lookups, the warm-up's included: the
      topmost frame's address, then each caller's return address - 1, as
      kernel/unwind/user.c looks them up; a lookup inside an FDE of
      BINARY's .sframe can be kept, any other finds no rule (no section,
      or no FDE) and is counted apart.  With cold, every rule is forgotten
      before each stack (sfchain cold); with fresh=S, before every S-th
      stack from the first (sfchain procs: S stacks per fresh process, a
      table of its own each).  Counted on the N stacks:
      lookups=L hits=H hit_rate=H/L distinct=D (addresses looked up
      inside FDEs) norule=R (lookups outside them) fdes=F (in BINARY's
      .sframe)
  benchtool.py table TRACE COMM
      the kept-rule table above replayed on every user stack of COMM's
      user_stack_deferred records in a tracefs `trace` dump, each address
      taken as inside an FDE (an upper bound of the hit rate: a lookup
      outside every FDE keeps nothing): stacks=N frames=F (the median)
      unwinder=U:N,... lookups=L hits=H hit_rate=H/L distinct=D
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


GOLDEN_RATIO_64 = 0x61C8864680B583EB
RULE_BITS = 8


def rule_slot(ip):
    """hash_long(ip, SFRAME_CACHE_BITS) of a 64-bit kernel (hash_64_generic)"""
    return ((ip * GOLDEN_RATIO_64) & (1 << 64) - 1) >> (64 - RULE_BITS)


class KeptRules:
    """The per-mm kept-rule table, as sframe_find_slow()/sframe_rule_get()
    use it: a lookup hits when its slot holds its address from the current
    generation; a miss that finds a rule overwrites the slot."""

    def __init__(self, covered):
        self.covered = covered          # ip -> True when an FDE covers it
        self.slots = [None] * (1 << RULE_BITS)
        self.gen = 0

    def forget(self):
        self.gen += 1

    def stack(self, addrs):
        """(hits, misses, norule, ips looked up inside FDEs) of one walk"""
        hits = misses = norule = 0
        ips = []
        for i, a in enumerate(addrs):
            ip = a if i == 0 else a - 1
            if not self.covered(ip):
                norule += 1
                continue
            ips.append(ip)
            s = rule_slot(ip)
            if self.slots[s] == (ip, self.gen):
                hits += 1
            else:
                misses += 1
                self.slots[s] = (ip, self.gen)
        return hits, misses, norule, ips


def fde_ranges(binary):
    """covered(ip) for the FDEs of BINARY's .sframe (sframe-tool.py reads
    it; version 2 or 3)"""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                        'tests', 'workload', 'sframe-tool.py')
    spec = importlib.util.spec_from_file_location('sframe_tool', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(binary, 'rb') as f:
        data = f.read()
    s = mod.SFrame(data)
    r = sorted((f['start'], f['start'] + f['size']) for f in s.fdes)
    starts = [a for a, _ in r]

    def covered(ip):
        i = bisect.bisect_right(starts, ip) - 1
        return i >= 0 and ip < r[i][1]
    covered.fdes = len(r)
    return covered


def chain(lines, binary, skip, cold, syms=None, covered=None):
    """the line `benchtool.py chain` prints; cold: True (forget before
    every stack) or the number of stacks between forgets"""
    syms = syms or Symbols(binary)
    covered = covered or fde_ranges(binary)
    unw = []
    stacks = ftrace_stacks(lines, unw)
    mine = [(s, u) for s, u in zip(stacks, unw)
            if s and syms.name(s[0]).startswith('sfc_fn_')]
    table = KeptRules(covered)
    hits = misses = norule = 0
    distinct = set()
    for n, (s, _) in enumerate(mine):
        if cold and n % int(cold) == 0:
            table.forget()
        h, m, r, ips = table.stack(s)
        if n >= skip:
            hits, misses, norule = hits + h, misses + m, norule + r
            distinct.update(ips)
    meas = mine[skip:]
    if not meas:
        return 'stacks=0 frames=- unwinder=- lookups=0 hits=0 hit_rate=- distinct=0 norule=0'
    depth = collections.Counter(len(s) for s, _ in meas).most_common(1)[0][0]
    u = collections.Counter(x for _, x in meas)
    look = hits + misses
    return ('stacks=%d frames=%d unwinder=%s lookups=%d hits=%d hit_rate=%s '
            'distinct=%d norule=%d' % (
                len(meas), depth,
                ','.join('%s:%d' % kv for kv in sorted(u.items())), look,
                hits, '%.4f' % (hits / look) if look else '-',
                len(distinct), norule)) + (
                ' fdes=%d' % covered.fdes if hasattr(covered, 'fdes') else '')


def table(lines, comm):
    """the line `benchtool.py table` prints"""
    stacks, unw, keep = [], [], []
    for line in lines:
        if 'user_stack_deferred:' in line:
            keep.append(line.lstrip().startswith(comm + '-'))
    st = ftrace_stacks([l for l in lines if 'user_stack_deferred:' in l], unw)
    stacks = [s for s, k in zip(st, keep) if k and s]
    unw = [u for u, k, s in zip(unw, keep, st) if k and s]
    t = KeptRules(lambda ip: True)
    hits = misses = 0
    distinct = set()
    for s in stacks:
        h, m, _, ips = t.stack(s)
        hits, misses = hits + h, misses + m
        distinct.update(ips)
    if not stacks:
        return 'stacks=0 frames=- unwinder=- lookups=0 hits=0 hit_rate=- distinct=0'
    fr = sorted(len(s) for s in stacks)
    u = collections.Counter(unw)
    look = hits + misses
    return ('stacks=%d frames=%d unwinder=%s lookups=%d hits=%d hit_rate=%.4f '
            'distinct=%d' % (len(stacks), fr[len(fr) // 2],
                             ','.join('%s:%d' % kv for kv in sorted(u.items())),
                             look, hits, hits / look, len(distinct)))


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
    # the kept-rule model: a slot's hash as the kernel's hash_64(), and a
    # table replayed by hand
    check('rule slot', [rule_slot(x) for x in (0, 1, 0x401000)],
          [0, 0x61, ((0x401000 * GOLDEN_RATIO_64) % (1 << 64)) >> 56])
    t = KeptRules(lambda ip: 0x1000 <= ip < 0x2000)
    check('kept first walk', t.stack([0x1010, 0x1021, 0x9000])[:3], (0, 2, 1))
    check('kept again', t.stack([0x1010, 0x1021, 0x9000])[:3], (2, 0, 1))
    t.forget()
    check('kept forgotten', t.stack([0x1010, 0x1021])[:3], (0, 2, 0))
    a = 0x1100
    b = next(x for x in range(a + 1, 0x2000) if rule_slot(x - 1) == rule_slot(a - 1))
    check('kept collision', [t.stack([0x1010, x])[:2] for x in (a, b, a)],
          [(1, 1), (1, 1), (1, 1)])

    class S:
        def name(self, addr):
            return 'sfc_fn_1' if 0x1000 <= addr < 0x1100 else 'other'
    tr = ['x: user_stack_deferred: cookie=1 frames={0x1010,0x1021} unwinder=sframe',
          'x: user_stack_deferred: cookie=2 frames={0x1010,0x1021} unwinder=sframe',
          'x: user_stack_deferred: cookie=3 frames={0x1010,0x1021} unwinder=sframe']
    cov = (lambda ip: 0x1000 <= ip < 0x2000)
    check('chain warm', chain(tr, None, 1, False, S(), cov),
          'stacks=2 frames=2 unwinder=sframe:2 lookups=4 hits=4 '
          'hit_rate=1.0000 distinct=2 norule=0')
    check('chain cold', chain(tr, None, 1, True, S(), cov),
          'stacks=2 frames=2 unwinder=sframe:2 lookups=4 hits=0 '
          'hit_rate=0.0000 distinct=2 norule=0')
    # fresh=2: forgotten before stacks 0 and 2 (a process of two stacks each)
    check('chain fresh', chain(tr, None, 0, 2, S(), cov),
          'stacks=3 frames=2 unwinder=sframe:3 lookups=6 hits=2 '
          'hit_rate=0.3333 distinct=2 norule=0')
    tr2 = ['  py-1 [0] 1.0: user_stack_deferred: cookie=1 frames={0x1010,0x1021} unwinder=sframe',
           '  sh-2 [0] 1.1: user_stack_deferred: cookie=2 frames={0x5010} unwinder=fp',
           '  py-1 [0] 1.2: user_stack_deferred: cookie=3 frames={0x1010,0x1021,0x3000} unwinder=sframe']
    check('table', table(tr2, 'py'),
          'stacks=2 frames=3 unwinder=sframe:2 lookups=5 hits=2 '
          'hit_rate=0.4000 distinct=3')
    print('%d passed, %d failed' % (ok, bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == 'selftest':
        return selftest()
    try:
        if len(argv) == 3 and argv[1] == 'perfdata':
            print(perfdata_line(perfdata(argv[2])))
        elif argv[1:2] == ['chain'] and len(argv) in (5, 6):
            with open(argv[2], errors='replace') as f:
                lines = f.read().splitlines()
            opt = argv[5] if len(argv) == 6 else ''
            cold = True if opt == 'cold' else (
                int(opt[6:]) if opt.startswith('fresh=') and
                opt[6:].isdigit() and int(opt[6:]) > 0 else None)
            if opt and cold is None:
                sys.exit('benchtool.py chain: not cold or fresh=S: %s' % opt)
            print(chain(lines, argv[3], int(argv[4]), cold))
        elif len(argv) == 4 and argv[1] == 'table':
            with open(argv[2], errors='replace') as f:
                lines = f.read().splitlines()
            print(table(lines, argv[3]))
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
