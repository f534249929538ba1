#!/bin/bash
# System wide (issue 36): a process started BEFORE `trace-cmd record -T`
# (no command) that makes its calls during the recording and exits
# before it ends.  Its maps are not read at the end (it is gone), so
# before trace-cmd patch 0019 its frames stayed addresses; now record
# writes the maps of the running processes into the trace at the start
# ("ustack_map: synth/mapped" trace_marker lines) and every reader
# names them.  Oracles: nm -S and addr2line of the workload (each frame's
# function and its offset inside it).  The negative twin,
# --no-start-maps: no lines, the frames are addresses again.  Stock
# trace-cmd 3.1.6 reads the file.  Needs FTD_TRACECMD (the series' build).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
. "$(dirname "$0")/tracecmd-lib.sh"
D=$FTD_RESULTS/t91
rm -rf "$D"
mkdir -p "$D"
TESTS="sw-start-maps-exited-named sw-start-maps-exec sw-no-start-maps-unnamed sw-exec-mapping-exec-named sw-exec-mapping-dlopen-named"
tc_require $TESTS
echo "trace-cmd: $TCMD ($("$TCMD" --version 2>&1 | grep -m1 version))"
BIN=$WL/callchain-pie

WCHAIN="work_inner $BIN;work_middle $BIN;work_outer $BIN;main $BIN"

# run NAME 'WORKLOAD ARGS' ARGS...: start the workload (it waits for
# SIGUSR1), then trace-cmd record -T ARGS system wide; once recording,
# tell the workload to make its getppid() calls, wait for its exit, stop
# record
run() {
	local n=$1 w=$2 wp rp rc
	shift 2
	# shellcheck disable=SC2086
	"$BIN" $w &
	wp=$!
	echo "$wp" > "$D/$n.pid"
	"$TCMD" record -o "$D/$n.dat" -T -e syscalls:sys_enter_getppid "$@" \
		> "$D/$n.out" 2> "$D/$n.err" &
	rp=$!
	if ! recording syscalls/sys_enter_getppid; then
		kill -INT $rp; wait $rp; kill $wp; wait $wp
		t_fail "record did not enable sys_enter_getppid: $(tail -3 "$D/$n.err" | tr '\n' ' ')"
		return 1
	fi
	sleep 5
	kill -USR1 $wp
	wait $wp
	rc=$?
	sleep 2
	kill -INT $rp
	wait $rp || { t_fail "record: status $?: $(tail -3 "$D/$n.err" | tr '\n' ' ')"; return 1; }
	[ $rc = 0 ] || { t_fail "the workload exited $rc"; return 1; }
	report "$n" &&
	"$TCMD" dump --options "$D/$n.dat" > "$D/$n.opt" 2>&1 &&
	ustacks "$D/$n.txt" sys_enter_getppid pid | grep "^[^|]*|$wp|" > "$D/$n.stacks"
	{ "$(dirname "$TCMD")/ustack" "$D/$n.dat" > "$D/$n.ust" 2> "$D/$n.uerr"; true; }
}

# nm_check REPORT [MIN [BINARY]]: every "FUNC+0xOFF (BIN)" frame of the report is inside
# FUNC by nm -S, and addr2line names FUNC at its call (the byte before;
# the outermost of the functions inlined there)
nm_check() {
	python3 - "$1" "${3:-$BIN}" "${2:-12}" <<'EOF2'
import re, subprocess, sys
rep, binary, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
sym = {}
for l in subprocess.run(['nm', '-S', binary], capture_output=True, text=True).stdout.split('\n'):
    f = l.split()
    if len(f) == 4 and f[2] in 'tT':
        sym[f[3]] = (int(f[0], 16), int(f[1], 16))
n = 0
for m in re.finditer(r' => (\w+)\+0x([0-9a-f]+) \(%s\)' % re.escape(binary), open(rep).read()):
    name, off = m.group(1), int(m.group(2), 16)
    if name not in sym or off >= sym[name][1]:
        sys.exit('%s+0x%x: nm -S says %s' % (name, off, sym.get(name)))
    # -i: inlined functions first (raw_syscall3), the frame's own last
    out = subprocess.run(['addr2line', '-f', '-i', '-e', binary, '%x' % (sym[name][0] + off - 1)],
                         capture_output=True, text=True).stdout.split('\n')
    a2l = [l for l in out[0::2] if l][-1] if any(out[0::2]) else ''
    if a2l != name:
        sys.exit('%s+0x%x: addr2line says %s' % (name, off, a2l))
    n += 1
if n < want:
    sys.exit('%d frames in %s, want at least %d' % (n, binary, want))
print('%d frames inside their functions (nm -S), named so by addr2line' % n)
EOF2
}

