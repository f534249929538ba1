#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack's analyses (issue 39): flame-graph conventions in --folded (_[k],
# the tracer's frames hidden), the call tree (--tree), weights by time
# (--weight=latency), JSON (--json).  The oracles: the documented list
# of tracer frames (read from ustack(1) itself), ustack's own --folded
# counts (tested against stock trace-cmd report in test-select.sh)
# recounted by awk, timestamps of stock trace-cmd report, python3's json
# parser.  Prints PASS:/FAIL: lines.
#   usage: test-analysis.sh USTACK FIXDIR BUILD WORKLOAD
set -u
USTACK=$1
FIX=$2
B=$3/analysis
WORK=$4
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MAN=$HERE/../../../ustack/Documentation/ustack.txt
mkdir -p "$B"
. "$HERE/valgrind.sh"
TC=${TRACE_CMD:-trace-cmd}
TG=$FIX/trigger-getppid.dat

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; }

# us NAME ARGS...: ustack into $B/NAME.out/.err; 0 and 2 (a binary of
# the trace not here) are answers.  usv: the same under valgrind (the
# recorded fixtures' kallsyms make it slow: one run of each output)
us() { VGR= _us "$@"; }
usv() { VGR=1 _us "$@"; }
_us() {
	local name=$1 rc vg=()
	shift
	[ -n "$VGR" ] && vg=("${VG[@]}")
	"${vg[@]}" "$USTACK" "$@" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	if [ $rc != 0 ] && [ $rc != 2 ]; then
		echo "ustack $*: exit $rc: $(head -3 "$B/$name.err")"
		return 1
	fi
	return 0
}

# ---- 1. the tracer's own frames, and _[k] ----
# The list as the man page gives it (--tracer-frames): one name or
# prefix* a line
sed -n '/^\*--tracer-frames\*::/,/^\*--/p' "$MAN" | grep -o '`[^`]*`' | tr -d '`' >"$B/tracer.list"
# hide FILE: the text output FILE with, per event, the innermost run of
# kernel frames whose names are in the list left out
hide() {
	awk -v list="$B/tracer.list" '
		BEGIN { while ((getline l < list) > 0) names[n++] = l }
		function tracer(f,   i, p) {
			sub(/\+0x.*/, "", f)
			for (i = 0; i < n; i++) {
				p = names[i]
				if (p ~ /\*$/) { p = substr(p, 1, length(p) - 1)
					if (substr(f, 1, length(p)) == p) return 1 }
				else if (f == p) return 1
			}
			return 0
		}
		/^[^ ]/ || /^$/ { inner = 1; print; next }
		/^  k / { if (inner && tracer($2)) { hidden++; next } inner = 0; print; next }
		{ inner = 0; print }
		END { print hidden + 0 > "/dev/stderr" }' "$1"
}
if [ "$(wc -l <"$B/tracer.list")" -lt 10 ]; then
	fail "tracer frames: the man page's list has $(wc -l <"$B/tracer.list") names"
