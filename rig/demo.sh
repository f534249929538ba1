#!/bin/bash
# The main job: build Linux 7.3 with deferred user stacks for ftrace, boot
# it under QEMU, trace a real program with the stacktrace:defer trigger
# and print each event's kernel stack merged with its user stack.
#
#   rig/demo.sh        (installs what it needs with apt; first run ~10 min)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
ensure_cache
need_pkgs make gcc gcc-multilib libc6-dev liburing-dev binutils python3 trace-cmd \
	pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev libdw-dev libelf-dev
make -s -C "$REPO/tests/workload"
# the reader side: the libtracefs-ext tool
make -s -C "$REPO/libtracefs-ext" >&2
# trace-cmd 3.4 with our series (record -T records the user stacks)
tc=$("$here/build-tracecmd.sh")
out=$CACHE/demo
"$here/run-guest.sh" --quiet --out "$out" \
	--cmd "FTD_TRACECMD=$(printf %q "$tc") $REPO/tests/guest/demo-guest.sh" >/dev/null ||
	{ cat "$out/console.log" >&2; die "the demo failed (see $out)"; }
# The guest's output, without the kernel's boot messages
sed -n '/^# echo/,$p' "$out/console.log" | grep -v -E '^\[ *[0-9]+\.[0-9]+\]|^ftd-'
echo
echo "# on the host: ustack $out/demo.dat   (libtracefs-ext: names from the saved process maps)"
"$REPO/libtracefs-ext/build/ustack" "$out/demo.dat"
echo
echo "# on the host: trace-cmd report $out/demo.dat"
echo "# (trace-cmd 3.4 with our series: each event, under it its kernel stack and its user"
echo "#  stack, named from the maps record -T saved and the workload's symbols)"
"$tc" report "$out/demo.dat" 2>/dev/null | head -40
