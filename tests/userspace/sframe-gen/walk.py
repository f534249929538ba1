#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run sframe-gen --check on every ELF executable and shared object.

    walk.py TOOL STEP DIR... [-- NAMED...]

Walks each DIR (symbolic links are not followed, and a file reached twice
through hard links is taken once), keeps the x86-64 ELF files of type
ET_EXEC or ET_DYN with a non-empty .eh_frame (read from the ELF headers
here, not by the tool), takes every STEP-th of them in sorted order plus
the NAMED ones, and runs `TOOL FILE --check --stats` on each.  A file
passes when the tool exits 0, or when it finds no FDE at all in .eh_frame
(a CIE alone) and readelf lists none either.  Any other exit (a crash, a
sanitizer report, a refused check) is a failure.  Prints one FAIL line per
failure, the totals and the coverage over all files, and "N passed, N failed".
"""
import os
import struct
import subprocess
import sys
import time


def eh_frame_object(path):
    """True for an x86-64 ET_EXEC/ET_DYN with a non-empty .eh_frame."""
    try:
        with open(path, 'rb') as f:
            h = f.read(64)
            if len(h) < 64 or h[:4] != b'\x7fELF' or h[4] != 2 or h[5] != 1:
                return False
            e_type, e_machine = struct.unpack_from('<HH', h, 16)
            if e_type not in (2, 3) or e_machine != 62:
                return False
            shoff, = struct.unpack_from('<Q', h, 40)
            shentsize, shnum, shstrndx = struct.unpack_from('<HHH', h, 58)
            if not shoff or shentsize != 64 or not shnum or shstrndx >= shnum:
                return False
            f.seek(shoff)
            sh = f.read(shnum * 64)
            if len(sh) < shnum * 64:
                return False
            secs = [struct.unpack_from('<IIQQQQ', sh, i * 64) for i in range(shnum)]
            stro, strsz = secs[shstrndx][4], secs[shstrndx][5]
            f.seek(stro)
            names = f.read(strsz)
            for name, typ, _, _, _, size in secs:
                end = names.find(b'\0', name)
                if names[name:end] == b'.eh_frame' and typ != 8 and size > 0:
                    return True
    except OSError:
        pass
    return False


def candidates(dirs):
    seen = set()
    out = []
    for d in dirs:
        for root, subdirs, files in os.walk(d, followlinks=False):
            subdirs.sort()
            for n in sorted(files):
                p = os.path.join(root, n)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                if not os.path.isfile(p) or os.path.islink(p):
                    continue
                key = (st.st_dev, st.st_ino)
                if key in seen:
                    continue
                seen.add(key)
                if eh_frame_object(p):
                    out.append(p)
    return out


def main():
    args = sys.argv[1:]
    named = []
    if '--' in args:
        i = args.index('--')
        args, named = args[:i], args[i + 1:]
    tool, step, dirs = args[0], int(args[1]), args[2:]
    t0 = time.time()
    files = candidates(dirs)
    pick = files[::step] if step > 1 else files
    for n in named:
        r = os.path.realpath(n)
        if r not in pick:
            pick.append(r)
    print('walk: %d ELF objects with .eh_frame under %s; checking %d (1 in %d, plus %d named)'
          % (len(files), ' '.join(dirs), len(pick), step, len(named)))
    passed = failed = empty = 0
    text = covered = rows = norule = fdes = 0
    for p in pick:
        r = subprocess.run([tool, p, '--check', '--stats'], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        st = {}
        for line in r.stdout.splitlines():
            k, _, v = line.partition(': ')
            st[k] = v
        if r.returncode == 0:
            passed += 1
            text += int(st['text_bytes'])
            covered += int(st['covered_bytes'])
            rows += int(st['rows'])
            norule += int(st['rows_norule'])
            fdes += int(st['fdes_in'])
        elif r.returncode == 1 and 'no FDE that SFrame can express' in r.stderr \
                and st.get('fdes_in') == '0':
            # nothing to express: readelf must list no FDE either
            fi = subprocess.run(['readelf', '--debug-dump=frames', p],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                universal_newlines=True).stdout
            n = sum(1 for line in fi.splitlines() if ' FDE ' in line)
            if n:
                failed += 1
                print('FAIL: %s: the tool found no FDE, readelf %d' % (p, n))
            else:
                passed += 1
                empty += 1
        else:
            failed += 1
            err = (r.stderr.strip().splitlines() or ['(nothing on stderr)'])
            print('FAIL: %s: exit %d: %s' % (p, r.returncode, ' | '.join(err[:3])))
    dt = time.time() - t0
    print('walk: %d files in %.0f s; %d with no FDE at all; %d CFI FDEs, %d rows, '
          '%d without a rule (%.3f%%)' % (len(pick), dt, empty, fdes, rows, norule,
                                          100.0 * norule / rows if rows else 0))
    print('walk: coverage %.2f%% of %d bytes of executable sections'
          % (100.0 * covered / text if text else 0, text))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
