# SPDX-License-Identifier: GPL-2.0
# Fixture-specific checks, sourced by run.sh when tests/fixtures/*.dat exist
# (uses its check/report/checked helpers and $WORK, $FIXTURES).
#
# The fixtures are expected in the final layout (Documentation/contract.md,
# section 2): ftrace:user_stack_cookie carrying the kernel stack of the
# event that asked, ftrace:user_stack_deferred with flags and depth.  A
# fixture still recorded with the pre-release series (unwind:* records)
# fails here with a line that says to record it again.  prerelease-*.dat
# are kept in that layout on purpose, for run.sh's pre-release checks.
#
# trigger-getppid.dat: stacktrace:defer on sys_enter_getppid and
# sys_exit_getppid, workload `callchain getppid N`: both events of one
# syscall share a cookie, so most user stacks complete 2 events, whose
# kernel stacks (from their cookie records) go through do_syscall_64, and
# the user stack has at least work_inner, work_middle, work_outer and main
# (4 frames; a frame-pointer walk may add libc's start frames).  Every
# asking event is named, the first of each CPU too.
#
# option-T.dat: -e syscalls -T -O userstacktrace_defer: every event's
# cookie record carries its kernel stack.

new_format() { # new_format FILE: report it, fail on a pre-release recording
	report "$1" || return 1
	if grep -q 'pre-release unwind:\* record format' "$WORK/r.out"; then
		echo "$1: recorded with the pre-release series (unwind:* records): record it again (tests/fixtures/record.sh)"
		return 1
	fi
}

fixture_trigger() {
	local f=$FIXTURES/trigger-getppid.dat
	new_format "$f" || return 1
	python3 - "$WORK/r.out" <<'EOF'
import re, sys
sys.path.insert(0, __import__("os").environ["HERE"])
import check_report as c
recs = c.parse(open(sys.argv[1]))
two = other = 0
bad = []
for r in recs:
    if r["name"] != "user_stack_deferred" or r["comm"] != "callchain":
        continue
    m = re.search(r"nr=(\d+).* events=(\d+)", r["info"])
    if not m:
        continue
    nr, ev = int(m.group(1)), int(m.group(2))
    if ev == 2:
        two += 1
    else:
        other += 1
    if nr < 4:
        bad.append("nr=%d < 4: %s" % (nr, r["info"]))
    names = [b["name"] for b in c.blocks_of(r, 0, bad)]
    for n in names:
        if n not in ("sys_enter_getppid", "sys_exit_getppid"):
            bad.append("unexpected asking event %s" % n)
    if not any("do_syscall_64" in x for x in r["more"]):
        bad.append("no do_syscall_64 in the kernel frames: %s" % r["info"])
print("callchain user stacks completing 2 events: %d, others: %d" % (two, other))
for b in bad[:10]:
    print(b)
sys.exit(1 if bad or two == 0 or two < other else 0)
EOF
}

fixture_option_T() {
	local f=$FIXTURES/option-T.dat
	new_format "$f" || return 1
	checked "$f" || return 1
	python3 - "$WORK/r.out" <<'EOF'
import json, subprocess, sys, os
out = subprocess.run([sys.executable,
                      os.path.join(os.environ["HERE"], "check_report.py"),
                      sys.argv[1]], capture_output=True, text=True).stdout
d = json.loads(out)
print(out)
sys.exit(0 if d["merged_events"] > 0 and d["kernel_frames_checked"] > 0 else 1)
EOF
}

