#!/bin/bash
# Benchmark: what the SFrame registrar (sframe-gen/build/libsframe-register.so)
# adds to a process start, side by side in one run on the host:
#   - a cold start: no cache, every object's section generated from .eh_frame
#   - a warm start: every section mapped from the cache
# for `ls` (5 objects) and `python3 -c pass` (4 objects), as LD_AUDIT (every
# object) and as LD_PRELOAD (objects loaded at start), against the same
# program without it.  Wall time of fork+exec+exit, N runs each,
# interleaved so that machine noise hits every mode alike; min, median and
# max in ms, and the median's excess over no registrar.  Then the
# instructions of each warm start, counted by callgrind (deterministic,
# unlike the times on a shared machine).
#
#   bench/sframe-register.sh [N]        (default 200)
#
# The host kernel has no PR_ADD_SFRAME: the registrar does all its user
# space work (headers, build ID, cache, relocation) and the prctl fails
# with EINVAL, so the kernel's own check of the section is not in these
# figures (tests/guest/t-98-stock.sh runs it for real in the guest).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200}
make -s -C "$here/sframe-gen" >&2
reg=$here/sframe-gen/build/libsframe-register.so
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
python3 - "$reg" "$cache" "$n" <<'EOF'
import os, resource, statistics, subprocess, sys, time
reg, cache, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
progs = {'ls': ['/bin/ls', '/usr'],
         'python3': ['/usr/bin/python3', '-c', 'pass']}

cpu_ms = {}

def run(cmd, env, mode=None):
    """wall ms of one run; its CPU ms (user + system) kept per mode"""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = (time.perf_counter() - t) * 1e3
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if mode:
        cpu_ms.setdefault(mode, []).append(
            (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
    return wall

base = {k: v for k, v in os.environ.items()
        if k not in ('LD_AUDIT', 'LD_PRELOAD')}
print('%-8s %-22s %8s %8s %8s %9s' % ('program', 'mode', 'min', 'median',
                                       'max', 'excess'))
for name, cmd in progs.items():
    # cold: a fresh cache directory for every run
    cold = []
    for i in range(min(n, 20)):
        d = os.path.join(cache, 'cold-%s-%d' % (name, i))
        cold.append(run(cmd, dict(base, LD_AUDIT=reg, SFREG_CACHE_DIR=d)))
    warm_dir = os.path.join(cache, 'warm')
    # warm for both ways in (as LD_PRELOAD the registrar is an object too)
    run(cmd, dict(base, LD_AUDIT=reg, SFREG_CACHE_DIR=warm_dir))
    run(cmd, dict(base, LD_PRELOAD=reg, SFREG_CACHE_DIR=warm_dir))
    modes = {'none': base,
             'LD_AUDIT, warm cache': dict(base, LD_AUDIT=reg,
                                          SFREG_CACHE_DIR=warm_dir),
             'LD_PRELOAD, warm cache': dict(base, LD_PRELOAD=reg,
                                            SFREG_CACHE_DIR=warm_dir)}
    times = {m: [] for m in modes}
    for i in range(n):
        for m, env in modes.items():
            times[m].append(run(cmd, env, (name, m)))
    times['LD_AUDIT, cold (no cache)'] = cold
    ref = statistics.median(times['none'])
    for m, t in times.items():
        med = statistics.median(t)
        print('%-8s %-22s %8.3f %8.3f %8.3f %+9.3f' % (
            name, m, min(t), med, max(t), med - ref))
print('(ms per fork+exec+exit; %d runs, cold %d; excess = median - median of none)'
      % (n, min(n, 20)))
# CPU time of the same runs: less moved by a busy machine than the wall
# time (a waiting process is not counted), still by its caches
print()
print('%-8s %-22s %8s %8s %9s' % ('program', 'mode', 'cpu min', 'median', 'excess'))
for name in progs:
    ref = statistics.median(cpu_ms[(name, 'none')])
    for (p, m), t in cpu_ms.items():
        if p == name:
            print('%-8s %-22s %8.3f %8.3f %+9.3f' % (name, m, min(t),
                  statistics.median(t), statistics.median(t) - ref))
print('(CPU ms, user + system, of the process and its children, per run)')

# Instructions of the program's process (valgrind's callgrind counts them
# exactly; page faults and system calls are not in them), warm cache
print()
print('%-8s %-12s %12s %12s %7s' % ('program', 'mode', 'instructions',
                                    'excess', 'ratio'))
for name, cmd in progs.items():
    ir = {}
    for m in ('none', 'LD_AUDIT', 'LD_PRELOAD'):
        env = dict(base, SFREG_CACHE_DIR=os.path.join(cache, 'warm'))
        if m != 'none':
            env[m] = reg
        out = subprocess.run(['valgrind', '--tool=callgrind',
                              '--callgrind-out-file=/dev/null'] + cmd, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True).stderr
        if 'Collected' not in out:
            sys.exit('valgrind failed: ' + out[-800:])
        ir[m] = int([l for l in out.splitlines()
                     if 'Collected' in l][-1].split()[-1])
        print('%-8s %-12s %12d %+12d %6.2fx' % (name, m, ir[m],
                                               ir[m] - ir['none'],
                                               ir[m] / ir['none']))
EOF
