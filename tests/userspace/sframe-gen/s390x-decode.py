#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decode an s390x SFrame version 3 section, as sframe-gen writes it,
straight from the SFrame specification (its header, FDE index and
attributes, FREs, and the s390x ABI section), without sframe-gen's own
reader, and print one line per FRE as `sframe-gen --dump` does:

    s390x-decode.py SECTION    (the output of `sframe-gen FILE`)

START END cfa=sp+160 [fp=cfa-72|fp=rN] ra=cfa-48|ra=rN|ra=r14, or ra=u.
Exits 1 if the header is not big-endian s390x version 3 with sorted FDEs,
no fixed RA and no fixed FP offset.
"""
import struct
import sys

data = open(sys.argv[1], 'rb').read()
(magic, version, flags, abi, fixed_fp, fixed_ra, auxlen, nfdes, nfres,
 fre_len, fdes_off, fres_off) = struct.unpack_from('>HBBBbbBIIIII', data, 0)
if (magic, version, abi, fixed_fp, fixed_ra) != (0xdee2, 3, 4, 0, 0) or not flags & 1:
    sys.exit('header: magic %#x version %d abi %d fixed fp %d ra %d flags %#x' %
             (magic, version, abi, fixed_fp, fixed_ra, flags))
hdr = 28 + auxlen
fres = hdr + fres_off


def loc(v):
    return 'r%d' % (v >> 1) if v & 1 else 'cfa%+d' % v


for i in range(nfdes):
    start, size, attr = struct.unpack_from('>qII', data, hdr + fdes_off + 16 * i)
    if not flags & 4:           # SFRAME_F_FDE_FUNC_START_PCREL unset
        pass                    # start is relative to the section, here at 0
    num, info, info2, rep = struct.unpack_from('>HBBB', data, fres + attr)
    asz = 1 << (info & 0xf)
    p = fres + attr + 5
    rows = []
    for k in range(num):
        rstart = int.from_bytes(data[p:p + asz], 'big')
        finfo = data[p + asz]
        p += asz + 1
        n, osz = (finfo >> 1) & 0xf, 1 << ((finfo >> 5) & 3)
        offs = [int.from_bytes(data[p + j * osz:p + (j + 1) * osz], 'big', signed=True)
                for j in range(n)]
        p += n * osz
        if not n:
            text = 'ra=u'
        else:
            # offset 1: CFA, stored as (offset - 160) / 8
            text = 'cfa=%s%+d' % ('sp' if finfo & 1 else 'fp', offs[0] * 8 + 160)
            ra = offs[1] if n > 1 else 0
            if n > 2:
                text += ' fp=' + loc(offs[2])
            # an RA offset of 0 (SFRAME_FRE_RA_OFFSET_INVALID): not saved
            text += ' ra=' + (loc(ra) if ra else 'r14')
        rows.append((start + rstart, text))
    for k, (a, text) in enumerate(rows):
        end = rows[k + 1][0] if k + 1 < len(rows) else start + size
        print('%016x %016x %s' % (a, end, text))