fi
tf_bad=0 tf_hidden=0 tf_files=0
for f in "$FIX"/*.dat; do
	case $f in *prerelease*) continue ;; esac
	n=$(basename "$f" .dat)
	us "tf-$n" -q -s "$FIX" "$f" && us "tf-$n-all" -q -s "$FIX" --tracer-frames "$f" || { tf_bad=1; continue; }
	h=$(hide "$B/tf-$n-all.out" 2>&1 >"$B/tf-$n.want")
	tf_hidden=$((tf_hidden + h)) tf_files=$((tf_files + 1))
	cmp -s "$B/tf-$n.want" "$B/tf-$n.out" || { diff "$B/tf-$n.want" "$B/tf-$n.out" | head -4; tf_bad=1; }
done
if [ $tf_bad = 0 ] && [ $tf_hidden -gt 100 ] &&
   grep -qx '  k ftrace_syscall_enter+0x[0-9a-f]*' "$B/tf-trigger-getppid-all.out" &&
   ! grep -q '^  k \(ftrace\|trace\)_syscall_' "$B/tf-trigger-getppid.out" &&
   grep -q '^  k do_syscall_64+' "$B/tf-trigger-getppid.out"; then
	pass "tracer frames: in $tf_files fixtures, the default output is --tracer-frames' less the innermost run of the man page's names ($tf_hidden frames)"
else
	fail "tracer frames: hidden frames differ from the man page's list (files $tf_files, hidden $tf_hidden)"
fi
# a function of the list further out than the innermost run stays: a
# synthetic trace whose first stack has its two innermost frames swapped
# (do_syscall_64, then trace_event_raw_event_sys_enter)
MK="python3 $HERE/mktrace.py --formats $HERE/data/formats"
$MK trigger "$B/t.dat" --binary "$WORK" --count 2 >/dev/null &&
python3 - "$B/t.dat" "$B/swap.dat" <<'EOP'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
a = struct.pack("<QQ", 0xffffffff81003010, 0xffffffff81000410)
i = d.find(a)
assert i > 0
d[i:i + 16] = struct.pack("<QQ", 0xffffffff81000410, 0xffffffff81003010)
open(sys.argv[2], "wb").write(d)
EOP
if usv tf-swap -q "$B/swap.dat" && awk '/^[^ ]/ { n++ } n == 1' "$B/tf-swap.out" | head -3 >"$B/tf-swap.first" &&
   [ "$(sed -n 2,3p "$B/tf-swap.first" | cut -d+ -f1 | tr '\n' ,)" = "  k do_syscall_64,  k trace_event_raw_event_sys_enter," ] &&
   [ "$(grep -c '^  k trace_event_raw_event_sys_enter+' "$B/tf-swap.out")" = 1 ]; then
	pass "tracer frames: only the innermost run (a tracer function further out stays)"
else
	cat "$B/tf-swap.first"
	fail "tracer frames: a tracer function further out than the innermost run"
fi
# -r: addresses only, nothing hidden (no names to go by)
if us tf-raw -q -r "$TG" && us tf-raw-all -q -r --tracer-frames "$TG" &&
   cmp -s "$B/tf-raw.out" "$B/tf-raw-all.out"; then
	pass "tracer frames: -r shows every frame"
else
	fail "tracer frames: -r hides frames"
fi
# --folded: the text output's frames, callers first, kernel frames with
# _[k] (stackcollapse-perf.pl's mark), the tracer's hidden; counted
fold() { # fold TEXT [MARK]: folded stacks made from ustack's text output
	awk -v mark="${2-_[k]}" '
		function flush() { if (key != "") n[key]++; key = "" }
		/^[^ ]/ { flush(); split($1, a, "-"); ev = ""
			for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) ev = $(i + 2)
			comm = $1; sub(/-[0-9]+$/, "", comm); u = ""; k = ""; key = "x"; next }
		/^  k / { f = $2; sub(/\+0x.*/, "", f); k = f mark (k == "" ? "" : ";" k); next }
		/^  u / { f = $2; sub(/\+0x.*/, "", f); u = f (u == "" ? "" : ";" u); next }
		/^$/ { key = ev ";" comm ";" u ";" k; flush() }
		END { flush(); for (s in n) print s, n[s] }' "$1" | sort
}
if usv tf-folded -q -s "$FIX" --folded "$TG" && us tf-folded-all -q -s "$FIX" --folded --tracer-frames --no-annotate "$TG"; then
	fold "$B/tf-trigger-getppid.out" >"$B/tf-folded.want"
	fold "$B/tf-trigger-getppid-all.out" "" >"$B/tf-folded-all.want"
	if [ "$(wc -l <"$B/tf-folded.want")" = 2 ] && cmp -s "$B/tf-folded.want" "$B/tf-folded.out" &&
	   cmp -s "$B/tf-folded-all.want" "$B/tf-folded-all.out" &&
	   grep -q ';do_syscall_64_\[k\] 5$' "$B/tf-folded.out"; then
		pass "folded: kernel frames marked _[k], the tracer's hidden; --tracer-frames --no-annotate: all, unmarked (as the text output's frames)"
	else
		diff "$B/tf-folded.want" "$B/tf-folded.out"
		diff "$B/tf-folded-all.want" "$B/tf-folded-all.out"
		fail "folded: _[k] and tracer frames"
	fi
else
	fail "folded: ustack --folded"
fi

