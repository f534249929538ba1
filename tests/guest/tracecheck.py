#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a tracefs `trace` text dump and check deferred user stacks.

  tracecheck.py summary TRACE
      one line per cookie: pid comm asked=N stacks=N nr=N truncated=N
  tracecheck.py chain TRACE BINARY COMM FUNC[,FUNC...] [--min N]
      every user_stack_deferred of tasks named COMM (- for any) must resolve, with
      BINARY's symbol table, to FUNC,FUNC,... as its innermost frames;
      every cookie of COMM must have exactly one stack; at least N stacks
  tracecheck.py complete TRACE... [--comm COMM] [--min N] [--asked N]
      every cookie has exactly one user stack, every stack has a cookie
      (and each cookie was recorded N times), and every cookie record
      joins its stack: the readers' join (Documentation/decisions.md), by
      cookie, under the stack's pid field (the pid of the entry's first
      request), its tgid or its common_pid; a kernel without the field:
      common_pid alone
  tracecheck.py nojunk TRACE [--worker-func F]
      no cookie from a kernel thread (or from a task whose kernel stack
      runs through F), and at least one kernel stack from such a task,
      as proof
  tracecheck.py show TRACE BINARY
      print each user stack merged with the kernel stacks that asked for
      it, user frames as function+offset (binary)
  tracecheck.py none TRACE
      no user_stack_cookie or user_stack_deferred at all
  tracecheck.py exec TRACE BINARY
      an execve() of BINARY's process: the first cookie's stack is BINARY's
      (the old image), every later cookie is another one and its stack
      has no frame in BINARY

