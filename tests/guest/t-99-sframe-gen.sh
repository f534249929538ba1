#!/bin/bash
# SFrame generated from .eh_frame (sframe-gen, Documentation/sframe.md)
# on the real kernel.  tests/userspace/sframe-gen/selfreg.c generates the
# sections of every object it has loaded (itself, Debian's libc.so.6,
# ld.so, libdw...), maps each where mmap puts it, moves it with
# sfgen_relocate() and registers it with PR_ADD_SFRAME; then it blocks
# in read() under fread() under qsort(), through frames without frame
# pointers.  The kernel must take every section, and the deferred user
# stack of that read must be eu-stack's, frame for frame, found by SFrame.
# Without the sections, the frame-pointer walk loses it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
DROPS0=$(dmesg | grep -c 'dropping .sframe')
SCRATCH=$(mktemp -d /tmp/sframe-gen.XXXXXX)
SG=$REPO/sframe-gen
reset_tracing

t_begin sframe-gen-build
# drap.c alone with -mforce-drap: drap_sort() is a DRAP frame
if make -s -C "$SG" OUT="$SCRATCH/gen" all >"$SCRATCH/make.log" 2>&1 &&
   gcc -O2 -fomit-frame-pointer -mforce-drap -Wall -Wextra -Werror -c \
	-o "$SCRATCH/drap.o" "$REPO/tests/userspace/sframe-gen/drap.c" \
	>>"$SCRATCH/make.log" 2>&1 &&
   gcc -O2 -fomit-frame-pointer -Wall -Wextra -Werror -I"$SG/include" \
	-o "$SCRATCH/sfgen-selfreg" "$REPO/tests/userspace/sframe-gen/selfreg.c" "$SCRATCH/drap.o" \
	-L"$SCRATCH/gen" -lsframe-gen -Wl,-rpath,"$SCRATCH/gen" -ldw -lelf \
	>>"$SCRATCH/make.log" 2>&1; then
	t_pass
else
	t_fail "build: $(tail -5 "$SCRATCH/make.log")"
	t_summary
	exit
fi

# blocked NAME ARGS...: run sfgen-selfreg ARGS with its reads traced in
# instance NAME, take eu-stack of it blocked in read(), then its trace;
# sets F (trace), E (eu-stack), R (its stderr)
blocked() {
	local name=$1 pid= i
	shift
	mkinst "$name" &&
	trig "$name" syscalls/sys_enter_read 'stacktrace:defer if comm == "sfgen-selfreg"' || return 1
	R=$TRACES/$name.reg E=$TRACES/$name.eu
	(sleep 20 | "$SCRATCH/sfgen-selfreg" "$@" 2>"$R") &
	for i in $(seq 200); do
		pid=$(pgrep -n sfgen-selfreg)
		[ -n "$pid" ] && [ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" = 0 ] &&
			grep -q '^State:.*S' "/proc/$pid/status" && break
		sleep 0.1
	done
	[ -n "$pid" ] || { t_fail "sfgen-selfreg $* did not start: $(cat "$R")"; return 1; }
	sleep 1
	eu-stack -1 -p "$pid" >"$E" 2>&1
	sleep 1
	F=$(save "$name" "$name")
	kill "$pid" 2>/dev/null
	wait
	echo 0 > "$(idir "$name")/tracing_on"
}

# compare TRACE EUSTACK: "same UNWINDER" when a deferred user stack of the
# trace is eu-stack's, address for address; else "lost N M" (the longest
# stack that starts at eu-stack's frame 0 has N frames, eu-stack M)
compare() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
eu = [int(m.group(1), 16) for m in
      (re.match(r'#\d+\s+0x([0-9a-f]+)', l) for l in open(sys.argv[2])) if m]
best = []
for line in open(sys.argv[1]):
    m = re.search(r'user_stack_deferred: .*?(unwinder=(\S+) )?frames=\{([^}]*)\}', line)
    if not m:
        continue
    frames = [int(x, 16) for x in m.group(3).split(',') if x]
    if eu and frames == eu:
        print('same', m.group(2) or 'fp')
        sys.exit(0)
    if eu and frames and frames[0] == eu[0] and len(frames) > len(best):
        best = frames
print('lost', len(best), len(eu))
EOF
}

t_begin sframe-gen-prctl-takes-every-section
blocked sgreg -r &&
n=$(grep -c ': prctl ok$' "$R") &&
check "all sections taken ($n): $(tail -1 "$R")" \
	grep -q "^registered $n, failed 0\$" "$R" &&
check "libc.so.6 among them" grep -q 'libc.so.6: .*prctl ok$' "$R" &&
t_pass

t_begin sframe-gen-whole-stack-as-eu-stack
out=$(compare "$TRACES/sgreg.txt" "$TRACES/sgreg.eu")
check "deferred stack is eu-stack's ($(grep -c '^#' "$TRACES/sgreg.eu") frames): $out" \
	test "$out" = "same sframe" &&
t_pass

t_begin sframe-gen-frame-pointers-lose
blocked sgfp &&
out=$(compare "$F" "$E") &&
check "without the sections the stack is cut: $out" \
	bash -c "[[ '$out' == lost* ]] && [ $(echo "$out" | cut -d' ' -f2) -lt $(echo "$out" | cut -d' ' -f3) ]" &&
t_pass

# A DRAP frame (drap_sort, -mforce-drap) between qsort() and main(): its
# CFA is *(rbp - 16), which only a flexible FDE (SFrame version 3, FDE
# type 1) says.  The kernel follows it: the whole stack, eu-stack's.
t_begin sframe-gen-flex-drap-whole-stack
blocked sgdrap -r -d &&
check "eu-stack goes through drap_sort: $(tr '\n' ' ' < "$E" | cut -c1-300)" \
	grep -q drap_sort "$E" &&
out=$(compare "$F" "$E") &&
check "deferred stack through the DRAP frame is eu-stack's ($(grep -c '^#' "$E") frames): $out" \
	test "$out" = "same sframe" &&
t_pass

# The same without flexible FDEs (-n): drap_sort has no rule, the walk
# takes its frame pointer, which points at the realigned copy of the
# frame, and the callers' CFAs are read from the wrong place.
t_begin sframe-gen-flex-drap-needs-flex
blocked sgdrapn -r -d -n &&
out=$(compare "$F" "$E") &&
check "without flexible FDEs the stack is not eu-stack's: $out" \
	bash -c "[[ '$out' == lost* ]]" &&
t_pass

# only this script's: t-97 before it drops corrupt sections on purpose
t_begin sframe-gen-no-drop
drops=$(dmesg | grep -c 'dropping .sframe')
check "no section dropped ($DROPS0 drop lines before this script, $drops now)" \
	test "$drops" = "$DROPS0" &&
t_pass

rm -rf "$SCRATCH"
t_summary
