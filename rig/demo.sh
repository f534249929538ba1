#!/bin/bash
# The main job: build Linux 7.3 with deferred user stacks for ftrace, boot
# it under QEMU, trace a real program with the stacktrace:defer trigger
# and print each event's kernel stack merged with its user stack.
#
#   rig/demo.sh        (installs what it needs with apt; first run ~10 min)
#   rig/demo.sh --repeat N
#                      the guest part N times in one boot, each run's
#                      checks on the host (the first one shown); the test
#                      suite runs it so a check that depends on order or
#                      timing fails there first
#   rig/demo.sh --kernel BZIMAGE
#                      boot that image (built) instead of building one:
#                      the test suite's, which must not wait for the
#                      build lock an s390x build holds
#   rig/demo.sh --arch s390x
#                      the same on s390x: a cross-built kernel booted in
#                      qemu-system-s390x, a program built -mbackchain and
#                      one built without, their user stacks named on the
#                      host (tests/s390x/run.sh --show; first run ~25 min)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
. "$here/report-stacks.sh"
repeat=1 kopt=()
usage="usage: $0 [--arch ARCH | [--repeat N] [--kernel BZIMAGE]]"
while [ $# -gt 0 ]; do
	case $1 in
	--arch)
		set_arch "${2:-}"
		[ "$FTD_ARCH" = s390x ] && exec "$REPO/tests/s390x/run.sh" --show
		shift ;;
	--repeat)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "$usage"
		repeat=$2; shift ;;
	--kernel)
		[ -f "${2:-}" ] || die "$usage"
		kopt=(--kernel "$2"); shift ;;
	*) die "$usage" ;;
	esac
	shift
done
ensure_cache
need_pkgs make gcc gcc-multilib libc6-dev liburing-dev binutils python3 trace-cmd \
	pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev libdw-dev libelf-dev
make -s -C "$REPO/tests/workload"
# trace-cmd 3.4 with our series (record -T records the user stacks)
tc=$("$here/build-tracecmd.sh")
# the reader side: the libustack tool, on the series' libtracecmd (its
# trace.dat reader needs that API)
PKG_CONFIG_PATH=$(dirname "$(dirname "$tc")")/lib/pkgconfig make -s -C "$REPO/libustack" >&2
out=$CACHE/demo
# Run 1 writes to /results (shown below); runs 2..N to /results/run-N
guest="FTD_TRACECMD=$(printf %q "$tc") $REPO/tests/guest/demo-guest.sh"
cmd=$guest
for ((i = 2; i <= repeat; i++)); do
	cmd+=" && mkdir -p /results/run-$i && FTD_RESULTS=/results/run-$i $guest > /results/run-$i/out.log 2>&1"
done
"$here/run-guest.sh" "${kopt[@]}" --quiet --out "$out" --timeout $((1200 * repeat)) --cmd "$cmd" >/dev/null ||
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
"$tc" report "$out/demo.dat" 2>/dev/null | sed -n 1,40p

# chain FRAMES: the frames of sfwork's chain in FRAMES, innermost first
chain() {
	printf '%s\n' "$1" | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)+0x.*/\1/p' |
		grep -E '^(sf_|main$)' | tr '\n' ' '
}