t_begin sw-start-maps-exited-named
if run sw "wait 3"; then
	wp=$(cat "$D/sw.pid")
	# the cost, for the record (not a check): lines, bytes, time taken
	python3 - "$D/sw.txt" <<'EOF2'
import re, sys
ts, n, b, procs = [], 0, 0, 0
for l in open(sys.argv[1], errors='replace'):
    m = re.search(r' (\d+\.\d+): print: .*?(ustack_map: (synth|mapped) .*)$', l)
    if not m:
        continue
    ts.append(float(m.group(1)))
    b += len(m.group(2)) + 1
    if m.group(3) == 'synth':
        procs += 1
    else:
        n += 1
if ts:
    print('  start maps: %d processes, %d objects, %d bytes of lines, %.3f s from first to last' %
          (procs, n, b, ts[-1] - ts[0]))
EOF2
	check "a synth line for the workload, before its getppid events" python3 - "$D/sw.txt" "$wp" <<'EOF2' &&
import re, sys
rep, pid = sys.argv[1:3]
synth = get = None
for n, l in enumerate(open(rep, errors='replace')):
    if synth is None and re.search(r'ustack_map: synth v=1 pid=%s tid=\d+$' % pid, l):
        synth = n
    if get is None and re.search(r'-%s +\[\d+\].*sys_enter_getppid' % pid, l):
        get = n
if synth is None or get is None or synth > get:
    sys.exit('synth line at %s, first getppid at %s' % (synth, get))
print('synth at line %d, first getppid at line %d' % (synth, get))
EOF2
	check "a mapped line for it: $(grep -o "ustack_map: mapped v=1 pid=$wp .*callchain-pie" "$D/sw.txt" | cut -c1-160)" \
		grep -q "ustack_map: mapped v=1 pid=$wp tid=[0-9]* base=0x[0-9a-f]* build_id=[0-9a-f]\{40\} segs=[0-9a-f@,-]* path=$BIN\$" "$D/sw.txt" &&
	check "no maps saved at the end for it (it exited)" \
		test "$(grep -Ec " $BIN( [0-9a-f]+)?( pgoff=[0-9a-f]+)?\$" "$D/sw.opt")" = 0 &&
	check "3 stacks, named: $(head -1 "$D/sw.stacks" | cut -c1-200)" \
		test "$(grep -c "^callchain-pie|[0-9]*|$WCHAIN" "$D/sw.stacks")" = 3 &&
	check "the names by nm and addr2line" nm_check "$D/sw.txt" &&
	check "ustack names them too: $(grep -m1 'work_inner' "$D/sw.ust" | cut -c1-160)" \
		test "$(grep -c "work_inner+0x[0-9a-f]* ($BIN)" "$D/sw.ust")" -ge 3 &&
	{ /usr/bin/trace-cmd report -i "$D/sw.dat" > "$D/sw.stock" 2>&1; echo $? > "$D/sw.stock.rc"; } &&
	check "stock trace-cmd 3.1.6 reads the file: status $(cat "$D/sw.stock.rc"), $(grep -c 'ustack_map:' "$D/sw.stock") marker lines" \
		bash -c "test \$(cat '$D/sw.stock.rc') = 0 &&
			test \$(grep -c 'sys_enter_getppid' '$D/sw.stock') -ge 3 &&
			grep -q 'ustack_map: mapped v=1 pid=$wp ' '$D/sw.stock'" &&
	{ TRACEEVENT_PLUGIN_DIR="${FTD_PLUGIN_DIR:-$REPO/trace-cmd/plugins}" /usr/bin/trace-cmd report -i "$D/sw.dat" > "$D/sw.plugin" 2>&1; true; } &&
	# the plugin prints user frames as addresses (plugin.md): at the
	# mapped line's base plus work_inner's place in the file (nm -S)
	base=$(grep "ustack_map: mapped v=1 pid=$wp .* path=$BIN\$" "$D/sw.txt" | head -1 | sed 's/.* base=\(0x[0-9a-f]*\) .*/\1/') &&
	check "stock trace-cmd with the libtraceevent plugin: 3 user stacks with work_inner's address (base $base, nm -S)" \
		python3 - "$D/sw.plugin" "$BIN" "$base" <<'EOF2' &&
