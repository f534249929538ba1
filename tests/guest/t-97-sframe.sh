#!/bin/bash
# SFrame user unwinding (Documentation/sframe.md): the SFrame workloads,
# built -O2 -fomit-frame-pointer -Wa,--gsframe (tests/workload), make a
# getppid at a known depth, through an executable and a shared library of
# ours.  With their .sframe sections known to the kernel, stacktrace:defer
# gives the whole chain by name; with the same binary's sections
# unregistered (or not registered yet), the frame-pointer walk loses it.
# Corrupt sections, from tests/workload/sframe-tool.py, are refused at
# registration or dropped at the first unwind that reads them; the stack
# falls back to frame pointers, and the kernel says so without a warning.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
SC="python3 $REPO/tests/guest/sframecheck.py"
TOOL="python3 $WL/sframe-tool.py"
CHAIN=sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_middle,sf_outer,main
SCRATCH=$(mktemp -d /tmp/sframe.XXXXXX)
reset_tracing

# run NAME COMM EXPECT_RC CMD...: trace COMM's getppid calls in instance
# NAME while CMD runs with its maps saved; sets F (the trace) and M (maps)
run() {
	local name=$1 comm=$2 want=$3 rc
	shift 3
	mkinst "$name" &&
	trig "$name" syscalls/sys_enter_getppid "stacktrace:defer if comm == \"$comm\"" || return 1
	SFWORK_MAPS=$TRACES/$name.maps "$@" 2> "$TRACES/$name.err"
	rc=$?
	[ "$rc" = "$want" ] ||
		{ t_fail "$* exited $rc, want $want: $(cat "$TRACES/$name.err")"; return 1; }
	F=$(save "$name" "$name") M=$TRACES/$name.maps
}


# A kernel without CONFIG_UNWIND_USER_SFRAME refuses the prctl: say so once
t_begin sframe-kernel-support
if "$WL"/sfwork -r getppid 1 2>&1 | grep -q 'failed: Invalid argument'; then
	t_fail "prctl(PR_ADD_SFRAME) refused: a kernel without CONFIG_UNWIND_USER_SFRAME"
	t_summary
	exit
fi
t_pass

t_begin sframe-dynamic-whole-chain
run sfdyn sfwork 0 "$WL"/sfwork -r getppid 3 &&
check "whole chain with SFrame" $SC chain "$F" "$M" sfwork $CHAIN --min 3 &&
check "the stacks say SFrame: '$(unwinders "$F")'" \
	test "$(unwinders "$F")" = "unwinder=sframe " &&
t_pass

# Both unwinders in one stack: an executable with frame pointers and no
# .sframe (sfwork-fp) calls the SFrame library: SFrame up to sf_lib_outer,
# frame pointers from sf_middle on
t_begin sframe-mixed-whole-chain
run sfmix sfwork-fp 0 "$WL"/sfwork-fp -r getppid 3 &&
check "whole chain, SFrame then frame pointers" $SC chain "$F" "$M" sfwork-fp $CHAIN --min 3 &&
check "the stacks say both: '$(unwinders "$F")'" \
	test "$(unwinders "$F")" = "unwinder=sframe+fp " &&
t_pass

# The library is not registered: the unwind starts in it, frame pointers
t_begin sframe-dynamic-unregistered-lib-loses
run sfnolib sfwork 0 "$WL"/sfwork getppid 3 &&
check "chain lost without the library's section" $SC lost "$F" "$M" sfwork $CHAIN --min 3 &&
t_pass

t_begin sframe-dynamic-frame-pointers-lose
run sffp sfwork 0 "$WL"/sfwork -u getppid 3 &&
check "chain lost by frame pointers" $SC lost "$F" "$M" sfwork $CHAIN --min 3 &&
check "no stack says SFrame: '$(unwinders "$F")'" \
	bash -c "! grep -q 'unwinder=[a-z+]*sframe' '$F'" &&
t_pass

# A program with frame pointers and no .sframe: its stacks say fp
t_begin sframe-unwinder-fp-program
run fpprog callchain 0 "$WL"/callchain getppid 2 &&
check "the stacks say frame pointers: '$(unwinders "$F")'" \
	test "$(unwinders "$F")" = "unwinder=fp " &&
