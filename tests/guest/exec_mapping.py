#!/usr/bin/env python3
"""Check mmap:exec_mapping events (t-95-exec-mapping) against the kernel's
own account: the /proc/self/maps lines tests/workload/execmap printed while
each library was loaded, and readelf's build IDs.

  exec_mapping.py TRACE EXECMAP_OUTPUT CHECK

CHECK: maps (the events of its pid are exactly its executable file
mappings, as maps showed them, plus the range it mprotect()ed executable),
tgid (each event's tgid and common_pid are the workload's), exec
(exec=1 for the program and its interpreter, which execve() maps, only),
build-id
(each build ID given equals readelf -n's; the two libraries' are given),
none (no event of its pid at all).  Prints what it compared; exit 1 and
the difference when it does not hold.
"""
import re
import subprocess
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[\d+\].*?\sexec_mapping: tgid=(\d+) '
                  r'exec=([01]) start=0x([0-9a-f]+) end=0x([0-9a-f]+) pgoff=0x([0-9a-f]+) '
                  r'dev=\d+:\d+ ino=\d+ build_id=([0-9a-f]*) path=(.*)$')


def events(trace):
    out = []
    for line in open(trace, errors='replace'):
        m = LINE.match(line)
        if m:
            out.append({'pid': int(m.group(2)), 'tgid': int(m.group(3)),
                        'exec': m.group(4) == '1',
                        'start': int(m.group(5), 16), 'end': int(m.group(6), 16),
                        'pgoff': int(m.group(7), 16), 'build_id': m.group(8),
                        'path': m.group(9).rstrip('\n')})
    return out


def workload(path):
    pid, maps, mprot = None, set(), None
    for line in open(path):
        f = line.split()
        if f[0] == 'pid':
            pid = int(f[1])
        elif f[0] == 'mprotect':
            s, e = f[1].split('-')
            mprot = (int(s, 16), int(e, 16))
        elif len(f) >= 6 and '-' in f[0]:
            s, e = f[0].split('-')
            maps.add((int(s, 16), int(e, 16), int(f[2], 16), f[5]))
    return pid, maps, mprot


def readelf_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True,
                         text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else ''


def main():
    trace, wl, what = sys.argv[1:4]
    pid, maps, mprot = workload(wl)
    evs = [e for e in events(trace) if e['tgid'] == pid or e['pid'] == pid]
    if what == 'none':
        if evs:
            sys.exit(f'{len(evs)} events of pid {pid} with the event off')
        print(f'no event of pid {pid}')
        return
    if not evs:
        sys.exit(f'no exec_mapping event of pid {pid} ({len(events(trace))} in all)')
    if what == 'maps':
        got = {(e['start'], e['end'], e['pgoff'], e['path']) for e in evs}
        exe = [m for m in maps if m[3].endswith('/execmap')]
        want = set(maps)
        if mprot and exe:
            want.add((mprot[0], mprot[1], 0, exe[0][3]))
        missing, extra = want - got, got - want
        if missing or extra or len(evs) != len(got):
            sys.exit(f'missing {sorted(missing)}; not in the maps {sorted(extra)}; '
                     f'{len(evs)} events for {len(got)} mappings')
        print(f'{len(evs)} events = the {len(maps)} executable file mappings '
              f'of maps a and b + the mprotect()ed page')
    elif what == 'tgid':
        bad = [e for e in evs if e['tgid'] != pid or e['pid'] != pid]
        if bad:
            sys.exit(f'pid {pid}: {bad[:3]}')
        print(f'{len(evs)} events with tgid and common_pid {pid}')
    elif what == 'exec':
        # the kernel maps the program and its interpreter in execve();
        # the loader maps the libraries after it
        by = sorted(e['path'].rsplit('/', 1)[-1] for e in evs if e['exec'])
        want = sorted(m[3].rsplit('/', 1)[-1] for m in maps
                      if m[3].endswith('/execmap') or '/ld-linux' in m[3])
        if by != want:
            sys.exit(f'exec=1 for {by}, wanted {want}')
        print(f'exec=1 for {", ".join(by)} only, of {len(evs)} events')
    elif what == 'build-id':
        n = 0
        for e in evs:
            if not e['build_id']:
                if 'libdlwork' in e['path']:
                    sys.exit(f'no build ID for {e["path"]}')
                continue
            want = readelf_id(e['path'])
            if e['build_id'] != want:
                sys.exit(f'{e["path"]}: {e["build_id"]}, readelf says {want!r}')
            n += 1
        print(f'{n} of {len(evs)} build IDs given, each readelf\'s')
    else:
        sys.exit(f'unknown check {what}')


main()
