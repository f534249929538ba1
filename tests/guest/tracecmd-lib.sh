# shellcheck shell=bash
# Shared by the guest tests of our trace-cmd (t-90-tracecmd.sh,
# vanilla-tracecmd.sh): its path in FTD_TRACECMD (rig/test-all.sh builds
# it with rig/build-tracecmd.sh).  Source after lib.sh; set D (the output
# directory) before calling report.
TCMD=${FTD_TRACECMD:-}

# tc_require TEST...: without a runnable $TCMD, every TEST fails, and
# the script ends
tc_require() {
	local t
	[ -n "$TCMD" ] && [ -x "$TCMD" ] && return 0
	for t in "$@"; do
		t_begin "$t"
		t_fail "no trace-cmd: FTD_TRACECMD='$TCMD' (rig/test-all.sh builds it with rig/build-tracecmd.sh)"
	done
	t_summary
	exit 1
}

# report NAME: the report of $D/NAME.dat in $D/NAME.txt, and with the
# stack records shown in $D/NAME.raw (no libtraceevent plugin)
report() {
	TRACEEVENT_PLUGIN_DIR=/nonexistent "$TCMD" report -i "$D/$1.dat" > "$D/$1.txt" 2> "$D/$1.rerr" ||
		{ t_fail "report $1.dat: $(tail -3 "$D/$1.rerr" | tr '\n' ' ')"; return 1; }
	TRACEEVENT_PLUGIN_DIR=/nonexistent "$TCMD" report --stack-records -i "$D/$1.dat" > "$D/$1.raw" 2>&1 ||
		{ t_fail "report --stack-records $1.dat: $(tail -3 "$D/$1.raw" | tr '\n' ' ')"; return 1; }
}

# ustacks REPORT EVENT [pid]: one line per EVENT event of the report,
# "COMM|FRAME;FRAME;..." ("COMM|PID|FRAME;..." with pid): each user frame
# "NAME FILE" ("0x... [mark]" when unnamed), inlined frames and source
# lines left out (t-90, t-91)
ustacks() {
	python3 - "$@" <<'EOF2'
import re, sys
rep, event = sys.argv[1:3]
with_pid = sys.argv[3:] == ['pid']
ev = re.compile(r'^\s*(\S.*)-(\d+)\s+\[\d+\]\s+\S+\s+\d+\.\d+: (\S+):')
lines = open(rep, errors='replace').read().split('\n')
i = 0
while i < len(lines):
    m = ev.match(lines[i])
    i += 1
    if not m or m.group(3) != event:
        continue
    while i < len(lines) and not lines[i].startswith(' <user stack>'):
        if ev.match(lines[i]):
            break
        i += 1
    fr = []
    if i < len(lines) and lines[i].startswith(' <user stack>'):
        i += 1
        while i < len(lines) and lines[i].startswith(' => '):
            f = lines[i][4:]
            i += 1
            if ' [inlined] ' in f:
                continue
            f = re.sub(r' [^ ()]+:\d+$', '', f)
            fr.append(re.sub(r'\+0x[0-9a-f]+ \((.*)\)$', r' \1', f))
    head = [m.group(1).strip()] + ([m.group(2)] if with_pid else [])
    print('|'.join(head + [';'.join(fr)]))
EOF2
}
