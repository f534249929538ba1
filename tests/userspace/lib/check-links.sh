#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-links.sh [REPO]: every relative link of the Markdown files that
# git tracks in REPO ([text](path), [text](path#anchor), [text](#anchor))
# must name a file or directory that exists and, with an anchor, a heading
# of that file (GitHub's anchors: lower case, punctuation dropped, spaces
# as hyphens).  Links inside code are not links.  In a directory that is
# not a git tree, every .md file under it is read.  Prints each broken link
# as FILE:LINE: TARGET (why), and exits 1 if there is one.
set -u
REPO=${1:-$(cd "$(dirname "$0")/../../.." && pwd)}
cd "$REPO" || exit 2
# the tracked files of a git tree, or every .md file of a plain directory
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	git ls-files -z '*.md'
else
	find . -name '*.md' -not -path '*/.git/*' -print0
fi | python3 -c '
import os, re, sys

def anchors(path, cache={}):
    if path not in cache:
        seen, out, fence = {}, set(), False
        for line in open(path, encoding="utf-8"):
            if line.lstrip().startswith("```"):
                fence = not fence
            m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
        cache[path] = out
    return cache[path]

bad = 0
for md in sys.stdin.read().split("\0"):
    if not md:
        continue
    fence = False
    for no, line in enumerate(open(md, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue                        # http:, mailto: ...
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) \
                if path else md
            why = None
            if not os.path.exists(dest):
                why = "no such file"
            elif anchor and dest.endswith(".md") and \
                    anchor not in anchors(dest):
                why = "no heading #" + anchor
            if why:
                print("%s:%d: %s (%s)" % (md, no, target, why))
                bad += 1
sys.exit(1 if bad else 0)
'
