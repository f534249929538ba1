#!/usr/bin/env python3
"""perfopen.py ID: open a PERF_TYPE_TRACEPOINT perf event for the event of
tracefs id ID on this task, as `perf record -e SYSTEM:NAME` does.  Exits 0
when the kernel opened it, 1 with the errno when it refused, 2 when
asked wrong."""
import ctypes
import ctypes.util
import os
import struct
import sys

PERF_TYPE_TRACEPOINT = 2
PERF_ATTR_SIZE_VER5 = 112
SYS_perf_event_open = {"x86_64": 298, "s390x": 331}[os.uname().machine]

if len(sys.argv) != 2 or not sys.argv[1].isdigit():
    print("usage: perfopen.py ID", file=sys.stderr)
    sys.exit(2)
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
# type, size, config, sample_period, sample_type, read_format, flags (the
# rest zero): counting only, disabled until enabled
attr = struct.pack("=IIQQQQQ", PERF_TYPE_TRACEPOINT, PERF_ATTR_SIZE_VER5,
                   int(sys.argv[1]), 0, 0, 0, 1)
attr += bytes(PERF_ATTR_SIZE_VER5 - len(attr))
buf = ctypes.create_string_buffer(attr, len(attr))
fd = libc.syscall(SYS_perf_event_open, buf, 0, -1, -1, 0)
if fd < 0:
    err = ctypes.get_errno()
    print(f"perf_event_open(tracepoint {sys.argv[1]}): {os.strerror(err)}")
    sys.exit(1)
os.close(fd)
print(f"perf_event_open(tracepoint {sys.argv[1]}): opened")
