#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack's answers without awk (issue 20 item 9): choosing the events (-F
# FILTER, --pid, --comm, --time), folded stacks that name the event,
# inlined frames (--inline) and the call-path summary (--summary).  The
# oracles are other people's tools on the same files: stock trace-cmd
# report (Debian's, -F, --pid, --comm, -t time stamps, -R raw frames) for
# which events and how many, addr2line -i -f for the names.  The awk and
# python below only count their output.  Prints PASS:/FAIL: lines.
#   usage: test-select.sh USTACK FIXDIR BUILD WORKLOAD
# (WORKLOAD: tests/workload/callchain built on the host, PIE, for
# mktrace.py's multi-task trace)
set -u
USTACK=$1
FIX=$2
B=$3/select
WORK=$4
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$B"
. "$HERE/valgrind.sh"
TC=${TRACE_CMD:-trace-cmd}

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }

# us NAME ARGS...: ustack (under valgrind) into $B/NAME.out/.err; its
# exit status.  0 and 2 (a binary of the trace not here) are answers.
us() {
	local name=$1 rc
	shift
	"${VG[@]}" "$USTACK" "$@" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	if [ $rc != 0 ] && [ $rc != 2 ]; then
		echo "ustack $*: exit $rc: $(head -3 "$B/$name.err")"
		return 1
	fi
	return 0
}

# The events of stock report's output, "pid event" a line (the deferred
# stack records and stack lines left out: they are not events)
tc_events() {
	awk 'NR > 1 && $0 !~ /^ *=>/ &&
	     $0 !~ / (user_stack_cookie|user_stack_deferred|kernel_stack|user_stack):/ {
		for (i = 1; i <= NF; i++) if ($i ~ /:$/ && $i !~ /^[0-9.]+:$/) break
		ev = $i; sub(/:$/, "", ev)
		n = split($1, t, "-"); print t[n], ev
	}' "$1" | sort
}
# The same of ustack's text output (the event without its system)
us_events() {
	awk '/^[^ ]/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		ev = $(i + 2); sub(/^.*:/, "", ev)
		n = split($1, t, "-"); print t[n], ev
	}' "$1" | sort
}

# same NAME REPORT_ARGS -- USTACK_ARGS: the events ustack shows are those
# stock report shows, and there are some
same() {
	local name=$1 r=() u=()
	shift
	while [ "$1" != -- ]; do r+=("$1"); shift; done
	shift
	u=("$@")
	"$TC" report "${r[@]}" >"$B/$name.tc" 2>"$B/$name.tc.err"
	tc_events "$B/$name.tc" >"$B/$name.tc.ev"
	if ! us "$name" -q "${u[@]}"; then
		fail "$name: ustack ${u[*]}"
		return
	fi
	us_events "$B/$name.out" >"$B/$name.us.ev"
	if [ -s "$B/$name.tc.ev" ] && cmp -s "$B/$name.tc.ev" "$B/$name.us.ev"; then
		pass "$name: ustack ${u[*]} shows the $(wc -l <"$B/$name.us.ev") events trace-cmd report ${r[*]} shows"
	else
		diff "$B/$name.tc.ev" "$B/$name.us.ev" | head -5
		fail "$name: ustack ${u[*]}: $(wc -l <"$B/$name.us.ev") events, trace-cmd report ${r[*]}: $(wc -l <"$B/$name.tc.ev")"
	fi
}

OT=$FIX/option-T.dat
TG=$FIX/trigger-getppid.dat

# ---- -F FILTER, as trace-cmd report -F ----
same filter-event -F sys_enter_getppid "$OT" -- -s "$FIX" -F sys_enter_getppid "$OT"
same filter-system-events -F 'syscalls/sys_enter_mmap,sys_exit_mmap' "$OT" -- \
	-s "$FIX" -F 'syscalls/sys_enter_mmap,sys_exit_mmap' "$OT"
same filter-field -F 'sys_enter_mmap : len > 8192' "$OT" -- -s "$FIX" -F 'sys_enter_mmap : len > 8192' "$OT"
same filter-regex-comm -F 'sys_exit_.* : COMM == "callchain-pie"' "$OT" -- \
	-s "$FIX" -F 'sys_exit_.* : COMM == "callchain-pie"' "$OT"
same filter-two -F sys_enter_getppid -F 'sys_enter_close' "$OT" -- \
	-s "$FIX" -F sys_enter_getppid -F sys_enter_close "$OT"
