#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every reader must see the same requests in a trace.dat.

Usage: readers.py USTACK_RAW_OUT KSHARK_OUT
       readers.py --named USTACK_OUT TCREPORT_OUT

  USTACK_RAW_OUT  `ustack -r -q TRACE.dat` (libustack's tool)
  KSHARK_OUT      `KSHARK_STACK_RAW=1 kshark_stack PLUGIN.so TRACE.dat
                  ftrace/user_stack_cookie` (the KernelShark plugin's stacks
                  of each cookie record, i.e. of each request)

Each output is normalised to a multiset of requests
  (pid, cookie, asking event name, kernel frames, user frames, status)
with addresses as integers, names without their system, and the status
one of complete, truncated, empty, lost, never-arrived.  The formats are
normalised here; the readers are not asked to print alike.  Exits 1 and
prints the differences when the multisets differ, or when all are empty.

--named compares the named frames of `ustack -q TRACE.dat` (the tool)
with `trace-cmd report TRACE.dat` of trace-cmd with our series (each
event followed by its stacks, user frames named): requests as
  (pid, asking event name, kernel frames, user frames, status)
with frames as printed ("name+0xoff", "name+0xoff (binary)"); the
report prints no cookie.  A request whose event is not in the trace is
shown by the report at its cookie record (named user_stack_cookie).
"""
import re
import sys
from collections import Counter

UNSEEN = "(event not seen)"
HEX = re.compile(r"\(([0-9a-f]+)\)$")


def kaddr(line):
    """A kernel frame line of the readers: '=> name+0xoff (addr)',
    '=> [ftrace trampoline] (7fffffff)' or '=> 0xaddr'."""
    body = line[3:].strip()
    m = HEX.search(body)
    if m:
        return int(m.group(1), 16)
    return int(body.split()[0], 16)


def ustack(path, named=False):
    """The requests of the tool's output: `ustack -r -q` (addresses), or
    with named, `ustack -q` (frames as printed, no cookie, and an unseen
    event under the name the series' report shows it by)."""
    reqs = Counter()
    cur = None

    def flush():
        if not cur or cur["status"] == "no-cookie":
            return
        if named:
            reqs[(cur["pid"], cur["name"], tuple(cur["k"]), tuple(cur["u"]),
                  cur["status"])] += 1
        else:
            reqs[(cur["pid"], cur["cookie"], cur["name"], tuple(cur["k"]),
                  tuple(cur["u"]), cur["status"])] += 1

    # (an event without a cookie ends its line after the status)
    head = re.compile(r"^\S.*-(\d+) \[\d+\] \d+\.\d+ (?:\(\S+\) )?(\S+) "
                      r"status=([a-z-]+)\S*(?: cookie=0x([0-9a-f]+))?")
    unseen = "user_stack_cookie" if named else UNSEEN
    for line in open(path):
        m = head.match(line)
        if m:
            flush()
            name = m.group(2)
            name = unseen if name == "unseen-event" else name.split(":")[-1]
            cur = {"pid": int(m.group(1)),
                   "cookie": int(m.group(4) or "0", 16), "name": name,
                   "status": m.group(3), "k": [], "u": []}
        elif cur and line.startswith("  k "):
            cur["k"].append(named_kframe(line[4:]) if named
                            else int(line.split()[1], 16))
        elif cur and line.startswith("  u "):
            cur["u"].append(line[4:].rstrip("\n") if named
                            else int(line.split()[1], 16))
    flush()
    return reqs


def stacks(lines, i):
    """The " <kernel stack>" and " <user stack>" blocks from lines[i] on,
    as trace-cmd report with the series prints them: kernel
    frames, user frames (inlined functions and source lines left out: the
    tool prints none), the status (None: no user stack block), and the
    index of the first line after them."""
    k, u, status = [], [], None
    if i < len(lines) and lines[i] == " <kernel stack>":
        i += 1
        while i < len(lines) and lines[i].startswith(" => "):
            k.append(named_kframe(lines[i][4:]))
            i += 1
    if i < len(lines) and lines[i].startswith(" <user stack>"):
        # the unwinder's mark ([sframe], [sframe+fp]) is not a status
        rest = [w for w in lines[i][len(" <user stack>"):].split()
                if not re.fullmatch(r"\[sframe(\+fp)?\]", w)]
        status = rest[0] if rest else "complete"
        i += 1
        while i < len(lines) and lines[i].startswith(" => "):
            if " [inlined] " not in lines[i]:
                u.append(re.sub(r" [^ ()]+:\d+$", "", lines[i][4:]))
            i += 1
    return k, u, status, i


def kshark(path):
    """`kshark_stack` with KSHARK_STACK_RAW=1: a line "NAME pid=P cpu=C
    cookie=0xC", a "time" line, then the stack block as libustack prints it
    for report, frames as addresses."""
    reqs = Counter()
    head = re.compile(r"^(\S.*) pid=(\d+) cpu=\d+ cookie=0x([0-9a-f]+)$")
    lines = open(path).read().split("\n") + [""]
    i = 0
    while i < len(lines):
        m = head.match(lines[i])
        i += 1
        if not m:
            continue
        k, u, status = [], [], "complete"
        if lines[i].startswith("time "):
            i += 1
        if lines[i] == " <kernel stack>":
            i += 1
            while lines[i].startswith(" => "):
                k.append(kaddr(lines[i][1:]))
                i += 1
        if lines[i].startswith(" <user stack>"):
            rest = [w for w in lines[i][len(" <user stack>"):].split()
                    if not re.fullmatch(r"\[sframe(\+fp)?\]", w)]
            status = rest[0] if rest else "complete"
            i += 1
            while lines[i].startswith(" => "):
                u.append(int(lines[i].split()[1], 16))
                i += 1
        reqs[(int(m.group(2)), int(m.group(3), 16), m.group(1), tuple(k),
              tuple(u), status)] += 1
    return reqs


def named_kframe(text):
    """'name+0xoff' or a bare address, the report's ' (addr)' removed."""
    text = re.sub(r" \([0-9a-f]+\)$", "", text.strip())
    if re.fullmatch(r"(0x)?[0-9a-f]+", text):
        return "0x%x" % int(text, 16)
    return text


def tcreport(path):
    reqs = Counter()
    ev = re.compile(r"^(?:\S+: )?\s*\S.*-(\d+)\s+\[\d+\]\s+\S+\s+"
                    r"\d+\.\d+: (\S+):")
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = ev.match(lines[i])
        i += 1
        if not m:
            continue
        k, u, status, i = stacks(lines, i)
        if status:
            reqs[(int(m.group(1)), m.group(2), tuple(k), tuple(u),
                  status)] += 1
    return reqs


def named_main(a, b):
    ref, got = ustack(a, named=True), tcreport(b)
    print("requests: ustack %d, trace-cmd report %d" %
          (sum(ref.values()), sum(got.values())))
    for key in sorted((ref - got).keys()):
        print("only in ustack: %r" % (key,))
    for key in sorted((got - ref).keys()):
        print("only in trace-cmd report: %r" % (key,))
    if not ref:
        print("no requests at all")
        return 1
    return 0 if ref == got else 1


def show(key):
    pid, cookie, name, k, u, status = key
    return "pid %d cookie 0x%x %s [%s | %s] %s" % (
        pid, cookie, name, " ".join("%x" % a for a in k),
        " ".join("%x" % a for a in u), status)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--named":
        return named_main(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    got = {"ustack": ustack(sys.argv[1]), "kshark": kshark(sys.argv[2])}
    counts = {n: sum(r.values()) for n, r in got.items()}
    print("requests: " + ", ".join("%s %d" % kv for kv in counts.items()))
    bad = 0
    ref = got["ustack"]
    for n in ("kshark",):
        if got[n] == ref:
            continue
        bad = 1
        for key in sorted((ref - got[n]).keys()):
            print("only in ustack, not in %s: %s" % (n, show(key)))
        for key in sorted((got[n] - ref).keys()):
            print("only in %s, not in ustack: %s" % (n, show(key)))
    if not counts["ustack"]:
        print("no requests at all")
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
