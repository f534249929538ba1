#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check what the libtraceevent plugin prints for each stack record
against oracles the project did not write.

  oracle.py PLUGIN_OUT RAW_OUT KALLSYMS [--big-endian]
  oracle.py --others PLUGIN_OUT NOPLUGIN_OUT
  oracle.py --subset SHOWN_OUT WHOLE_OUT

PLUGIN_OUT: `trace-cmd report FILE` with the plugin; RAW_OUT: `trace-cmd
report -R FILE` (libtraceevent's own decoding of every field: the arrays
as ARRAY[bytes]), the same reader, so the records come in the same order;
KALLSYMS: `trace-cmd dump --kallsyms FILE` (the symbols saved in the file).

For each ftrace:user_stack_cookie record: kernel=N is the number of
addresses in its `kernel` array, and N lines follow, in order, each
`=> NAME+0xOFF (ADDR)`: ADDR the array's address, NAME a symbol of the
kallsyms at the greatest address <= ADDR (types a/A and '$' names
skipped, as libtraceevent's tep_parse_kallsyms() skips them), OFF the
distance from it; the trampoline mark 0x7fffffff prints as
`[ftrace trampoline]`.  For each ftrace:user_stack_deferred: nr=N is the
number of addresses of `frames`, N lines `=> 0xADDR` follow with them in
order, and the flags and depth are decoded as contract.md says.
No other record but ftrace:kernel_stack has frame lines (kernel stacks
printed once).
Prints a summary; exit 1 on the first mismatches (up to 10 listed).

--others: the report with the plugin and without it (the same reader
and plugins but this one) have the same lines, but for the text of the
two stack records and the frame lines after them.
--subset: each record of SHOWN_OUT (a filtered report), with the lines
after it, is a record of WHOLE_OUT (the report unfiltered), in order: a
record prints the same whatever else was shown.
"""
import bisect
import re
import sys

REC = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?([\d.]+):\s+(\w+):\s*(.*)$")


OURS = ("user_stack_cookie", "user_stack_deferred")


def records(path, head=None):
    """[(name, info, [continuation lines], line)] in file order; the
    lines before the first record go to head"""
    out = []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = REC.match(line)
        if m:
            out.append([m.group(5), m.group(6), [], line])
        elif out:
            out[-1][2].append(line)
        elif head is not None:
            head.append(line)
    return out


def others(with_path, without_path):
    h1, h2 = [], []
    a, b = records(with_path, h1), records(without_path, h2)
    bad = [] if h1 == h2 else ["the lines before the first record differ"]
    if len(a) != len(b):
        bad.append("%d records with the plugin, %d without" % (len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        if x[0] in OURS and y[0] == x[0]:
            # the same line up to the record's name
            if x[3][:x[3].index(x[0] + ":")] != y[3][:y[3].index(y[0] + ":")] or y[2]:
                bad.append("record %d: %r / %r" % (i, x[3], y[3]))
        elif x[3] != y[3] or x[2] != y[2]:
            bad.append("record %d: %r %r / %r %r" % (i, x[3], x[2][:3], y[3], y[2][:3]))
    print("%d records, %d of them stack records" % (len(a), sum(x[0] in OURS for x in a)))
    for m in bad[:10]:
        print("MISMATCH " + m)
    return 1 if bad else 0


def subset(shown_path, whole_path):
    shown, whole = records(shown_path), records(whole_path)
    j = 0
    for x in shown:
        while j < len(whole) and (whole[j][3], whole[j][2]) != (x[3], x[2]):
            j += 1
        if j == len(whole):
            print("MISMATCH not in the whole report as shown: %r %r" % (x[3], x[2][:3]))
            return 1
        j += 1
    print("%d records shown, each as in the whole report (%d)" % (len(shown), len(whole)))
    return 0


def raw_fields(info):
    """name=value pairs of a -R line; ARRAY[..] values as byte lists"""
    f = {}
    for m in re.finditer(r"(\w+)=(ARRAY\[([0-9a-f, ]*)\]|\S+)", info):
        if m.group(3) is not None:
            f[m.group(1)] = [int(b, 16) for b in m.group(3).split(",") if b.strip()]
        elif m.group(2).startswith("ARRAY[]"):
            f[m.group(1)] = []
        else:
            f[m.group(1)] = m.group(2)
    return f


def addrs(data, big):
    if len(data) % 8:
        return None
    return [int.from_bytes(bytes(data[i:i + 8]), "big" if big else "little")
            for i in range(0, len(data), 8)]


def num(v):
    return int(v, 0)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--others":
        sys.exit(others(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "--subset":
        sys.exit(subset(sys.argv[2], sys.argv[3]))
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    big = "--big-endian" in sys.argv[4:]
    syms = {}
    for line in open(sys.argv[3], errors="replace"):
        p = line.split()
        if len(p) < 3 or not re.fullmatch(r"[0-9a-f]{1,16}", p[0]):
            continue
        if p[1] in "aA" or p[2].startswith("$"):
            continue
        syms.setdefault(int(p[0], 16), []).append(p[2])
    starts = sorted(syms)

    plug, raw = records(sys.argv[1]), records(sys.argv[2])
    bad = []
    counts = {"user_stack_cookie": 0, "user_stack_deferred": 0,
              "kernel_frames": 0, "user_frames": 0, "names_checked": 0}
    if len(plug) != len(raw):
        bad.append("%d records with the plugin, %d raw" % (len(plug), len(raw)))
    for i, (p, r) in enumerate(zip(plug, raw)):
        name = p[0]
        if name != r[0]:
            bad.append("record %d: %s with the plugin, %s raw" % (i, name, r[0]))
            break
        frames = [x for x in p[2] if x.startswith("=> ")]
        if name not in counts:
            if frames and name != "kernel_stack":
                bad.append("record %d (%s): %d frame lines" % (i, name, len(frames)))
            continue
        counts[name] += 1
        f = raw_fields(r[1])
        info = p[1]
        where = "record %d (%s cookie=%s)" % (i, name, f.get("cookie"))
        if not info.startswith("cookie=%#x " % num(f["cookie"])):
            bad.append("%s: line %r" % (where, info))
        arr = f.get("kernel" if name == "user_stack_cookie" else "frames")
        a = addrs(arr, big) if arr is not None else None
        if a is None:
            bad.append("%s: no raw array" % where)
            continue
        flags = num(f.get("flags", "0"))
        if name == "user_stack_cookie":
            counts["kernel_frames"] += len(a)
            want = "cookie=%#x kernel=%d" % (num(f["cookie"]), len(a))
            if flags & 1:
                want += " (no user stack)"
            if info != want:
                bad.append("%s: %r, want %r" % (where, info, want))
            if len(frames) != len(a):
                bad.append("%s: %d frame lines, %d addresses" % (where, len(frames), len(a)))
                continue
            for addr, line in zip(a, frames):
                if addr == 0x7fffffff:
                    if line != "=> [ftrace trampoline] (7fffffff)":
                        bad.append("%s: %r for the trampoline mark" % (where, line))
                    continue
                j = bisect.bisect_right(starts, addr) - 1
                if j < 0:
                    ok = line == "=> %x" % addr
                else:
                    s = starts[j]
                    ok = any(line == "=> %s+%#x (%x)" % (n, addr - s, addr)
                             for n in syms[s])
                    counts["names_checked"] += 1
                if not ok:
                    want = "=> %s+%#x (%x)" % (syms[starts[j]][0], addr - starts[j], addr) \
                        if j >= 0 else "=> %x" % addr
                    bad.append("%s: %r, kallsyms says %r" % (where, line, want))
        else:
            counts["user_frames"] += len(a)
            depth = num(f.get("depth", str(len(a))))
            want = "cookie=%#x tgid=%d nr=%d" % (num(f["cookie"]), num(f["tgid"]), len(a))
            if flags & 1 or depth != len(a):
                want += " depth=%d" % depth
            if flags & 1:
                want += " (truncated)"
            if flags & 2:
                want += " (late)"
            if not a:
                want += " empty (user unwind failed)"
            if flags & 8:
                want += " [sframe+fp]" if flags & 4 else " [sframe]"
            if info != want:
                bad.append("%s: %r, want %r" % (where, info, want))
            got = [line for line in frames]
            if got != ["=> %#x" % x for x in a]:
                bad.append("%s: frames %r, raw %r" % (where, got[:8], ["%#x" % x for x in a][:8]))
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    for b in bad[:10]:
        print("MISMATCH " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
