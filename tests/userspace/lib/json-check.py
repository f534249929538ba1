#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks `ustack --json` against ustack's text output of the same trace.

Usage: json-check.py TEXT JSON [--multi] [--raw]

Every line of JSON must parse as one JSON object with every field of
ustack(1)'s JSON OUTPUT, and the text output is written again from those
objects alone, in the layout of the library's printer (ustack_print(3)):
event line, "k" and "u" lines, inlined functions and source lines; the two
must be equal.  --multi: the text names the buffer instance; --raw: the
text has addresses only.  Prints one line; exits 1 on a difference.
"""
import json
import sys

FIELDS = ["event", "time", "ts", "cpu", "tid", "pid", "comm", "instance",
          "status", "late", "evicted", "cookie", "unwinder", "depth",
          "kernel", "user"]
FRAME = ["addr", "mark", "symbol", "offset", "object", "file_addr",
         "inlined", "file", "line"]
MARK = {"not-an-address": "%s [not an address]", "before-exec": "%s [before exec]",
        "ftrace-trampoline": "[ftrace trampoline]"}


def frame(f, kernel, raw):
    assert list(f) == FRAME, list(f)
    a = f["addr"]
    if f["mark"] == "object-not-read":
        # both candidates: the offset in the object, and the address
        return [(f["object"] + "+0x", " (%s)" % a)]
    if f["mark"] in ("not-the-file-mapped", "build-id-mismatch"):
        return [(f["object"] + "+0x", " (%s) [%s]" % (a, f["mark"].replace("-", " ").replace(
            "build id", "build-id")))]
    if f["mark"]:
        return [MARK[f["mark"]] % a if "%s" in MARK[f["mark"]] else MARK[f["mark"]]]
    if raw or (f["symbol"] is None and f["object"] is None):
        return [a]
    if kernel:
        return ["%s+0x%x" % (f["symbol"], f["offset"])]
    if f["symbol"] is None:
        s = "%s+%s" % (f["object"], f["file_addr"])
    else:
        s = "%s+0x%x (%s)" % (f["symbol"], f["offset"], f["object"])
    out = ["%s [inlined] %s:%d" % (i["symbol"], i["file"], i["line"]) for i in f["inlined"]]
    if f["file"] is not None:
        s += " %s:%d" % (f["file"], f["line"])
    return out + [s]


def main():
    text, js = sys.argv[1], sys.argv[2]
    multi, raw = "--multi" in sys.argv, "--raw" in sys.argv
    inline = "--inline" in sys.argv
    want_lines = open(text).read().split("\n")
    out = []
    n = nf = 0
    for line in open(js):
        e = json.loads(line)
        assert list(e) == FIELDS, list(e)
        n += 1
        h = "%s-%d [%03d] %s " % (e["comm"] or "<...>", e["tid"], e["cpu"], e["time"])
        assert e["time"] == "%d.%09d" % divmod(e["ts"], 10**9)
        if multi or e["instance"] != "top":
            h += "(%s) " % e["instance"]
        h += "%s status=%s" % (e["event"], e["status"])
        if e["late"]:
            h += ",late"
        if e["evicted"]:
            h += ",evicted"
        if e["unwinder"] and "sframe" in e["unwinder"]:
            h += "," + e["unwinder"]
        if e["cookie"]:
            h += " cookie=" + e["cookie"]
        if e["pid"] is not None:
            h += " tgid=%d" % e["pid"]
        if e["status"] == "truncated":
            h += " depth=%d" % e["depth"]
        out.append(h)
        for f in e["kernel"]:
            out += ["  k " + x for x in frame(f, True, raw)]
            nf += 1
        for f in e["user"]:
            fr = frame(f, False, raw)
            if isinstance(fr[0], tuple):
                # the text's own line, if it has that shape
                t = want_lines[len(out)] if len(out) < len(want_lines) else ""
                fr = [t[4:] if t.startswith("  u " + fr[0][0]) and t.endswith(fr[0][1])
                      else fr[0][0] + "?" + fr[0][1]]
            if not inline:
                fr = [x.rsplit(" ", 1)[0] if x.endswith(":%s" % f["line"]) and f["file"] else x
                      for x in fr if "[inlined]" not in x]
            out += ["  u " + x for x in fr]
            nf += 1
        out.append("")
    want = open(text).read().split("\n")
    if want and want[-1] == "":
        want.pop()
    if out != want:
        for i, (a, b) in enumerate(zip(out, want)):
            if a != b:
                print("line %d: json gives %r, text has %r" % (i + 1, a, b))
                break
        else:
            print("json gives %d lines, text has %d" % (len(out), len(want)))
        sys.exit(1)
    if not n:
        print("no events")
        sys.exit(1)
    print("%d events, %d frames: the text output, written again from the JSON" % (n, nf))


main()