# ---- 2. --tree: entries with children and self, call graphs, checked
# number by number against the stacks of the text output (tree-check.py
# recomputes what perf report --children computes) ----
OT=$FIX/option-T.dat
if us tree-text -q -s "$FIX" "$OT"; then
	tree_bad=0 tree_n=0
	for opts in "" "--tree=callee" "--sort sym" "--sort comm" "--sort dso" \
		    "--sort sym,comm --tree=callee" "--percent-limit 70" \
		    "--percent-limit 70 --tree=callee" "--max-stack 3" \
		    "--no-kernel --max-stack 2 --tree=callee" "--no-kernel --sort dso,sym"; do
		chk=$(echo "$opts" | sed 's/--percent-limit/--limit/; s/--tree=callee/--callee/')
		# shellcheck disable=SC2086
		if if [ -z "$opts" ]; then usv tree -q -s "$FIX" --tree "$OT"; else us tree -q -s "$FIX" --tree $opts "$OT"; fi &&
		   python3 "$HERE/tree-check.py" "$B/tree-text.out" "$B/tree.out" $chk >"$B/tree.check"; then
			tree_n=$((tree_n + 1))
			echo "  --tree $opts: $(cat "$B/tree.check")"
		else
			echo "  --tree $opts: $(cat "$B/tree.check" 2>/dev/null)"
			tree_bad=1
		fi
	done
	# the check can fail: one share changed by 0.01
	sed '0,/ 62\.50%/s// 62.51%/' "$B/tree.out" >"$B/tree.bad"
	if [ $tree_bad = 0 ] && ! python3 "$HERE/tree-check.py" "$B/tree-text.out" "$B/tree.bad" \
		--no-kernel --sort dso,sym >/dev/null; then
		pass "tree: option-T.dat, $tree_n option sets (callers, callees, --sort, --percent-limit, --max-stack, --no-kernel): every entry's children, self and call graph as computed from the text output's stacks"
	else
		fail "tree: differs from the text output's stacks"
	fi
else
	fail "tree: ustack text"
fi
if usv tree-tg -q -s "$FIX" --tree --no-kernel "$TG" &&
   [ "$(sed -n '5p' "$B/tree-tg.out")" = "   100.00%   100.00%      5  callchain  callchain      [.] work_inner" ] &&
   grep -qx '                      100.00%      5  main' "$B/tree-tg.out"; then
	pass "tree: trigger-getppid.dat, user frames: work_inner 100% self, main's callees"
else
	cat "$B/tree-tg.out"
	fail "tree: trigger-getppid.dat"
fi
# bad usage: one line, exit 1
tb=0
for args in "--tree=up" "--tree --sort sym,addr" "--tree --percent-limit 101" \
	    "--tree --max-stack 0" "--max-stack 3" "--tree --folded" "--no-kernel"; do
	# shellcheck disable=SC2086
	"$USTACK" $args "$TG" >"$B/tree-bad.out" 2>"$B/tree-bad.err"
	rc=$?
	if [ $rc != 1 ] || [ -s "$B/tree-bad.out" ] || [ "$(wc -l <"$B/tree-bad.err")" != 1 ]; then
		echo "ustack $args: exit $rc, $(cat "$B/tree-bad.err")"
		tb=1
	fi
done
[ $tb = 0 ] && pass "tree: bad options (--tree=up, --sort addr, --percent-limit 101, --max-stack 0, without --tree, with --folded): one line, exit 1" ||
	fail "tree: bad options"

# ---- 3. --weight=latency: each event weighs the time to its pair.  The
# pairs and their times from stock trace-cmd report -t (pairs.py); the
# weighted stacks recomputed from the text output's ----
$MK latency "$B/lat.dat" --binary "$WORK" --count 9 >/dev/null || fail "mktrace.py latency"
"$TC" report -t "$B/lat.dat" >"$B/lat.tc" 2>/dev/null
python3 "$HERE/pairs.py" "$B/lat.tc" >"$B/lat.w"
if us lat-text -q "$B/lat.dat" && [ "$(wc -l <"$B/lat.w")" = 27 ]; then
	lw=0 lwn=""
	for out in folded summary tree tree=callee; do
		chk=--${out%%=*}
		[ "$out" = tree ] && chk=
		[ "$out" = tree=callee ] && chk=--callee
		# shellcheck disable=SC2086
		if usv lat-$out -q --$out --weight=latency "$B/lat.dat" &&
		   python3 "$HERE/tree-check.py" "$B/lat-text.out" "$B/lat-$out.out" $chk \
			--weights "$B/lat.w" >"$B/lat.check"; then
			lwn="$lwn --$out: $(cat "$B/lat.check");"
		else
			echo "--$out --weight=latency: $(cat "$B/lat.check")"
			lw=1
		fi
	done
	if [ $lw = 0 ] && grep -qx '# syscalls:sys_enter_getppid: 183600 ns, 3 call paths' "$B/lat-summary.out" &&
	   [ ! -s "$B/lat-folded.err" ]; then
		pass "weight: the latency trace's enter/exit and off-CPU times as stock report -t gives them, in --folded, --summary, --tree (callers, callees):$lwn"
	else
		fail "weight: the latency trace"
	fi
