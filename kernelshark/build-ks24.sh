#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KernelShark 2.4.0 from Debian's source (the orig tarball of sid/trixie)
# with the plugin hooks of kernelshark/patches/ (series, applied in order),
# built in the rig's cache against the series' libtracecmd and its
# libtraceevent 1.8.4 (rig/build-tracecmd.sh's prefix; libtracefs and Qt 6
# are bookworm's), and the plugin built for it: the plugin's trace.dat
# reader (ustack/file.c) needs that libtracecmd's API.  Both carry an
# rpath to the prefix, so they load its libtracecmd.so.1 and
# libtraceevent.so.1, not bookworm's of the same sonames.  Nothing is
# installed: KernelShark runs from its build tree.  Installs the Debian
# packages both need (apt).
#
#   kernelshark/build-ks24.sh   prints KS_BIN=..., KS_SRC=..., KS_SO=...
#                               (the plugin), KS_TEST_SO=... (the C part,
#                               test build), KS_GUI_TEST_SO=... (the plugin
#                               with its GUI test hook), KS_STACK=...
#
# FTD_KS_DIR (default $CACHE/kernelshark-2.4.0-patched) is where it builds;
# it builds again only when the tarball, the patches, this script or
# the prefix's libtracecmd and libtraceevent (their libraries and
# headers) change.  Built -O0 (about 3.5 minutes of 2 cores), with ccache
# when there is one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
. "$REPO/rig/common.sh"
VER=2.4.0
ensure_cache
need_pkgs apt debian-archive-keyring cmake patch qt6-base-dev libqt6opengl6-dev \
	qt6-scxml-dev libkshark-dev freeglut3-dev libjson-c-dev libdw-dev \
	libtracefs-dev g++ make pkg-config
# the series' libtracecmd (cached: quick once built)
tc=$("$REPO/rig/build-tracecmd.sh") || die "rig/build-tracecmd.sh failed"
P=$(cd "$(dirname "$tc")/.." && pwd)
export PKG_CONFIG_PATH=$P/lib/pkgconfig
src=$CACHE/src
tar=$src/kernelshark_$VER.orig.tar.gz
D=${FTD_KS_DIR:-$CACHE/kernelshark-$VER-patched}
tree=$D/kernel-shark-kernelshark-v$VER
pdir=$HERE/patches
mkdir -p "$src" "$(dirname "$D")"
[ -f "$tar" ] || tar=$(fetch_orig "$CACHE/apt-tracecmd" "sid trixie" kernelshark "$VER" "$src")
[ -f "$pdir/series" ] || die "kernelshark/patches/series does not exist"
patch_series "$pdir" patches
# the libraries by content, not $CACHE/tracecmd/.key, which also changes
# with libustack's and the tool's sources (the plugin is made every run)
key=$( { echo "$P"; sha256sum "$tar" "$0" "$pdir/series" "${patches[@]}" \
	"$P"/lib/libtracecmd.so.1 "$P"/lib/libtraceevent.so.1 \
	"$P"/include/trace-cmd/*.h "$P"/include/traceevent/*.h | cut -d' ' -f1; } |
	sha256sum | cut -c1-16)

exec 9>"$D.lock"
flock 9
if [ "$(cat "$D/.key" 2>/dev/null)" != "$key" ] || [ ! -x "$tree/bin/kernelshark" ]; then
	log "building KernelShark $VER with kernelshark/patches ($key) in $D"
	rm -rf "$D"
	mkdir -p "$D/build"
	tar -C "$D" -xzf "$tar"
	for p in "${patches[@]}"; do
		patch -d "$tree" -p1 --batch --forward --quiet < "$p" >&2 ||
			die "kernelshark/patches/$(basename "$p") does not apply to KernelShark $VER"
	done
	launcher=()
	command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
		-DCMAKE_CXX_COMPILER_LAUNCHER=ccache) &&
		export CCACHE_DIR=${FTD_CCACHE_DIR:-$CACHE/ccache}
	# -O0 -g0: the suite drives it under Xvfb on small traces, and a
	# cold CI run pays for compiling it (Qt 6 C++).  Its CMake writes
	# bin/ and lib/ into the source tree.
	# Its cmake/Find*.cmake modules take libtracecmd and libtraceevent
	# from pkg-config's directories first (HINTS): the prefix's.  CMake
	# puts the directories of the libraries linked in the build tree's
	# rpath; the prefix is named anyway, the point of the build.
	(cd "$D/build" && cmake -DCMAKE_BUILD_TYPE=None "${launcher[@]}" \
		-DCMAKE_C_FLAGS="-O0 -g0" -DCMAKE_CXX_FLAGS="-O0 -g0" \
		-DCMAKE_BUILD_RPATH="$P/lib" \
		-D_DOXYGEN_DOC=0 "$tree" >&2 &&
	 make -j"$(nproc)" kernelshark >&2) || die "KernelShark $VER did not build"
	ldd "$tree/bin/kernelshark" | grep -q "libtracecmd.so.1 => $P/lib/" ||
		die "$tree/bin/kernelshark does not load $P/lib/libtracecmd.so.1"
	echo "$key" > "$D/.key"
fi
# the plugin: KernelShark 2.4's headers and libraries, Qt 6, the
# prefix's libtracecmd (under the lock: two suites may build it at once)
make -s -C "$HERE" KS_SRC="$tree" OUT="$D/plugin" all test >&2
exec 9>&-
echo "KS_BIN=$tree/bin/kernelshark"
echo "KS_SRC=$tree"
echo "KS_SO=$D/plugin/plugin-unwind_stack.so"
echo "KS_TEST_SO=$D/plugin/test/plugin-unwind_stack.so"
echo "KS_GUI_TEST_SO=$D/plugin/test/plugin-unwind_stack-gui.so"
echo "KS_STACK=$D/plugin/kshark_stack"
echo "KS_TRACECMD_PREFIX=$P"