t_pass

# Registered by exec alone, no prctl
t_begin sframe-static-whole-chain
run sfstat sfwork-static 0 "$WL"/sfwork-static getppid 3 &&
check "whole chain with SFrame" $SC chain "$F" "$M" sfwork-static $CHAIN --min 3 &&
t_pass

# exec registers the executable's section without reading its FDE table
# (a table of thousands of FDEs no unwinder may read): an unsorted table is
# found, and the section dropped with a message, at the first unwind that
# reads it.  Before, exec refused it silently: no message at all.
t_begin sframe-exec-fdes-checked-at-first-use
d=$SCRATCH/exec-unsorted n0=$(dmesg | grep -c 'sframe: ')
mkdir -p "$d" &&
if ! $TOOL corrupt "$WL"/sfwork-static unsorted "$d"/sfwork-static; then
	t_fail "generator"
elif run sfexecbad sfwork-static 0 "$d"/sfwork-static getppid 3; then
	check "falls back, chain lost" $SC lost "$F" "$M" sfwork-static $CHAIN --min 3 &&
	check "dropped at the first unwind, once, with a message" \
		test "$(dmesg | grep -c 'sframe: sfwork-static.*dropping .sframe.*corrupt')" = $((n0 + 1)) &&
	t_pass
fi

t_begin sframe-static-frame-pointers-lose
run sfstatfp sfwork-static 0 "$WL"/sfwork-static -u getppid 3 &&
check "chain lost by frame pointers" $SC lost "$F" "$M" sfwork-static $CHAIN --min 3 &&
t_pass

t_begin sframe-dlopen-whole-chain
run sfdl sfwork-dlopen 0 "$WL"/sfwork-dlopen -r getppid 3 &&
check "whole chain with SFrame" $SC chain "$F" "$M" sfwork-dlopen $CHAIN --min 3 &&
t_pass

t_begin sframe-dlopen-unregistered-loses
run sfdlno sfwork-dlopen 0 "$WL"/sfwork-dlopen getppid 3 &&
check "chain lost without the library's section" $SC lost "$F" "$M" sfwork-dlopen $CHAIN --min 3 &&
t_pass

# The preload library registers at start and after each dlopen()
t_begin sframe-preload-dlopen-whole-chain
run sfpre sfwork-dlopen 0 env LD_PRELOAD="$WL"/libsframe-preload.so "$WL"/sfwork-dlopen getppid 3 &&
check "whole chain with SFrame" $SC chain "$F" "$M" sfwork-dlopen $CHAIN --min 3 &&
t_pass

# perf's fp,defer shares the unwinder: the same whole chain, by perf's names
# (needs perf built by rig/build-perf.sh: FTD_PERF, set by rig/test-all.sh)
PERF=${FTD_PERF:-}
perf_chain() { # ARGS...: perf script's first sample, the chain's names only
	rm -f "$SCRATCH/perf.data"
	"$PERF" record -q -e syscalls:sys_enter_getppid --call-graph fp,defer \
		-o "$SCRATCH/perf.data" -- "$WL"/sfwork "$@" getppid 3 > /dev/null 2>&1 &&
	"$PERF" script -i "$SCRATCH/perf.data" 2>/dev/null |
		awk -v want="$CHAIN" 'BEGIN { n = split(want, w, ","); for (i = 1; i <= n; i++) in_chain[w[i]] = 1 }
			/sys_enter_getppid/ { s++; next }
			s == 1 && NF >= 2 { f = $2; sub(/\+0x[0-9a-f]+$/, "", f); if (f in in_chain) out = out (out ? "," : "") f }
			END { print out }'
}
t_begin sframe-perf-fp-defer
if [ -z "$PERF" ] || ! [ -x "$PERF" ]; then
	t_skip "no perf: FTD_PERF='$PERF' (rig/test-all.sh builds it with rig/build-perf.sh)"
else
	got=$(perf_chain -r) && lost=$(perf_chain -u)
	check "perf fp,defer gives the whole chain with SFrame (got '$got')" test "$got" = "$CHAIN" &&
	check "and loses it without (got '$lost')" test "$lost" != "$CHAIN" &&
	t_pass
