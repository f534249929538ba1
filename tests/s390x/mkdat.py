#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assemble a trace.dat (file version 6) from what tests/s390x/record-
guest.sh printed in the s390x guest: the ring buffer pages exactly as the
kernel gave them (big-endian), its formats, kallsyms, printk formats,
saved_cmdlines, and the traced program's maps as the PROCMAPS option that
"trace-cmd record --proc-map" writes.  The layout is trace-cmd's for
version 6 (Documentation/trace-cmd/trace-cmd.dat.v6.5 in its source); the
numbers of the file's own headers are written big-endian too, as
trace-cmd on s390x writes them.

usage: mkdat.py OUTPUT_LOG OUT.dat
"""
import base64
import re
import struct
import sys

PAGE = 4096
OPTION_PROCMAPS = 10

log, out = sys.argv[1:3]
files, cur, buf = {}, None, []
pid = None
with open(log, errors='replace') as f:
    for line in f:
        line = line.rstrip('\n')
        m = re.match(r'^=== file (\S+)$', line)
        if m:
            cur, buf = m.group(1), []
            continue
        if cur and line == '=== end ' + cur:
            files[cur] = base64.b64decode(''.join(buf))
            cur = None
            continue
        if cur:
            buf.append(line.strip())
        m = re.match(r'^=== pid (\d+)$', line)
        if m:
            pid = int(m.group(1))

need = ['header_page', 'header_event', 'ftrace/user_stack_cookie',
        'ftrace/user_stack_deferred', 'syscalls/sys_enter_getppid', 'kallsyms',
        'printk_formats', 'saved_cmdlines', 'maps']
missing = [n for n in need if n not in files]
cpus = sorted(int(n[3:]) for n in files if re.match(r'^cpu\d+$', n))
if missing or not cpus or pid is None:
    sys.exit('mkdat.py: the log lacks %s' % (missing or 'cpu data' if cpus else 'the pid'))


def be(fmt, *v):
    return struct.pack('>' + fmt, *v)


# the PROCMAPS option: "pid count exe" then "start end path" per mapping
# of a file, as trace-cmd keeps them
maps = []
for line in files['maps'].decode().splitlines():
    f = line.split()
    if len(f) >= 6 and f[5].startswith('/'):
        a, b = (int(x, 16) for x in f[0].split('-'))
        maps.append((a, b, f[5]))
exe = maps[0][2]
pm = '%x %x %s\n' % (pid, len(maps), exe) + ''.join('%x %x %s\n' % m for m in maps)

# kallsyms: the text symbols only (what names kernel frames), a third of
# the size with KALLSYMS_ALL
files['kallsyms'] = b''.join(
    line for line in files['kallsyms'].splitlines(keepends=True)
    if len(line.split()) >= 3 and line.split()[1] in (b'T', b't', b'W', b'w'))

h = bytearray(b'\x17\x08\x44tracing6\0')
h += bytes([1, 8]) + be('I', PAGE)		# big-endian, 8-byte longs
for n in ('header_page', 'header_event'):
    h += n.encode() + b'\0' + be('Q', len(files[n])) + files[n]
ftrace = [n for n in files if n.startswith('ftrace/')]
h += be('I', len(ftrace))
for n in ftrace:
    h += be('Q', len(files[n])) + files[n]
h += be('I', 1) + b'syscalls\0' + be('I', 1)
h += be('Q', len(files['syscalls/sys_enter_getppid'])) + files['syscalls/sys_enter_getppid']
h += be('I', len(files['kallsyms'])) + files['kallsyms']
h += be('I', len(files['printk_formats'])) + files['printk_formats']
h += be('Q', len(files['saved_cmdlines'])) + files['saved_cmdlines']
h += be('I', len(cpus))
h += b'options  \0'
data = pm.encode() + b'\0'
h += be('HI', OPTION_PROCMAPS, len(data)) + data
h += be('H', 0)
h += b'flyrecord\0'
table = len(h)
h += b'\0' * (16 * len(cpus))
if len(h) % PAGE:
    h += b'\0' * (PAGE - len(h) % PAGE)
for i, c in enumerate(cpus):
    raw = files['cpu%d' % c]
    if len(raw) % PAGE:
        sys.exit('mkdat.py: cpu%d data is %d bytes, not whole pages' % (c, len(raw)))
    struct.pack_into('>QQ', h, table + 16 * i, len(h) if raw else 0, len(raw))
    h += raw
with open(out, 'wb') as f:
    f.write(h)
print('%s: %d bytes, %d CPUs (%s bytes of pages), pid %d, %s' %
      (out, len(h), len(cpus), '+'.join(str(len(files['cpu%d' % c])) for c in cpus), pid, exe))
