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