fi

# gas 2.44 refuses --gsframe for i386: SFrame has no 32-bit x86 ABI
t_begin sframe-compat32
t_skip "SFrame has no i386 ABI (as --32 --gsframe: .sframe not supported for target); compat tasks unwind by frame pointers"

# corrupt KIND WANT_RC WHY: the library's section broken one way; sfwork
# (copied next to it: its rpath is $ORIGIN) registers it; the stack falls
# back to frame pointers and loses the chain; the kernel logs WHY (or
# nothing when the prctl refused the section)
corrupt() {
	local kind=$1 want=$2 why=${3:-} d=$SCRATCH/$1 n0
	t_begin "sframe-corrupt-$kind"
	mkdir -p "$d" && cp "$WL"/sfwork "$d"/ &&
	$TOOL corrupt "$WL"/libsfwork.so "$kind" "$d"/libsfwork.so || { t_fail "generator"; return; }
	n0=$(dmesg | grep -c 'sframe: ')
	run "sfc-$kind" sfwork "$want" "$d"/sfwork -r getppid 2 &&
	check "falls back, chain lost" $SC lost "$F" "$M" sfwork $CHAIN --min 2 || return
	if [ "$want" = 3 ]; then
		check "prctl refused it" grep -q "1 failed" "$TRACES/sfc-$kind.err" &&
		check "no kernel message for a refused section" test "$(dmesg | grep -c 'sframe: ')" = "$n0" || return
	else
		check "dropped, once, with a message" test "$(dmesg | grep -c "sframe: sfwork.*dropping .sframe.*$why")" = $((n0 + 1)) || return
	fi
	check "no warning in the kernel log" bash -c "! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection'" &&
	t_pass
}
corrupt bad-magic 3
corrupt bad-version 3
# a fixed frame pointer offset in the header: not amd64's ABI, refused
# (the kernel used to accept it and ignore it)
corrupt fixed-fp 3
corrupt bad-offsets 3
corrupt fde-past-end 3
# The FDE table is checked at the first lookup in it, as exec's: the
# prctl takes the section, the first unwind drops it with a message
# (a registrar's start does not pay for tables no unwinder reads)
corrupt unsorted 0 corrupt
corrupt fre-past-end 0 corrupt
corrupt fre-unsorted 0 corrupt

# A process can make its own sections inconsistent as often as it likes:
# the kernel reports a dropped section once per mm, not once per drop.
# sfwork registers the library's corrupt section (FREs past the end) three
# times, running the chain after each (SFWORK_AGAIN=2); each run drops it
# (the registration after it is new again), one message in all.  Without
# the fix: three messages.
t_begin sframe-drop-message-once-per-mm
d=$SCRATCH/drop-once n0=$(dmesg | grep -c 'sframe: ')
mkdir -p "$d" && cp "$WL"/sfwork "$d"/ &&
if ! $TOOL corrupt "$WL"/libsfwork.so fre-past-end "$d"/libsfwork.so; then
	t_fail "generator"
elif SFWORK_AGAIN=2 run sfdrop sfwork 0 "$d"/sfwork -r getppid 2; then
	again=$(grep -c 'again: [1-9][0-9]* registered' "$TRACES/sfdrop.err")
	n=$(dmesg | grep -c 'sframe: ')
	check "dropped in each of the 3 runs ($again registrations new again)" test "$again" = 2 &&
	check "falls back, chain lost" $SC lost "$F" "$M" sfwork $CHAIN --min 6 &&
	check "one message ($((n - n0)) new)" test "$n" = $((n0 + 1)) &&
	check "the message names the drop" bash -c "dmesg | grep -q 'sframe: sfwork.*dropping .sframe.*corrupt'" &&
	t_pass
fi

