#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare sframe-gen's rows with the .sframe binutils' assembler wrote.

    vs-binutils.py TOOL FILE...

FILE is built with `as --gsframe` (tests/workload, binutils 2.44): it has
binutils' own .sframe beside .eh_frame, both written from the same CFI
directives.  `TOOL FILE --dump-own` prints the rows of binutils' section,
`TOOL FILE --dump --norule` those generated from .eh_frame.  Over every
byte binutils describes outside the .plt* sections, the two must give the
same rule.  The PLTs are left out: binutils describes their stubs with
repeating (PCMASK) FDEs, the generator leaves them without a rule
(norule=plt); and in .plt.got binutils 2.44 (2.46 too) writes CFA = SP + 16 where the
stub (`jmp *GOT(%rip)`, entered by a call) and .eh_frame have SP + 8.
A flexible FRE (SFrame version 3) names the CFA's base register by its
DWARF number: `cfa=r7+8` (rsp, not loaded) is the rule `cfa=sp+8` of a
default FRE, `cfa=r6+N` is `cfa=fp+N`.  gas 2.46 writes a DRAP function as
one flexible FDE, its SP-based rows in that form too; the generator
starts a default FDE where the rows are not flexible.  Both are taken as
the SP or FP form before comparing.
Prints PASS:/FAIL: lines.
"""
import bisect
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


# a flexible FRE's CFA from rsp (DWARF 7) or rbp (DWARF 6), not loaded
FLEX_SP_FP = re.compile(r'^cfa=r([67])([+-][0-9]+)( |$)')


def rows(text):
    out = []
    for line in text.splitlines():
        a, b, rule = line.split(None, 2)
        rule = FLEX_SP_FP.sub(lambda m: 'cfa=%s%s%s' % ('sp' if m.group(1) == '7' else 'fp',
                                                        m.group(2), m.group(3)), rule)
        out.append((int(a, 16), int(b, 16), rule))
    out.sort()
    return out


def plts(path):
    r = []
    for line in run(['readelf', '-SW', path]).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)', line)
        if m and m.group(1).startswith('.plt'):
            a = int(m.group(2), 16)
            r.append((a, a + int(m.group(3), 16)))
    return r


def compare(tool, path):
    theirs = rows(run([tool, path, '--dump-own']))
    ours = rows(run([tool, path, '--dump', '--norule']))
    starts = [o[0] for o in ours]
    skip = plts(path)
    compared = 0
    bad = []
    for s, e, rule in theirs:
        if any(a <= s < b for a, b in skip):
            continue
        pos = s
        while pos < e:
            i = bisect.bisect_right(starts, pos) - 1
            if i < 0 or not ours[i][0] <= pos < ours[i][1]:
                bad.append('%x..%x: binutils "%s", sframe-gen nothing at %x' % (s, e, rule, pos))
                break
            if ours[i][2] != rule:
                bad.append('%x..%x: binutils "%s", sframe-gen "%s" at %x..%x'
                           % (s, e, rule, ours[i][2], ours[i][0], ours[i][1]))
                break
            nxt = min(e, ours[i][1])
            compared += nxt - pos
            pos = nxt
    return len(theirs), compared, bad


def main():
    tool = sys.argv[1]
    failed = 0
    for path in sys.argv[2:]:
        try:
            n, compared, bad = compare(tool, path)
        except (RuntimeError, OSError) as e:
            print('FAIL: %s: %s' % (path, e))
            failed += 1
            continue
        if bad or not compared:
            failed += 1
            print('FAIL: %s: binutils\' .sframe %d rows, %d bytes agree, %d mismatches'
                  % (path, n, compared, len(bad)))
            for b in bad[:10]:
                print('  ' + b)
        else:
            print('PASS: %s: binutils\' .sframe (%d rows) and sframe-gen agree over all %d bytes '
                  'binutils describes outside the PLTs' % (path, n, compared))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