else
	fail "weight: no text output or pairs (report -t: $(wc -l <"$B/lat.w") weighed events, want 27)"
fi
# many tasks at once, their stacks late and out of order (multi): every
# entry's exit is 1000 ns after its enter, so each stack weighs 1000 x
# its events
$MK multi "$B/multi.dat" --binary "$WORK" --count 400 --tasks 6 >/dev/null &&
if us multi-f -q --folded "$B/multi.dat" && us multi-w -q --folded --weight=latency "$B/multi.dat" &&
   awk '/^syscalls:/ { $NF = $NF * 1000 } /^syscalls:/' "$B/multi-f.out" >"$B/multi.want" &&
   grep '^syscalls:' "$B/multi-w.out" | cmp -s - "$B/multi.want" && [ -s "$B/multi.want" ] &&
   [ ! -s "$B/multi-w.err" ]; then
	pass "weight: 6 tasks, stacks late and across CPUs: each of $(wc -l <"$B/multi.want") syscall stacks weighs 1000 ns per event"
else
	diff "$B/multi.want" <(grep '^syscalls:' "$B/multi-w.out") | head -4
	fail "weight: multi-task trace"
fi
# a request that never comes back has no pair: left out, and said (the
# 2 stuck threads' requests, and the kernel thread's switch out at the end)
$MK stuck "$B/stuck.dat" --binary "$WORK" --count 4 --stuck 2 --back >/dev/null &&
if us stuck-w -q --folded --weight=latency "$B/stuck.dat" && us stuck-wn --folded --weight=latency "$B/stuck.dat" &&
   grep -q 'note: --weight=latency: [0-9]* events weighed; 3 without their pair in the trace' "$B/stuck-wn.err" &&
   [ "$(awk '/^syscalls:sys_enter/ { n += $NF } END { print n }' "$B/stuck-w.out")" = 4000 ]; then
	pass "weight: requests that never return (stuck threads): left out, a note says how many (3)"
else
	cat "$B/stuck-wn.err"
	fail "weight: unpaired events"
fi
"$USTACK" --weight=latency "$TG" >"$B/wbad.out" 2>"$B/wbad.err"
rc1=$?
"$USTACK" --weight=cpu --folded "$TG" >"$B/wbad2.out" 2>"$B/wbad2.err"
rc2=$?
[ $rc1 = 1 ] && [ $rc2 = 1 ] && [ ! -s "$B/wbad.out" ] && grep -q 'goes with --folded' "$B/wbad.err" &&
	grep -q "bad --weight 'cpu'" "$B/wbad2.err" &&
	pass "weight: without an aggregated output, or an unknown weight: one line, exit 1" ||
	fail "weight: bad usage"

# ---- 3b. --flamegraph: the folded stacks drawn as an SVG; Python's XML
# parser reads it, flame-check.py recounts every frame's total from the
# same trace's --folded (widths, depths, nesting) ----
fb=0 fn=""
fcheck() { # fcheck NAME FILE [ustack options]: flame-check.py's verdict
	local name=$1 f=$2 ms=
	shift 2
	case " $* " in *" --weight=latency "*) ms=--ms ;; esac
	if us "fl-$name-f" -q -s "$FIX" --folded "$@" "$f" && usv "fl-$name" -q -s "$FIX" --flamegraph "$@" "$f" &&
	   [ ! -s "$B/fl-$name.err" ] &&
	   python3 "$HERE/flame-check.py" "$B/fl-$name-f.out" "$B/fl-$name.out" $ms >"$B/fl.check"; then
		fn="$fn $name: $(cat "$B/fl.check");"
	else
		echo "  flamegraph $name $*: $(cat "$B/fl.check" 2>/dev/null) $(head -2 "$B/fl-$name.err")"
		fb=1
	fi
}
fcheck getppid "$TG"
fcheck multi "$B/multi.dat"
fcheck latency "$B/lat.dat" --weight=latency
fcheck tracer "$TG" --tracer-frames --no-annotate
[ $fb = 0 ] && pass "flamegraph: well-formed SVG, each frame the total --folded gives its path:$fn" ||
	fail "flamegraph"