# A section goes with the mapping it describes or lies in (sfwork-unmap):
# libsfwork.so dlclose()d and loaded again at the same address registers
# again; after its code is unmapped, moved (mremap) or its section mapped
# over (MAP_FIXED), PR_REMOVE_SFRAME finds nothing; an unrelated munmap
# leaves it; a section for code not mapped, or not executable, is refused.
# Without the fix, the stale section made the reload fail with EEXIST and
# stayed, to be decoded against whatever is mapped there.
for mode in reload munmap mremap fixed keep noexec gone; do
	t_begin "sframe-unmap-$mode"
	out=$("$WL"/sfwork-unmap "$mode" "$WL"/libsfwork.so 2>&1)
	case $? in
	0) t_pass ;;
	2) t_fail "could not set the case up: $out" ;;
	*) t_fail "$out" ;;
	esac
done

# Which unmaps drop a section, at its edges (sfmaps bounds): three
# sections made in memory, for three adjacent pages of code.  Unmapping the
# pages beside them keeps all three; unmapping, moving or mapping over one
# section's code or bytes drops that one alone; a section whose bytes
# overlap a registered one's is refused with EEXIST.  The kernel finds the
# sections an unmap goes through by range lookups in two trees (issue 35):
# an end taken as inclusive, or one tree not searched, fails a case.
t_begin sframe-unmap-bounds
out=$("$WL"/sfmaps bounds 2>&1)
rc=$?
echo "$out" > "$TRACES/sframe-unmap-bounds.out"
case $rc in
0) t_pass ;;
2) t_fail "could not set the case up: $out" ;;
*) t_fail "$(grep -v '^ok' <<< "$out" | tr '\n' ' ')" ;;
esac

# The kernel keeps the rule found for an address until a section of the mm
# goes: after PR_REMOVE_SFRAME, the library's return addresses must not be
# unwound by SFrame any more, and the stacks, whole before, end early (the
# library has no frame pointers).  sfwork-unmap swap renames itself between
# the two halves, so a second instance sees only the later stacks; its own
# section, registered at exec, keeps SFrame in use.
t_begin sframe-rules-go-with-section
mkinst sfswap2 &&
trig sfswap2 syscalls/sys_enter_getppid 'stacktrace:defer if comm == "sfswap-after"' &&
run sfswap1 sfwork-unmap 0 "$WL"/sfwork-unmap swap "$WL"/libsfwork.so &&
F2=$(save sfswap2 sfswap2) &&
n=$(grep -c ' user_stack_deferred: ' "$F2") &&
check "3 stacks after the removal ($n)" test "$n" = 3 &&
check "before the removal, SFrame: '$(unwinders "$F")'" test "$(unwinders "$F")" = "unwinder=sframe " &&
before=$(nr_range "$F") after=$(nr_range "$F2") &&
check "after it, every stack shorter (frames before: $before, after: $after)" \
	test "${after#*-}" -lt "${before%-*}" &&
t_pass

# Lookups take no lock (the sections are read under RCU): a thread unwinds
# through libsfwork.so while the main thread removes and registers its
# section 2000 times.  Every prctl() must succeed, stacks be recorded, some
# found by SFrame, and the console stay clean (run-guest.sh fails a run
# whose console has a warning; the debug kernel's KASAN reports a use
# after free there).
t_begin sframe-unmap-race-lookup
run sfrace sfwork-unmap 0 "$WL"/sfwork-unmap race "$WL"/libsfwork.so &&
n=$(grep -c ' user_stack_deferred: ' "$F") &&
check "stacks recorded during the race ($n)" test "$n" -gt 0 &&
check "some found by SFrame: '$(unwinders "$F")'" \
	bash -c "grep ' user_stack_deferred: ' '$F' | grep -q 'unwinder=[a-z+]*sframe'" &&
t_pass

# The series' own kselftest of the prctl (tools/testing/selftests/prctl/
# sframe-test.c, built in tests/workload with its .sframe section): every
# case must pass, none be skipped.
t_begin sframe-prctl-kselftest
kselftest sframe-prctl-kselftest "$WL"/sframe-test 6

