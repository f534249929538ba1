#!/bin/bash
# The unwind_user= boot parameter (3-sframe 10): which unwinders may walk
# a user stack.  One script for three boots, the mode read from
# /proc/cmdline:
#   (none)  all: sfwork (no frame pointers, its .sframe sections
#           registered) and callchain (frame pointers, no .sframe) each
#           give their whole chain
#   fp      frame pointers alone: sfwork's chain is lost, callchain's whole
#   sframe  SFrame alone: sfwork's chain whole; callchain's stack is its
#           first frame only, as nothing describes its callers
# The main guest suite runs it with none; rig/test-all.sh boots the kernel
# with unwind_user=fp and with unwind_user=sframe (suites guest-unwind-fp,
# guest-unwind-sframe).  A kernel without the parameter passes it to init
# and walks with both: the fp and sframe boots fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
SC="python3 $REPO/tests/guest/sframecheck.py"
CHAIN=sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_middle,sf_outer,main
FPCHAIN=work_inner,work_middle,work_outer,main
reset_tracing

mode=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^unwind_user=//p' | tail -1)
mode=${mode:-all}

# stacks NAME COMM CMD...: trace COMM's getppid calls in instance NAME
# while CMD runs with its maps saved; sets F (the trace) and M (maps)
stacks() {
	local name=$1 comm=$2
	shift 2
	mkinst "$name" &&
	trig "$name" syscalls/sys_enter_getppid "stacktrace:defer if comm == \"$comm\"" || return 1
	SFWORK_MAPS=$TRACES/$name.maps "$@" > /dev/null 2> "$TRACES/$name.err" ||
		{ t_fail "$* failed: $(cat "$TRACES/$name.err")"; return 1; }
	F=$(save "$name" "$name") M=$TRACES/$name.maps
}

t_begin "unwind-user-$mode-boot-message"
case $mode in
all)
	check "no unwind_user message" bash -c "! dmesg | grep -q 'unwind_user:'" && t_pass ;;
fp|sframe)
	check "the kernel says so" bash -c "dmesg | grep -q 'unwind_user: user stacks walked by $mode only'" &&
	t_pass ;;
*)
	t_fail "unwind_user=$mode: not a mode this test knows" ;;
esac

t_begin "unwind-user-$mode-sframe-program"
if stacks uusf sfwork "$WL"/sfwork -r getppid 3; then
	u=$(unwinders "$F")
	case $mode in
	all|sframe)
		check "whole chain by SFrame" $SC chain "$F" "$M" sfwork $CHAIN --min 3 &&
		check "the stacks say SFrame: '$u'" test "$u" = "unwinder=sframe " &&
		t_pass ;;
	fp)
		check "chain lost by frame pointers alone" $SC lost "$F" "$M" sfwork $CHAIN --min 3 &&
		check "no stack says SFrame: '$u'" bash -c "[[ '$u' != *sframe* ]]" &&
		t_pass ;;
	*) t_skip "unknown mode" ;;
	esac
fi

t_begin "unwind-user-$mode-fp-program"
if stacks uufp callchain "$WL"/callchain getppid 3; then
	u=$(unwinders "$F") r=$(nr_range "$F")
	case $mode in
	all|fp)
		check "whole chain by frame pointers" $TC chain "$F" "$WL"/callchain callchain $FPCHAIN --min 3 &&
		check "the stacks say frame pointers: '$u'" test "$u" = "unwinder=fp " &&
		t_pass ;;
	sframe)
		check "the first frame" $TC chain "$F" "$WL"/callchain callchain work_inner --min 3 &&
		check "and no other (frames: $r)" test "$r" = 1-1 &&
		check "no unwinder found one: '$u'" test -z "$u" &&
		t_pass ;;
	*) t_skip "unknown mode" ;;
	esac
fi

t_summary