"$USTACK" --flamegraph --folded "$TG" >"$B/flbad.out" 2>"$B/flbad.err"
[ $? = 1 ] && [ ! -s "$B/flbad.out" ] && grep -q 'one of .*--flamegraph' "$B/flbad.err" &&
	pass "flamegraph: with --folded: one line, exit 1" || fail "flamegraph: bad usage"

# ---- 4. --json: one object per event; the text output written again
# from the objects alone (json-check.py), on every fixture and on the
# synthetic traces of every status and mark, with --inline and -r ----
jb=0 jn=0
jcheck() { # jcheck NAME FILE [ustack options]: json-check.py's verdict
	local name=$1 f=$2 m= c=
	shift 2
	case $(basename "$f") in two-instances.dat|instances.dat) m=--multi ;; esac
	case " $* " in *" -r "*) c=--raw ;; *" --inline "*) c=--inline ;; esac
	if us "j-$name" -q -s "$FIX" "$@" "$f" && us "j-$name-json" -q -s "$FIX" --json "$@" "$f" &&
	   python3 "$HERE/json-check.py" "$B/j-$name.out" "$B/j-$name-json.out" $m $c >"$B/j.check"; then
		jn=$((jn + 1))
	else
		echo "  json $name $*: $(cat "$B/j.check" 2>/dev/null)"
		jb=1
	fi
}
$MK flags "$B/flags.dat" --binary "$WORK" >/dev/null
$MK unwinder "$B/unwinder.dat" --binary "$WORK" >/dev/null
$MK exec "$B/exec.dat" --binary "$WORK" --count 3 >/dev/null
$MK never "$B/never.dat" --binary "$WORK" --count 3 >/dev/null
$MK instances "$B/instances.dat" --binary "$WORK" --count 4 >/dev/null
# the maps name a PIE, the file there is not one (a rebuild as non-PIE):
# the text says "[not the file mapped]", so must the JSON
cp "$WORK" "$B/nm-callchain" && $MK exec "$B/notmapped.dat" --binary "$B/nm-callchain" --count 3 >/dev/null &&
	cp "$WORK-nopie" "$B/nm-callchain"