# A child gets the sections of the mappings it was given, copied under the
# mmap lock that fork copies the mappings under (issue 35, defect 4):
# sfwork-unmap fork removes the library's section in the parent while the
# fork runs; the debug kernel's fork spins 3 s right after copying the
# mappings (rig_race_delay() of kernel-config/debug.patch, for the task
# "ftd-race4"), so the removal lands there.  Copied after the lock was
# dropped, the child had the library mapped and no section for it.  Only
# the debug kernel has the delay: elsewhere the race is not reached, and
# the test is skipped.
t_begin sframe-fork-sections-of-mappings
if ! race_hooks; then
	t_skip "needs the race hooks of kernel-config/debug.patch (rig/build-kernel.sh --debug)"
else
	out=$("$WL"/sfwork-unmap fork "$WL"/libsfwork.so 2>&1)
	case $? in
	0) echo "  $out"; t_pass ;;
	2) t_fail "could not set the case up: $out" ;;
	*) t_fail "$out" ;;
	esac
fi

# The per-mm table of kept rules is freed from __mmdrop(), which on x86
# runs from the scheduler with preemption off (issue 35, defect 5): it
# must not be vmalloc()ed, vfree() sleeps.  Page allocations of order 2
# and more (the table is 12 KiB) fail for sfwork while its chain runs
# (fail_page_alloc, task-filter: sfwork sets make-it-fail itself, after
# exec, whose order-3 slab allocations it would fail on the debug
# kernel), which is unwound by SFrame and exits; the debug kernel's
# DEBUG_ATOMIC_SLEEP reports a sleeping function called from invalid
# context if the table fell back to vmalloc.  The stacks stay whole.
t_begin sframe-rules-no-sleeping-free
fa=/sys/kernel/debug/fail_page_alloc
[ -d /sys/kernel/debug/tracing ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ "${FTD_DEBUG:-0}" != 1 ]; then
	t_skip "needs the debug kernel (DEBUG_ATOMIC_SLEEP, FAIL_PAGE_ALLOC)"
elif ! [ -d $fa ]; then
	t_fail "no $fa: the debug kernel lacks CONFIG_FAIL_PAGE_ALLOC/FAULT_INJECTION_DEBUG_FS"
else
	mark="ftd-mark sframe-rules-no-sleeping-free $$"
	echo "$mark" > /dev/kmsg
	echo 2 > $fa/min-order && echo N > $fa/ignore-gfp-wait &&
	echo N > $fa/ignore-gfp-highmem && echo Y > $fa/task-filter &&
	echo 0 > $fa/verbose && echo 0 > $fa/space && echo 1 > $fa/interval &&
	echo 100 > $fa/probability && echo 1000 > $fa/times &&
	run sfnofree sfwork 0 env SFWORK_MAKE_IT_FAIL=1 "$WL"/sfwork -r getppid 3
	rc=$?
	left=$(cat $fa/times)
	echo 0 > $fa/probability
	sleep 1
	bad=$(dmesg | sed -n "/$mark/,\$p" | grep -m1 -A8 'sleeping function called from invalid context')
	[ $rc = 0 ] &&
	check "allocations failed on purpose ($((1000 - left)))" test "$left" -lt 1000 &&
	check "whole chain with SFrame" $SC chain "$F" "$M" sfwork $CHAIN --min 3 &&
	check "no sleeping function called from invalid context" \
		sh -c 'test -z "$1" || { echo "$1"; exit 1; }' _ "$bad" &&
	t_pass
fi

