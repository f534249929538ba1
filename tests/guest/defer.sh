# Helpers for the deferred user stack tests.  Source after lib.sh.
REPO=${FTD_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
WL=$REPO/tests/workload
TC="python3 $REPO/tests/guest/tracecheck.py"
TRACES=$FTD_RESULTS/traces
mkdir -p "$TRACES"

# Paths of an instance (or of the top level with no name)
idir() { if [ -n "${1:-}" ]; then echo "$TRACEFS/instances/$1"; else echo "$TRACEFS"; fi; }

# mkinst NAME: a fresh instance with a buffer large enough for the tests
mkinst() {
	[ -d "$TRACEFS/instances/$1" ] && rmdir "$TRACEFS/instances/$1"
	mkdir "$TRACEFS/instances/$1" || return 1
	echo 2048 > "$TRACEFS/instances/$1/buffer_size_kb"
}

# trig INST SYSTEM/EVENT TRIGGER: add a trigger, fail the test if refused
trig() {
	echo "$3" > "$(idir "$1")/events/$2/trigger" ||
		t_fail "could not set '$3' on $2 in ${1:-top}"
}

# save INST NAME: copy the instance's trace to the results, print the path
save() {
	local f=$TRACES/$2.txt
	cat "$(idir "$1")/trace" > "$f"
	echo "$f"
}

# check DESCRIPTION CMD...: run a checker; on failure fail the test with
# its output, on success print it
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "  ok: $what: $out"
		return 0
	fi
	t_fail "$what: $out"
}

# kselftest NAME BIN PASSES: the current test's verdict on one of the
# series' kselftests (built in tests/workload with the kernel source's
# harness): exit 0 and PASSES cases passed, none failed or skipped; its
# TAP output kept as $TRACES/NAME.tap
kselftest() {
	local out rc tot
	out=$("$2" 2>&1)
	rc=$?
	echo "$out" > "$TRACES/$1.tap"
	tot=$(grep '^# Totals:' <<< "$out")
	if [ $rc = 0 ] && [[ $tot == *"fail:0 "* ]] && [[ $tot == *"skip:0 "* ]] && [[ $tot == *"pass:$3 "* ]]; then
		echo "  $tot"
		t_pass
	else
		t_fail "exit $rc, $tot: $(grep -E '^not ok|SKIP|FAIL|Expected' <<< "$out" | head -5 | tr '\n' ' ')"
	fi
}

# The x86-64 and i386 numbers of getppid, for raw_syscalls filters
NR_GETPPID_64=110
NR_GETPPID_32=64

# kstacks FILE: how many cookie records of a trace file carry kernel
# frames (the " => " lines the trace file prints under the record)
kstacks() {
	awk '/user_stack_cookie:/ { c = 1; next }
	     c && /^ => / { n++ } { c = 0 } END { print n + 0 }' "$1"
}

# race_hooks: the kernel has the race hooks of kernel-config/debug.patch
# (rig only: the debug kernel), which widen race windows for some tests
race_hooks() { grep -q ' rig_exec_window$' /proc/kallsyms; }

# unwinders FILE: the unwinder= words of FILE's user stacks, sorted, unique
# (flags bits 2 and 3 of user_stack_deferred: which unwinders found frames)
unwinders() {
	grep ' user_stack_deferred: ' "$1" | grep -o ' unwinder=[a-z+]*' | sort -u | tr -d ' ' | tr '\n' ' '
}

# nr_range FILE: the fewest and most frames of FILE's user stacks, "MIN-MAX"
nr_range() {
	grep ' user_stack_deferred: ' "$1" | grep -o ' nr=[0-9]*' | cut -d= -f2 |
		sort -n | sed -n '1h;${x;G;s/\n/-/p}'
}
