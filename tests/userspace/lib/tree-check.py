#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks `ustack --tree` against the stacks of ustack's text output.

Usage: tree-check.py TEXT TREE [--callee] [--sort KEYS] [--limit P]
                     [--max-stack N] [--no-kernel] [--weights FILE]

TEXT is `ustack` (text, the library's printer: kernel frames `k`, user
frames `u` with their object in parentheses, innermost first) and TREE
`ustack --tree` of the same trace with the same options.  From TEXT alone
this computes, per event, what perf report --children computes: per entry
(task, object, function, as --sort keys them) the events whose stack holds
it (children) and whose innermost frame it is (self), and the call graph
through each entry (callees from its outermost place, or callers from its
innermost); and compares every number TREE prints, its percentages and
its order.  --weights FILE: "time weight" lines (the event's time stamp
as TEXT prints it), the value of each event instead of 1.
Prints one line; exits 1 on a difference.
"""
import re
import sys

STATUS = {"never-arrived": "[user stack never arrived]",
          "empty": "[user stack empty]", "truncated": "[truncated]",
          "lost": "[user stack lost]"}
KERNEL = "[kernel.kallsyms]"


def parse_text(path, no_kernel, max_stack, weights):
    events = []
    cur = None
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        if not line.startswith(" "):
            m = re.match(r"(.*)-\d+ \[\d+\] (\d+\.\d+) (?:\(\S+\) )?(\S+) status=([a-z-]+)", line)
            cur = {"comm": m.group(1), "ts": m.group(2), "event": m.group(3),
                   "status": m.group(4), "k": [], "u": []}
            events.append(cur)
            continue
        m = re.match(r"  ([ku]) (\S+)(?: \((.*)\))?$", line)
        if not m:       # an address and its mark: 0xADDR [before exec]
            m = re.match(r"  ([ku]) (0x[0-9a-f]+) (\[.*\])$", line)
            fr = (m.group(2) + "_" + m.group(3), "")
        elif m.group(2).startswith("/"):        # an object, no symbol
            fr = (base(m.group(2)), m.group(2).rsplit("+", 1)[0])
        else:
            fr = (re.sub(r"\+0x[0-9a-f]+$", "", m.group(2)), m.group(3) or "")
        if m.group(1) == "k":
            cur["k"].append((fr[0], KERNEL))
        else:
            cur["u"].append(fr)
    out = []
    for e in events:
        fr = []
        if e["status"] in STATUS:
            fr.append((STATUS[e["status"]], ""))
        fr += e["u"][::-1]
        if not no_kernel:
            fr += e["k"][::-1]
        if max_stack and len(fr) > max_stack:
            fr = fr[len(fr) - max_stack:]
        v = weights.get(e["ts"], 0) if weights is not None else 1
        if weights is not None and e["ts"] not in weights:
            continue
        out.append((e["event"], e["comm"], tuple(fr), v))
    return out


def base(d):
    return d.rsplit("/", 1)[-1] if d else "[unknown]"


def check_flat(paths, out, summary):
    """--folded (event;comm;user frames;kernel frames_[k] value) or
    --summary (per event, the user paths with their values and shares)"""
    want = {}
    for ev, comm, fr, v in paths:
        if summary:
            key = (ev, comm) + tuple(f[0] for f in fr if f[1] != KERNEL)
        else:
            key = ";".join((ev, comm) + tuple(f[0] + ("_[k]" if f[1] == KERNEL else "")
                                              for f in fr))
        want[key] = want.get(key, 0) + v
    want = {k: v for k, v in want.items() if v}
    got = {}
    if summary:
        ev = cur = None
        tot = {}
        for line in open(out):
            line = line.rstrip("\n")
            m = re.match(r"# (\S+): (\d+) ", line)
            if m:
                ev = m.group(1)
                tot[ev] = int(m.group(2))
                continue
            if not line or line.startswith("#"):
                continue
            m = re.match(r" *(\d+\.\d\d)%  +(\d+)  (.*)$", line)
            if m:
                cur = [ev, m.group(3)]
                got[id(cur)] = (cur, int(m.group(2)), m.group(1))
            else:
                cur.append(line.strip())
        got = {tuple(c): (v, p) for c, v, p in got.values()}
        evt = {}
        for k, v in want.items():
            evt[k[0]] = evt.get(k[0], 0) + v
        want = {k: (v, "%.2f" % (100.0 * v / evt[k[0]])) for k, v in want.items()}
        if evt != tot:
            print("totals %r, want %r" % (tot, evt))
            return 1
    else:
        for line in open(out):
            k, v = line.rsplit(" ", 1)
            got[k] = int(v)
    if got != want:
        d = set(got.items()) ^ set(want.items())
        print("differs: %s" % sorted(d, key=str)[:4])
        return 1
    print("%d %s lines as computed from the text output" %
          (len(want), "summary" if summary else "folded"))
    return 0


def main():
    a = sys.argv[1:]
    text, tree = a[0], a[1]
    callee = "--callee" in a
    no_kernel = "--no-kernel" in a
    sort = a[a.index("--sort") + 1].split(",") if "--sort" in a else ["comm", "dso", "sym"]
    limit = float(a[a.index("--limit") + 1]) if "--limit" in a else 0.0
    max_stack = int(a[a.index("--max-stack") + 1]) if "--max-stack" in a else 0
    weights = None
    if "--weights" in a:
        weights = {}
        for l in open(a[a.index("--weights") + 1]):
            t, w = l.split()
            weights[t] = weights.get(t, 0) + int(w)
    paths = parse_text(text, no_kernel, max_stack, weights)
    framekey = "dso" in sort or "sym" in sort
    if "--folded" in a or "--summary" in a:
        sys.exit(check_flat(paths, tree, "--summary" in a))

    def key(comm, f):
        return tuple(comm if s == "comm" else base(f[1]) if s == "dso" else
                     ("[k] " if f[1] == KERNEL else "[.] ") + f[0] for s in sort)

    # the oracle, per event: entries and graphs
    want = {}
    for ev, comm, fr, v in paths:
        w = want.setdefault(ev, {"total": 0, "ent": {}, "graph": {}})
        w["total"] += v
        if not framekey:
            seq = fr[::-1] if callee else fr
            k = key(comm, None)
            c = w["ent"].setdefault(k, [0, 0])
            c[0] += v
            c[1] += v
            g = w["graph"].setdefault(k, {})
            for i in range(1, len(seq) + 1):
                p = tuple(x[0] + (" [k]" if x[1] == KERNEL else "") for x in seq[:i])
                g[p] = g.get(p, 0) + v
            continue
        seen = set()
        for j, f in enumerate(fr):
            k = key(comm, f)
            c = w["ent"].setdefault(k, [0, 0])
            if k not in seen:
                seen.add(k)
                c[0] += v
                # the graph from its outermost (caller) / innermost (callee) place
                if callee:
                    last = max(i for i, x in enumerate(fr) if key(comm, x) == k)
                    seq = fr[last::-1]
                else:
                    seq = fr[j:]
                g = w["graph"].setdefault(k, {})
                for i in range(1, len(seq) + 1):
                    p = tuple(x[0] + (" [k]" if x[1] == KERNEL else "") for x in seq[:i])
                    g[p] = g.get(p, 0) + v
            if j == len(fr) - 1:
                c[1] += v

    # what the tree prints
    got = {}
    order_bad = []
    cur = ent = None
    stack = []
    for line in open(tree):
        line = line.rstrip("\n")
        m = re.match(r"# (\S+): (\d+) (?:events|ns), ", line)
        if m:
            cur = got.setdefault(m.group(1), {"total": int(m.group(2)), "ent": {}, "graph": {}, "order": []})
            continue
        if not line or line.startswith("#"):
            continue
        if line.startswith(" " * 21):
            m = re.match(r" +(\d+\.\d\d)% +(\d+)  ( *)(.*)$", line)
            pc, v, ind, name = m.group(1), int(m.group(2)), len(m.group(3)), m.group(4)
            d = ind // 2
            stack[d:] = [name]
            cur["graph"][ent][tuple(stack)] = (v, pc)
            continue
        m = re.match(r" +(\d+\.\d\d)% +(\d+\.\d\d)% +(\d+)  (.*)$", line)
        fields = re.split(r"  +", m.group(4).strip())
        ent = tuple(fields)
        cur["ent"][ent] = (int(m.group(3)), m.group(1), m.group(2))
        cur["order"].append(ent)
        cur["graph"][ent] = {}
        stack = []

    bad = []
    nent = ngraph = 0
    for ev, w in want.items():
        g = got.get(ev)
        if g is None:
            bad.append("%s: no tree" % ev)
            continue
        if g["total"] != w["total"]:
            bad.append("%s: total %d, want %d" % (ev, g["total"], w["total"]))
        pct = lambda v: "%.2f" % (100.0 * v / w["total"]) if w["total"] else "0.00"
        wents = {k: c for k, c in w["ent"].items() if float(pct(c[0])) >= limit}
        if set(wents) != set(g["ent"]):
            bad.append("%s: entries %s, want %s" % (ev, sorted(set(g["ent"]) ^ set(wents))[:3], "..."))
            continue
        for k, (ch, se) in wents.items():
            nent += 1
            gv, gch, gse = g["ent"][k]
            if (gv, gch, gse) != (ch, pct(ch), pct(se)):
                bad.append("%s %s: %r, want %r" % (ev, k, (gv, gch, gse), (ch, pct(ch), pct(se))))
            wg = {p: (v, pct(v)) for p, v in w["graph"][k].items() if float(pct(v)) >= limit}
            # a branch under the limit hides what is under it too
            wg = {p: x for p, x in wg.items() if all(p[:i] in wg for i in range(1, len(p)))}
            ngraph += len(wg)
            if wg != g["graph"][k]:
                diff = set(wg.items()) ^ set(g["graph"][k].items())
                bad.append("%s %s graph: %s" % (ev, k, sorted(diff)[:3]))
        o = [(wents[k][0], wents[k][1]) for k in g["order"]]
        if o != sorted(o, reverse=True):
            bad.append("%s: entries not most first" % ev)
    if set(got) != set(want):
        bad.append("events %s, want %s" % (sorted(got), sorted(want)))
    if bad or not nent:
        print("; ".join(bad[:5]) or "nothing compared")
        sys.exit(1)
    print("%d events, %d entries, %d graph lines as computed from the text output" %
          (len(want), nent, ngraph))


main()
