# SPDX-License-Identifier: GPL-2.0
"""The TCG plugin's profiles (bench/tcg-plugin/insn-count.c, prof=PATH),
by function: the reading bench/profile.sh, bench/floor.sh and
bench/s390x.sh share.

A profile is written per count:
	prof seq=S vcpu=V id=ID
	prof tb=VADDR insns=N		(one line per block that ran)
	prof end
"""
import bisect
import re


class Symbols:
    """Name a block's address by the text symbol at or below it.

    user_below: addresses under it are user space ('[user]'; x86-64's
    kernel lies above 1 << 63); max_size: a symbol farther below than
    that is none ('[user]'; s390x's user and kernel addresses overlap in
    value, its kernel text is one block)."""

    def __init__(self, pairs, user_below=None, max_size=None):
        pairs = sorted(pairs)
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]
        self.user_below, self.max_size = user_below, max_size

    def __call__(self, pc):
        if self.user_below is not None and pc < self.user_below:
            return '[user]'
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            return '[?]'
        if self.max_size is not None and pc - self.addrs[i] >= self.max_size:
            return '[user]'
        return self.names[i]


def system_map(path):
    """The text symbols of an x86-64 System.map"""
    pairs = []
    for line in open(path):
        a, t, name = line.split()[:3]
        if t in 'tTwW':
            pairs.append((int(a, 16), name))
    return Symbols(pairs, user_below=1 << 63)


def profiles(log, sym, ids=None):
    """Each count's instructions by function, in the order of the log;
    with ids, only the counts of those marker IDs"""
    out, cur, keep = [], None, True
    for line in open(log):
        if line.startswith('prof seq='):
            cur = {}
            m = re.search(r'id=(\d+)', line)
            keep = ids is None or (m and m.group(1) in ids)
        elif line.startswith('prof tb='):
            tb, insns = line.split()[1:3]
            s = sym(int(tb[3:], 16))
            cur[s] = cur.get(s, 0) + int(insns[6:])
        elif line.startswith('prof end') and keep:
            out.append(cur)
    return out