# SFrame version 3, the format of binutils 2.46 and later.  For kinds no
# assembler writes (and before the rig built 2.46: sframe-v3-gas below
# takes gas's own section), sframe-tool.py v3 writes a version 3 copy of the
# library's .sframe (same functions, same FREs) into the room the library
# leaves for it (.sframe_v3), from the specification; sfwork -3 registers
# that copy for the library's code.  The executable keeps its version 2
# section, registered at exec: both versions serve one stack.
# v3 KIND WANT_RC HOW [WHY]: HOW is chain (whole chain), lost (chain lost)
# or cut (the stack stops right after the function whose FDE KIND changed:
# that frame fell back to frame pointers); WHY as for corrupt
v3() {
	local kind=$1 want=$2 how=$3 why=${4:-} d=$SCRATCH/v3-$1 n0
	t_begin "sframe-v3-$kind"
	mkdir -p "$d" && cp "$WL"/sfwork "$d"/ &&
	$TOOL v3 "$WL"/libsfwork.so "$d"/libsfwork.so --kind "$kind" || { t_fail "generator"; return; }
	n0=$(dmesg | grep -c 'sframe: ')
	run "sf3-$kind" sfwork "$want" "$d"/sfwork -3 getppid 2 || return
	case $how in
	chain) check "whole chain with SFrame v3" $SC chain "$F" "$M" sfwork $CHAIN --min 2 &&
		check "the stacks say SFrame: '$(unwinders "$F")'" test "$(unwinders "$F")" = "unwinder=sframe " ;;
	lost) check "falls back, chain lost" $SC lost "$F" "$M" sfwork $CHAIN --min 2 ;;
	cut) check "SFrame v3 up to sf_lib_middle" $SC chain "$F" "$M" sfwork sf_lib_leaf,sf_lib_middle --min 2 &&
		check "then frame pointers: chain lost" $SC lost "$F" "$M" sfwork $CHAIN --min 2 ;;
	esac || return
	if [ "$want" = 3 ]; then
		check "prctl refused it" grep -q "version 3 section refused: Invalid argument" "$TRACES/sf3-$kind.err" || return
	fi
	if [ -n "$why" ]; then
		check "dropped, once, with a message" test "$(dmesg | grep -c "sframe: sfwork.*dropping .sframe.*$why")" = $((n0 + 1)) || return
	else
		check "no kernel message" test "$(dmesg | grep -c 'sframe: ')" = "$n0" || return
	fi
	check "no warning in the kernel log" bash -c "! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection'" &&
	t_pass
}
v3 good 0 chain
v3 flex 0 chain
v3 flex-plain 0 lost corrupt
v3 new-type 0 cut
v3 bad-flags 3 lost
v3 unsorted 0 lost corrupt
v3 attr-past-end 0 lost corrupt
v3 fre-past-end 0 lost corrupt

# Version 3 as the assembler writes it: the library built by binutils
# 2.46 (tests/workload/gas246/libsfwork.so, its own PT_GNU_SFRAME, written
# by gas and ld 2.46, no copy of ours) beside a copy of sfwork, which
# registers it (-r).  The executable keeps its version 2 section.
t_begin sframe-v3-gas
d=$SCRATCH/v3-gas
if ! [ -f "$WL"/gas246/libsfwork.so ]; then
	t_fail "no $WL/gas246/libsfwork.so (make -C tests/workload sframe3)"
elif ! $TOOL dump "$WL"/gas246/libsfwork.so 2>&1 | grep -q 'version=3 '; then
	t_fail "gas246/libsfwork.so: not version 3: $($TOOL dump "$WL"/gas246/libsfwork.so 2>&1 | head -1)"
else
	mkdir -p "$d" && cp "$WL"/sfwork "$WL"/gas246/libsfwork.so "$d"/ &&
	n0=$(dmesg | grep -c 'sframe: ') &&
	run sf3gas sfwork 0 "$d"/sfwork -r getppid 3 &&
	check "whole chain with gas 2.46's SFrame v3" $SC chain "$F" "$M" sfwork $CHAIN --min 3 &&
	check "the stacks say SFrame: '$(unwinders "$F")'" test "$(unwinders "$F")" = "unwinder=sframe " &&
	check "no kernel message" test "$(dmesg | grep -c 'sframe: ')" = "$n0" &&
	t_pass
fi

# The decoded rows (3-sframe 0011): a section's rules are decoded into
# kernel memory once the lookups that read it would have paid for them
# (sframe.decode=1, the default), at its first lookup (2), or never (0:
# every lookup reads the section).  All give the whole chain, for a
# section registered by prctl, by exec, and gas 2.46's version 3.
t_begin sframe-decode
p=/sys/module/sframe/parameters/decode
if ! [ -f $p ]; then
	t_fail "no $p: the kernel decodes no rules"
