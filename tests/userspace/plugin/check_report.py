#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Check the merged stacks that plugin_unwind_deferred prints in the output
of `trace-cmd report` (read from stdin or the file given).

Each ftrace:user_stack_cookie record carries the kernel stack of the event
that asked (printed as "kernel=N" and N "=> func (addr)" lines).  The
expected asking event is the record just before the cookie on the same
CPU from the same pid (kernel_stack records of that pid may sit between).
At each user_stack_deferred with "events=N" the plugin must print N
blocks, one per cookie record of that (pid, cookie) in order, each in the
layout of the series' trace-cmd report: a line " NAME [CPU] TS" naming
the event, " <kernel stack>" and its kernel frames (the same addresses as
its cookie record printed), then " <user stack>" (a status word after it
when the stack did not come complete) and the user frames (nr of them,
the same in every block; raw " => 0xADDR" when the binaries are not
found).  When SFrame took part in the user unwind, " [sframe]" or
" [sframe+fp]" ends the " <user stack>" line of each block and the
user_stack_deferred line before " events=N"; the two must agree (no mark:
frame pointers, or a kernel that does not say).  A cookie record that says
"(no user stack)" or "(after its user stack)" prints its one block at
once.

Prints a JSON summary; exits 1 if a check failed.  --expect-NAME N adds a
check that the summary's NAME (dashes for underscores) is N.
"""
import json
import re
import sys

REC = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\w+):\s?(.*)$")
ADDR_PAREN = re.compile(r"\(([0-9a-f]+)\)\s*$")
EVENT_HDR = re.compile(r"^ (\S.*?) \[(\d+)\] (\d+\.\d+)$")
HDR_DEF = re.compile(r"cookie=0x([0-9a-f]+) tgid=(-?\d+) nr=(\d+)")
HDR_COOKIE = re.compile(r"cookie=0x([0-9a-f]+) kernel=(\d+)")
UNWINDER = re.compile(r"^(.*?)\s*\[(sframe|sframe\+fp)\]$")
HDR_UNWINDER = re.compile(r" \[(sframe|sframe\+fp)\](?: events=\d+)?$")
PRERELEASE = "pre-release unwind:* record format: record the trace again"
NOT_SEEN = "(event not seen)"


def parse(lines):
    recs = []
    cur = None
    for ln in lines:
        ln = ln.rstrip("\n")
        m = REC.match(ln)
        if m:
            cur = {"comm": m.group(1).strip(), "pid": int(m.group(2)),
                   "cpu": int(m.group(3)), "ts": m.group(4),
                   "name": m.group(5), "info": m.group(6), "more": []}
            recs.append(cur)
        elif cur is not None:
            cur["more"].append(ln)
    return recs


def frame_addr(ln):
    m = ADDR_PAREN.search(ln)
    if m:
        return int(m.group(1), 16)
    try:
        return int(ln[3:].strip(), 16)
    except ValueError:
        return None


def own_frames(rec):
    """The "=> " lines of a record before any merged block."""
    out = []
    for ln in rec["more"]:
        if EVENT_HDR.match(ln):
            break
        if ln.startswith("=> "):
            a = frame_addr(ln)
            if a is not None:
                out.append(a)
    return out


def user_frame(text):
    """A user frame line's frame: its address when raw, else its text
    (an inlined function's line is not a frame of its own)."""
    if " [inlined] " in text:
        return None
    try:
        return int(text.split()[0], 16)
    except ValueError:
        return text


def blocks_of(r, c, errors):
    blocks = []
    part = None
    for ln in r["more"]:
        h = EVENT_HDR.match(ln)
        if h:
            blocks.append({"name": h.group(1), "hdr": ln, "k": [], "u": [],
                           "status": None, "lost": False, "unwinder": ""})
            part = None
        elif not blocks:
            continue
        elif ln == " <kernel stack>":
            if part is not None:
                errors.append("cookie %x: kernel stack after %s" % (c, part))
            part = "kernel"
        elif ln.startswith(" <user stack>"):
            b = blocks[-1]
            part = "user"
            st = ln[len(" <user stack>"):].strip()
            m = UNWINDER.match(st)
            if m:
                st, b["unwinder"] = m.group(1), m.group(2)
            b["status"] = st or "complete"
            b["lost"] = b["status"] == "lost"
        elif ln.startswith(" => "):
            b = blocks[-1]
            if part == "user":
                f = user_frame(ln[4:])
                if f is not None:
                    b["u"].append(f)
            elif part == "kernel":
                a = frame_addr(ln[1:])
                if a is not None:
                    b["k"].append(a)
            else:
                errors.append("cookie %x: a frame outside a stack" % c)
    return blocks


def asking_event(hist, pid):
    """The name of the event before a cookie of @pid, from the records
    before it on its CPU; None when they do not tell."""
    for r in reversed(hist):
        if r["pid"] != pid:
            return None
        if r["name"] == "kernel_stack":
            continue
        if r["name"] in ("user_stack_cookie", "user_stack_deferred"):
            return None
        return r["name"]
    return None


def check_block(b, e, c, nr, user, stats, errors):
    """One merged block @b against the expected asker @e."""
    stats["merged_events"] += 1
    if nr is not None and len(b["u"]) != nr:
        errors.append("cookie %x: %d user frames, nr=%d"
                      % (c, len(b["u"]), nr))
    if user is not None and b["u"] != user:
        errors.append("cookie %x: user frames differ" % c)
    stats["user_frames_checked"] += len(b["u"])
    if b["unwinder"]:
        stats[b["unwinder"].replace("+", "_") + "_blocks"] += 1
    if b["name"] == NOT_SEEN:
        stats["unseen_events"] += 1
    elif e["name"] is not None and b["name"] != e["name"]:
        errors.append("cookie %x: event %s, expected %s"
                      % (c, b["name"], e["name"]))
    if e["kframes"] is not None:
        if b["k"] != e["kframes"]:
            errors.append("cookie %x: kernel frames %s, expected %s" %
                          (c, [hex(x) for x in b["k"]],
                           [hex(x) for x in e["kframes"]]))
        stats["kernel_frames_checked"] += len(b["k"])
    if e.get("nk") is not None and len(b["k"]) != e["nk"]:
        errors.append("cookie %x: %d kernel frames, kernel=%d"
                      % (c, len(b["k"]), e["nk"]))


def check(recs):
    errors = []
    stats = {"records": len(recs), "cookies": 0, "deferred": 0,
             "merged_deferred": 0, "merged_events": 0,
             "unseen_events": 0, "no_pending": 0, "evictions": 0,
             "kernel_frames_checked": 0, "user_frames_checked": 0,
             "late_merged": 0, "lost": 0, "prerelease_lines": 0,
             "prerelease_records": 0, "sframe_blocks": 0,
             "sframe_fp_blocks": 0}
    done = {}           # (pid, cookie) -> user frames already printed
    last = {}           # cpu -> recent records on that cpu
    pending = {}        # (pid, cookie) -> [expected askers]
    for r in recs:
        cpu = r["cpu"]
        hist = last.setdefault(cpu, [])
        if PRERELEASE in r["info"]:
            stats["prerelease_lines"] += 1
            stats["prerelease_records"] += 1
        elif (stats["prerelease_lines"] and
              r["name"] in ("user_stack_cookie", "user_stack_deferred")):
            # the pre-release records, not read: their own print format
            stats["prerelease_records"] += 1
        elif r["name"] == "user_stack_cookie":
            stats["cookies"] += 1
            m = HDR_COOKIE.search(r["info"])
            if not m:
                if "[unwind_deferred:" not in r["info"]:
                    errors.append("cookie record not understood: %s"
                                  % r["info"])
                hist.append(r)
                del hist[:-4]
                continue
            c, nk = int(m.group(1), 16), int(m.group(2))
            exp = {"name": asking_event(hist, r["pid"]), "kframes": None,
                   "nk": nk}
            bl = blocks_of(r, c, errors)
            if not bl:
                exp["kframes"] = own_frames(r)
                if len(exp["kframes"]) != nk:
                    errors.append("cookie %x: %d kernel lines, kernel=%d"
                                  % (c, len(exp["kframes"]), nk))
            if "(no user stack)" in r["info"] and bl:
                stats["lost"] += 1
                if len(bl) != 1 or not bl[0]["lost"] or bl[0]["u"]:
                    errors.append("lost cookie %x: %d blocks, marked %s"
                                  % (c, len(bl),
                                     bl[0]["lost"] if bl else None))
                else:
                    check_block(bl[0], exp, c, None, None, stats, errors)
            elif "(after its user stack)" in r["info"]:
                stats["late_merged"] += 1
                u = done.get((r["pid"], c))
                if u is None or len(bl) != 1:
                    errors.append("late cookie %x: %d blocks, user "
                                  "stack known: %s"
                                  % (c, len(bl), u is not None))
                else:
                    check_block(bl[0], exp, c, len(u), u, stats, errors)
            elif bl:
                errors.append("cookie %x: merged blocks at a cookie" % c)
            elif "(no user stack)" not in r["info"]:
                pending.setdefault((r["pid"], c), []).append(exp)
            stats["evictions"] += r["info"].count("evicted cookie")
        elif r["name"] == "user_stack_deferred":
            stats["deferred"] += 1
            m = HDR_DEF.search(r["info"])
            if not m:
                if "[unwind_deferred:" not in r["info"]:
                    errors.append("deferred record not understood: %s"
                                  % r["info"])
                hist.append(r)
                del hist[:-4]
                continue
            c, nr = int(m.group(1), 16), int(m.group(3))
            exp = pending.pop((r["pid"], c), None)
            me = re.search(r"events=(\d+)", r["info"])
            if not me:
                if any("no pending event" in x for x in r["more"]):
                    stats["no_pending"] += 1
                ulines = [x for x in r["more"] if x.startswith(" => ") and
                          user_frame(x[4:]) is not None]
                done[(r["pid"], c)] = [user_frame(x[4:]) for x in ulines]
                if len(ulines) != nr:
                    errors.append("cookie %x: %d user lines, nr=%d"
                                  % (c, len(ulines), nr))
                hist.append(r)
                del hist[:-4]
                continue
            stats["merged_deferred"] += 1
            nev = int(me.group(1))
            blocks = blocks_of(r, c, errors)
            if len(blocks) != nev:
                errors.append("cookie %x: events=%d but %d blocks"
                              % (c, nev, len(blocks)))
            if exp is None:
                errors.append("cookie %x of pid %d merged but no cookie "
                              "record was seen" % (c, r["pid"]))
                exp = []
            if len(exp) != nev:
                errors.append("cookie %x: %d cookie records, events=%d"
                              % (c, len(exp), nev))
            mu = HDR_UNWINDER.search(r["info"])
            first_u = None
            for b, e in zip(blocks, exp):
                if b["unwinder"] != (mu.group(1) if mu else ""):
                    errors.append("cookie %x: unwinder [%s] in a block, "
                                  "[%s] in the record"
                                  % (c, b["unwinder"],
                                     mu.group(1) if mu else ""))
                if first_u is None:
                    first_u = b["u"]
                elif b["u"] != first_u:
                    errors.append("cookie %x: user frames differ between "
                                  "events" % c)
                check_block(b, e, c, nr, None, stats, errors)
            done[(r["pid"], c)] = first_u
        hist.append(r)
        del hist[:-4]
    stats["never_completed"] = sum(len(v) for v in pending.values())
    return stats, errors


def main():
    args = sys.argv[1:]
    want = {}
    while args and args[0].startswith("--expect-"):
        want[args[0][len("--expect-"):].replace("-", "_")] = int(args[1])
        args = args[2:]
    f = open(args[0]) if args else sys.stdin
    stats, errors = check(parse(f))
    for k, v in want.items():
        if stats.get(k) != v:
            errors.append("%s is %s, expected %d" % (k, stats.get(k), v))
    stats["errors"] = errors[:20]
    print(json.dumps(stats, indent=1))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