# check_run DIR SHOW: the SFrame and python3 checks on one run's traces,
# shown when SHOW is 1.  The checks read the stack of the getppid event
# each recording is for, whatever else it holds.
check_run() {
	local d=$1 show=$2 sf fp py pyfp sys sff fpf pyf pyfpf sysf
	local want="sf_lib_leaf sf_lib_middle sf_lib_outer sf_middle sf_outer main "
	sf=$("$tc" report "$d/demo-sframe.dat" 2>/dev/null)
	fp=$("$tc" report "$d/demo-sframe-fp.dat" 2>/dev/null)
	py=$("$tc" report "$d/demo-python3.dat" 2>/dev/null)
	pyfp=$("$tc" report "$d/demo-python3-fp.dat" 2>/dev/null)
	sys=$("$tc" report "$d/demo-system.dat" 2>/dev/null)
	if [ "$show" = 1 ]; then
		echo
		echo "# SFrame: sfwork is built -O2 -fomit-frame-pointer -Wa,--gsframe, no frame pointer on"
		echo "#  main -> sf_outer -> sf_middle -> sf_lib_outer -> sf_lib_middle -> sf_lib_leaf -> getppid"
		echo "# on the host: trace-cmd report $d/demo-sframe.dat"
		echo "# (sfwork -r: the kernel walks the whole chain with the .sframe sections)"
		event_block "$sf" sys_enter_getppid
		echo
		echo "# on the host: trace-cmd report $d/demo-sframe-fp.dat"
		echo "# (sfwork -u: sections unregistered, frame pointers only: the chain is cut after the leaf)"
		event_block "$fp" sys_enter_getppid
		echo
		echo "# Stock Debian python3 (no frame pointers, no .sframe): trace-cmd record -T runs it"
		echo "# with the SFrame registrar (sections made from .eh_frame, Documentation/sframe.md)"
		echo "# on the host: trace-cmd report $d/demo-python3.dat"
		event_block "$py" sys_enter_getppid
		echo
		echo "# on the host: trace-cmd report $d/demo-python3-fp.dat   (--no-sframe-register)"
		event_block "$pyfp" sys_enter_getppid
		echo
		echo "# System-wide: a stock python3 running before the recording, not started by it:"
		echo "# record without a command attaches SFrame sections to the running programs' files"
		echo "# (sframe-feed, Documentation/decisions.md, System-wide)"
		echo "# on the host: trace-cmd report $d/demo-system.dat   (python3's getppid)"
		event_block "$sys" sys_enter_getppid python3
	fi
	# The SFrame stack must be the whole chain, named and in order, and
	# the frame-pointer one must not (then it shows nothing)
	sff=$(chain "$(user_frames "$sf" sys_enter_getppid)")
	fpf=$(chain "$(user_frames "$fp" sys_enter_getppid)")
	[ "$sff" = "$want" ] ||
		die "the SFrame stack of $d/demo-sframe.dat is not the whole chain: $sff"
	[ -n "$(user_frames "$fp" sys_enter_getppid)" ] && [ "$fpf" != "$want" ] ||
		die "the frame-pointer stack of $d/demo-sframe-fp.dat is missing or has the whole chain: $fpf"
	# python3 with the registrar reaches Py_BytesMain and _start; without
	# it, the stack is cut after the libc wrapper
	pyf=$(user_frames "$py" sys_enter_getppid)
	pyfpf=$(user_frames "$pyfp" sys_enter_getppid)
	grep -qx 'Py_BytesMain+0x[0-9a-f]*' <<< "$pyf" && grep -qx '_start+0x[0-9a-f]*' <<< "$pyf" ||
		die "the python3 stack of $d with the registrar does not reach Py_BytesMain and _start: $(echo $pyf)"
	[ -n "$pyfpf" ] && [ "$(wc -l <<< "$pyfpf")" -le 2 ] ||
		die "the python3 stack of $d without the registrar is missing or not cut: $(echo $pyfpf)"
	# the python3 that ran before the system-wide recording: whole too
	sysf=$(user_frames "$sys" sys_enter_getppid python3)
	grep -qx 'Py_BytesMain+0x[0-9a-f]*' <<< "$sysf" && grep -qx '_start+0x[0-9a-f]*' <<< "$sysf" ||
		die "the python3 stack of $d/demo-system.dat (system-wide) does not reach Py_BytesMain and _start: $(echo $sysf)"
	echo "# $d: sfwork whole by SFrame and cut without; python3: $(wc -l <<< "$pyf") user frames with the registrar, $(wc -l <<< "$pyfpf") without, $(wc -l <<< "$sysf") system-wide"
}

check_run "$out" 1
[ "$repeat" -gt 1 ] && echo "PASS demo-run-1"
for ((i = 2; i <= repeat; i++)); do
	check_run "$out/run-$i" 0
	echo "PASS demo-run-$i"
done
[ "$repeat" -gt 1 ] && echo "# the demo's checks passed in all $repeat runs"
exit 0