# compat32.dat: the trigger filtered like the event, so both readers see
# the same 3 stacks (ustack: tests/userspace/lib/test-fixtures.sh), every
# event named (the first one too, printed before the plugin's wrappers
# were in place: plugin.md).
# orphan-stacks.dat: the same recording with only the event filtered: the
# plugin merges every stack of the trace (31), the 28 whose event was
# filtered out named "(event not seen)"; so does ustack (unseen-event):
# one join for all readers (readers.py).
fixture_count() { # fixture_count FILE MERGED NOT_SEEN
	new_format "$1" || return 1
	local merged unseen
	merged=$(grep -c '^ [^ ].* \[[0-9]*\] [0-9]*\.[0-9]*$' "$WORK/r.out")
	unseen=$(grep -c '^ (event not seen) \[[0-9]*\] ' "$WORK/r.out")
	echo "merged $merged (want $2), not seen $unseen (want $3)"
	[ "$merged" = "$2" ] && [ "$unseen" = "$3" ]
}

[ -f "$FIXTURES/compat32.dat" ] &&
	check "fixture compat32.dat: 3 merged stacks, as many as events (trigger filtered), all named" \
		fixture_count "$FIXTURES/compat32.dat" 3 0
[ -f "$FIXTURES/orphan-stacks.dat" ] &&
	check "fixture orphan-stacks.dat: 31 merged stacks, 28 of events filtered out" \
		fixture_count "$FIXTURES/orphan-stacks.dat" 31 28
[ -f "$FIXTURES/trigger-getppid.dat" ] &&
	check "fixture trigger-getppid.dat: enter+exit share a cookie, kernel frames through do_syscall_64, >= 4 user frames" \
		fixture_trigger
# sframe.dat: sfwork, built without frame pointers, its library's .sframe
# registered: 3 merged stacks, each marked [sframe] after <user stack>,
# each with the whole chain by name (the plugin names frames from the
# saved maps and the binaries next to the file)
fixture_sframe() {
	new_format "$1" || return 1
	local marked whole
	marked=$(grep -c '^ <user stack> \[sframe\]$' "$WORK/r.out")
	whole=$(awk -f "$REPO/tests/userspace/plugin/user-chains.awk" "$WORK/r.out" |
		grep -c '^sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_middle,sf_outer,main')
	echo "marked $marked, whole chain $whole (want 3, 3)"
	[ "$marked" = 3 ] && [ "$whole" = 3 ]
}
export -f fixture_sframe
[ -f "$FIXTURES/sframe.dat" ] &&
	check "fixture sframe.dat: 3 stacks marked [sframe], whole chain sf_lib_leaf..main by name" \
		fixture_sframe "$FIXTURES/sframe.dat"
[ -f "$FIXTURES/option-T.dat" ] &&
	check "fixture option-T.dat: events merged with their kernel stacks" \
		fixture_option_T

