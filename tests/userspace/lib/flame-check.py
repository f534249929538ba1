#!/usr/bin/env python3
"""Checks ustack --flamegraph's SVG against the same trace's --folded.

usage: flame-check.py FOLDED SVG [--ms]

The SVG is read with Python's XML parser (it must be well-formed).  Each
frame is a <g> with a <title> "NAME (VALUE events|VALUE ms, P%)" and a
<rect>.  From the folded stacks (tested against perf and stock report
elsewhere) every path prefix's total is recounted here; the graph must
have exactly the frames of those prefixes that are at least 0.1 pixel
wide, each at its depth (y), with its total and a width proportional to
it, inside its parent's span.  --ms: the values are weights in ns that
the graph shows in ms.  Prints one line; exit 0 when all holds.
"""
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter

folded, svg = sys.argv[1], sys.argv[2]
ms = '--ms' in sys.argv[3:]
NS = '{http://www.w3.org/2000/svg}'
WIDTH, PAD, FRAME_H, BOTTOM, MIN_W = 1200, 10, 16, 10, 0.1


def bad(why):
    print('FAIL ' + why)
    sys.exit(1)


# the prefixes of the folded stacks, with their totals
totals = Counter()
for line in open(folded):
    key, count = line.rstrip('\n').rsplit(' ', 1)
    frames = key.split(';')
    totals[()] += int(count)
    for i in range(1, len(frames) + 1):
        totals[tuple(frames[:i])] += int(count)
total = totals[()]
scale = (WIDTH - 2 * PAD) / total

try:
    root = ET.parse(svg).getroot()
except ET.ParseError as e:
    bad('not well-formed XML: %s' % e)
height = int(root.get('height'))
TITLE = re.compile(r'^(.*) \((\d+) events?, ([\d.]+)%\)$' if not ms else
                   r'^(.*) \(([\d.]+) ms, ([\d.]+)%\)$')
got = []
for g in root.iter(NS + 'g'):
    t, r = g.find(NS + 'title'), g.find(NS + 'rect')
    m = TITLE.match(t.text or '')
    if not m or r is None:
        bad('frame without a title or rect: %r' % (t.text,))
    y = int(r.get('y'))
    depth = (height - BOTTOM - y) // FRAME_H - 1
    got.append({'name': m.group(1), 'value': float(m.group(2)), 'depth': depth,
                'x': float(r.get('x')), 'w': float(r.get('width'))})

# the frames wanted: the prefixes at least MIN_W wide, "all" the root
want = Counter()
for path, v in totals.items():
    if v * scale >= MIN_W:
        val = round(v / 1e6, 3) if ms else v
        want[(len(path), path[-1] if path else 'all', val)] += 1
have = Counter((f['depth'], f['name'], round(f['value'], 3) if ms else int(f['value']))
               for f in got)
if want != have:
    bad('frames differ: missing %s; extra %s' % (list((want - have).items())[:3],
                                                list((have - want).items())[:3]))
# widths proportional to the totals, each frame inside its parent's span
spans = {}
for f in got:
    v = f['value'] * 1e6 if ms else f['value']
    if abs(f['w'] - v * scale) > 0.1 + (scale * 1e3 if ms else 0):
        bad('%s: width %.1f for %s' % (f['name'], f['w'], f['value']))
    spans.setdefault(f['depth'], []).append((f['x'], f['x'] + f['w']))
for f in got:
    if f['depth'] and not any(a - 0.1 <= f['x'] and f['x'] + f['w'] <= b + 0.1
                              for a, b in spans.get(f['depth'] - 1, [])):
        bad('%s at depth %d outside every parent' % (f['name'], f['depth']))
print('%d frames of %d stacks, %d deep, widths and nesting as --folded gives them' %
      (len(got), sum(1 for _ in open(folded)), max(f['depth'] for f in got)))
