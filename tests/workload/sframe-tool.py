#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read, check, corrupt and rewrite the .sframe section of an ELF file
(SFrame versions 2 and 3, amd64), written from binutils' SFrame
specification.  FILE may also be a bare section, as sframe-gen writes
it (no ELF header: the section at address 0), of either byte order: the
magic says which (s390x's are big endian).

  sframe-tool.py dump FILE [--section NAME]
      the header and every FDE: function start (by name), size, FREs;
      NAME (default .sframe) may hold version 2 or 3
  sframe-tool.py check FILE FUNC[,FUNC...]
      a PT_GNU_SFRAME segment, version 2, FDEs sorted, and an FDE for
      each FUNC, whose code sets up no frame pointer (no mov %rsp,%rbp)
  sframe-tool.py corrupt FILE KIND OUT
      copy FILE to OUT with its .sframe broken in one way, KIND:
        bad-magic     the magic number is wrong
        bad-version   version 4 (no such version: refused)
        bad-offsets   the FRE sub-section starts past the section's end
        fde-past-end  the FDE table runs past the section's end
        unsorted      two FDEs swapped (the table claims to be sorted)
        fre-past-end  an FDE's first FRE starts at the last byte of the
                      FRE sub-section and runs past its end (only found
                      when the unwinder reads it)
        fre-unsorted  two FREs of one function in descending order
                      (only found when the unwinder reads them)
        bad-abi       another ABI's byte: amd64's (3), or s390x's (4)
                      in an amd64 section
        fixed-ra      a fixed RA offset: 0 in amd64's, whose RA is at
                      CFA-8; amd64's -8 in one of an ABI that tracks the
                      RA in each FRE (s390x), which has none
        wrong-cfa     FUNC's CFA offset 8 more in every FRE: rules the
                      kernel cannot tell from right ones (it reads the
                      RA from the wrong slot); not a corruption but a
                      section that lies
        no-segment    the PT_GNU_SFRAME program header made PT_NULL: exec
                      registers nothing (the .sframe section stays)
      fre-past-end, fre-unsorted and wrong-cfa hit FUNC's FDE, sf_lib_middle unless --func says
      (a name, looked up with --nm, default nm, in --syms, default
      FILE; or an address, 0x...).  In a version 3 section fre-past-end
      appends FUNC's attributes to the FRE sub-section, which must be
      the end of a bare section
  sframe-tool.py v3 FILE OUT [--kind KIND] [--func FUNC]
      copy FILE to OUT with a version 3 copy of its .sframe written into
      its .sframe_v3 section (room left by the object, see sframe_lib.c):
      no assembler the rig has writes version 3.  The copy holds the same
      functions and the same FREs: an FDE index entry (16 bytes, function
      start relative to the entry), and the FDE's attributes (5 bytes)
      right before its FREs.  KIND breaks or changes it (FUNC's FDE,
      sf_lib_middle unless --func says):
        good          (default) a faithful copy
        flex          FUNC's FDE is a flexible FDE (FDE type 1), its FREs
                      the same rules in flexible words (CFA: control
                      word of SP or FP and offset; RA: a lone 0, at the
                      fixed offset; FP: control word "at the CFA" and
                      offset), which the kernel follows
        flex-plain    FUNC's FDE says flexible but keeps plain FREs: no
                      register-based CFA word, a corrupt section
        new-type      FUNC's FDE has FDE type 2, not defined yet: no rule
                      the kernel follows, that frame falls back
        bad-flags     SFRAME_F_FRAME_POINTER set: not a version 3 flag
        unsorted      two index entries swapped
        attr-past-end FUNC's attributes run past the FRE sub-section
        fre-past-end  FUNC's attributes are the FRE sub-section's last
                      bytes: its first FRE starts at the end (only found
                      when the unwinder reads it)
"""
import argparse
import shutil
import struct
import subprocess
import sys

HDR = struct.Struct('<HBBBbbBIIIII')
FDE = struct.Struct('<iIIIBBH')
FDI3 = struct.Struct('<qII')        # version 3 FDE index entry
FDA3 = struct.Struct('<HBBB')       # version 3 FDE attributes
ABI_AMD64, ABI_S390X = 3, 4
F_SORTED, F_FRAME_POINTER, F_PCREL = 1, 2, 4
PT_GNU_SFRAME = 0x6474e554


def sections(data):
    """name -> (addr, offset, size) from the ELF64 section headers"""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
            for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        end = data.index(b'\0', stroff + h[0])
        out[data[stroff + h[0]:end].decode()] = (h[3], h[4], h[5])
    return out


def has_segment(data):
    phoff, = struct.unpack_from('<Q', data, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
    return any(struct.unpack_from('<I', data, phoff + i * phentsize)[0] ==
               PT_GNU_SFRAME for i in range(phnum))


def symbols(path, nm='nm'):
    out = subprocess.run([nm, '--defined-only', path], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms.setdefault(int(p[0], 16), p[2])
    return syms


class SFrame:
    """A section in an ELF file, or a bare one (the whole file, at address
    0); the structures in the byte order its magic says (self.e: '<' or
    '>', self.bo: 'little' or 'big')"""

    def __init__(self, data, name='.sframe'):
        if data[:4] == b'\x7fELF':
            self.addr, self.off, self.size = sections(data)[name]
        else:
            self.addr, self.off, self.size = 0, 0, len(data)
        self.raw = self.size == len(data) and not self.addr
        big = bytes(data[self.off:self.off + 2]) == b'\xde\xe2'
        self.e, self.bo = ('>', 'big') if big else ('<', 'little')
        self.HDR, self.FDE, self.FDI3, self.FDA3 = (
            struct.Struct(self.e + st.format.lstrip('<'))
            for st in (HDR, FDE, FDI3, FDA3))
        h = self.HDR.unpack_from(data, self.off)
        (self.magic, self.version, self.flags, self.abi, self.fp_fixed,
         self.ra_fixed, self.aux, self.nfdes, self.nfres, self.fre_len,
         self.fdeoff, self.freoff) = h
        base = self.off + HDR.size + self.aux
        self.fde_at = base + self.fdeoff
        self.fre_at = base + self.freoff
        self.fdes = []
        for i in range(self.nfdes):
            self.fdes.append(self.fde_v3(data, i) if self.version == 3 else
                             self.fde_v2(data, i))

    def start(self, at, rel):
        """function start of the FDE (index entry) at file offset at"""
        return self.addr + (at - self.off if self.flags & F_PCREL else 0) + rel

    def fde_v2(self, data, i):
        at = self.fde_at + i * FDE.size
        f = self.FDE.unpack_from(data, at)
        return dict(at=at, start=self.start(at, f[0]), size=f[1],
                    freoff=f[2], nfres=f[3], info=f[4], info2=0, rep=f[5],
                    bad='')

    def fde_v3(self, data, i):
        # freoff is where the FREs start: past the attributes
        at = self.fde_at + i * FDI3.size
        f = self.FDI3.unpack_from(data, at)
        fde = dict(at=at, start=self.start(at, f[0]), size=f[1],
                   freoff=f[2] + FDA3.size, nfres=0, info=0, info2=0, rep=0,
                   bad='')
        if f[2] + FDA3.size > self.fre_len:
            fde['bad'] = 'attributes past the end'
        else:
            a = self.FDA3.unpack_from(data, self.fre_at + f[2])
            fde.update(nfres=a[0], info=a[1], info2=a[2], rep=a[3])
        return fde

    def fde_of(self, addr):
        for f in self.fdes:
            if f['start'] == addr:
                return f
        return None

    def fre_bytes(self, data, fde):
        """the FREs of an FDE, as they lie in the file"""
        fres = self.fres(data, fde)
        return bytes(data[fres[0][0]:fde['fres_end']]) if fres else b''

    def fres(self, data, fde):
        """[(fre offset in file, start, info)] of an FDE; it stops at the
        end of the FRE sub-section, and says so in fde['bad'];
        fde['fres_end'] is where the FREs read end"""
        pos, out = self.fre_at + fde['freoff'], []
        asz = 1 << (fde['info'] & 0xf)
        for _ in range(fde['nfres']):
            if pos + asz + 1 > self.fre_at + self.fre_len:
                fde['bad'] = fde['bad'] or 'FREs past the end'
                break
            start = int.from_bytes(data[pos:pos + asz], self.bo)
            info = data[pos + asz]
            out.append((pos, start, info))
            pos += asz + 1 + ((info >> 1) & 0xf) * (1 << ((info >> 5) & 3))
        fde['fres_end'] = pos
        return out


def cmd_dump(a):
    data = open(a.file, 'rb').read()
    s = SFrame(data, a.section)
    syms = {} if s.raw else symbols(a.file)
    print('magic=%#x version=%d flags=%#x abi=%d ra=%d fdes=%d fres=%d' %
          (s.magic, s.version, s.flags, s.abi, s.ra_fixed, s.nfdes, s.nfres))
    for f in s.fdes:
        # type: the version 3 FDE type (0 default, 1 flexible)
        fres = s.fre_bytes(data, f).hex()
        print('  %#x %-24s size=%d fres=%d info=%#x type=%d %s%s' %
              (f['start'], syms.get(f['start'], '?'), f['size'], f['nfres'],
               f['info'], f['info2'] & 0x1f, fres,
               ' BAD: ' + f['bad'] if f['bad'] else ''))


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def cmd_check(a):
    data = open(a.file, 'rb').read()
    if not has_segment(data):
        fail('%s: no PT_GNU_SFRAME segment' % a.file)
    s = SFrame(data)
    if s.magic != 0xdee2 or s.version != 2 or not s.flags & 1:
        fail('%s: magic %#x version %d flags %#x, want 0xdee2, 2, sorted' %
             (a.file, s.magic, s.version, s.flags))
    starts = [f['start'] for f in s.fdes]
    if starts != sorted(starts):
        fail('%s: FDEs not sorted' % a.file)
    byname = {n: addr for addr, n in symbols(a.file).items()}
    for fn in a.funcs.split(','):
        if fn not in byname or not s.fde_of(byname[fn]):
            fail('%s: no FDE for %s' % (a.file, fn))
        dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn',
                              '--disassemble=' + fn, a.file], check=True,
                             capture_output=True, text=True).stdout
        if 'mov    %rsp,%rbp' in dis:
            fail('%s: %s sets up a frame pointer' % (a.file, fn))
    print('%s: SFrame v2, %d FDEs sorted, %s covered, no frame pointer' %
          (a.file, s.nfdes, a.funcs))


def func_fde(a, s):
    """the FDE of --func: a name (nm --nm of --syms) or an address"""
    if a.func.startswith('0x'):
        addr = int(a.func, 16)
    else:
        out = subprocess.run([a.nm, '--defined-only', a.syms or a.file],
                             check=True, capture_output=True, text=True)
        addr = next((int(p[0], 16) for p in map(str.split, out.stdout.splitlines())
                     if len(p) == 3 and p[2] == a.func), None)
    f = s.fde_of(addr) if addr is not None else None
    if not f:
        fail('%s: no FDE for %s' % (a.file, a.func))
    return f


def cmd_corrupt(a):
    data = bytearray(open(a.file, 'rb').read())
    s = SFrame(data)
    k, e = a.kind, s.e
    fsz = FDI3.size if s.version == 3 else FDE.size
    if k == 'bad-magic':
        struct.pack_into(e + 'H', data, s.off, 0xbeef)
    elif k == 'bad-version':
        data[s.off + 2] = 4
    elif k == 'bad-abi':
        data[s.off + 4] = ABI_AMD64 if s.abi != ABI_AMD64 else ABI_S390X
    elif k == 'fixed-fp':
        # cfa_fixed_fp_offset: amd64 has none (0); -16 as another ABI might
        struct.pack_into('<b', data, s.off + 5, -16)
    elif k == 'fixed-ra':
        struct.pack_into('<b', data, s.off + 6, -8 if s.ra_fixed == 0 else 0)
    elif k == 'bad-offsets':
        struct.pack_into(e + 'I', data, s.off + 24, s.size + 64)
    elif k == 'fde-past-end':
        struct.pack_into(e + 'I', data, s.off + 8, s.nfdes + s.size)
    elif k == 'unsorted':
        f0, f1 = s.fdes[0]['at'], s.fdes[-1]['at']
        a0, a1 = bytes(data[f0:f0 + fsz]), bytes(data[f1:f1 + fsz])
        data[f0:f0 + fsz], data[f1:f1 + fsz] = a1, a0
    elif k == 'fre-past-end' and s.version == 3:
        # FUNC's attributes again, appended as the sub-section's last
        # bytes: its first FRE would start at the sub-section's end
        f = func_fde(a, s)
        end = s.fre_at + s.fre_len
        if not s.raw or end != len(data):
            fail('%s: fre-past-end of version 3 needs a bare section that '
                 'ends with its FREs' % a.file)
        attr = bytes(data[s.fre_at + f['freoff'] - FDA3.size:
                          s.fre_at + f['freoff']])
        struct.pack_into(e + 'I', data, f['at'] + 12, s.fre_len)
        struct.pack_into(e + 'I', data, s.off + 16, s.fre_len + len(attr))
        data += attr
    elif k in ('fre-past-end', 'fre-unsorted'):
        f = func_fde(a, s)
        if k == 'fre-past-end':
            # its first FRE starts at the sub-section's last byte
            struct.pack_into(e + 'I', data, f['at'] + 8, s.fre_len - 1)
        else:
            fres = s.fres(data, f)
            if len(fres) < 2:
                fail('%s has %d FREs' % (a.func, len(fres)))
            # the second FRE starts before the first one
            asz = 1 << (f['info'] & 0xf)
            data[fres[1][0]:fres[1][0] + asz] = (0).to_bytes(asz, s.bo)
            data[fres[0][0]:fres[0][0] + asz] = (1).to_bytes(asz, s.bo)
    elif k == 'wrong-cfa':
        f = func_fde(a, s)
        asz = 1 << (f['info'] & 0xf)
        for pos, _, info in s.fres(data, f):
            at, osz = pos + asz + 1, 1 << ((info >> 5) & 3)
            cfa = int.from_bytes(data[at:at + osz], s.bo, signed=True) + 8
            data[at:at + osz] = cfa.to_bytes(osz, s.bo, signed=True)
    elif k == 'no-segment':
        phoff, = struct.unpack_from('<Q', data, 0x20)
        phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
        for i in range(phnum):
            if struct.unpack_from('<I', data, phoff + i * phentsize)[0] == PT_GNU_SFRAME:
                struct.pack_into('<I', data, phoff + i * phentsize, 0)
        if has_segment(data):
            fail('%s: PT_GNU_SFRAME still there' % a.file)
    else:
        fail('unknown kind ' + k)
    shutil.copy(a.file, a.out)
    with open(a.out, 'wb') as out:
        out.write(data)


def flex_fre_bytes(data, s, fde):
    """The FREs of an amd64 FDE as a flexible FDE's: each FRE's rule in
    control words (DWARF register << 3 | deref << 1 | register-based)
    and offsets; an FRE with no offset (outermost) stays as it is"""
    out = b''
    asz = 1 << (fde['info'] & 0xf)
    for pos, start, info in s.fres(data, fde):
        n, osz = (info >> 1) & 0xf, 1 << ((info >> 5) & 3)
        at = pos + asz + 1
        offs = [int.from_bytes(data[at + k * osz:at + (k + 1) * osz],
                               'little', signed=True) for k in range(n)]
        if not n:
            out += bytes(data[pos:at])
            continue
        # base bit 0: FP (DWARF 6), 1: SP (DWARF 7)
        words = [((7 if info & 1 else 6) << 3) | 1, offs[0]]
        if n >= 2:
            words += [0, 2, offs[1]]
        size = max(osz, 1)
        while any(not -(1 << (8 * size - 1)) <= w < (1 << (8 * size - 1))
                  for w in words):
            size *= 2
        code = {1: 0, 2: 1, 4: 2}[size]
        out += start.to_bytes(asz, 'little')
        out += bytes([(code << 5) | (len(words) << 1)])
        out += b''.join(w.to_bytes(size, 'little', signed=True) for w in words)
    return out


def v3_section(data, s, addr, kind, func_start):
    """A version 3 copy of the version 2 section s, to lie at address addr.

    Per the specification: the header as in version 2 (version 3, the
    flags of version 3); the FDE index, one 16-byte entry per function,
    sorted, its function start relative to the entry itself
    (SFRAME_F_FDE_FUNC_START_PCREL); the FRE sub-section, where each
    function's data starts with its 5 bytes of attributes (FRE count, info
    byte, second info byte with the FDE type, repetition block size),
    followed by its FREs, unchanged: default FDEs of amd64 keep version
    2's FREs (CFA offset, then FP offset; RA at the fixed offset).
    """
    flags = F_SORTED | F_PCREL
    fdes = [dict(f) for f in s.fdes]
    fres, blob = [], b''
    types = {'flex': 1, 'flex-plain': 1, 'new-type': 2}
    for f in fdes:
        f['attr'] = len(blob)
        victim = f['start'] == func_start
        info2 = types.get(kind, 0) if victim else 0
        blob += FDA3.pack(f['nfres'], f['info'], info2, f['rep'])
        if victim and kind == 'flex':
            blob += flex_fre_bytes(data, s, f)
        else:
            blob += s.fre_bytes(data, f)
    if kind == 'fre-past-end':
        # FUNC's attributes again, as the sub-section's last 5 bytes: its
        # first FRE would start at the sub-section's end
        victim = next(f for f in fdes if f['start'] == func_start)
        victim['attr'] = len(blob)
        blob += FDA3.pack(victim['nfres'], victim['info'], 0, victim['rep'])
    if kind == 'attr-past-end':
        victim = next(f for f in fdes if f['start'] == func_start)
        victim['attr'] = len(blob) - 2
    if kind == 'unsorted':
        fdes[0], fdes[-1] = fdes[-1], fdes[0]
    if kind == 'bad-flags':
        flags |= F_FRAME_POINTER
    out = bytearray(HDR.pack(0xdee2, 3, flags, s.abi, s.fp_fixed,
                             s.ra_fixed, 0, len(fdes), s.nfres, len(blob),
                             0, len(fdes) * FDI3.size))
    for f in fdes:
        entry = addr + len(out)
        out += FDI3.pack(f['start'] - entry, f['size'], f['attr'])
    return bytes(out + blob)


def cmd_v3(a):
    data = bytearray(open(a.file, 'rb').read())
    s = SFrame(data)
    if s.version != 2:
        fail('%s: .sframe is version %d, want 2' % (a.file, s.version))
    secs = sections(data)
    if '.sframe_v3' not in secs:
        fail('%s: no .sframe_v3 section to write into' % a.file)
    addr, off, size = secs['.sframe_v3']
    byname = {n: ad for ad, n in symbols(a.file).items()}
    if a.func not in byname or not s.fde_of(byname[a.func]):
        fail('%s: no FDE for %s' % (a.file, a.func))
    v3 = v3_section(data, s, addr, a.kind, byname[a.func])
    if len(v3) > size:
        fail('%s: version 3 section of %d bytes, room for %d' %
             (a.file, len(v3), size))
    data[off:off + len(v3)] = v3
    shutil.copy(a.file, a.out)
    with open(a.out, 'wb') as out:
        out.write(data)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('dump')
    s.add_argument('file')
    s.add_argument('--section', default='.sframe')
    s.set_defaults(fn=cmd_dump)
    s = sub.add_parser('check')
    s.add_argument('file')
    s.add_argument('funcs')
    s.set_defaults(fn=cmd_check)
    s = sub.add_parser('corrupt')
    s.add_argument('file')
    s.add_argument('kind')
    s.add_argument('out')
    s.add_argument('--func', default='sf_lib_middle')
    s.add_argument('--syms', help='the ELF file that names FUNC (a bare section)')
    s.add_argument('--nm', default='nm', help='the nm to name it with')
    s.set_defaults(fn=cmd_corrupt)
    s = sub.add_parser('v3')
    s.add_argument('file')
    s.add_argument('out')
    s.add_argument('--kind', default='good',
                   choices=['good', 'flex', 'flex-plain', 'new-type',
                            'bad-flags', 'unsorted', 'attr-past-end',
                            'fre-past-end'])
    s.add_argument('--func', default='sf_lib_middle')
    s.set_defaults(fn=cmd_v3)
    a = p.parse_args()
    a.fn(a)


if __name__ == '__main__':
    main()