else
	ok=1
	for i in 0 1 2; do
		echo $i > $p &&
		run sfdec$i sfwork 0 "$WL"/sfwork -r getppid 3 &&
		check "decode=$i, prctl: whole chain" $SC chain "$F" "$M" sfwork $CHAIN --min 3 &&
		run sfdecs$i sfwork-static 0 "$WL"/sfwork-static getppid 3 &&
		check "decode=$i, exec: whole chain" $SC chain "$F" "$M" sfwork-static $CHAIN --min 3 &&
		{ ! [ -f "$d"/sfwork ] ||
		  { run sfdec3$i sfwork 0 "$d"/sfwork -r getppid 3 &&
		    check "decode=$i, version 3: whole chain" $SC chain "$F" "$M" sfwork $CHAIN --min 3; }; } ||
		{ ok=0; break; }
	done
	echo 1 > $p
	[ $ok = 1 ] && t_pass
fi

# The rows are what the section said when they were made, and later
# lookups read nothing else: sfwork -3w registers the library's version 3
# copy, runs the chain once, overwrites the copy's FREs (and the FDE
# attributes among them) with 0xff, makes the kernel forget the rules it
# kept, and runs the chain again.  With the rows made at the first lookup
# (sframe.decode=2) both stacks are whole and the kernel says nothing;
# with sframe.decode=0 the second run reads the overwritten bytes, drops
# the section as corrupt and loses the chain (as a kernel without the
# rows does).
t_begin sframe-decode-reads-no-section
p=/sys/module/sframe/parameters/decode d=$SCRATCH/decode-scribble
whole="sf_lib_leaf <- sf_lib_middle <- sf_lib_outer <- sf_middle <- sf_outer <- main"
mkdir -p "$d" && cp "$WL"/sfwork "$d"/ &&
if ! $TOOL v3 "$WL"/libsfwork.so "$d"/libsfwork.so --kind good; then
	t_fail "generator"
else
	n0=$(dmesg | grep -c 'sframe: ')
	check "$p is there" test -f $p &&
	echo 2 > $p &&
	run sfscr1 sfwork 0 "$d"/sfwork -3w getppid 1 &&
	check "rows: both stacks whole" $SC chain "$F" "$M" sfwork $CHAIN --min 2 &&
	check "rows: no kernel message" test "$(dmesg | grep -c 'sframe: ')" = "$n0" &&
	echo 0 > $p &&
	run sfscr0 sfwork 0 "$d"/sfwork -3w getppid 1 &&
	echo 1 > $p &&
	check "decode=0: the first stack whole, the second not" \
		test "$($SC show "$F" "$M" sfwork | tr ';' '\n' | grep -c "$whole")/$($SC show "$F" "$M" sfwork | tr ';' '\n' | grep -c 'sf_lib_leaf')" = 1/2 &&
	check "decode=0: dropped as corrupt" test "$(dmesg | grep -c "sframe: sfwork.*dropping .sframe.*corrupt")" = $((n0 + 1)) &&
	t_pass
	[ -f $p ] && echo 1 > $p
fi

# Rows and the section read at every lookup find the same frames, and so
# does the frame-pointer walk of the same binary (sfchain-small: frame
# pointers and .sframe, 64 chain functions in 16 paths of 4, round robin,
# from two call sites: 32 distinct stacks of 7 frames, the last in libc):
# the same set of distinct stacks, addresses compared (no ASLR).  The rows' lookups
# and the section's are both first lookups: the process registers and
# unregisters a section before each getppid() (sfchain cold), which
# forgets the rules the kernel kept; the rows are made at the first
# lookup (sframe.decode=2).
t_begin sframe-decode-same-frames
p=/sys/module/sframe/parameters/decode
# stacks U: the distinct user stacks of sfchain run with unwinder U
stacks() {
	local u=$1 pre=$WL/libsframe-preload.so
	[ $u = fp ] && pre=$WL/libsframe-unreg.so
	[ $u = rows ] && echo 2 > $p
	[ $u = section ] && echo 0 > $p
	run sfsame-$u sfchain-small 0 setarch "$(uname -m)" -R \
		env LD_PRELOAD=$pre "$WL"/sfchain-small bench 64 4 16 cold &&
	echo 1 > $p &&
	unwinders "$F" > "$SCRATCH/unw-$u" &&
	python3 -c "import sys; sys.path.insert(0, sys.argv[1])
from tracecheck import cookies, parse
for c in cookies(parse(sys.argv[2]), 'sfchain-small').values():
    if c['stacks']:
        print(' '.join('%x' % f for f in c['frames']))" "$REPO/tests/guest" "$F" | sort -u > "$SCRATCH/same-$u"
}
if ! [ -f $p ]; then
	t_fail "no $p: the kernel decodes no rules"