# a filter that does not parse: one line, exit 1, nothing on stdout
"$USTACK" -s "$FIX" -F 'sys_enter_getppid : (' "$TG" >"$B/badf.out" 2>"$B/badf.err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$B/badf.out" ] && [ "$(wc -l <"$B/badf.err")" = 1 ] &&
   grep -q "^ustack: -F 'sys_enter_getppid : (': " "$B/badf.err"; then
	pass "filter-bad: a filter that does not parse: one line naming it, exit 1"
else
	cat "$B/badf.err"
	fail "filter-bad: exit $rc"
fi
# the old -F (folded) on a file: says what -F is now
"$USTACK" -F "$TG" >/dev/null 2>"$B/oldf.err"
rc=$?
[ $rc = 1 ] && grep -q 'folded stacks are --folded' "$B/oldf.err" &&
	pass "filter-old-usage: ustack -F FILE says -F is a filter and folded stacks are --folded" ||
	fail "filter-old-usage: ustack -F FILE: exit $rc, $(cat "$B/oldf.err")"

# ---- --pid, --comm: a trace of several tasks (mktrace.py: threads
# 1235 and 1236 of process 1234 enter getppid first and come back last,
# a kernel thread 33) ----
ST=$B/tasks.dat
if python3 "$HERE/mktrace.py" --formats "$HERE/data/formats" stuck "$ST" \
	--binary "$WORK" --count 4 --stuck 2 --back >/dev/null; then
	same pid-one --pid 1235 "$ST" -- --pid 1235 "$ST"
	same pid-list --pid 1234,33 "$ST" -- --pid 1234,33 "$ST"
	same comm --comm callchain "$ST" -- --comm callchain "$ST"
	same comm-kthread --comm kworker/0:1 "$ST" -- --comm kworker/0:1 "$ST"
	# with -F: both hold (trace-cmd report ORs them; the test's oracle
	# for "and" is report -F with the pid in the filter)
	same pid-and-filter -F 'sys_exit_getppid : common_pid == 1234' "$ST" -- \
		--pid 1234 -F sys_exit_getppid "$ST"
else
	fail "pid/comm: mktrace.py stuck"
fi

# ---- --time START,END: the events whose time stamp (report -t, in
# full) is within, ends included ----
"$TC" report -t "$OT" >"$B/time.tc" 2>/dev/null
tc_times() { # tc_times START END: "ts event" of the events within
	awk -v s="$1" -v e="$2" 'NR > 1 && $0 !~ /^ *=>/ &&
	     $0 !~ / (user_stack_cookie|user_stack_deferred|kernel_stack):/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		ts = $i; sub(/:$/, "", ts); ev = $(i + 1); sub(/:$/, "", ev)
		if ((s == "" || ts + 0 >= s + 0) && (e == "" || ts + 0 <= e + 0)) print ts, ev
	}' "$B/time.tc" | sort
}
us_times() {
	awk '/^[^ ]/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		ev = $(i + 2); sub(/^.*:/, "", ev); print $(i + 1), ev
	}' "$1" | sort
}
# the 10th and 30th events' time stamps as report prints them
read -r T1 T2 < <(tc_times "" "" | sort -n | awk 'NR == 10 { a = $1 } NR == 30 { print a, $1 }')
if [ -z "${T1:-}" ]; then
	fail "time: no time stamps in trace-cmd report -t"
