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

amd64 rows that only a flexible FDE (SFrame version 3, FDE type 1) can
say get flexible rules, printed with DWARF register numbers: a CFA from
another register (readelf "r10+0": cfa=r10+0) or given by
"DW_CFA_def_cfa_expression (DW_OP_bregN (x): OFF; DW_OP_deref)" (readelf
"exp": cfa=*(rN+OFF)), rbp saved by "DW_CFA_expression: r6 (rbp)
(DW_OP_bregN (x): OFF)" (fp=*(rN+OFF)).  An "exp" cell is resolved from
`readelf --debug-dump=frames`: the FDE's one expression of that kind
(more than one, or another shape: no rule, as before).  In a flexible row
an SP- or FP-based CFA is cfa=r7+N / cfa=r6+N and an rbp saved at CFA+N
is fp=*(cfa+N).  With --no-flex (a 4th argument "--no-flex" is passed to
the tool) the old reasons are expected.

s390x objects (ELF machine S/390, READELF the cross readelf) are read by
the SFrame specification's s390x rules: CFA from r15 (sp) or r11 (fp),
its offset 160 plus a multiple of 8; RA (r14) and FP (r11) each at a CFA
offset that is a non-zero multiple of 8, in another register (rN), or
not saved (ra=r14: still in r14; FP: not printed).  readelf prints "u"
both for a register that has no rule yet (on s390x the ABI's initial rule
for r14 is "same value") and for DW_CFA_undefined, so the outermost frame
is told apart by `readelf --debug-dump=frames`: a CIE or FDE whose
instructions hold "DW_CFA_undefined: r14".
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
            cur = {'kind': 'cie', 'signal': 'S' in aug, 'rows': [], 'off': f[0]}
            cies[f[0]] = cur
            cols = None
        elif len(f) >= 4 and f[3] == 'FDE':
            cie = re.search(r'cie=([0-9a-f]+)', line).group(1)
            m = re.search(r'pc=([0-9a-f]+)\.\.([0-9a-f]+)', line)
            cur = {'kind': 'fde', 'cie': cies.get(cie), 'lo': int(m.group(1), 16),
                   'hi': int(m.group(2), 16), 'rows': [], 'off': f[0]}
            fdes.append(cur)
            cols = None
        elif f and f[0] == 'LOC' and cur is not None:
            cols = f[1:]
        elif len(f) == 3 and f[1:] == ['ZERO', 'terminator']:
            # ends the section, not a row of the FDE before it
            cur = cols = None
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
        offs = (d['off'], cie['off'] if cie else None)
        out.append((d['lo'], d['hi'], bool(cie and cie['signal']), rows, offs))
    return out


def machine(readelf, path):
    for line in run([readelf, '-hW', path]).splitlines():
        if line.strip().startswith('Machine:'):
            return line.split(':', 1)[1].strip()
    return '?'


def undefined_ra(readelf, path):
    """{offset of a CIE or FDE: where its DW_CFA_undefined r14 holds from}
    (s390x; None: the whole of it).  An FDE that changes r14 again after
    making it undefined, or remembers state around it, is not decided
    here: the script stops rather than guess."""
    out = {}
    cur = kind = loc = None
    for line in run([readelf, '--debug-dump=frames', path], (0, 1)).splitlines():
        f = line.split()
        if len(f) >= 4 and f[3] in ('CIE', 'FDE'):
            cur, kind, loc = f[0], f[3], None
            continue
        if not cur or not f:
            continue
        if f[0].startswith('DW_CFA_advance_loc') and f[-2] == 'to':
            loc = int(f[-1], 16)
        elif line.strip() == 'DW_CFA_undefined: r14':
            out[cur] = loc if kind == 'FDE' else None
        elif cur in out and kind == 'FDE' and (
                re.search(r'\br14\b', line) or 'state' in f[0]):
            sys.exit('%s: FDE %s: r14 changes after DW_CFA_undefined: not decided'
                     % (path, cur))
    return out


AMD64_REGS = {'rax': 0, 'rdx': 1, 'rcx': 2, 'rbx': 3, 'rsi': 4, 'rdi': 5,
              'rbp': 6, 'rsp': 7}


def amd64_regnum(name):
    if name in AMD64_REGS:
        return AMD64_REGS[name]
    m = re.match(r'^r(\d+)$', name)
    return int(m.group(1)) if m else None


def flex_exprs(readelf, path):
    """{FDE offset: {'cfa': rule or None, 'fp': rule or None}}: the FDE's
    one CFA expression and one rbp expression, as the tool prints a
    flexible rule, None when there are several or of another shape."""
    out = {}
    cur = None
    cfa_re = re.compile(r'DW_CFA_def_cfa_expression \(DW_OP_breg(\d+) \(\w+\): (-?\d+); DW_OP_deref\)$')
    fp_re = re.compile(r'DW_CFA_expression: r6 \(rbp\) \(DW_OP_breg(\d+) \(\w+\): (-?\d+)\)$')
    for line in run([readelf, '--debug-dump=frames', path], (0, 1)).splitlines():
        f = line.split()
        if len(f) >= 4 and f[3] in ('CIE', 'FDE'):
            cur = f[0] if f[3] == 'FDE' else None
            continue
        if not cur:
            continue
        t = line.strip()
        for kind, rx, fmt in (('cfa', cfa_re, 'cfa=*(r%d%+d)'), ('fp', fp_re, 'fp=*(r%d%+d)')):
            if t.startswith('DW_CFA_def_cfa_expression' if kind == 'cfa'
                            else 'DW_CFA_expression: r6 '):
                m = rx.match(t)
                d = out.setdefault(cur, {})
                rule = fmt % (int(m.group(1)), int(m.group(2))) if m else None
                d[kind] = rule if kind not in d or d[kind] == rule else None
    return out