import re, subprocess, sys
rep, binary, base = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
start = size = None
for l in subprocess.run(['nm', '-S', binary], capture_output=True, text=True).stdout.split('\n'):
    f = l.split()
    if len(f) == 4 and f[3] == 'work_inner':
        start, size = int(f[0], 16), int(f[1], 16)
if start is None:
    sys.exit('no work_inner in nm -S %s' % binary)
n = 0
for m in re.finditer(r'user_stack_deferred: +cookie=\S+ tgid=\d+ nr=\d+[^\n]*\n((?:=> 0x[0-9a-f]+\n?)*)', open(rep).read()):
    if any(start < int(a, 16) - base <= start + size for a in re.findall(r'=> (0x[0-9a-f]+)', m.group(1))):
        n += 1
if n < 3:
    sys.exit('%d stacks with work_inner (%s)' % (n, start))
print('%d stacks with work_inner\'s address' % n)
EOF2
	t_pass
fi

# The workload execs (callchain-pie -> callchain) during the recording:
# its getppid() before the exec is named in the image it had at the start
# (callchain-pie), the one after it is not (without mmap:exec_mapping,
# --no-exec-mappings, no maps of the new image: gone by the end), and
# above all not in callchain-pie's maps
t_begin sw-start-maps-exec
if run swx "wait-exec $WL/callchain" --no-exec-mappings; then
	check "2 stacks: $(tr '\n' ' ' < "$D/swx.stacks" | cut -c1-300)" test "$(wc -l < "$D/swx.stacks")" = 2 &&
	check "before the exec, named in the image read at the start" \
		grep -q "^[^|]*|[0-9]*|$WCHAIN" <(sed -n 1p "$D/swx.stacks") &&
	check "after it, addresses, nothing of callchain-pie" \
		grep -Eq '^[^|]*\|[0-9]+\|0x[0-9a-f]+(;0x[0-9a-f]+)+$' <(sed -n 2p "$D/swx.stacks") &&
	check "the names by nm and addr2line" nm_check "$D/swx.txt" 4 &&
	t_pass
fi

t_begin sw-no-start-maps-unnamed
if run nsw "wait 3" --no-start-maps; then
	check "no ustack_map line" test "$(grep -c 'ustack_map:' "$D/nsw.txt")" = 0 &&
	check "3 stacks of addresses: $(head -1 "$D/nsw.stacks" | cut -c1-200)" \
		test "$(grep -c '^callchain-pie|[0-9]*|0x[0-9a-f]*;0x[0-9a-f]*;0x[0-9a-f]*;0x[0-9a-f]*' "$D/nsw.stacks")" = 3 &&
	check "ustack names none of them either" test "$(grep -c "work_inner+0x[0-9a-f]* ($BIN)" "$D/nsw.ust")" = 0 &&
	t_pass
fi

