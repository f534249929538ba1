# SPDX-License-Identifier: GPL-2.0
"""Real standard-library work for bench/python-real.sh: each round
round-trips data through json, re, difflib, decimal, email and
ElementTree and through a file (write, read, stat), so the system calls
come from many distinct places in the interpreter and its libraries.
Deterministic with PYTHONHASHSEED=0.  Usage: pyreal.py [ROUNDS [DIR]]"""
import decimal
import difflib
import email
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
tmp = sys.argv[2] if len(sys.argv) > 2 else '/tmp'
path = os.path.join(tmp, 'pyreal.%d' % os.getpid())
words = ('alpha beta gamma delta epsilon zeta eta theta iota kappa lambda '
         'mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega').split()
total = 0
for r in range(rounds):
    rows = [{'id': i, 'name': words[(i * 7 + r) % len(words)],
             'tags': words[i % 5:i % 5 + 3], 'v': i * 1.5 + r}
            for i in range(40)]
    with open(path, 'w') as f:
        json.dump(rows, f)
    with open(path) as f:
        back = json.load(f)
    text = '\n'.join('%s=%s' % (x['name'], ','.join(x['tags'])) for x in back)
    total += len(re.findall(r'(\w+)=(\w+),(\w+)', text))
    a = text.splitlines()
    b = [l.upper() if i % 3 == 0 else l for i, l in enumerate(a)]
    total += sum(1 for _ in difflib.unified_diff(a, b, lineterm=''))
    decimal.getcontext().prec = 40
    d = sum((decimal.Decimal(x['v']) / decimal.Decimal(7) for x in back),
            decimal.Decimal(0))
    total += int(d)
    msg = email.message_from_string(
        'From: a@example.org\nTo: b@example.org\nSubject: round %d\n\n%s\n'
        % (r, text[:200]))
    total += len(msg.as_string())
    root = ET.fromstring('<rows>%s</rows>' % ''.join(
        '<row id="%d" name="%s">%s</row>' % (x['id'], x['name'], x['v'])
        for x in back))
    total += len(ET.tostring(root))
    total += os.stat(path).st_size + os.getppid() * 0
os.unlink(path)
print(total)