elif stacks rows && stacks section && stacks fp; then
	check "rows: 32 distinct stacks of 7 frames" \
		awk 'NF == 7 { n++ } END { print n " of " NR; exit !(n == 32 && NR == 32) }' "$SCRATCH/same-rows" &&
	check "rows and the section: the same stacks" cmp "$SCRATCH/same-rows" "$SCRATCH/same-section" &&
	check "rows and frame pointers: the same stacks" cmp "$SCRATCH/same-rows" "$SCRATCH/same-fp" &&
	check "rows and the section by SFrame, frame pointers alone: $(cat "$SCRATCH"/unw-*)" \
		test "$(cat "$SCRATCH/unw-rows" "$SCRATCH/unw-section" "$SCRATCH/unw-fp")" = "unwinder=sframe unwinder=sframe unwinder=fp " &&
	t_pass
fi

# A walk searches the rows of the section it last found a rule in, and
# unpacks their rules, inline in its loop (3-sframe 0012); those rows hold
# each rule's offsets in 32 bits, the return address's too.  On code with
# no frame pointer (sfwork, -fomit-frame-pointer: CFAs from the stack
# pointer, which the frame-pointer walk cannot stand in for), 8 frames of
# sf_lib_deep deep, 4 stacks, each after the sections were registered
# anew (SFWORK_FORGET: no kept rule serves, the walk keeps rows and the
# loop searches them): the rows (sframe.decode=2) give the stacks that
# reading the section at every lookup gives (0), address by address (no
# ASLR), and the whole chain by name.
t_begin sframe-rows-inline-same-frames
p=/sys/module/sframe/parameters/decode
# (the recursion calls sf_lib_deep's local alias, at the same address)
deep=': sf_lib_leaf( <- sf_lib_deep(\.localalias)?){8} <- sf_lib_middle <- sf_lib_outer <- sf_middle <- sf_outer <- main( |$)'
# inline DECODE: the user stacks of sfwork, one a line, in trace order
inline() {
	echo "$1" > $p &&
	run sfinl$1 sfwork 0 setarch "$(uname -m)" -R \
		env SFWORK_AGAIN=3 SFWORK_FORGET=1 "$WL"/sfwork -r getppid 1 8 &&
	echo 1 > $p &&
	check "decode=$1: 4 stacks, the whole chain 8 deep: $($SC show "$F" "$M" sfwork | tr ';' '\n' | head -1)" \
		test "$($SC show "$F" "$M" sfwork | tr ';' '\n' | grep -cE "$deep")" = 4 &&
	python3 -c "import sys; sys.path.insert(0, sys.argv[1])
from tracecheck import cookies, parse
for c in cookies(parse(sys.argv[2]), 'sfwork').values():
    if c['stacks']:
        print(' '.join('%x' % f for f in c['frames']))" "$REPO/tests/guest" "$F" > "$SCRATCH/inl-$1"
}
if ! [ -f $p ]; then
	t_fail "no $p: the kernel decodes no rules"
elif inline 2 && inline 0; then
	check "rows: 4 stacks, the last 3 (one call site in main) alike (times x frames: $(sort "$SCRATCH/inl-2" | uniq -c | awk '{ print $1 "x" NF - 1 }' | tr '\n' ' '))" \
		test "$(tail -3 "$SCRATCH/inl-2" | sort -u | wc -l)/$(wc -l < "$SCRATCH/inl-2")" = 1/4 &&
	check "rows and the section: the same stacks" cmp "$SCRATCH/inl-2" "$SCRATCH/inl-0" &&
	t_pass
fi
[ -f $p ] && echo 1 > $p

rm -rf "$SCRATCH"
reset_tracing
t_summary