else
	for range in "$T1,$T2" "$T1," ",$T1"; do
		s=${range%,*} e=${range#*,}
		tc_times "$s" "$e" >"$B/time.want"
		if us time -q -s "$FIX" --time "$range" "$OT"; then
			us_times "$B/time.out" >"$B/time.got"
		else
			: >"$B/time.got"
		fi
		n=$(wc -l <"$B/time.want")
		if [ "$n" -gt 0 ] && cmp -s "$B/time.want" "$B/time.got"; then
			pass "time: --time $range: the $n events report -t shows in that window"
		else
			diff "$B/time.want" "$B/time.got" | head -5
			fail "time: --time $range: $(wc -l <"$B/time.got") events, want $n"
		fi
	done
fi
"$USTACK" --time 5.2,5.1 "$OT" >/dev/null 2>"$B/badt.err"
[ $? = 1 ] && grep -q "^ustack: bad --time '5.2,5.1'" "$B/badt.err" &&
	pass "time: an empty window (end before start) is refused, exit 1" ||
	fail "time: --time 5.2,5.1: $(cat "$B/badt.err")"

# ---- --folded: each line starts with its event, and an event's lines
# count its events once, as many as report shows ----
if us folded -q -s "$FIX" --folded "$OT"; then
	awk '{ split($1, f, ";"); ev = f[1]; sub(/^.*:/, "", ev); n[ev] += $NF }
	     END { for (e in n) print e, n[e] }' "$B/folded.out" | sort >"$B/folded.got"
	"$TC" report "$OT" 2>/dev/null >"$B/folded.tc"
	tc_events "$B/folded.tc" | awk '{ n[$2]++ } END { for (e in n) print e, n[e] }' |
		sort >"$B/folded.want"
	if [ -s "$B/folded.want" ] && cmp -s "$B/folded.want" "$B/folded.got" &&
	   ! grep -qv '^[a-z_]*:[a-z_0-9]*;' "$B/folded.out"; then
		pass "folded: every stack starts with its event; per event, the counts add up to report's events ($(wc -l <"$B/folded.want") events)"
	else
		diff "$B/folded.want" "$B/folded.got" | head -5
		head -3 "$B/folded.out"
		fail "folded: stacks do not start with their event, or counts differ"
	fi
else
	fail "folded: ustack --folded"
fi

# ---- --inline: the functions inlined at a user frame, as addr2line -i
# names them (trigger-getppid.dat's callchain is not PIE: its frames are
# its addresses; the frame is a return address, the call is the byte
# before) ----
if us inl-raw -q -r "$TG"; then
	a=$(awk '/^  u / { print $2; exit }' "$B/inl-raw.out")
	addr2line -i -f -e "$FIX/callchain" "$(printf %x $((a - 1)))" >"$B/inl.a2l"
	# innermost first: "func file:line" a line
	paste - - <"$B/inl.a2l" | awk '{ n = split($2, p, "/"); print $1, p[n] }' >"$B/inl.want"
	ninl=$(($(wc -l <"$B/inl.want") - 1))
	if [ "$ninl" -lt 1 ]; then
		fail "inline: addr2line sees nothing inlined at $a in the fixture's callchain"
	elif us inl -q -s "$FIX" --inline "$TG"; then
		# the first event's first user lines
		awk '/^[^ ]/ { n++ } n == 1 && /^  u / { print }' "$B/inl.out" |
			head -$((ninl + 1)) >"$B/inl.got"
		ok=1 i=0
		while read -r fn loc; do
			i=$((i + 1))
			line=$(sed -n "${i}p" "$B/inl.got")
			if [ $i -le $ninl ]; then
				[ "$line" = "  u $fn [inlined] $loc" ] || ok=0
			else
				case $line in "  u $fn+0x"*" $loc") ;; *) ok=0 ;; esac
			fi
		done <"$B/inl.want"
		if [ $ok = 1 ]; then
			pass "inline: text: '$(head -1 "$B/inl.got" | sed 's/^  u //')' before its frame, as addr2line -i gives them"
		else
			cat "$B/inl.want" "$B/inl.got"
			fail "inline: text"
		fi
		# folded: the frame, then what is inlined in it, outermost first
		want=$(tac "$B/inl.want" | awk 'NR == 1 { s = $1; next } { s = s ";" $1 "_[inlined]" } END { print s }')
		if us inl-folded -q -s "$FIX" --folded --inline "$TG" &&
		   [ "$(grep -cF ";$want;" "$B/inl-folded.out")" = 2 ] &&
		   us inl-folded0 -q -s "$FIX" --folded "$TG" && ! grep -q 'inlined' "$B/inl-folded0.out"; then
			pass "inline: folded: ;$want; in the stacks of both events (none without --inline)"
		else
			head -3 "$B/inl-folded.out"
			fail "inline: folded: no ;$want;"
		fi
	else
		fail "inline: ustack --inline"
	fi
else
	fail "inline: ustack -r"
fi

