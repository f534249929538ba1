#!/bin/bash
# The user frames of each user_stack_deferred resolve, with the workload's
# symbol table, to its call chain, for a 64-bit and a 32-bit compat task.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing
CHAIN=work_inner,work_middle,work_outer,main

t_begin symbolic-64bit
mkinst sym64 &&
trig sym64 syscalls/sys_enter_getppid 'stacktrace:defer if comm == "callchain"' &&
"$WL"/callchain getppid 3 &&
f=$(save sym64 symbolic-64bit) &&
check "user frames" $TC chain "$f" "$WL"/callchain callchain $CHAIN --min 3 &&
check "kernel stacks" test "$(grep -c '<stack trace>' "$f")" -ge 3 &&
check "kernel frames" grep -q 'do_syscall_64' "$f" &&
t_pass

t_begin symbolic-compat32
mkinst sym32 &&
trig sym32 raw_syscalls/sys_enter "stacktrace:defer if id == $NR_GETPPID_32 && comm == \"callchain32\"" &&
"$WL"/callchain32 getppid 3 &&
f=$(save sym32 symbolic-compat32) &&
check "user frames" $TC chain "$f" "$WL"/callchain32 callchain32 $CHAIN --min 3 &&
check "kernel stacks" test "$(grep -c '<stack trace>' "$f")" -ge 3 &&
t_pass

reset_tracing
t_summary
