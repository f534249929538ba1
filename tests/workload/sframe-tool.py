#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read, check and corrupt the .sframe section of an ELF file (SFrame
version 2, amd64), written from binutils' SFrame specification.

  sframe-tool.py dump FILE
      the header and every FDE: function start (by name), size, FREs
  sframe-tool.py check FILE FUNC[,FUNC...]
      a PT_GNU_SFRAME segment, version 2, FDEs sorted, and an FDE for
      each FUNC, whose code sets up no frame pointer (no mov %rsp,%rbp)
  sframe-tool.py corrupt FILE KIND OUT
      copy FILE to OUT with its .sframe broken in one way, KIND:
        bad-magic     the magic number is wrong
        bad-version   version 3 (not decoded by the kernel: refused)
        bad-offsets   the FRE sub-section starts past the section's end
        fde-past-end  the FDE table runs past the section's end
        unsorted      two FDEs swapped (the table claims to be sorted)
        fre-past-end  an FDE's first FRE starts at the last byte of the
                      FRE sub-section and runs past its end (only found
                      when the unwinder reads it)
        fre-unsorted  two FREs of one function in descending order
                      (only found when the unwinder reads them)
      the last two hit FUNC's FDE, sf_lib_middle unless --func says
"""
import argparse
import shutil
import struct
import subprocess
import sys

HDR = struct.Struct('<HBBBbbBIIIII')
FDE = struct.Struct('<iIIIBBH')
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


def symbols(path):
    out = subprocess.run(['nm', '--defined-only', path], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms.setdefault(int(p[0], 16), p[2])
    return syms


class SFrame:
    def __init__(self, data):
        self.addr, self.off, self.size = sections(data)['.sframe']
        h = HDR.unpack_from(data, self.off)
        (self.magic, self.version, self.flags, self.abi, self.fp_fixed,
         self.ra_fixed, self.aux, self.nfdes, self.nfres, self.fre_len,
         self.fdeoff, self.freoff) = h
        base = self.off + HDR.size + self.aux
        self.fde_at = base + self.fdeoff
        self.fre_at = base + self.freoff
        self.fdes = []
        for i in range(self.nfdes):
            at = self.fde_at + i * FDE.size
            f = list(FDE.unpack_from(data, at))
            rel = at - self.off if self.flags & 4 else 0
            start = self.addr + rel + f[0]
            self.fdes.append(dict(at=at, start=start, size=f[1], freoff=f[2],
                                  nfres=f[3], info=f[4], rep=f[5]))

    def fde_of(self, addr):
        for f in self.fdes:
            if f['start'] == addr:
                return f
        return None

    def fres(self, data, fde):
        """[(fre offset in file, start, info)] of an FDE"""
        pos, out = self.fre_at + fde['freoff'], []
        asz = 1 << (fde['info'] & 0xf)
        for _ in range(fde['nfres']):
            start = int.from_bytes(data[pos:pos + asz], 'little')
            info = data[pos + asz]
            out.append((pos, start, info))
            pos += asz + 1 + ((info >> 1) & 0xf) * (1 << ((info >> 5) & 3))
        return out


def cmd_dump(a):
    data = open(a.file, 'rb').read()
    s, syms = SFrame(data), symbols(a.file)
    print('magic=%#x version=%d flags=%#x abi=%d ra=%d fdes=%d fres=%d' %
          (s.magic, s.version, s.flags, s.abi, s.ra_fixed, s.nfdes, s.nfres))
    for f in s.fdes:
        print('  %#x %-24s size=%d fres=%d info=%#x' %
              (f['start'], syms.get(f['start'], '?'), f['size'], f['nfres'],
               f['info']))


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


def cmd_corrupt(a):
    data = bytearray(open(a.file, 'rb').read())
    s = SFrame(data)
    k = a.kind
    if k == 'bad-magic':
        struct.pack_into('<H', data, s.off, 0xbeef)
    elif k == 'bad-version':
        data[s.off + 2] = 3
    elif k == 'bad-offsets':
        struct.pack_into('<I', data, s.off + 24, s.size + 64)
    elif k == 'fde-past-end':
        struct.pack_into('<I', data, s.off + 8, s.nfdes + s.size)
    elif k == 'unsorted':
        f0, f1 = s.fdes[0]['at'], s.fdes[-1]['at']
        a0, a1 = bytes(data[f0:f0 + FDE.size]), bytes(data[f1:f1 + FDE.size])
        data[f0:f0 + FDE.size], data[f1:f1 + FDE.size] = a1, a0
    elif k in ('fre-past-end', 'fre-unsorted'):
        byname = {n: addr for addr, n in symbols(a.file).items()}
        f = s.fde_of(byname[a.func])
        if k == 'fre-past-end':
            # its first FRE starts at the sub-section's last byte
            struct.pack_into('<I', data, f['at'] + 8, s.fre_len - 1)
        else:
            fres = s.fres(data, f)
            if len(fres) < 2:
                fail('%s has %d FREs' % (a.func, len(fres)))
            # the second FRE starts before the first one
            pos = fres[1][0]
            data[pos] = 0
            struct.pack_into('<B', data, fres[0][0], 1)
    else:
        fail('unknown kind ' + k)
    shutil.copy(a.file, a.out)
    with open(a.out, 'wb') as out:
        out.write(data)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('dump')
    s.add_argument('file')
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
    s.set_defaults(fn=cmd_corrupt)
    a = p.parse_args()
    a.fn(a)


if __name__ == '__main__':
    main()
