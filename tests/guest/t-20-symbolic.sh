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
check "kernel stacks" test "$(kstacks "$f")" -ge 3 &&
check "kernel frames" grep -q 'do_syscall_64' "$f" &&
t_pass

t_begin symbolic-compat32
mkinst sym32 &&
trig sym32 raw_syscalls/sys_enter "stacktrace:defer if id == $NR_GETPPID_32 && comm == \"callchain32\"" &&
"$WL"/callchain32 getppid 3 &&
f=$(save sym32 symbolic-compat32) &&
check "user frames" $TC chain "$f" "$WL"/callchain32 callchain32 $CHAIN --min 3 &&
check "kernel stacks" test "$(kstacks "$f")" -ge 3 &&
t_pass

# kframes FILE MARK: the " => " lines under the first line matching MARK
kframes() {
	awk -v mark="$2" '!done && $0 ~ mark { s = 1; next }
		s && /^ => / { print; next } s { done = 1; s = 0 }' "$1"
}

# The cookie record carries the same kernel stack that stacktrace records
# for the same event, taken by the other path: compare them frame by frame
t_begin kernel-stack-same-as-stacktrace
reset_tracing
mkinst kplain && mkinst kdefer &&
trig kplain syscalls/sys_enter_getppid 'stacktrace if comm == "callchain"' &&
trig kdefer syscalls/sys_enter_getppid 'stacktrace:defer if comm == "callchain"' &&
"$WL"/callchain getppid 1 &&
fp=$(save kplain kstack-plain) && fd=$(save kdefer kstack-defer) &&
kframes "$fp" '<stack trace>' > "$fp.frames" &&
kframes "$fd" 'user_stack_cookie:' > "$fd.frames" &&
check "stacktrace took frames" test -s "$fp.frames" &&
check "same frames as stacktrace" diff "$fp.frames" "$fd.frames" &&
t_pass

t_begin kernel-stack-same-with-option
reset_tracing
mkinst oplain && mkinst odefer &&
for i in oplain odefer; do
	echo 1 > "$(idir $i)/options/stacktrace" &&
	echo 'comm == "callchain"' > "$(idir $i)/events/syscalls/sys_enter_getppid/filter" &&
	echo 1 > "$(idir $i)/events/syscalls/sys_enter_getppid/enable" || break
done &&
echo 1 > "$(idir odefer)/options/userstacktrace_defer" &&
"$WL"/callchain getppid 1 &&
fp=$(save oplain ostack-plain) && fd=$(save odefer ostack-defer) &&
kframes "$fp" '<stack trace>' > "$fp.frames" &&
kframes "$fd" 'user_stack_cookie:' > "$fd.frames" &&
check "the stacktrace option took frames" test -s "$fp.frames" &&
check "same frames as the stacktrace option" diff "$fp.frames" "$fd.frames" &&
check "no kernel_stack record next to the cookie" bash -c "! grep -q '<stack trace>' '$fd'" &&
t_pass

# doc_format NAME: every field and the print format that the kernel's
# documentation of ftrace:NAME shows are in its format file, word for word
doc_format() {
	local want got
	want=$(awk -v h="\`\`ftrace:$1\`\`" '$0 == h { s = 1; next }
		s && /^``ftrace:/ { exit }
		s && /^  (field:|print fmt:)/ { sub(/^ +/, ""); print }' \
		"$REPO/Documentation/trace/deferred-user-stacks.rst")
	got=$(sed 's/^[[:space:]]*//' "$fmt/$1/format")
	[ -n "$want" ] || { echo "no format of $1 in the documentation"; return 1; }
	grep -vxFf <(echo "$got") <<< "$want" | sed 's/^/not in the format file: /' | grep . && return 1
	return 0
}

# The layout readers rely on (Documentation/contract.md): frames 8-byte
# aligned, and records of tracing's own, which cannot be enabled
t_begin record-formats-final
fmt=$TRACEFS/events/ftrace
check "cookie layout" grep -q 'field:__data_loc unsigned long\[\] kernel;.offset:20;.size:4;' $fmt/user_stack_cookie/format &&
check "cookie flags" grep -q 'field:unsigned int flags;.offset:16;.size:4;' $fmt/user_stack_cookie/format &&
check "stack layout" grep -q 'field:__data_loc unsigned long\[\] frames;.offset:32;.size:4;' $fmt/user_stack_deferred/format &&
check "stack depth" grep -q 'field:unsigned int depth;.offset:28;.size:4;' $fmt/user_stack_deferred/format &&
check "stack pid" grep -q 'field:int pid;.offset:16;.size:4;' $fmt/user_stack_deferred/format &&
check "no enable, filter or trigger file" bash -c "! ls $fmt/user_stack_cookie $fmt/user_stack_deferred | grep -E '^(enable|filter|trigger)\$'" &&
check "not in available_events" bash -c "! grep -q user_stack_ $TRACEFS/available_events" &&
check "no unwind system" test ! -e $TRACEFS/events/unwind &&
check "cookie format as documented" doc_format user_stack_cookie &&
check "stack format as documented" doc_format user_stack_deferred &&
t_pass

# Tracing's own entries, as kernel_stack is: no tracepoint behind them, so
# perf cannot open them (a TRACE_EVENT() record would open and never fire).
# A real tracepoint opens, so a refusal is the entries' own.
t_begin records-no-tracepoint
po=$REPO/tests/guest/perfopen.py
# fmt_id DIR: the event's id, from its format file (tracing's own entries
# have no id file)
fmt_id() { sed -n 's/^ID: *\([0-9][0-9]*\)$/\1/p' "$1/format"; }
# perf_refused DIR: perf_event_open() of the event fails (status 1 of
# perfopen.py; 0 is opened, anything else a broken test)
perf_refused() {
	local id rc
	id=$(fmt_id "$1")
	[ -n "$id" ] || { echo "no ID in $1/format"; return 1; }
	"$po" "$id"; rc=$?
	[ $rc = 1 ]
}
check "a tracepoint opens" "$po" "$(fmt_id $TRACEFS/events/sched/sched_switch)" &&
check "kernel_stack does not" perf_refused $fmt/kernel_stack &&
check "user_stack_cookie does not" perf_refused $fmt/user_stack_cookie &&
check "user_stack_deferred does not" perf_refused $fmt/user_stack_deferred &&
t_pass

reset_tracing
t_summary
