#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the deferred user stack of a stock program with eu-stack's.

  stockcheck.py --trace FILE --syscall read|write|... --fd N
                [--stdin | --stdout] [--want same|short] [--keep DIR] -- CMD...

Runs CMD with a pipe on its stdin (--stdin: it blocks reading it) or its
stdout (--stdout: it blocks writing once the pipe is full), waits until
one of its tasks sleeps in SYSCALL on fd N (/proc/PID/task/TID/syscall),
takes `eu-stack -p PID` (elfutils: CFI unwinding through ptrace) of that
task at that point, then lets it go and waits for its exit.  The instance
whose `trace` is FILE must have a `stacktrace:defer` trigger on that
syscall's entry event matching the task, set by the caller: the task's
user stack when it entered the syscall is the stack eu-stack sees.

--want same: the task's user stack for that blocked call must equal eu-stack's
frames, address by address, from the innermost frame to the outermost
(eu-stack's last frame, _start or the thread start).  --want short: the
negative twin, at least one frame of eu-stack's is missing from it.  Exits 0 when the check holds, 1 with the reason.
"""
import argparse
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracecheck  # noqa: E402

SYSCALLS = {'read': 0, 'write': 1, 'poll': 7, 'wait4': 61,
            'pselect6': 270, 'ppoll': 271, 'epoll_wait': 232}
FRAME = re.compile(r'^#(\d+)\s+0x([0-9a-f]+)\s*(.*)$')


def blocked_task(pid, nr, fd):
    """The tid of a task of pid sleeping in syscall nr on fd, or None"""
    try:
        tids = os.listdir('/proc/%d/task' % pid)
    except OSError:
        return None
    for tid in tids:
        try:
            with open('/proc/%d/task/%s/syscall' % (pid, tid)) as f:
                w = f.read().split()
        except OSError:
            continue
        if len(w) > 1 and w[0] == str(nr) and int(w[1], 16) == fd:
            return int(tid)
    return None


def eu_stack(pid):
    """tid -> [(addr, name)] from eu-stack -p pid"""
    out = subprocess.run(['eu-stack', '-p', str(pid)], capture_output=True,
                         text=True, timeout=120)
    stacks, cur = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r'^TID (\d+):', line)
        if m:
            cur = stacks.setdefault(int(m.group(1)), [])
            continue
        m = FRAME.match(line)
        if m and cur is not None:
            cur.append((int(m.group(2), 16), m.group(3).strip()))
    if not stacks:
        raise RuntimeError('eu-stack gave no stack (rc %d): %s'
                           % (out.returncode, out.stderr.strip()[:300]))
    return stacks, out.stdout


def deferred(trace, tid):
    """The user stacks of the cookies tid asked for, in order: [[addr...]]"""
    recs = tracecheck.parse(trace)
    mine = {r.field('cookie') for r in recs
            if r.event == 'user_stack_cookie' and r.pid == tid}
    return [r.frames() for r in recs
            if r.event == 'user_stack_deferred' and r.field('cookie') in mine]


def blocked_stack(trace, tid, timeout=10):
    """The user stack of the syscall tid sleeps in: the last one delivered
    by the time eu-stack is done.  eu-stack's ptrace interrupt makes the
    task run its pending task work (the deferred unwind) before it stops,
    with the registers of the blocked call; the call is then restarted,
    and what the task does once let go is not this stack."""
    end = time.time() + timeout
    while True:
        got = deferred(trace, tid)
        if got or time.time() > end:
            return got[-1:]
        time.sleep(0.2)


def fmt(frames, names):
    return ' '.join('%x(%s)' % (a, names.get(a, '?')) for a in frames)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--trace', required=True)
    ap.add_argument('--syscall', required=True, choices=sorted(SYSCALLS))
    ap.add_argument('--fd', type=int, required=True)
    ap.add_argument('--stdin', action='store_true')
    ap.add_argument('--stdout', action='store_true')
    ap.add_argument('--want', choices=('same', 'short'), default='same')
    ap.add_argument('--keep', help='save eu-stack output here')
    ap.add_argument('--timeout', type=float, default=120)
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == '--' else a.cmd
    r, w = os.pipe()
    if a.stdin:
        p = subprocess.Popen(cmd, stdin=r, stdout=subprocess.DEVNULL)
        os.close(r)
    else:
        p = subprocess.Popen(cmd, stdout=w, stdin=subprocess.DEVNULL)
        os.close(w)
    tid, end = None, time.time() + a.timeout
    while tid is None and time.time() < end and p.poll() is None:
        tid = blocked_task(p.pid, SYSCALLS[a.syscall], a.fd)
        if tid is None:
            time.sleep(0.2)
    if tid is None:
        p.kill()
        sys.exit('%s never blocked in %s(%d) (rc %s)'
                 % (cmd[0], a.syscall, a.fd, p.poll()))
    try:
        eu, text = eu_stack(p.pid)
        got = blocked_stack(a.trace, tid)
    finally:
        # let it go: give it its line, or drain what it writes
        if a.stdin:
            os.write(w, b'x\n')
            os.close(w)
        else:
            with os.fdopen(r, 'rb') as f:
                while f.read(1 << 16):
                    pass
        p.wait(timeout=a.timeout)
    if a.keep:
        with open(os.path.join(a.keep, 'eu-stack-%d.txt' % p.pid), 'w') as f:
            f.write(text)
    if tid not in eu:
        sys.exit('eu-stack has no stack for task %d' % tid)
    want = [addr for addr, _ in eu[tid]]
    names = {addr: name for addr, name in eu[tid]}
    if not got:
        sys.exit('no deferred user stack for task %d in %s' % (tid, a.trace))
    if a.want == 'same':
        bad = [g for g in got if g != want]
        if bad:
            sys.exit('%d of %d stacks differ from eu-stack\n  eu-stack: %s\n'
                     '  deferred: %s' % (len(bad), len(got), fmt(want, names),
                                         fmt(bad[0], names)))
        print('%d stacks of task %d = eu-stack, %d frames: %s'
              % (len(got), tid, len(want),
                 ' <- '.join(n.split('(')[0] or '?' for _, n in eu[tid])))
    else:
        long = [g for g in got if len(g) >= len(want)]
        if long:
            sys.exit('a stack has all %d frames of eu-stack: %s'
                     % (len(want), fmt(long[0], names)))
        sizes = sorted(set(len(g) for g in got))
        print('%d stacks of task %d, of %s frames; eu-stack %d'
              % (len(got), tid, '/'.join(map(str, sizes)), len(want)))


if __name__ == '__main__':
    main()
