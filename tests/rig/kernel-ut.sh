#!/bin/bash
# "make UT=1" on the kernel the guest suites boot: the kernel's own
# scripts/tracepoint-update lists every tracepoint that is defined and
# never called.  None may be one of ours: the deferred user stack records
# are tracing's own entries, written by tracing alone, so no tracepoint
# should stand behind them (issue 19 item 5), and no event the series
# defines may go unused.  The pristine kernel's own unused tracepoints
# are listed, not counted.
#
#   tests/rig/kernel-ut.sh KERNEL_IMAGE   (the image rig/build-kernel.sh printed)
. "$(dirname "$0")/lib.sh"

img=${1:?usage: tests/rig/kernel-ut.sh KERNEL_IMAGE}
# the build directory: the image is <build>/arch/<arch>/boot/<image>
B=$(cd "$(dirname "$img")/../../.." 2>/dev/null && pwd)
tool=$B/scripts/tracepoint-update
if [ ! -x "$tool" ] || [ ! -f "$B/vmlinux.o" ]; then
	fail unused-tracepoints "no $tool or $B/vmlinux.o: not the tree of $img?"
	finish
fi

# Ours: the events the series defines, and the names of its records
mapfile -t ours < <({ sed -e 's/#.*//' "$REPO/patches/series" | awk 'NF { print $1 }' |
	while read -r p; do
		sed -n -E 's/^\+(TRACE_EVENT|DEFINE_EVENT|TRACE_EVENT_CONDITION)\(([a-z_0-9]+, *)?([a-z_0-9]+),.*/\3/p' \
			"$REPO/patches/$p"
	done; echo user_stack_cookie; echo user_stack_deferred; } | sort -u)

# on a copy: the tool opens the object for writing
cp "$B/vmlinux.o" "$T/vmlinux.o"
out=$(cd "$T" && "$tool" vmlinux.o 2>&1; echo "rc=$?")
rc=${out##*rc=}
if [ "$rc" != 0 ]; then
	fail unused-tracepoints "tracepoint-update exited $rc: ${out%rc=*}"
	finish
fi
unused=$(sed -n "s/^warning: tracepoint '\([^']*\)' is unused.*/\1/p" <<< "$out" | sort -u)
echo "# unused tracepoints in this kernel: $(echo $unused | wc -w) ($(echo $unused))"
bad=$(comm -12 <(printf '%s\n' "${ours[@]}") <(printf '%s\n' $unused | sort -u))
[ -z "$bad" ] && pass "unused-tracepoints (none of: ${ours[*]})" ||
	fail unused-tracepoints "defined and never called: $(echo $bad)"
finish
