#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Screenshot of KernelShark 2.4.0 with the plugin hooks and the plugin (its
# GUI test build; both built by build-ks24.sh), under Xvfb: the test hook
# (KSHARK_UNWIND_TEST) selects the N-th (from 0) entry of EVENT, so the
# dock shows its stacks; KernelShark's "running as root" notice is turned
# off in a private settings directory.
# Usage: kernelshark/screenshot.sh TRACE.dat OUT.png [EVENT[:N] [KS-ARGS...]]
# (KS_TAB=tree: the dock's call tree shown)
#   e.g. kernelshark/screenshot.sh tests/fixtures/trigger-getppid.dat \
#		kernelshark/screenshot.png syscalls/sys_enter_getppid:1 --pid 80
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 TRACE.dat OUT.png [EVENT[:N] [KS-ARGS...]]" >&2; exit 2; }
"$HERE/../trace-cmd/plugins/install-deps.sh" xvfb xauth xdotool imagemagick
eval "$("$HERE/build-ks24.sh")"
make -C "$HERE/../trace-cmd/plugins" -s
TRACE=$(realpath "$1")
OUT=$(realpath "$2")
SEL=${3:-syscalls/sys_enter_getppid:0}
shift $(( $# < 3 ? $# : 3 ))
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
chmod 700 "$TMP"
printf '[General]\nnoRootWarn=true\n' >"$TMP/setting.ini"
export TRACEEVENT_PLUGIN_DIR=$HERE/../trace-cmd/plugins
export XDG_RUNTIME_DIR=$TMP KS_USER_CACHE_DIR=$TMP HOME=$TMP KS_BIN
export KSHARK_UNWIND_TEST="select=$SEL,dump=$TMP/view.txt${KS_TAB:+,tab=$KS_TAB}"
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
	out=$1 tmp=$2; shift 2
	$KS_BIN "$@" >"$tmp/ks.log" 2>&1 &
	pid=$!
	for i in $(seq 60); do
		[ -f "$tmp/view.txt.done" ] && break
		sleep 1
	done
	w=$(xdotool search --name "Kernel Shark" | head -1)
	[ -n "$w" ] && xdotool windowsize "$w" 1600 1000 windowmove "$w" 0 0
	sleep 2
	import -window root "$out"
	kill $pid' _ "$OUT" "$TMP" -p "$KS_GUI_TEST_SO" -i "$TRACE" "$@"
cat "$TMP/view.txt.done" 2>/dev/null || true
echo "wrote $OUT"
