#!/bin/bash
# JIT frames of a stock JIT (issue 39 item 4): Debian's node, run with
# --perf-basic-prof (V8 writes /tmp/perf-PID.map) and
# --interpreted-frames-native-stack, calls a JS function that reads
# process.ppid (one getppid() each) until V8 has compiled it.  Recorded
# twice: under `trace-cmd record -T` (the series' build) and under
# `perf record --call-graph fp,defer`, the oracle: perf script names the
# JIT frames from the same kind of map itself.  Both walk by frame
# pointers (V8's JIT frames keep them).  ustack must name JIT frames in
# its stacks from the map, with the names perf gives: the JS call path
# most events took (the JIT frames, innermost first) is the same in
# both, and ustack's JIT frames are all named.  Its twin: the map moved
# away, the same trace has no named JIT frame.  Needs FTD_TRACECMD,
# FTD_PERF and node (rig/test-all.sh installs nodejs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
TESTS="jit-node-named-as-perf jit-node-no-map-no-names"
tc_require $TESTS
PERF=${FTD_PERF:-}
NODE=$(command -v node || command -v nodejs)
if [ -z "$PERF" ] || ! [ -x "$PERF" ] || [ -z "$NODE" ]; then
	for t in $TESTS; do
		t_begin "$t"
		t_fail "no perf (FTD_PERF='$PERF') or no node ('$NODE')"
	done
	t_summary
	exit 1
fi
USTACK=$(dirname "$TCMD")/ustack
D=$FTD_RESULTS/t94
rm -rf "$D"
mkdir -p "$D"
cat > "$D/jit.js" <<'EOF'
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += process.ppid; return s; }
function outer(n) { return hot(n); }
let t = 0;
for (let r = 0; r < 60; r++) t += outer(100);
console.log(t > 0 ? 'done' : 'no ppid');
EOF
JS=(--perf-basic-prof --interpreted-frames-native-stack "$D/jit.js")
rm -f /tmp/perf-*.map
"$TCMD" record -q -o "$D/t.dat" -e syscalls:sys_enter_getppid -T --no-sframe-register \
	"$NODE" "${JS[@]}" > "$D/record.out" 2>&1
rc_tc=$?
tc_map=$(ls /tmp/perf-*.map 2>/dev/null)
mkdir -p "$D/perf-map"
"$PERF" record -q -e syscalls:sys_enter_getppid --call-graph fp,defer -o "$D/perf.data" -- \
	"$NODE" "${JS[@]}" > "$D/perf-record.out" 2>&1
rc_perf=$?
"$PERF" script --no-inline -i "$D/perf.data" -F event,ip,sym,dso > "$D/perf.script" 2> "$D/perf-script.err"
"$USTACK" -q -F sys_enter_getppid "$D/t.dat" > "$D/ustack.txt" 2> "$D/ustack.err"
"$USTACK" -q --folded -F sys_enter_getppid "$D/t.dat" > "$D/ustack.folded" 2> "$D/ustack-folded.err"

# jit.py PERF_SCRIPT USTACK_FOLDED: the JIT call paths of both
cat > "$D/jit.py" <<'EOF'
import collections, re, sys

def js(name):
    """a JIT frame's name without V8's tier mark (~ interpreted, ^
    baseline, + maglev, * turbofan): when V8 optimized a function is a
    matter of timing, which differs between the two runs"""
    return re.sub(r'^JS:[~^+*]', 'JS:', name)

def perf_paths(path):
    """perf script: per event, its JIT frames' names, innermost first"""
    paths, cur = collections.Counter(), None
    for line in open(path, errors='replace'):
        if not line.strip():
            continue
        if not line[0].isspace():
            if cur is not None:
                paths[tuple(cur)] += 1
            cur = []
            continue
        m = re.match(r'\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)$', line)
        if m and re.search(r'/perf-\d+\.map$', m.group(2)) and cur is not None:
            cur.append(js(m.group(1).replace(' ', '_')))
    if cur is not None:
        paths[tuple(cur)] += 1
    return paths

def ustack_paths(path):
    """ustack --folded: the _[j] frames of each stack, innermost first;
    and the frames in anonymous memory left unnamed"""
    paths, unnamed = collections.Counter(), 0
    for line in open(path, errors='replace'):
        key, cnt = line.rstrip('\n').rsplit(' ', 1)
        frames = key.split(';')[2:]
        jit = [js(f[:-4]) for f in frames if f.endswith('_[j]')]
        unnamed += sum(int(cnt) for f in frames if re.match(r'^0x[0-9a-f]+$', f))
        paths[tuple(reversed(jit))] += int(cnt)
    return paths, unnamed

pp = perf_paths(sys.argv[1])
up, unnamed = ustack_paths(sys.argv[2])
pt, ut = sum(pp.values()), sum(up.values())
(ptop, pn), = pp.most_common(1)
(utop, un), = up.most_common(1)
print('perf: %d events, top JIT path %s in %d; ustack: %d events, top %s in %d; '
      '%d frames unnamed' % (pt, ptop, pn, ut, utop, un, unnamed))
ok = (ptop and ptop == utop and pn * 2 > pt and un * 2 > ut and
      any('hot' in f for f in utop) and not unnamed)
sys.exit(0 if ok else 1)
EOF

t_begin jit-node-named-as-perf
check "trace-cmd record (exit $rc_tc) and perf record (exit $rc_perf) of node" \
	test "$rc_tc" = 0 -a "$rc_perf" = 0 &&
check "node wrote its perf map under record -T ('$tc_map')" test -s "$tc_map" &&
check "ustack's JIT call paths against perf script's" python3 "$D/jit.py" "$D/perf.script" "$D/ustack.folded" &&
t_pass

# the twin: no map, no JIT names (they came from the map)
t_begin jit-node-no-map-no-names
if [ -s "$tc_map" ]; then
	mv "$tc_map" "$D/moved.map"
	"$USTACK" -q --folded -F sys_enter_getppid "$D/t.dat" > "$D/ustack-nomap.folded" 2>&1
	mv "$D/moved.map" "$tc_map"
fi
check "without the map: no _[j] frame" bash -c "[ -s '$D/ustack-nomap.folded' ] && ! grep -q '_\[j\]' '$D/ustack-nomap.folded'" &&
t_pass
rm -f /tmp/perf-*.map
t_summary