for f in "$FIX"/*.dat "$B/flags.dat" "$B/unwinder.dat" "$B/exec.dat" "$B/never.dat" "$B/instances.dat" "$B/swap.dat" \
	 "$B/notmapped.dat"; do
	case $f in *prerelease*) continue ;; esac
	n=$(basename "$f" .dat)
	jcheck "$n" "$f"
	jcheck "$n-inline" "$f" --inline
	jcheck "$n-raw" "$f" -r
done
jcheck tg-tracer "$TG" --tracer-frames
# the marks and statuses are there (and so were compared)
cat "$B"/j-*-json.out >"$B/j-all.json"
for want in '"mark":"before-exec"' '"mark":"object-not-read"' '"mark":"not-the-file-mapped"' '"status":"lost"' '"status":"truncated"' \
	    '"status":"never-arrived"' '"status":"empty"' '"late":true' '"unwinder":"sframe"' \
	    '"unwinder":"sframe+fp"' '"inlined":[{"symbol":"raw_syscall3"' '"instance":"second"' \
	    '"event":"unseen-event"' '"status":"no-cookie"'; do
	grep -qF "$want" "$B/j-all.json" || { echo "  json: nothing has $want"; jb=1; }
done
if [ $jb = 0 ] && python3 -m json.tool --json-lines "$B/j-all.json" >/dev/null; then
	pass "json: $jn outputs (every fixture and synthetic trace, --inline, -r): each line one JSON object (json.tool), the text output written again from them alone (json-check.py), every status and mark met"
else
	fail "json: differs from the text output"
fi
# under valgrind; strings escaped: a task name with a quote, a
# backslash, a control character and a byte that is not UTF-8
python3 - "$B/t.dat" "$B/comm.dat" <<'EOP'
import sys
d = open(sys.argv[1], "rb").read()
assert d.count(b"1234 callchain\n") == 1
open(sys.argv[2], "wb").write(d.replace(b"1234 callchain\n", b'1234 ca"l\\c\xff\x01n\n'))
EOP
if usv j-comm --json "$B/comm.dat" &&
   python3 -c 'import json, sys
e = [json.loads(l) for l in open(sys.argv[1])]
assert e and e[0]["comm"] == "ca\"l\\c\u00ff\u0001n", e[0]["comm"]
assert e[0]["user"][0]["symbol"] == "work_inner" and e[0]["kernel"][0]["symbol"] == "do_syscall_64"' "$B/j-comm.out"; then
	pass "json: valgrind clean; a quote, a backslash, a control byte and a non-UTF-8 byte in a name escaped"
else
	fail "json: escaping"
fi

# ---- 5. JIT frames from perf-PID.map: tests/workload/jitmap.c copies code
# into anonymous memory, writes its map line as JITs do, and calls
# getppid() through it; a synthetic trace of that process whose second user
# frame is the return address in the JIT code (after its call: +6) ----
JD=$B/jit
mkdir -p "$JD"
if gcc -O1 -g -fno-omit-frame-pointer -o "$JD/jitmap" "$HERE/../../workload/jitmap.c" &&
   "$JD/jitmap" 1 "$JD/own.map" >"$JD/jit.out"; then
	read -r _ _ jstart jsize jname <"$JD/jit.out"
	# jitdat PID OUT START: the trigger trace of PID, work_middle's
	# return address replaced by the JIT code's (at START)
	jitdat() {
		$MK trigger "$2.tmp" --binary "$WORK" --count 2 --pid "$1" >/dev/null &&
		"$USTACK" -q -r "$2.tmp" | awk '/^  u / { n++ } n == 2 { print $2; exit }' >"$JD/mid" &&
		python3 - "$2.tmp" "$2" "$(cat "$JD/mid")" "$3" <<'EOP'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
old, new = int(sys.argv[3], 16), int(sys.argv[4], 16) + 6
a = struct.pack("<Q", old)
assert d.count(a) >= 1
open(sys.argv[2], "wb").write(d.replace(a, struct.pack("<Q", new)))
EOP
	}
	# beside the trace (as perf-1234.map): named, its map as the file
	jitdat 1234 "$JD/jit.dat" "$jstart" && cp "$JD/own.map" "$JD/perf-1234.map"
	us jit-none -q -r "$JD/jit.dat"
	if us jit -q "$JD/jit.dat" &&
	   [ "$(grep -cxF "  u $jname+0x6 ($JD/perf-1234.map)" "$B/jit.out")" = 4 ] &&
	   us jit-folded -q --folded "$JD/jit.dat" && grep -qF ";work_outer;${jname}_[j];work_inner;" "$B/jit-folded.out" &&
	   us jit-json -q --json "$JD/jit.dat" &&
	   python3 -c 'import json, sys
f = json.loads(open(sys.argv[1]).readline())["user"][1]
assert (f["symbol"], f["offset"], f["object"]) == (sys.argv[2], 6, sys.argv[3]), f' \
		"$B/jit-json.out" "$jname" "$JD/perf-1234.map"; then
		pass "jit: a frame in JIT code named from the perf-PID.map beside the trace ($jname+0x6), _[j] in folded stacks, its map as the object in JSON"
	else
		grep '^  u ' "$B/jit.out" | head -3
		fail "jit: perf-PID.map beside the trace"
	fi
	# a newer line for the same code wins; lines that are not one are
	# skipped (the file is untrusted)
	{ printf 'garbage\n%s zz bad\n\n%s 0 zero\n' "$jstart" "$jstart"
	  printf '%s %s jit_newer\n' "$jstart" "$jsize"; head -c 5000 /dev/urandom | tr -d '\0'; echo; } >>"$JD/perf-1234.map"
	if usv jit-newer -q "$JD/jit.dat" && [ "$(grep -c '^  u jit_newer+0x6 ' "$B/jit-newer.out")" = 4 ]; then
		pass "jit: a later line for the same code wins, bad lines skipped (valgrind clean)"
	else
		grep '^  u ' "$B/jit-newer.out" | head -3
		fail "jit: later line / bad lines"
	fi
	# where a JIT writes it, /tmp/perf-PID.map, for the process that ran
	read -r _ jp js _ < <("$JD/jitmap" 1)
	if [ -n "$jp" ] && [ -f "/tmp/perf-$jp.map" ] && jitdat "$jp" "$JD/tmp.dat" "$js" &&
	   us jit-tmp -q "$JD/tmp.dat" &&
	   [ "$(grep -cxF "  u $jname+0x6 (/tmp/perf-$jp.map)" "$B/jit-tmp.out")" = 4 ]; then
		pass "jit: /tmp/perf-PID.map, as the JIT wrote it for its own pid"
	else
		fail "jit: /tmp/perf-PID.map"
	fi
	rm -f "/tmp/perf-$jp.map"
	# a jitdump instead of a map (jitmap's own: a load, a load elsewhere
	# moved there, records to skip, a last one cut short), beside the
	# trace: the move is newer and names the code; valgrind clean
	mkdir -p "$JD/dump" "$JD/both"
	if read -r _ _ ds _ < <("$JD/jitmap" 1 "$JD/dump.map" "$JD/dump/jit-1235.dump") &&
	   jitdat 1235 "$JD/dump/jit.dat" "$ds" && usv jitdump -q "$JD/dump/jit.dat" &&
	   [ "$(grep -cxF "  u jit_moved+0x6 ($JD/dump/jit-1235.dump)" "$B/jitdump.out")" = 4 ]; then
		pass "jitdump: jit-PID.dump beside the trace, a code move naming the code (jit_moved+0x6), short last record ignored (valgrind clean)"
	else
		grep '^  u ' "$B/jitdump.out" 2>/dev/null | head -3
		fail "jitdump: jit-PID.dump beside the trace"
	fi
	# a map and a dump in one directory: the map, as before there were dumps
	cp "$JD/dump/jit.dat" "$JD/dump/jit-1235.dump" "$JD/both/" &&
	sed 's/ jit_trampoline.*/ from_the_map/' "$JD/dump.map" >"$JD/both/perf-1235.map"
	if us jitdump-both -q "$JD/both/jit.dat" &&
	   [ "$(grep -cxF "  u from_the_map+0x6 ($JD/both/perf-1235.map)" "$B/jitdump-both.out")" = 4 ]; then
		pass "jitdump: a perf-PID.map beside it wins"
	else
		fail "jitdump: map and dump in one directory"
	fi
	# damaged dumps: no name from them, no crash, valgrind clean
	python3 - "$JD/dump/jit-1235.dump" "$JD" <<'EOP'
