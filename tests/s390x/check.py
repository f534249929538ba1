#!/usr/bin/env python3
"""Checks of tests/s390x/run.sh on the s390x guest's console output.

usage: check.py [--show] [--mix BCMIX] OUTPUT_LOG BCWORK_BC BCWORK_NOBC BCMINI
                CROSS_PREFIX [SFRAME KIND...]

SFRAME: bcwork-nobc's section, whose rows tests/userspace/sframe-gen/
s390x-decode.py gives (the sframe-vla case's rule from r11); KIND: the
corrupt copies of it the guest registered (sfbad-KIND cases).

--show (rig/demo.sh --arch s390x) also prints the user stacks of the
back-chain and no-back-chain cases, each frame named.  --mix: bcmix
(bcmix.c and bcmix-bc.c), whose sframe-mix case is checked.

Each user stack of the trace is named with the cross binutils (nm for
every frame, addr2line -f for ours, whose DWARF names bcwork.c): the
oracle is not our code.  Prints "PASS name" / "FAIL name # why" lines.
"""
import bisect
import re
import subprocess
import sys

show_stacks = sys.argv[1:2] == ['--show']
if show_stacks:
    del sys.argv[1]
mix_bin = None
if sys.argv[1:2] == ['--mix']:
    mix_bin = sys.argv[2]
    del sys.argv[1:3]
log, bc_bin, nobc_bin, mini_bin, cross = sys.argv[1:6]
sframe_sec = sys.argv[6] if len(sys.argv) > 6 else None
sfbad = sys.argv[7:]
results = []


def check(name, ok, why=''):
    results.append((name, bool(ok)))
    print(('PASS ' if ok else 'FAIL ') + name + ('' if ok else ' # ' + why))


