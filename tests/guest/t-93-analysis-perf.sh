#!/bin/bash
# ustack's analyses (issue 39) against perf's, on the same workload and
# the same kernel unwinder: tests/workload/paths takes three call paths to
# getppid() 1, 2 and 4 times a round (N rounds), once under
# `trace-cmd record -T` (the series' build, the registrar off so that both
# walk by frame pointers alone) and once under `perf record
# --call-graph fp,defer`, both without address randomization (setarch
# -R), so that the two runs' stacks are the same addresses.  Oracles,
# none of them ours: perf script (each event's user frames: addresses,
# and the names of the workload's frames), perf report --children (each
# workload function's share of the events).  ustack must give, event for
# event, the same user stacks (-r), the same names, the same call-path
# counts in --folded, and the same Children shares in --tree (of the
# getppid events: record -T also stacks the exec).  Needs
# FTD_TRACECMD and FTD_PERF.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
TESTS="analysis-perf-stacks analysis-perf-folded analysis-perf-tree"
tc_require $TESTS
PERF=${FTD_PERF:-}
if [ -z "$PERF" ] || ! [ -x "$PERF" ]; then
	for t in $TESTS; do
		t_begin "$t"
		t_fail "no perf: FTD_PERF='$PERF' (rig/test-all.sh builds it with rig/build-perf.sh)"
	done
	t_summary
	exit 1
fi
USTACK=$(dirname "$TCMD")/ustack
D=$FTD_RESULTS/t93
rm -rf "$D"
mkdir -p "$D"
N=20
BIN=$WL/paths

setarch -R "$TCMD" record -q -o "$D/t.dat" -e syscalls:sys_enter_getppid -T --no-sframe-register \
	"$BIN" "$N" > "$D/record.out" 2>&1
rc_tc=$?
setarch -R "$PERF" record -q -e syscalls:sys_enter_getppid --call-graph fp,defer \
	-o "$D/perf.data" -- "$BIN" "$N" > "$D/perf-record.out" 2>&1
rc_perf=$?
"$PERF" script -i "$D/perf.data" -F comm,tid,event,ip,sym,dso > "$D/perf.script" 2> "$D/perf-script.err"
"$PERF" report -i "$D/perf.data" --children --stdio --sort comm,dso,sym -g none \
	> "$D/perf.report" 2> "$D/perf-report.err"
"$USTACK" -q -r -F sys_enter_getppid "$D/t.dat" > "$D/ustack.raw" 2> "$D/ustack-raw.err"
"$USTACK" -q -F sys_enter_getppid "$D/t.dat" > "$D/ustack.txt" 2> "$D/ustack.err"
"$USTACK" -q --folded -F sys_enter_getppid "$D/t.dat" > "$D/ustack.folded" 2> "$D/ustack-folded.err"
"$USTACK" -q --tree --no-kernel -F sys_enter_getppid "$D/t.dat" > "$D/ustack.tree" 2> "$D/ustack-tree.err"

# compare.py WHAT: one comparison of ustack's output with perf's; prints
# what differs, exits 1 then
cat > "$D/compare.py" <<'EOF'
import collections, re, sys
what, d, binary, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def perf_events():
    """[(user addresses innermost first, names of the workload's frames)]"""
    evs, cur = [], None
    for line in open(d + '/perf.script'):
        if not line.strip():
            continue
        if not line[0].isspace():
            cur = ([], [])
            evs.append(cur)
            continue
        m = re.match(r'\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$', line)
        if not m or cur is None or 'kernel.kallsyms' in m.group(3):
            continue
        cur[0].append(int(m.group(1), 16))
        if m.group(3) == binary:
            cur[1].append(re.sub(r'\+0x[0-9a-f]+$', '', m.group(2)))
    return evs

def ustack_events(path, raw):
    evs, cur = [], None
    for line in open(path):
        if line and not line[0].isspace() and line.strip():
            cur = ([], [])
            evs.append(cur)
            continue
        if cur is None or not line.startswith('  u '):
            continue
        f = line[4:].strip()
        if raw:
            cur[0].append(int(f, 16))
        else:
            m = re.match(r'(\S+?)\+0x[0-9a-f]+ \((.*)\)$', f)
            if m and m.group(2) == binary:
                cur[1].append(m.group(1))
    return evs

def fail(msg):
    print(msg)
    sys.exit(1)

pe = perf_events()
if len(pe) != 7 * n:
    fail('perf script: %d events, want %d' % (len(pe), 7 * n))
if what == 'stacks':
    ue = ustack_events(d + '/ustack.raw', True)
    un = ustack_events(d + '/ustack.txt', False)
    if len(ue) != 7 * n or len(un) != 7 * n:
        fail('ustack: %d events (-r), %d (names), want %d' % (len(ue), len(un), 7 * n))
    pa = collections.Counter(tuple(e[0]) for e in pe)
    ua = collections.Counter(tuple(e[0]) for e in ue)
    if pa != ua:
        fail('user stacks (addresses) differ: perf %s ustack %s' % (
            sorted((len(k), v) for k, v in pa.items()),
            sorted((len(k), v) for k, v in ua.items())))
    pn = collections.Counter(tuple(e[1]) for e in pe)
    un = collections.Counter(tuple(e[1]) for e in un)
    if pn != un or len(pn) != 3:
        fail('names differ: perf %s ustack %s' % (dict(pn), dict(un)))
    print('%d events, %d distinct stacks, names %s' % (len(ue), len(ua), dict(pn)))
elif what == 'folded':
    # ustack's folded paths, reduced to the workload's frames (callers
    # first), against perf's events counted the same way
    fn = set(name for e in pe for name in e[1])
    uc = collections.Counter()
    for line in open(d + '/ustack.folded'):
        path, cnt = line.rsplit(' ', 1)
        frames = [f for f in path.split(';')[2:] if f in fn]
        uc[tuple(frames)] += int(cnt)
    pc = collections.Counter(tuple(reversed(e[1])) for e in pe)
    if uc != pc:
        fail('folded counts differ: perf %s ustack %s' % (dict(pc), dict(uc)))
    print('folded: %s' % dict(uc))
elif what == 'tree':
    # perf report --children: "Children Self Command Shared-Object [.] Symbol"
    want = {}
    for line in open(d + '/perf.report'):
        m = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+\S+\s+(\S+)\s+\[\.\]\s+(\S+)\s*$', line)
        if m and binary.endswith('/' + m.group(3)):
            want[m.group(4)] = m.group(1)
    got = {}
    for line in open(d + '/ustack.tree'):
        m = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+\S+\s+(\S+)\s+\[\.\]\s+(\S+)\s*$', line)
        if m and binary.endswith('/' + m.group(4)):
            got[m.group(5)] = m.group(1)
    if not want or got != want:
        fail('Children shares differ: perf report %s ustack --tree %s' % (want, got))
    print('Children: %s' % got)
EOF

t_begin analysis-perf-stacks
check "trace-cmd record (exit $rc_tc) and perf record (exit $rc_perf)" test "$rc_tc" = 0 -a "$rc_perf" = 0 &&
check "ustack -r and ustack against perf script" python3 "$D/compare.py" stacks "$D" "$BIN" "$N" &&
t_pass

t_begin analysis-perf-folded
check "ustack --folded's call paths against perf script's" python3 "$D/compare.py" folded "$D" "$BIN" "$N" &&
t_pass

t_begin analysis-perf-tree
check "ustack --tree's Children against perf report --children" python3 "$D/compare.py" tree "$D" "$BIN" "$N" &&
t_pass

t_summary