import os, random, struct, sys
d = open(sys.argv[1], "rb").read()
random.seed(7)
bad = {
    "short-header": d[:30],
    "swapped": struct.pack(">I", 0x4A695444) + d[4:],
    "zero-size": d[:40] + struct.pack("<IIQ", 0, 0, 0) + d[40:],
    "huge-size": d[:40] + struct.pack("<IIQ", 0, 0xffffff00, 0) + d[56:],
    "no-nul": d[:40] + d[40:96] + b"x" * 4200,
    "noise": d[:40] + bytes(random.randrange(256) for _ in range(20000)),
}
for k, v in bad.items():
    os.makedirs("%s/bad-%s" % (sys.argv[2], k), exist_ok=True)
    open("%s/bad-%s/jit-1235.dump" % (sys.argv[2], k), "wb").write(v)
EOP
	nbad=0
	for b in short-header swapped zero-size huge-size no-nul noise; do
		cp "$JD/dump/jit.dat" "$JD/bad-$b/"
		if ! usv "jitdump-$b" -q "$JD/bad-$b/jit.dat" ||
		   grep -q 'jit_moved\|jit_first' "$B/jitdump-$b.out"; then
			nbad=$((nbad + 1)); echo "damaged jitdump $b:"; grep '^  u ' "$B/jitdump-$b.out" | sed -n 2p
		fi
	done
	[ $nbad = 0 ] && pass "jitdump: 6 damaged dumps (short header, other byte order, record sizes 0 and 4 GB, a name with no NUL, noise): no names from them, valgrind clean" ||
		fail "jitdump: $nbad damaged dumps"
	# a stock JIT's map: V8's (node --perf-basic-prof), names with spaces;
	# the frame in its optimized code, named as perf's rule says (the
	# last line that holds the address), computed here from the file
	# v8_run DIR FLAGS...: a node program whose hotLoop V8 optimizes, run
	# in DIR with V8's FLAGS; prints its pid
	v8_run() {
		local d=$1
		shift
		(cd "$d" && node "$@" -e 'function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s }
			let t = 0; for (let k = 0; k < 2000; k++) t += hotLoop(10000); console.log(process.pid)')
	}
	# v8_hot MAP: an address in the last optimized hotLoop of V8's perf map
	# and the name perf's rule gives it (the last line that holds it),
	# spaces as \x01
	v8_hot() {
		python3 - "$1" <<'EOP'
import sys
lines = [l.rstrip("\n").split(" ", 2) for l in open(sys.argv[1])]
hot = [l for l in lines if len(l) == 3 and "*hotLoop" in l[2]]
a = int(hot[-1][0], 16) + 0x10
best = [l for l in lines if len(l) == 3 and int(l[0], 16) <= a < int(l[0], 16) + int(l[1], 16)][-1]
print("%x %s+0x%x" % (a, best[2].replace(" ", "\x01"), a - int(best[0], 16)))
EOP
	}
	if command -v node >/dev/null; then
		np=$(v8_run "$JD" --perf-basic-prof)
		if [ -n "$np" ] && mv "/tmp/perf-$np.map" "$JD/v8.map" &&
		   read -r va want < <(v8_hot "$JD/v8.map") && cp "$JD/v8.map" "$JD/perf-1234.map" && jitdat 1234 "$JD/v8.dat" "$(printf %x $((0x$va - 6)))" &&
		   us jit-v8 -q "$JD/v8.dat" &&
		   [ "$(grep -cxF "  u ${want//$'\x01'/ } ($JD/perf-1234.map)" "$B/jit-v8.out")" = 4 ]; then
			pass "jit: node's own perf map (V8, $(wc -l <"$JD/v8.map") lines): its optimized hotLoop named '${want//$'\x01'/ }', the last line holding it"
		else
			grep '^  u ' "$B/jit-v8.out" 2>/dev/null | sed -n 2p
			fail "jit: node's perf map (want '${want:-}')"
		fi
		rm -f "/tmp/perf-$np.map"
		# V8's jitdump (--perf-prof, written to its working directory) of
		# a run that also wrote a map: the dump alone beside the trace
		# names the optimized hotLoop as the map does (its lines checked
		# against perf script in guest t-94)
		mkdir -p "$JD/v8d"
		np=$(v8_run "$JD/v8d" --perf-basic-prof --perf-prof)
		if [ -n "$np" ] && [ -f "$JD/v8d/jit-$np.dump" ] && mv "/tmp/perf-$np.map" "$JD/v8d.map" &&
		   read -r va want < <(v8_hot "$JD/v8d.map") && cp "$JD/v8d/jit-$np.dump" "$JD/v8d/jit-1234.dump" &&
		   jitdat 1234 "$JD/v8d/v8.dat" "$(printf %x $((0x$va - 6)))" &&
		   us jitdump-v8 -q "$JD/v8d/v8.dat" &&
		   [ "$(grep -cxF "  u ${want//$'\x01'/ } ($JD/v8d/jit-1234.dump)" "$B/jitdump-v8.out")" = 4 ]; then
			pass "jitdump: node's own (V8 --perf-prof, $(stat -c %s "$JD/v8d/jit-$np.dump") bytes): hotLoop named '${want//$'\x01'/ }' as its map names it"
		else
			grep '^  u ' "$B/jitdump-v8.out" 2>/dev/null | sed -n 2p
			fail "jitdump: node's jitdump (want '${want:-}')"
		fi
		rm -f "/tmp/perf-$np.map"
	else
		skip "jit: no node here for a stock JIT's map"
	fi
else
	fail "jit: build or run tests/workload/jitmap.c"
fi