class Symbols:
    """Function symbols of a static binary, by address (nm -n)."""

    def __init__(self, path):
        self.path = path
        self.addrs, self.names = [], []
        out = subprocess.run([cross + 'nm', '-n', '--defined-only', path],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TtWw':
                a = int(f[0], 16)
                if self.addrs and self.addrs[-1] == a:
                    self.names[-1].add(f[2])
                else:
                    self.addrs.append(a)
                    self.names.append({f[2]})

    def name(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else {'?'}

    def addr2line(self, addrs):
        out = subprocess.run([cross + 'addr2line', '-f', '-e', self.path] +
                             ['%x' % a for a in addrs],
                             capture_output=True, text=True, check=True).stdout
        lines = out.splitlines()
        return [(lines[2 * i], lines[2 * i + 1]) for i in range(len(addrs))]


def cases():
    """{case: [lines]} from the === begin/end markers"""
    got, cur = {}, None
    with open(log, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^=== begin (\S+)$', line)
            if m:
                cur = m.group(1)
                got[cur] = []
            elif re.match(r'^=== end (\S+)$', line):
                cur = None
            elif cur:
                got[cur].append(line)
    return got


STACK = re.compile(r'^\s*(\S+)-(\d+)\s+\[\d+\].*? user_stack_deferred: cookie=(0x[0-9a-f]+) '
                   r'(?:pid=\d+ )?tgid=(\d+) nr=(\d+)(?: depth=(\d+))?( \(truncated\))?( \(late\))?'
                   r'(?: unwinder=(\S+))? frames=\{([^}]*)\}')
COOKIE = re.compile(r'^\s*(\S+)-(\d+)\s+\[\d+\].*? user_stack_cookie: cookie=(0x[0-9a-f]+)')


def stacks(lines):
    out = []
    for line in lines:
        m = STACK.match(line)
        if m:
            out.append({'comm': m.group(1), 'pid': int(m.group(2)), 'cookie': m.group(3),
                        'nr': int(m.group(5)),
                        'depth': int(m.group(6)) if m.group(6) else int(m.group(5)),
                        'truncated': bool(m.group(7)), 'unwinder': m.group(9) or '',
                        'frames': [int(x, 16) for x in m.group(10).split(',') if x]})
    return out


def cookies(lines):
    return {(int(m.group(2)), m.group(3)) for m in map(COOKIE.match, lines) if m}


def ret_names(sym, frames):
    """names of the frames: the first is where user space was interrupted,
    the others return addresses, looked up at the call (address - 1)"""
    return [sym.name(a if i == 0 else a - 1) for i, a in enumerate(frames)]


def show(names):
    return ' '.join('/'.join(sorted(n)) for n in names)


CHAIN = ['bc_five', 'bc_four', 'bc_three', 'bc_two', 'bc_one', 'main']
GETPPID = {'getppid', '__getppid'}


def print_stack(title, lines, st, sym):
    """the trace's record, then each frame: address, symbol+offset, source"""
    print('#')
    print('# %s' % title)
    for line in lines:
        if ' user_stack_deferred: ' in line:
            print('#   trace: ' + line.strip())
    a2l = sym.addr2line([a if i == 0 else a - 1 for i, a in enumerate(st['frames'])])
    for i, a in enumerate(st['frames']):
        j = bisect.bisect_right(sym.addrs, a if i == 0 else a - 1) - 1
        name = sorted(sym.names[j], key=lambda n: (n.startswith('_'), n))[0] if j >= 0 else '?'
        off = a - sym.addrs[j] if j >= 0 else 0
        loc = a2l[i][1] if not a2l[i][1].startswith('??') else ''
        print('#   #%-2d 0x%x  %s+0x%x  %s' % (i, a, name, off, loc.split('/')[-1]))


def chain_ok(names, start):
    """names[start:] begins with bc_five .. main"""
    want = CHAIN
    got = names[start:start + len(want)]
    return len(got) == len(want) and all(w in g for w, g in zip(want, got))


bc, nobc, mini = Symbols(bc_bin), Symbols(nobc_bin), Symbols(mini_bin)
got = cases()
for c in ('backchain', 'nobackchain', 'sframe', 'framed', 'cleanend', 'deep', 'exit',
          'exec', 'malformed', 'sframe-vla', 'sframe-deep', 'sframe-exec'):
    check('s390x/recorded-%s' % c, c in got and not any('trigger refused' in x for x in got[c]),
          'no trace of this case in the console (trigger refused or guest died)')

# 1. -mbackchain: the whole named chain, found by the back chain
s = stacks(got.get('backchain', []))
def addr2line_agrees(name, obj, st):
    """the chain's callers, as the cross addr2line names them, in bcwork.c"""
    a2l = obj.addr2line([a - 1 for a in st['frames'][1:7]])
    check(name, [f for f, _ in a2l] == CHAIN and all('bcwork.c:' in loc for _, loc in a2l),
          'addr2line: %s' % a2l)


check('s390x/backchain-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    st = s[0]
    names = ret_names(bc, st['frames'])
    check('s390x/backchain-named-chain',
          len(names) >= 7 and names[0] & GETPPID and chain_ok(names, 1),
          'frames: ' + show(names))
    addr2line_agrees('s390x/backchain-addr2line-agrees', bc, st)
    check('s390x/backchain-unwinder-flag', st['unwinder'] == 'backchain',
          'unwinder=%r' % st['unwinder'])
    if show_stacks:
        print_stack('built -mbackchain (%s): the back chain gives the whole stack' %
                    bc_bin.split('/')[-1], got['backchain'], st, bc)
    check('s390x/backchain-cookie-matches', (st['pid'], st['cookie']) in
          cookies(got['backchain']), 'no user_stack_cookie with the same pid and cookie')

# 2. no back chain: what the kernel can know (interrupted address, r14),
# then a clean end: no frame that is not in the program
s = stacks(got.get('nobackchain', []))
check('s390x/nobackchain-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    st = s[0]
    names = ret_names(nobc, st['frames'])
    print('# nobackchain frames: %s (%d)' % (show(names), st['nr']))
    if show_stacks:
        print_stack('built without a back chain (%s): the interrupted address and r14, '
                    'then the end' % nobc_bin.split('/')[-1], got['nobackchain'], st, nobc)
    check('s390x/nobackchain-leaf-and-r14',
          len(names) >= 2 and names[0] & GETPPID and 'bc_five' in names[1],
          'frames: ' + show(names))
    check('s390x/nobackchain-ends-cleanly',
          st['nr'] <= len(CHAIN) + 1 and not st['truncated'] and
          all(n != {'?'} for n in names) and
          all('bc_' in ''.join(n) or 'main' in n for n in names[1:]),
          'frames: ' + show(names))

# 2b. the same program with its generated SFrame section registered: the
# whole named stack, found by SFrame alone, down to _start, whose return
# address is undefined (the walk's clean end)
sf = got.get('sframe', [])
check('s390x/sframe-registered', any(x.startswith('=== out sframe: ') and 'registered' in x
                                     for x in sf) and '=== rc 0' in sf,
      'the program says: %s' % [x for x in sf if x.startswith('=== out') or
                                x.startswith('=== rc')])
s = stacks(sf)
check('s390x/sframe-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    st = s[0]
    names = ret_names(nobc, st['frames'])
    if show_stacks:
        print_stack('built without a back chain, its SFrame section (generated from '
                    '.eh_frame) registered: SFrame gives the whole stack',
                    got['sframe'], st, nobc)
    check('s390x/sframe-named-chain',
          len(names) >= 8 and names[0] & GETPPID and chain_ok(names, 1),
          'frames: ' + show(names))
    addr2line_agrees('s390x/sframe-addr2line-agrees', nobc, st)
    check('s390x/sframe-ends-at-_start',
          '_start' in names[-1] and not st['truncated'] and st['depth'] == st['nr'] and
          all(n != {'?'} for n in names),
          'frames: ' + show(names))
    check('s390x/sframe-unwinder-flag', st['unwinder'] == 'sframe',
          'unwinder=%r' % st['unwinder'])

# the interrupted function had made a frame and saved r14, which still
# holds the same address: its caller once, not twice
s = stacks(got.get('framed', []))
check('s390x/framed-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    names = ret_names(bc, s[0]['frames'])
    check('s390x/framed-caller-once',
          len(names) >= 7 and 'bc_framed' in names[0] and chain_ok(names, 1),
          'frames: ' + show(names))

# a zero back chain (bcmini's _start, as libc's start code makes it) ends
# the stack: every frame named, nothing after _start
s = stacks(got.get('cleanend', []))
check('s390x/cleanend-three-stacks', len(s) == 3, '%d user stacks' % len(s))
if s:
    want = ['bc_getppid'] + CHAIN + ['_start']
    bad = [show(ret_names(mini, st['frames'])) for st in s
           if [sorted(n)[0] for n in ret_names(mini, st['frames'])] != want]
    check('s390x/cleanend-whole-chain-then-end', not bad,
          'frames: %s, want %s' % (bad[:1], ' '.join(want)))

# 3. deep: truncated, flagged, the frames bc_deep
def deep(case, binary):
    """CASE's one stack, truncated and flagged, its frames bc_deep (by
    BINARY's symbols); the stack, or None"""
    s = stacks(got.get(case, []))
    check('s390x/%s-one-stack' % case, len(s) == 1, '%d user stacks' % len(s))
    if not s:
        return None
    st = s[0]
    names = ret_names(binary, st['frames'])
    check('s390x/%s-truncated-and-flagged' % case,
          st['truncated'] and st['depth'] > st['nr'] >= 100,
          'nr=%d depth=%d truncated=%s' % (st['nr'], st['depth'], st['truncated']))
    check('s390x/%s-frames-named' % case,
          names[0] & GETPPID and all('bc_deep' in n for n in names[1:]),
          'frames: ' + show(names[:8]) + ' ...')
    return st


deep('deep', bc)

# 4. exit: the stack of exit_group, from bc_five
s = stacks(got.get('exit', []))
check('s390x/exit-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    names = ret_names(bc, s[0]['frames'])
    i = next((i for i, n in enumerate(names) if 'bc_five' in n), -1)
    check('s390x/exit-chain', i >= 1 and chain_ok(names, i), 'frames: ' + show(names))

# 5. exec: the stack of the image that asked (bcwork-bc), not busybox's
s = stacks(got.get('exec', []))
check('s390x/exec-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    names = ret_names(bc, s[0]['frames'])
    i = next((i for i, n in enumerate(names) if 'bc_five' in n), -1)
    check('s390x/exec-old-image-chain', i >= 1 and chain_ok(names, i),
          'frames: ' + show(names))
    check('s390x/exec-cookie-matches', (s[0]['pid'], s[0]['cookie']) in cookies(got['exec']),
          'no user_stack_cookie with the same pid and cookie')

# 6. malformed triggers refused, nothing installed, error_log says so
m = got.get('malformed', [])
refused = [x for x in m if x.startswith('=== malformed refused: ')]
accepted = [x for x in m if x.startswith('=== malformed accepted: ')]
check('s390x/malformed-refused', len(refused) == 3 and not accepted,
      'refused %d, accepted %s' % (len(refused), accepted))
check('s390x/malformed-nothing-installed', '=== trigger file: 0 entries' in m,
      str([x for x in m if 'trigger file' in x]))
errs = [x for x in m if x.startswith('=== error_log ') and ' error: ' in x]
check('s390x/malformed-error-log', len(errs) == 3, 'error_log entries: %s' % errs)

# 7. SFrame (bcwork-nobc, its section registered) where the CFA is r11's,
# deep, exec'd
def sframe_whole(name, st, start, want_chain=True):
    """st's names from start on are bc_five .. main, the walk ends at
    _start, every frame named, all found by SFrame"""
    names = ret_names(nobc, st['frames'])
    check(name + '-named-chain', chain_ok(names, start) and '_start' in names[-1] and
          not st['truncated'] and all(n != {'?'} for n in names),
          'frames: ' + show(names))
    check(name + '-unwinder-flag', st['unwinder'] == 'sframe', 'unwinder=%r' % st['unwinder'])
    return names


def decoded_rows(path):
    """[(start, end, rule)] of the section, by the independent decoder"""
    here = __file__.rsplit('/', 1)[0]
    out = subprocess.run([sys.executable, here + '/../userspace/sframe-gen/s390x-decode.py',
                          path], capture_output=True, text=True, check=True).stdout
    return [(int(a, 16), int(b, 16), r) for a, b, r in
            (line.split(None, 2) for line in out.splitlines())]


s = stacks(got.get('sframe-vla', []))
check('s390x/sframe-vla-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    st = s[0]
    names = sframe_whole('s390x/sframe-vla', st, 3)
    check('s390x/sframe-vla-frames', len(names) >= 3 and names[0] & GETPPID and
          'bc_after' in names[1] and 'bc_vla' in names[2], 'frames: ' + show(names))
    # the rule the kernel followed at bc_vla's return address: CFA from r11
    if sframe_sec:
        ra = st['frames'][2] if len(st['frames']) > 2 else -1
        rule = [r for a, b, r in decoded_rows(sframe_sec) if a <= ra < b]
        check('s390x/sframe-vla-cfa-from-r11', rule and rule[0].startswith('cfa=fp+'),
              'the section\'s rule at %#x: %s' % (ra, rule))

st = deep('sframe-deep', nobc)
if st:
    check('s390x/sframe-deep-unwinder-flag', st['unwinder'] == 'sframe',
          'unwinder=%r' % st['unwinder'])

s = stacks(got.get('sframe-exec', []))
check('s390x/sframe-exec-one-stack', len(s) == 1, '%d user stacks' % len(s))
if s:
    st = s[0]
    names = ret_names(nobc, st['frames'])
    i = next((i for i, n in enumerate(names) if 'bc_five' in n), -1)
    sframe_whole('s390x/sframe-exec', st, i)
    check('s390x/sframe-exec-registered-before',
          any(x.startswith('=== out sframe: ') and 'registered' in x for x in got['sframe-exec']),
          'the program did not register')
    check('s390x/sframe-exec-cookie-matches', (st['pid'], st['cookie']) in
          cookies(got['sframe-exec']), 'no user_stack_cookie with the same pid and cookie')

# 8. malformed sections: refused at the prctl (bcwork sframe-try: exit 3,
# after the chain has run) with
# EINVAL (EOPNOTSUPP for a version not supported) when the header is bad,
# or accepted and dropped at the first unwind, with one message, when an
# FRE or the FDE table is (the prctl checks the header; the table waits
# for the first lookup); the stack is then the
# one without SFrame (nobackchain), ends cleanly, no kernel warning
REFUSED = {'bad-version': 'Operation not supported'}
DROPPED = {'fre-past-end', 'unsorted'}
plain = stacks(got.get('nobackchain', []))
plain = ret_names(nobc, plain[0]['frames']) if plain else None
WARN = re.compile(r'WARNING:|BUG:|Oops|general protection|Call Trace')
for k in sfbad:
    c = 'sfbad-' + k
    lines = got.get(c, [])
    outs = [x[len('=== out '):] for x in lines if x.startswith('=== out ')]
    msgs = [x for x in lines if x.startswith('=== dmesg ') and 'sframe: ' in x]
    if k in DROPPED:
        check('s390x/%s-accepted' % c, '=== rc 0' in lines and
              any('registered' in x for x in outs), 'rc/out: %s' % (
                  [x for x in lines if x.startswith('=== rc')] + outs))
        check('s390x/%s-dropped-once' % c, len(msgs) == 1 and
              re.search(r'sframe: bcwork-nobc\[\d+\]: dropping \.sframe at 0x[0-9a-f]+: corrupt$',
                        msgs[0]), 'kernel messages: %s' % msgs)
    else:
        err = REFUSED.get(k, 'Invalid argument')
        check('s390x/%s-refused' % c, '=== rc 3' in lines and
              any(x.startswith('prctl(PR_ADD_SFRAME): ' + err) for x in outs),
              'want rc 3 and %s; rc/out: %s' % (err, [x for x in lines if
                                                      x.startswith('=== rc')] + outs))
        check('s390x/%s-no-message' % c, not msgs, 'kernel messages: %s' % msgs)
    s = stacks(lines)
    names = ret_names(nobc, s[0]['frames']) if len(s) == 1 else None
    check('s390x/%s-ends-as-without' % c, names is not None and names == plain and
          not s[0]['truncated'] and s[0]['unwinder'] != 'sframe' and '?' not in show(names),
          '%d stacks, frames %s (unwinder %s), without SFrame: %s' % (
              len(s), show(names or []), s[0]['unwinder'] if s else '-',
              show(plain or [])))
    check('s390x/%s-no-warning' % c, c in got and not any(WARN.search(x) for x in lines),
          [x for x in lines if WARN.search(x)][:3])

# 9. back-chain and SFrame steps in one stack (bcmix mix 3 2): bc_leaf
# (back chain, its return address from r14), three sf_rec (SFrame), four
# bc_rec (back chain; each below the first saved the return address of
# the one above it), main (SFrame), down to _start.  The expected list
# is the program's structure; the names are the cross nm's, the call
# sites the cross addr2line's (bcmix.c for sf_rec, bcmix-bc.c for bc_rec).
if mix_bin:
    mix = Symbols(mix_bin)
    mx = got.get('sframe-mix', [])
    check('s390x/sframe-mix-registered', '=== rc 0' in mx and
          any(x.startswith('=== out sframe: ') and 'registered' in x for x in mx),
          'rc/out: %s' % [x for x in mx if x.startswith('=== rc') or x.startswith('=== out')])
    s = stacks(mx)
    check('s390x/sframe-mix-one-stack', len(s) == 1, '%d user stacks' % len(s))
    if s:
        st = s[0]
        names = ret_names(mix, st['frames'])
        want = ['bc_leaf'] + ['sf_rec'] * 3 + ['bc_rec'] * 4 + ['main']
        got_mix = [sorted(n)[0] for n in names[:len(want)]]
        check('s390x/sframe-mix-every-frame', got_mix == want,
              'frames: %s; want %s' % (show(names), ' '.join(want)))
        a2l = mix.addr2line([a - 1 for a in st['frames'][1:len(want)]])
        files = [loc.split('/')[-1].split(':')[0] for _, loc in a2l]
        check('s390x/sframe-mix-addr2line-agrees',
              [f for f, _ in a2l] == want[1:] and
              files == ['bcmix.c'] * 3 + ['bcmix-bc.c'] * 4 + ['bcmix.c'],
              'addr2line: %s' % a2l)
        check('s390x/sframe-mix-ends-at-_start',
              '_start' in names[-1] and not st['truncated'] and
              all(n != {'?'} for n in names), 'frames: ' + show(names))
        check('s390x/sframe-mix-unwinder-flag', st['unwinder'] == 'sframe+backchain' or
              set(st['unwinder'].split('+')) >= {'sframe', 'backchain'},
              'unwinder=%r' % st['unwinder'])

    # a leaf that keeps its return address in f2, r14 cleared (sf_fpr_leaf):
    # sframe-gen writes version 3 sections, which say "in a register" with
    # a flexible FDE only (libsframe: a version 3 offset is never a
    # register number); its odd offset there is no rule the kernel
    # follows.  The frame is left to the back chain, which has nothing
    # to go on (r14 is 0): the stack is the leaf alone, or goes on with
    # the right frames, never with a word read from a misaligned slot.
    fx = got.get('sframe-fpr', [])
    check('s390x/sframe-fpr-registered', '=== rc 0' in fx,
          'rc/out: %s' % [x for x in fx if x.startswith('=== rc') or x.startswith('=== out')])
    s = stacks(fx)
    check('s390x/sframe-fpr-one-stack', len(s) == 1, '%d user stacks' % len(s))
    if s:
        st = s[0]
        names = [sorted(n)[0] for n in ret_names(mix, st['frames'])]
        want = ['sf_fpr_leaf', 'sf_fpr', 'main']
        check('s390x/sframe-fpr-v3-no-made-up-frame',
              names[:1] == want[:1] and
              (len(names) == 1 or names[:3] == want),
              'frames: %s (unwinder=%s); want sf_fpr_leaf alone, or %s ...' %
              (' '.join(names), st['unwinder'], ' '.join(want)))

np = sum(1 for _, ok in results if ok)
print('%d passed, %d failed' % (np, len(results) - np))
sys.exit(0 if np == len(results) else 1)