Exits 0 when the check holds, 1 with a reason on stderr when it does not.
"""
import argparse
import bisect
import re
import subprocess
import sys
from collections import OrderedDict

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?'
                  r'\[(?P<cpu>\d+)\]\s+\S+\s+(?P<ts>\d+\.\d+):\s+'
                  r'(?P<event>.+?)(?::\s+(?P<rest>.*))?$')
STACK_LINE = re.compile(r'^\s*=>\s*(?P<sym>.*)$')


class Record:
    def __init__(self, m):
        self.comm = m.group('comm')
        self.pid = int(m.group('pid'))
        self.cpu = int(m.group('cpu'))
        self.ts = float(m.group('ts'))
        self.event = m.group('event').strip()
        self.rest = m.group("rest") or ""
        self.stack = []

    def field(self, name):
        m = re.search(r'\b%s=(\S+)' % name, self.rest)
        return m.group(1) if m else None

    def frames(self):
        m = re.search(r'frames=\{([^}]*)\}', self.rest)
        if not m or not m.group(1):
            return []
        return [int(x, 16) for x in m.group(1).split(',')]


def parse(path):
    recs = []
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('#'):
                continue
            m = LINE.match(line)
            if m:
                recs.append(Record(m))
                continue
            s = STACK_LINE.match(line)
            if s and recs:
                recs[-1].stack.append(s.group('sym').strip())
    return recs


def cookies(recs, comm=None):
    """cookie -> dict(pid, comm, asked, stacks, nr, truncated, frames,
    pids: the pids of its cookie records, joins: the pids its stacks
    answer)"""
    out = OrderedDict()
    for r in recs:
        if r.event not in ('user_stack_cookie', 'user_stack_deferred'):
            continue
        if comm and r.comm != comm:
            continue
        c = r.field('cookie')
        d = out.setdefault(c, dict(pid=r.pid, comm=r.comm, asked=0,
                                   stacks=0, nr=0, truncated=0,
                                   frames=[], pids=set(), joins=set(),
                                   order_ok=True))
        if r.event == 'user_stack_cookie':
            d['asked'] += 1
            d['pids'].add(r.pid)
        else:
            d['joins'].add(r.pid)
            if r.field('pid'):
                d['joins'] |= {int(r.field('pid')), int(r.field('tgid'))}
            if not d['asked']:
                d['order_ok'] = False
            d['stacks'] += 1
            d['frames'] = r.frames()
            d['nr'] = len(d['frames'])
            d['truncated'] = int('(truncated)' in r.rest)
    return out


class Symbols:
    def __init__(self, binary):
        out = subprocess.run(['nm', '-n', '--defined-only', binary],
                             check=True, capture_output=True,
                             text=True).stdout
        self.addrs, self.names = [], []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) != 3 or parts[1] not in 'tTwW':
                continue
            self.addrs.append(int(parts[0], 16))
            self.names.append(parts[2])

    def name(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        # below the first or far past the last symbol: not this binary
        if i < 0 or addr - self.addrs[-1] > 0x100000:
            return '?'
        return self.names[i]

    def offset(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        return addr - self.addrs[i] if i >= 0 else addr


def fail(msg):
    print('tracecheck: ' + msg, file=sys.stderr)
    sys.exit(1)


def cmd_summary(a):
    for c, d in cookies(parse(a.trace), a.comm).items():
        print('%s pid=%d comm=%s asked=%d stacks=%d nr=%d truncated=%d' %
              (c, d['pid'], d['comm'], d['asked'], d['stacks'], d['nr'],
               d['truncated']))


def check_complete(cs, minimum, asked=None):
    bad = []
    for c, d in cs.items():
        if d['stacks'] != 1 or not d['asked'] or not d['order_ok'] \
           or not d['pids'] <= d['joins'] or (asked and d['asked'] != asked):
            bad.append('%s pid=%d asked=%d stacks=%d order_ok=%s pids=%s '
                       'joins=%s' % (c, d['pid'], d['asked'], d['stacks'],
                                     d['order_ok'], sorted(d['pids']),
                                     sorted(d['joins'])))
    if bad:
        fail('cookies without exactly one user stack after them:\n  ' +
             '\n  '.join(bad[:20]))
    if len(cs) < minimum:
        fail('%d cookies, expected at least %d' % (len(cs), minimum))


def cmd_exec(a):
    cs = list(cookies(parse(a.trace)).items())
    if len(cs) < 2:
        fail('%d cookies, expected one before and one after the new image'
             % len(cs))
    syms = Symbols(a.binary)
    first, d = cs[0]
    if a.first_empty:
        # asked once the old image could no longer be walked: no frames,
        # neither the old image's nor the new one's
        if d['frames']:
            fail('first cookie %s: frames %s, expected none' %
                 (first, [hex(x) for x in d['frames']]))
        if not all(e['frames'] for _, e in cs[1:]):
            fail('a cookie after the new image has no frames')
    elif not any(syms.name(x) != '?' for x in d['frames']):
        fail('first cookie %s: no frame in %s: %s' %
             (first, a.binary, [hex(x) for x in d['frames']]))
    for c, d in cs[1:]:
        old = [hex(x) for x in d['frames'] if syms.name(x) != '?']
        if old:
            fail('cookie %s after the new image has old frames %s' % (c, old))
    print('cookie %s: old image (%d frames); %d later cookie(s) without '
          'its frames' % (first, cs[0][1]['nr'], len(cs) - 1))


def cmd_complete(a):
    total = 0
    for t in a.trace:
        cs = cookies(parse(t), a.comm)
        check_complete(cs, a.min, a.asked)
        total += len(cs)
    print('%d trace(s), %d cookies, each with exactly one user stack' %
          (len(a.trace), total))


def kthread(pid):
    """True if pid is a kernel thread (PF_KTHREAD in /proc/PID/stat)"""
    if pid == 0:
        return True
    try:
        with open('/proc/%d/stat' % pid) as f:
            stat = f.read()
    except OSError:
        return None
    flags = int(stat.rsplit(')', 1)[1].split()[6])
    return bool(flags & 0x00200000)


def kstack(r):
    """a record with kernel frames: ftrace:kernel_stack, or a cookie
    record that carries the kernel stack of its event"""
    return r.event == '<stack trace>' or (r.event == 'user_stack_cookie'
                                          and r.stack)


def cmd_nojunk(a):
    recs = parse(a.trace)
    cookie_pids = {r.pid for r in recs
                   if r.event in ('user_stack_cookie', 'user_stack_deferred')}
    if a.worker_func:
        # tasks whose kernel stack runs through the worker's main loop
        kind = {r.pid for r in recs if kstack(r)
                and any(f.startswith(a.worker_func) for f in r.stack)}
        what = 'task running %s()' % a.worker_func
    else:
        kind = {r.pid for r in recs if kstack(r) and kthread(r.pid)}
        what = 'kernel thread'
    bad = sorted(p for p in cookie_pids if p in kind or kthread(p))
    if bad:
        fail('unwind records from a %s: pids %s' % (what, bad))
    if not kind:
        fail('no kernel stack from a %s: the check proves nothing' % what)
    print('%d %s(s) had kernel stacks and no cookie; '
          '%d user task(s) had cookies' % (len(kind), what, len(cookie_pids)))


def cmd_chain(a):
    cs = cookies(parse(a.trace), None if a.comm == '-' else a.comm)
    check_complete(cs, a.min)
    syms = Symbols(a.binary)
    want = a.funcs.split(',')
    for c, d in cs.items():
        got = [syms.name(x) for x in d['frames']]
        if got[:len(want)] != want:
            fail('cookie %s: user frames resolve to %s, expected %s first' %
                 (c, got, want))
    print('%d user stacks resolve to %s' % (len(cs), ' <- '.join(want)))


def cmd_show(a):
    syms = Symbols(a.binary)
    base = a.binary.rsplit('/', 1)[-1]
    last = {}      # (cpu, pid) -> the event before
    asked = {}     # (pid, cookie) -> [(event record, kernel frames)]
    shown = 0
    for r in parse(a.trace):
        key = (r.cpu, r.pid)
        if r.event == '<stack trace>':
            continue
        elif r.event == 'user_stack_cookie':
            # the cookie record carries the kernel stack of its event
            asked.setdefault((r.pid, r.field('cookie')), []).append(
                (last.get(key), r.stack))
        elif r.event == 'user_stack_deferred':
            cookie = r.field('cookie')
            print('=== %s-%d cookie=%s' % (r.comm, r.pid, cookie))
            for ev, kframes in asked.pop((r.pid, cookie), []):
                if ev:
                    print('  event: %s: %s' % (ev.event, ev.rest))
                for k in kframes:
                    print('    => %s' % k)
            print('  user stack (%d frames%s):' %
                  (len(r.frames()), ', truncated' if '(truncated)' in r.rest
                   else ''))
            for x in r.frames():
                n = syms.name(x)
                if n == '?':
                    print('    => 0x%x' % x)
                else:
                    print('    => %s+0x%x (%s)' % (n, syms.offset(x), base))
            shown += 1
        else:
            last[key] = r
    for (pid, cookie), evs in asked.items():
        print('=== pid %d cookie=%s: user stack never arrived (%d events)'
              % (pid, cookie, len(evs)))
    if not shown:
        fail('no user stack in %s' % a.trace)


def cmd_none(a):
    recs = [r for r in parse(a.trace)
            if r.event in ('user_stack_cookie', 'user_stack_deferred')]
    if recs:
        fail('%d unwind records, expected none; first: %s-%d %s %s' %
             (len(recs), recs[0].comm, recs[0].pid, recs[0].event,
              recs[0].rest))
    print('no unwind records')


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('summary')
    s.add_argument('trace')
    s.add_argument('--comm')
    s.set_defaults(fn=cmd_summary)
    s = sub.add_parser('complete')
    s.add_argument('trace', nargs='+')
    s.add_argument('--comm')
    s.add_argument('--min', type=int, default=1)
    s.add_argument('--asked', type=int)
    s.set_defaults(fn=cmd_complete)
    s = sub.add_parser('chain')
    s.add_argument('trace')
    s.add_argument('binary')
    s.add_argument('comm')
    s.add_argument('funcs')
    s.add_argument('--min', type=int, default=1)
    s.set_defaults(fn=cmd_chain)
    s = sub.add_parser('nojunk')
    s.add_argument('trace')
    s.add_argument('--worker-func')
    s.set_defaults(fn=cmd_nojunk)
    s = sub.add_parser('show')
    s.add_argument('trace')
    s.add_argument('binary')
    s.set_defaults(fn=cmd_show)
    s = sub.add_parser('none')
    s.add_argument('trace')
    s.set_defaults(fn=cmd_none)
    s = sub.add_parser('exec')
    s.add_argument('trace')
    s.add_argument('binary')
    s.add_argument('--first-empty', action='store_true',
                   help='the first cookie was asked for when the old image '
                   'could no longer be walked: it has no frames')
    s.set_defaults(fn=cmd_exec)
    a = p.parse_args()
    a.fn(a)


if __name__ == '__main__':
    main()
