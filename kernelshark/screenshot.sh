#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Screenshot of KernelShark with the unwind_stack plugin, under Xvfb.
# Usage: kernelshark/screenshot.sh TRACE.dat OUT.png
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# = 2 ] || { echo "usage: $0 TRACE.dat OUT.png" >&2; exit 2; }
"$HERE/../trace-cmd/plugins/install-deps.sh" kernelshark xvfb xdotool \
	imagemagick
make -C "$HERE" -s
make -C "$HERE/../trace-cmd/plugins" -s
TRACE=$(realpath "$1")
OUT=$(realpath "$2")
export TRACEEVENT_PLUGIN_DIR=$HERE/../trace-cmd/plugins
export XDG_RUNTIME_DIR=$(mktemp -d)
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
	kernelshark -p "$0/plugin-unwind_stack.so" -i "$1" >/dev/null 2>&1 &
	pid=$!
	sleep 5
	xdotool key Return	# the "running as root" notice, if any
	sleep 2
	w=$(xdotool search --name "Kernel Shark" | head -1)
	[ -n "$w" ] && xdotool windowsize "$w" 1600 1000 &&
		xdotool windowmove "$w" 0 0
	sleep 3
	import -window root "$2"
	kill $pid' "$HERE" "$TRACE" "$OUT"
rm -rf "$XDG_RUNTIME_DIR"
echo "wrote $OUT"