def s390x_loc(cell):
    """A readelf cell of r14 or r11 as the tool prints where it is kept."""
    if cell in ('u', 's'):
        return 'same'
    m = re.match(r'^c([+-]\d+)$', cell)
    if m:
        off = int(m.group(1))
        return 'cfa%+d' % off if off and off % 8 == 0 else None
    m = re.match(r'^r(\d+)( \(\w+\))?$', cell)
    if m:
        return 'r%d' % int(m.group(1))
    return None


def expect_s390x(row, signal, addr, plts, outermost):
    """What the generator must say for a readelf row of an s390x object."""
    cfa = row.get('CFA', '?')
    ra = row.get('ra', 'u')
    fp = row.get('r11', 'u')
    if signal:
        return 'norule=signal'
    if ra == 'u' and outermost:
        return 'ra=u'
    m = re.match(r'^r(15|11)([+-]\d+)$', cfa)
    if cfa == 'exp':
        return 'norule=plt' if any(a <= addr < b for a, b in plts) else 'norule=cfa-expr'
    if not m:
        return 'norule=cfa-reg' if re.match(r'^r\w+[+-]\d+$', cfa) else 'norule=cfa-expr'
    off = int(m.group(2))
    # the spec's encoding: (offset - 160) / 8, in 32 bits at most
    if (off - 160) % 8 or not -2**31 <= (off - 160) // 8 < 2**31:
        return 'norule=range'
    base = 'sp' if m.group(1) == '15' else 'fp'
    rloc = s390x_loc(ra)
    if rloc is None:
        return 'norule=ra'
    s = 'cfa=%s%+d' % (base, off)
    floc = s390x_loc(fp)
    if floc is None:
        return 'norule=fp'
    if floc != 'same':
        s += ' fp=' + floc
    return s + ' ra=' + ('r14' if rloc == 'same' else rloc)


def expect_flex(row, addr, plts, fx):
    """A flexible rule for an amd64 row, or None when it is not one."""
    cfa = row.get('CFA', '?')
    rbp = row.get('rbp', 'u')
    if row.get('ra', 'u') != 'c-8' or any(a <= addr < b for a, b in plts):
        return None
    m = re.match(r'^(\w+)([+-]\d+)$', cfa)
    if cfa == 'exp':
        c = fx.get('cfa')
    elif m and amd64_regnum(m.group(1)) is not None:
        c = 'cfa=r%d%+d' % (amd64_regnum(m.group(1)), int(m.group(2)))
    else:
        return None
    if c is None:
        return None
    flex = cfa == 'exp' or not (m and m.group(1) in ('rsp', 'rbp'))
    if rbp in ('u', 's'):
        f = ''
    elif rbp == 'exp':
        f = fx.get('fp')
        if f is None:
            return None
        flex = True
        f = ' ' + f
    else:
        mm = re.match(r'^c([+-]\d+)$', rbp)
        if not mm:
            return None
        f = ' fp=*(cfa%+d)' % int(mm.group(1))
        if int(mm.group(1)) == 0:
            flex = True
    return c + f + ' ra=cfa-8' if flex else None


def expect(row, signal, addr, plts, fx=None):
    """What the generator must say for a readelf row."""
    cfa = row.get('CFA', '?')
    ra = row.get('ra', 'u')
    rbp = row.get('rbp', 'u')
    if signal:
        return 'norule=signal'
    if ra == 'u':
        return 'ra=u'
    if fx is not None:
        w = expect_flex(row, addr, plts, fx)
        if w:
            return w
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
    args = [a for a in sys.argv[1:] if a != '--no-flex']
    no_flex = len(args) != len(sys.argv) - 1
    tool, path = args[0], args[1]
    readelf = args[2] if len(args) > 2 else 'readelf'
    lo, hi, plts = text_range(readelf, path)
    fdes = parse_readelf(readelf, path)
    s390x = machine(readelf, path) == 'IBM S/390'
    undef = undefined_ra(readelf, path) if s390x else {}
    flex = {} if s390x or no_flex else flex_exprs(readelf, path)

    gen = []
    for line in run([tool, path, '--dump', '--norule'] +
                    (['--no-flex'] if no_flex else [])).splitlines():
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

    for flo, fhi, signal, frows, offs in fdes:
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
                if s390x:
                    outer = offs[1] in undef or (
                        offs[0] in undef and loc >= (undef[offs[0]] or 0))
                    w = expect_s390x(row, signal, loc, plts, outer)
                else:
                    w = expect(row, signal, loc, plts,
                               None if no_flex else flex.get(offs[0], {}))
                want.append((w, loc, end))
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
