#!/bin/bash
# The main job: build Linux 7.3 with deferred user stacks for ftrace, boot
# it under QEMU, trace a real program with the stacktrace:defer trigger
# and print each event's kernel stack merged with its user stack.
#
#   rig/demo.sh        (installs what it needs with apt; first run ~10 min)
#   rig/demo.sh --arch s390x
#                      the same on s390x: a cross-built kernel booted in
#                      qemu-system-s390x, a program built -mbackchain and
#                      one built without, their user stacks named on the
#                      host (tests/s390x/run.sh --show; first run ~25 min)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
if [ "${1:-}" = --arch ]; then
	set_arch "${2:-}"
	[ "$FTD_ARCH" = s390x ] && exec "$REPO/tests/s390x/run.sh" --show
fi
ensure_cache
need_pkgs make gcc gcc-multilib libc6-dev liburing-dev binutils python3 trace-cmd \
	pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev libdw-dev libelf-dev
make -s -C "$REPO/tests/workload"
# the reader side: the libustack tool
make -s -C "$REPO/libustack" >&2
# trace-cmd 3.4 with our series (record -T records the user stacks)
tc=$("$here/build-tracecmd.sh")
out=$CACHE/demo
"$here/run-guest.sh" --quiet --out "$out" \
	--cmd "FTD_TRACECMD=$(printf %q "$tc") $REPO/tests/guest/demo-guest.sh" >/dev/null ||
	{ cat "$out/console.log" >&2; die "the demo failed (see $out)"; }
# The guest's output, without the kernel's boot messages
sed -n '/^# echo/,$p' "$out/console.log" | grep -v -E '^\[ *[0-9]+\.[0-9]+\]|^ftd-'
echo
echo "# on the host: ustack $out/demo.dat   (libustack: names from the saved process maps)"
"$REPO/libustack/build/ustack" "$out/demo.dat"
echo
echo "# on the host: trace-cmd report $out/demo.dat"
echo "# (trace-cmd 3.4 with our series: each event, under it its kernel stack and its user"
echo "#  stack, named from the maps record -T saved and the workload's symbols)"
"$tc" report "$out/demo.dat" 2>/dev/null | head -40

# SFrame: the same report for sfwork, a program built without frame
# pointers, once with its .sframe sections and once without
echo
echo "# SFrame: sfwork is built -O2 -fomit-frame-pointer -Wa,--gsframe, no frame pointer on"
echo "#  main -> sf_outer -> sf_middle -> sf_lib_outer -> sf_lib_middle -> sf_lib_leaf -> getppid"
echo "# on the host: trace-cmd report $out/demo-sframe.dat"
echo "# (sfwork -r: the kernel walks the whole chain with the .sframe sections)"
sf=$("$tc" report "$out/demo-sframe.dat" 2>/dev/null)
head -20 <<< "$sf"
echo
echo "# on the host: trace-cmd report $out/demo-sframe-fp.dat"
echo "# (sfwork -u: sections unregistered, frame pointers only: the chain is cut after the leaf)"
fp=$("$tc" report "$out/demo-sframe-fp.dat" 2>/dev/null)
head -20 <<< "$fp"
# The demo fails when the SFrame stack is not the whole chain, named and
# in order, or when the frame-pointer one is (then it shows nothing).
# chain TEXT: the chain's frames in TEXT, innermost first
chain() {
	printf '%s\n' "$1" | sed -n 's/^ *=> \([A-Za-z_][A-Za-z0-9_]*\)+0x.*/\1/p' |
		grep -E '^(sf_|main$)' | tr '\n' ' '
}
want="sf_lib_leaf sf_lib_middle sf_lib_outer sf_middle sf_outer main "
[ "$(chain "$sf")" = "$want" ] ||
	die "the SFrame stack of $out/demo-sframe.dat is not the whole chain: $(chain "$sf")"
[ "$(chain "$fp")" != "$want" ] ||
	die "the frame-pointer stack of $out/demo-sframe-fp.dat has the whole chain too"

# Stock programs: Debian's python3, recorded with and without the SFrame
# registrar that the series' record -T runs its command with
echo
echo "# Stock Debian python3 (no frame pointers, no .sframe): trace-cmd record -T runs it"
echo "# with the SFrame registrar (sections made from .eh_frame, Documentation/sframe.md)"
echo "# on the host: trace-cmd report $out/demo-python3.dat"
py=$("$tc" report "$out/demo-python3.dat" 2>/dev/null)
sed -n '/<user stack>/,/^[^ ]/p' <<< "$py" | head -40
echo
echo "# on the host: trace-cmd report $out/demo-python3-fp.dat   (--no-sframe-register)"
pyfp=$("$tc" report "$out/demo-python3-fp.dat" 2>/dev/null)
sed -n '/<user stack>/,/^[^ ]/p' <<< "$pyfp" | head -10
# user_frames TEXT: the frames of the first user stack in TEXT
user_frames() {
	printf '%s\n' "$1" | awk '/<user stack>/ { u = 1; next } u && /^ *=> / { print $2; next } u { exit }'
}
pyf=$(user_frames "$py") pyfpf=$(user_frames "$pyfp")
grep -qx 'Py_BytesMain+0x[0-9a-f]*' <<< "$pyf" && grep -qx '_start+0x[0-9a-f]*' <<< "$pyf" ||
	die "the python3 stack with the registrar does not reach Py_BytesMain and _start: $(echo $pyf)"
[ "$(wc -l <<< "$pyfpf")" -le 2 ] ||
	die "the python3 stack without the registrar is not cut: $(echo $pyfpf)"
echo "# python3: $(wc -l <<< "$pyf") user frames with the registrar, $(wc -l <<< "$pyfpf") without"
