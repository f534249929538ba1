#!/usr/bin/env python3
"""Are the numbers of unresolved user frames what addr2line takes?

    addr2line-check.py BINARY NAMED OTHER...

NAMED is a reader's output for a trace in which BINARY's frames are named
(the binary was found, with its symbols); each OTHER is the same reader's
output for the same trace with BINARY stripped (found, no symbols: frames
print as FILE+0xN) or not found at all (FILE+0xN (0xA): the file's type
is unknown, so both numbers).  The frames are paired by position (lines
of inlined functions left out), and for each frame of BINARY:
  - stripped: "addr2line -f -e BINARY N" names the function NAMED names;
  - not found: addr2line names it from N when BINARY is ET_DYN (PIE),
    from A when it is ET_EXEC (non-PIE); the other number is passed over.
Readers: "trace-cmd report" (" => ..."), the plugin (the same) and ustack
("  u ...").  Prints one line per OTHER; exits 1 at the first mismatch.
"""
import re
import subprocess
import sys

binary, named, others = sys.argv[1], sys.argv[2], sys.argv[3:]
base = binary.rsplit('/', 1)[-1]
etype = subprocess.run(['readelf', '-h', binary], capture_output=True,
                       text=True, check=True).stdout
etype = 'EXEC' if re.search(r'Type:\s+EXEC', etype) else 'DYN'


def frames(path):
    out = []
    for line in open(path, errors='replace'):
        m = re.match(r'^(?: => |  u )(.*)$', line.rstrip('\n'))
        if m and ' [inlined] ' not in m.group(1):
            out.append(m.group(1))
    return out


def a2l(addrs):
    """addr2line -f for all addresses at once: the function of each"""
    r = subprocess.run(['addr2line', '-f', '-e', binary] +
                       ['0x%x' % a for a in addrs],
                       capture_output=True, text=True, check=True)
    out = r.stdout.split('\n')
    return [out[2 * i] for i in range(len(addrs))]


want = frames(named)
name_re = re.compile(r'^(\w+)\+0x[0-9a-f]+ \((\S*/%s)\)' % re.escape(base))
for other in others:
    got = frames(other)
    if len(got) != len(want):
        sys.exit('%s: %d frames, %s has %d' % (other, len(got), named, len(want)))
    checks = []
    how = set()
    for w, g in zip(want, got):
        m = name_re.match(w)
        if not m:
            continue
        func = m.group(1)
        u = re.match(r'^(\S*/%s)\+0x([0-9a-f]+)(?: \(0x([0-9a-f]+)\))?(?: \[.*\])?$'
                     % re.escape(base), g)
        if not u:
            sys.exit('%s: frame %r where %s has %r' % (other, g, named, w))
        off = int(u.group(2), 16)
        if u.group(3) is None:
            num, how_ = off, 'file+N'
        elif etype == 'EXEC':
            num, how_ = int(u.group(3), 16), 'the address in parentheses'
        else:
            num, how_ = off, 'the offset (file type unknown)'
        checks.append((g, num, func))
        how.add(how_)
    funcs = a2l([c[1] for c in checks]) if checks else []
    for (g, num, func), got_func in zip(checks, funcs):
        if got_func != func:
            sys.exit('%s: %r: addr2line -f -e %s 0x%x says %s, the named frame %s'
                     % (other, g, binary, num, got_func, func))
    n = len(checks)
    if n < 3:
        sys.exit('%s: only %d frames of %s' % (other, n, base))
    print('%s: %d frames of %s (ET_%s), addr2line names each as the named report (%s)'
          % (other.rsplit('/', 1)[-1], n, base, etype, ', '.join(sorted(how))))