# ---- --summary: per event, its distinct user call paths with counts and
# shares.  Oracle: stock report -R's raw frames, each request's user
# stack joined to the events that asked (their cookie), counted ----
"$TC" report -R "$OT" >"$B/sum.tc" 2>/dev/null
python3 - "$B/sum.tc" >"$B/sum.want" <<'EOF'
import re, sys
asked = {}      # cookie -> events that asked
last = {}       # pid -> last event
stacks = {}     # cookie -> frames, outermost first
for line in open(sys.argv[1]):
    m = re.match(r'\s*(\S+)-(\d+)\s+\[\d+\]\s+[\d.]+:\s+(\w+):\s*(.*)', line)
    if not m:
        continue
    pid, ev, rest = m.group(2), m.group(3), m.group(4)
    c = re.search(r'cookie=(0x[0-9a-f]+)', rest)
    if ev == 'user_stack_cookie':
        asked.setdefault(c.group(1), []).append(last.get(pid))
    elif ev == 'user_stack_deferred':
        b = [int(x, 16) for x in re.search(r'frames=ARRAY\[(.*)\]', rest).group(1).split(',')]
        fr = [sum(b[i + j] << (8 * j) for j in range(8)) for i in range(0, len(b), 8)]
        stacks[c.group(1)] = fr[::-1]
    else:
        last[pid] = ev
count = {}
for c, evs in asked.items():
    for ev in evs:
        key = (ev, tuple(stacks.get(c, ())))
        count[key] = count.get(key, 0) + 1
total = {}
for (ev, fr), n in count.items():
    total[ev] = total.get(ev, 0) + n
for (ev, fr), n in sorted(count.items()):
    print("%s %d %.2f%% %s" % (ev, n, 100.0 * n / total[ev], ",".join("0x%x" % a for a in fr)))
EOF
if us sum-raw -q -r --summary "$OT"; then
	# "event count share frames" a path, from the summary's lines
	awk '/^# [^ ]*: [0-9]+ events?, / { ev = $2; sub(/:$/, "", ev); sub(/^.*:/, "", ev); next }
	     /^#/ || /^$/ { next }
	     /^ *[0-9.]+% / { if (p != "") print p; p = ev " " $2 " " $1 " "; f = ""; next }
	     { p = p (substr(p, length(p)) == " " ? "" : ",") $1 }
	     END { if (p != "") print p }' "$B/sum-raw.out" | sort >"$B/sum.got"
	sort -o "$B/sum.want" "$B/sum.want"
	if [ "$(wc -l <"$B/sum.want")" -gt 10 ] && cmp -s "$B/sum.want" "$B/sum.got"; then
		pass "summary: option-T.dat: the $(wc -l <"$B/sum.want") (event, call path) counts and shares that stock report -R's frames give"
	else
		diff "$B/sum.want" "$B/sum.got" | head -6
		fail "summary: option-T.dat: paths, counts or shares differ from stock report -R's"
	fi
	# most first: each event's paths in decreasing counts, the events too
	if awk '/^# / && / events?, / { t = $3; if (pt != "" && t > pt) bad++; pt = t; pc = ""; next }
		/^ *[0-9.]+% / { if (pc != "" && $2 > pc) bad++; pc = $2 }
		END { exit bad > 0 }' "$B/sum-raw.out"; then
		pass "summary: events and their paths, most first"
	else
		fail "summary: not sorted"
	fi
else
	fail "summary: ustack --summary -r"
fi
# the names: the getppid path of trigger-getppid.dat is its frames as
# addr2line -i -f names them, callers first, inlined ones after their
# caller (the frames of callchain: the libc frame's file is the host's)
if us sum-named -q -s "$FIX" --summary --inline -F sys_enter_getppid "$TG"; then
	awk '/^  u / { print $2 } /^$/ { exit }' "$B/inl-raw.out" | tac | while read -r a; do
		[ $((a)) -lt $((0x1000000)) ] || continue
		addr2line -i -f -e "$FIX/callchain" "$(printf %x $((a - 1)))" |
			awk 'NR % 2 { f[++n] = $1 } END { print f[n]; for (i = n - 1; i >= 1; i--) print f[i] " [inlined]" }'
	done >"$B/sum-named.want"
	sed -n 's/^ *[0-9.]*%  *[0-9]*  //p; s/^             //p' "$B/sum-named.out" |
		grep -vx callchain | tail -n "$(wc -l <"$B/sum-named.want")" >"$B/sum-named.got"
	if [ -s "$B/sum-named.want" ] && cmp -s "$B/sum-named.want" "$B/sum-named.got" &&
	   grep -q '^ 100.00%  5  callchain$' "$B/sum-named.out"; then
		pass "summary: named, --inline: 100.00% 5 callchain, then $(paste -sd, "$B/sum-named.want") as addr2line -i -f names them"
	else
		diff "$B/sum-named.want" "$B/sum-named.got"
		cat "$B/sum-named.out"
		fail "summary: names"
	fi
else
	fail "summary: ustack --summary --inline -F"
fi
