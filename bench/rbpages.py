#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Split the bytes of ftrace ring-buffer pages into records and padding.

  rbpages.py FILE...      pages read from per_cpu/cpuN/trace_pipe_raw
  rbpages.py selftest

Prints "records=B extends=B padding=B pages=N": the bytes of the data
events (their 4-byte headers included), of the time extends and
stamps, and of the padding: the padding events the writer leaves where
an event did not fit, and the room left past the commit of every page
but the last of a file (a page is handed to the reader once the writer
moved on).  The layout is the kernel's (kernel/trace/ring_buffer.c,
events/header_page and header_event): a page is a 64-bit time stamp, a
commit word whose low 20 bits are the bytes of data, then the events;
an event's first word holds type_len (5 bits) and time_delta.  Little
endian, 4096-byte pages, as on the x86 guest.
"""
import struct
import sys

PAGE = 4096
HDR = 16			# time stamp and commit word
DATA = PAGE - HDR
PADDING, TIME_EXTEND, TIME_STAMP = 29, 30, 31


def page_bytes(page):
    """(records, extends, padding) of one page; ValueError if corrupt"""
    commit = struct.unpack_from('<Q', page, 8)[0] & 0xfffff
    if commit > DATA:
        raise ValueError('commit %d past the page' % commit)
    rec = ext = pad = 0
    off = HDR
    end = HDR + commit
    while off < end:
        if off + 4 > end:
            raise ValueError('event header past the commit at %d' % off)
        word = struct.unpack_from('<I', page, off)[0]
        type_len, delta = word & 0x1f, word >> 5
        if type_len == PADDING:
            if not delta:
                pad += end - off	# the rest of the page
                break
            size = 4 + struct.unpack_from('<I', page, off + 4)[0]
            pad += size
        elif type_len in (TIME_EXTEND, TIME_STAMP):
            size = 8
            ext += size
        elif type_len == 0:
            size = 4 + struct.unpack_from('<I', page, off + 4)[0]
            rec += size
        else:
            size = 4 + 4 * type_len
            rec += size
        if size < 4 or off + size > end:
            raise ValueError('event of %d bytes past the commit at %d' % (size, off))
        off += size
    return rec, ext, pad, commit


def file_bytes(data):
    rec = ext = pad = 0
    n = len(data) // PAGE
    for i in range(n):
        r, e, p, commit = page_bytes(data[i * PAGE:(i + 1) * PAGE])
        rec, ext, pad = rec + r, ext + e, pad + p
        if i < n - 1:
            pad += DATA - commit
    return rec, ext, pad, n


def selftest():
    def ev(type_len, delta, payload):
        return struct.pack('<I', type_len | delta << 5) + payload

    big = bytes(200)
    events = (ev(3, 1, bytes(12)) + ev(TIME_EXTEND, 5, bytes(4)) +
              ev(0, 1, struct.pack('<I', 4 + len(big)) + big))
    pad = ev(PADDING, 1, struct.pack('<I', 100 - 4) + bytes(92))
    body = events + pad
    page = struct.pack('<QQ', 0, len(body)) + body
    page += bytes(PAGE - len(page))
    last = struct.pack('<QQ', 0, len(events)) + events
    last += bytes(PAGE - len(last))
    got = file_bytes(page + last)
    # records 16 + 208 twice, extends 8 twice, padding the event and
    # the first page's room past its commit
    want = (2 * (16 + 208), 16, 100 + (DATA - len(body)), 2)
    if got != want:
        sys.exit('rbpages selftest: got %r, want %r' % (got, want))
    bad = bytearray(last)
    struct.pack_into('<Q', bad, 8, DATA + 1)
    try:
        file_bytes(bytes(bad))
        sys.exit('rbpages selftest: a commit past the page was taken')
    except ValueError:
        pass
    print('rbpages selftest: ok')


def main(argv):
    if argv[1:] == ['selftest']:
        selftest()
        return 0
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    tot = [0, 0, 0, 0]
    for path in argv[1:]:
        with open(path, 'rb') as f:
            try:
                got = file_bytes(f.read())
            except ValueError as e:
                sys.stderr.write('rbpages: %s: %s\n' % (path, e))
                return 1
        tot = [a + b for a, b in zip(tot, got)]
    print('records=%d extends=%d padding=%d pages=%d' % tuple(tot))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