# merge=0 prints each user stack alone, named as in the merged blocks
# (plugin.md); it printed the addresses (issue 20 item 5)
fixture_merge0() {
	report "$1" || return 1
	awk '/ <user stack>/ { u = 1; next } /^ => / && u { print; next } { u = 0 }' \
		"$WORK/r.out" | sort -u > "$WORK/merged.frames"
	report "$1" -O unwind_deferred:merge=0 || return 1
	awk '/: user_stack_deferred: / { u = 1; next } /^ => / && u { print; next } { u = 0 }' \
		"$WORK/r.out" | sort -u > "$WORK/alone.frames"
	echo "merged: $(wc -l < "$WORK/merged.frames") frame lines, merge=0: $(wc -l < "$WORK/alone.frames")"
	grep -q '^ => work_inner+0x[0-9a-f]* (.*callchain) callchain.c:' "$WORK/alone.frames" &&
		! grep -q '^ => 0x' "$WORK/alone.frames" &&
		cmp "$WORK/merged.frames" "$WORK/alone.frames"
}
export -f fixture_merge0
# report -i A -i B: each file's frames named from its own maps (the plugin
# took neither file: two trace files open); issue 20 item 6
fixture_two_inputs() {
	$TC report -i "$1" -i "$2" > "$WORK/r.out" 2>"$WORK/r.err" || return 1
	local a b
	a=$(grep -c '^ => work_inner+0x[0-9a-f]* (.*callchain) callchain.c:' "$WORK/r.out")
	b=$(grep -c '^ => sf_lib_leaf+0x[0-9a-f]* (.*libsfwork.so)' "$WORK/r.out")
	echo "named work_inner $a, sf_lib_leaf $b; $(head -1 "$WORK/r.err")"
	[ "$a" -ge 5 ] && [ "$b" = 3 ] && ! grep -q 'which trace file' "$WORK/r.err"
}
export -f fixture_two_inputs
# Another library named libc.so.6 next to the trace (no build IDs in the
# maps): the recorded path, which exists, names the frames (issue 20
# item 7: it printed __ieee754_atan2_sse2+0xa9a)
fixture_stray_lib() {
	mkdir -p "$WORK/stray"
	cp "$1" "$FIXTURES/callchain" "$WORK/stray/"
	cp /usr/lib/x86_64-linux-gnu/libm.so.6 "$WORK/stray/libc.so.6"
	report "$WORK/stray/$(basename "$1")" || return 1
	grep -m1 'libc.so.6' "$WORK/r.out"
	grep -q '__libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)' "$WORK/r.out" &&
		! grep -q atan2 "$WORK/r.out"
}
export -f fixture_stray_lib
[ -f "$FIXTURES/trigger-getppid.dat" ] && [ -f /usr/lib/x86_64-linux-gnu/libm.so.6 ] &&
	check "fixture trigger-getppid.dat with another libc.so.6 beside it: the recorded libc names the frames" \
		fixture_stray_lib "$FIXTURES/trigger-getppid.dat"
[ -f "$FIXTURES/trigger-getppid.dat" ] && [ -f "$FIXTURES/sframe.dat" ] &&
	check "fixtures trigger-getppid.dat and sframe.dat in one report (-i A -i B): both named" \
		fixture_two_inputs "$FIXTURES/trigger-getppid.dat" "$FIXTURES/sframe.dat"
# Each block header " NAME [CPU] TS" has the time stamp of the event's
# own line, as report prints it: rounded to the microsecond, or in
# nanoseconds with -t (issue 20 item 11: the header cut to microseconds)
fixture_header_ts() {
	local opt n
	for opt in "" -t; do
		report "$1" $opt || return 1
		n=$(awk '
			/^ *[^ ].*-[0-9]+ +\[[0-9]+\] +[0-9.]+: [a-z_0-9]+:/ {
				line = $0; sub(/^ *[^ ].*-[0-9]+ +\[/, "", line)
				cpu = substr(line, 1, index(line, "]") - 1)
				sub(/^[0-9]+\] +/, "", line)
				ts = substr(line, 1, index(line, ":") - 1)
				rest = substr(line, index(line, ":") + 2)
				name = substr(rest, 1, index(rest, ":") - 1)
				seen[name " [" cpu "] " ts] = 1
				next
			}
			/^ [a-z_0-9]+ \[[0-9]+\] [0-9]+\.[0-9]+$/ {
				h++; if (!(substr($0, 2) in seen)) { bad++; if (bad == 1) print "no event line for header:" $0 > "/dev/stderr" }
			}
			END { print h + 0, bad + 0 }' "$WORK/r.out")
		echo "report $opt: headers, without their event line: $n"
		[ "${n%% *}" -gt 0 ] && [ "${n##* }" = 0 ] || return 1
	done
}
export -f fixture_header_ts
[ -f "$FIXTURES/trigger-getppid.dat" ] &&
	check "fixture trigger-getppid.dat: block headers carry the event line's time stamp (usecs, and -t)" \
		fixture_header_ts "$FIXTURES/trigger-getppid.dat"
[ -f "$FIXTURES/trigger-getppid.dat" ] &&
	check "fixture trigger-getppid.dat: merge=0 names the user frames as the merged blocks do" \
		fixture_merge0 "$FIXTURES/trigger-getppid.dat"
true
