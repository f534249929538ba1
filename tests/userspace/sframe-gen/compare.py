#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare sframe-gen's rows with binutils' readelf, the oracle.

    compare.py TOOL FILE [READELF]

Runs `TOOL FILE --dump --norule` (one line per FRE: START END cfa=sp+16
fp=cfa-16 ra=cfa-8, or ra=u; one per range left without a rule: START END
norule=REASON) and `readelf --debug-dump=frames-interp FILE` (a table per
FDE: LOC, CFA as rsp+8 / rbp+16 / exp, register columns as c-16 / u /
r3 (rbx) / exp).  From readelf alone it works out what each row must
become: a rule (CFA base and offset, where rbp is saved, RA at c-8), the
outermost frame (ra u), or no rule for a reason; then requires that the
tool gave exactly that over every byte of every row, and nothing outside
the FDEs readelf lists.  Prints a summary, the first mismatches, and exits
1 on any.
"""
import bisect
import re
import subprocess
import sys

HEX = re.compile(r'^[0-9a-f]+$')


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode not in ok or not p.stdout:
        sys.exit('%s: exit %d: %s' % (' '.join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def text_range(readelf, path):
    """Executable PT_LOAD range, and the .plt* section ranges."""
    lo, hi = None, None
    for line in run([readelf, '-lW', path]).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == 'LOAD' and 'E' in ''.join(f[6:-1]):
            va, memsz = int(f[2], 16), int(f[5], 16)
            if memsz:
                lo = va if lo is None else min(lo, va)
                hi = va + memsz if hi is None else max(hi, va + memsz)
    plts = []
    for line in run([readelf, '-SW', path]).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)', line)
        if m and m.group(1).startswith('.plt'):
            a = int(m.group(2), 16)
            plts.append((a, a + int(m.group(3), 16)))
    return lo, hi, plts


def cells(tokens):
    """readelf's cells: 'r9 (r9)' is one cell."""
    out = []
    for t in tokens:
        if t.startswith('(') and out:
            out[-1] += ' ' + t
        else:
            out.append(t)
    return out


def parse_readelf(readelf, path):
    """[(lo, hi, signal, [(loc, {col: cell})])] per FDE."""
    cies = {}
    fdes = []
    cur = None
    cols = None
    # readelf 2.40 exits 1 on libc.so.6 with nothing on stderr (its
    # .gnu_debuglink, looked for and not found), its output complete
    for line in run([readelf, '--debug-dump=frames-interp', path], (0, 1)).splitlines():
        f = line.split()
        if len(f) >= 4 and f[3] == 'CIE':
            aug = re.search(r'CIE "([^"]*)"', line).group(1)
            cur = {'kind': 'cie', 'signal': 'S' in aug, 'rows': []}
            cies[f[0]] = cur
            cols = None
        elif len(f) >= 4 and f[3] == 'FDE':
            cie = re.search(r'cie=([0-9a-f]+)', line).group(1)
            m = re.search(r'pc=([0-9a-f]+)\.\.([0-9a-f]+)', line)
            cur = {'kind': 'fde', 'cie': cies.get(cie), 'lo': int(m.group(1), 16),
                   'hi': int(m.group(2), 16), 'rows': []}
            fdes.append(cur)
            cols = None
        elif f and f[0] == 'LOC' and cur is not None:
            cols = f[1:]
        elif f and cols and HEX.match(f[0]) and len(f[0]) >= 8:
            c = cells(f[1:])
            cur['rows'].append((int(f[0], 16), dict(zip(cols, c))))
    out = []
    for d in fdes:
        cie = d['cie']
        rows = d['rows']
        if not rows and cie and cie['rows']:
            # no instructions: the CIE's initial row holds for the whole FDE
            rows = [(d['lo'], cie['rows'][-1][1])]
        out.append((d['lo'], d['hi'], bool(cie and cie['signal']), rows))
    return out