# The kernel's mmap:exec_mapping (series 7-exec-mapping) names frames at
# their time with no registrar, no stop and no maps read: the image an
# exec loads during the recording (sw-start-maps-exec above leaves those
# frames addresses), and two libraries dlopen()ed one after the other at
# one address by a process started after record (tests/workload/dlwork:
# no start maps, gone by the end).  Without the event (or a reader that
# does not take it) those frames are addresses.
EM=$TRACEFS/events/mmap/exec_mapping/format
t_begin sw-exec-mapping-exec-named
if [ ! -f "$EM" ]; then
	t_fail "no mmap:exec_mapping in this kernel (series 7-exec-mapping)"
elif run swe "wait-exec $WL/callchain"; then
	NEW="work_inner $WL/callchain;work_middle $WL/callchain;work_outer $WL/callchain;main $WL/callchain"
	check "2 stacks: $(tr '\n' ' ' < "$D/swe.stacks" | cut -c1-300)" test "$(wc -l < "$D/swe.stacks")" = 2 &&
	check "before the exec, named in the image read at the start" \
		grep -q "^[^|]*|[0-9]*|$WCHAIN" <(sed -n 1p "$D/swe.stacks") &&
	check "after it, named in the image the exec mapped" \
		grep -q "^[^|]*|[0-9]*|$NEW" <(sed -n 2p "$D/swe.stacks") &&
	check "the names by nm and addr2line" nm_check "$D/swe.txt" 4 "$WL/callchain" &&
	check "ustack names them too" test "$(grep -c "work_inner+0x[0-9a-f]* ($WL/callchain)" "$D/swe.ust")" -ge 1 &&
	t_pass
fi

t_begin sw-exec-mapping-dlopen-named
if [ ! -f "$EM" ]; then
	t_fail "no mmap:exec_mapping in this kernel (series 7-exec-mapping)"
else
	"$TCMD" record -o "$D/swd.dat" -T -e syscalls:sys_enter_getppid \
		> "$D/swd.out" 2> "$D/swd.err" &
	rp=$!
	if recording syscalls/sys_enter_getppid; then
		sleep 2
		"$WL"/dlwork 3 > "$D/swd.wl"
		sleep 2
	fi
	kill -INT $rp
	if wait $rp && report swd; then
		wp=$(awk '$1 == "pid" { print $2 }' "$D/swd.wl")
		ustacks "$D/swd.txt" sys_enter_getppid pid | grep "^[^|]*|$wp|" > "$D/swd.stacks"
		{ "$(dirname "$TCMD")/ustack" "$D/swd.dat" > "$D/swd.ust" 2> "$D/swd.uerr"; true; }
		echo "  loaded at: $(grep '^[ab] ' "$D/swd.wl" | tr '\n' ' ')"
		A="dla_inner $WL/libdlwork-a.so;dla_middle $WL/libdlwork-a.so;dla_work $WL/libdlwork-a.so"
		B="dlb_inner $WL/libdlwork-b.so;dlb_middle $WL/libdlwork-b.so;dlb_work $WL/libdlwork-b.so"
		check "6 stacks: $(cut -c1-160 "$D/swd.stacks" | tr '\n' ' ')" test "$(wc -l < "$D/swd.stacks")" = 6 &&
		check "3 in a, then 3 in b" test "$(sed -n 1,3p "$D/swd.stacks" | grep -c "[|;]$A;")$(sed -n 4,6p "$D/swd.stacks" | grep -c "[|;]$B;")" = 33 &&
		check "ustack too: $(grep -c 'dla_inner+' "$D/swd.ust") in a, $(grep -c 'dlb_inner+' "$D/swd.ust") in b" \
			test "$(grep -c "dla_inner+0x[0-9a-f]* ($WL/libdlwork-a.so)" "$D/swd.ust")$(grep -c "dlb_inner+0x[0-9a-f]* ($WL/libdlwork-b.so)" "$D/swd.ust")" = 33 &&
		t_pass
	else
		t_fail "record or report: $(tail -3 "$D/swd.err" | tr '\n' ' ')"
	fi
fi

reset_tracing
t_summary
