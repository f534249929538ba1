#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KernelShark 2.4.0 from Debian's source (the orig tarball of sid/trixie),
# built in the rig's cache against bookworm's libraries and Qt 6, and the
# plugin built for it (QT=6, KernelShark 2.4's headers).  Nothing is
# installed: KernelShark runs from its build tree.
#
#   kernelshark/build-ks24.sh   prints KS_BIN=..., KS_SO=... (the plugin)
#                               and KS_TEST_SO=... (its test build)
#
# The tarball is fetched as rig/fetch-tracecmd.sh fetches trace-cmd: a
# private apt state in the cache ($CACHE/apt-tracecmd, deb-src sid
# trixie), the archive named by the machine's apt sources.  Built -O0
# the first time (about 6 minutes of 2 cores at -O2); then cached.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
. "$REPO/rig/common.sh"
VER=2.4.0
ensure_cache
need_pkgs apt debian-archive-keyring cmake qt6-base-dev libqt6opengl6-dev \
	qt6-scxml-dev libkshark-dev freeglut3-dev libjson-c-dev \
	libtracecmd-dev libtracefs-dev libtraceevent-dev g++ make
src=$CACHE/src
tar=$src/kernelshark_$VER.orig.tar.gz
tree=$src/kernel-shark-kernelshark-v$VER
build=$CACHE/build-kernelshark-$VER
out=$CACHE/kernelshark-$VER-plugin
mkdir -p "$src"
[ -f "$tar" ] || tar=$(fetch_orig "$CACHE/apt-tracecmd" "sid trixie" kernelshark "$VER" "$src")
[ -d "$tree" ] || tar -C "$src" -xzf "$tar"
if [ ! -x "$tree/bin/kernelshark" ]; then
	mkdir -p "$build"
	# -O0 -g0: the suite drives it under Xvfb on small traces, and a
	# cold CI run pays for compiling it (Qt 6 C++)
	(cd "$build" && cmake -DCMAKE_BUILD_TYPE=None \
		-DCMAKE_C_FLAGS="-O0 -g0" -DCMAKE_CXX_FLAGS="-O0 -g0" \
		-D_DOXYGEN_DOC=0 "$tree" >&2 &&
	 make -j"$(nproc)" kernelshark >&2)
fi
# the plugin: KernelShark 2.4's headers and libraries, Qt 6
mkdir -p "$out/lib"
ln -sf "$tree/lib/libkshark.so.$VER" "$out/lib/libkshark.so"
ln -sf "$tree/lib/libkshark-plot.so.$VER" "$out/lib/libkshark-plot.so"
ln -sf "$tree/lib/libkshark-gui.so.$VER" "$out/lib/libkshark-gui.so"
make -s -C "$HERE" QT=6 USTACK_OUT="$out/build" \
	PLUGIN="$out/plugin-unwind_stack.so" \
	TEST_PLUGIN="$out/test/plugin-unwind_stack.so" \
	PC_CFLAGS="-I$tree/src $(pkg-config --cflags json-c libtracecmd libtraceevent)" \
	PC_LIBS="-L$out/lib -Wl,-rpath,$tree/lib -lkshark -ljson-c -ltracecmd -ltracefs -ltraceevent" \
	"$out/plugin-unwind_stack.so" "$out/test/plugin-unwind_stack.so" >&2
echo "KS_BIN=$tree/bin/kernelshark"
echo "KS_SO=$out/plugin-unwind_stack.so"
echo "KS_TEST_SO=$out/test/plugin-unwind_stack.so"