def expect(row, signal, addr, plts):
    """What the generator must say for a readelf row."""
    cfa = row.get('CFA', '?')
    ra = row.get('ra', 'u')
    rbp = row.get('rbp', 'u')
    if signal:
        return 'norule=signal'
    if ra == 'u':
        return 'ra=u'
    m = re.match(r'^(rsp|rbp)([+-]\d+)$', cfa)
    if cfa == 'exp':
        return 'norule=plt' if any(a <= addr < b for a, b in plts) else 'norule=cfa-expr'
    if not m:
        return 'norule=cfa-reg' if re.match(r'^r\w+[+-]\d+$', cfa) else 'norule=cfa-expr'
    off = int(m.group(2))
    if not -2**31 <= off < 2**31:
        return 'norule=range'
    base = 'sp' if m.group(1) == 'rsp' else 'fp'
    if ra != 'c-8':
        return 'norule=ra'
    s = 'cfa=%s%+d' % (base, off)
    if rbp in ('u', 's'):
        pass
    else:
        m = re.match(r'^c([+-]\d+)$', rbp)
        if not m or int(m.group(1)) == 0:
            return 'norule=fp'
        s += ' fp=cfa%+d' % int(m.group(1))
    return s + ' ra=cfa-8'


def main():
    tool, path = sys.argv[1], sys.argv[2]
    readelf = sys.argv[3] if len(sys.argv) > 3 else 'readelf'
    lo, hi, plts = text_range(readelf, path)
    fdes = parse_readelf(readelf, path)

    gen = []
    for line in run([tool, path, '--dump', '--norule']).splitlines():
        f = line.split(None, 2)
        gen.append((int(f[0], 16), int(f[1], 16), f[2]))
    gen.sort()
    starts = [g[0] for g in gen]

    rows = ok = norule = bad = 0
    matched = 0
    reasons = {}
    shown = []

    def mismatch(msg):
        nonlocal bad
        bad += 1
        if len(shown) < 10:
            shown.append(msg)

    for flo, fhi, signal, frows in fdes:
        if fhi <= flo:
            continue
        if flo < lo or fhi > hi:
            want = [('norule=outside', flo, fhi)]
        else:
            want = []
            for i, (loc, row) in enumerate(frows):
                end = frows[i + 1][0] if i + 1 < len(frows) else fhi
                end = min(end, fhi)
                if end <= loc or loc < flo:
                    continue
                want.append((expect(row, signal, loc, plts), loc, end))
        for w, s, e in want:
            rows += 1
            if w.startswith('norule'):
                norule += 1
                reasons[w] = reasons.get(w, 0) + 1
            else:
                ok += 1
            # the generator's entries over [s, e) must cover it with w
            i = bisect.bisect_right(starts, s) - 1
            pos = s
            while pos < e:
                if i < 0 or i >= len(gen) or not gen[i][0] <= pos < gen[i][1]:
                    # maybe a later entry starts exactly here
                    j = bisect.bisect_left(starts, pos)
                    if j < len(gen) and gen[j][0] == pos:
                        i = j
                        continue
                    mismatch('%x..%x: readelf wants "%s", tool has nothing at %x' % (s, e, w, pos))
                    break
                if gen[i][2] != w:
                    mismatch('%x..%x: readelf wants "%s", tool has "%s" at %x..%x' %
                             (s, e, w, gen[i][2], gen[i][0], gen[i][1]))
                    break
                nxt = min(e, gen[i][1])
                matched += nxt - pos
                pos = nxt
                i += 1
    total = sum(g[1] - g[0] for g in gen)
    if total != matched and not bad:
        mismatch('tool covers %d bytes, readelf rows %d: entries outside the FDEs or overlapping'
                 % (total, matched))
    print('%s: readelf rows %d (rule %d, no rule %d: %s), mismatches %d' % (
        path, rows, ok, norule,
        ' '.join('%s=%d' % (k[7:], v) for k, v in sorted(reasons.items())) or '-', bad))
    for m in shown:
        print('  ' + m)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
