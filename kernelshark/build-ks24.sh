#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KernelShark 2.4.0 from Debian's source (the orig tarball of sid/trixie),
# built in the rig's cache against bookworm's libraries and Qt 6, and the
# plugin built for it (QT=6, KernelShark 2.4's headers).  Nothing is
# installed: KernelShark runs from its build tree.
#
#   kernelshark/build-ks24.sh   prints two lines: KS_BIN=... KS_SO=...
#
# The tarball is fetched as rig/fetch-tracecmd.sh fetches trace-cmd: a
# private apt state in the cache ($CACHE/apt-tracecmd, deb-src sid
# trixie), the archive named by the machine's apt sources.  About 6
# minutes of 2 cores the first time; then cached.
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
if [ ! -f "$tar" ]; then
	apt_dir=$CACHE/apt-tracecmd
	private_apt "$apt_dir" "deb-src sid" "deb-src trixie"
	apt-get "${APT_OPTS[@]}" -q update >&2
	rec=$(apt-cache "${APT_OPTS[@]}" showsrc kernelshark | awk -v ver=$VER '
		/^Package:/ { v = d = f = h = ""; insha = 0 }
		/^Version:/ { v = $2; sub(/-[^-]*$/, "", v) }
		/^Directory:/ { d = $2 }
		/^[A-Za-z0-9-]+:/ { insha = ($1 == "Checksums-Sha256:"); next }
		insha && $3 ~ /\.orig\.tar\./ { h = $1; f = $3 }
		/^$/ { if (v == ver && d != "" && f != "") { print d, f, h; exit } }')
	[ -n "$rec" ] || die "no kernelshark $VER source in sid/trixie"
	read -r dir file sha <<<"$rec"
	/usr/lib/apt/apt-helper download-file "$(apt_archive_uri)/$dir/$file" \
		"$tar.part" "SHA256:$sha" >&2
	mv "$tar.part" "$tar"
fi
[ -d "$tree" ] || tar -C "$src" -xzf "$tar"
if [ ! -x "$tree/bin/kernelshark" ]; then
	mkdir -p "$build"
	(cd "$build" && cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-D_DOXYGEN_DOC=0 "$tree" >&2 &&
	 make -j"$(nproc)" kernelshark >&2)
fi
# the plugin: KernelShark 2.4's headers and libraries, Qt 6
mkdir -p "$out/lib"
ln -sf "$tree/lib/libkshark.so.$VER" "$out/lib/libkshark.so"
ln -sf "$tree/lib/libkshark-plot.so.$VER" "$out/lib/libkshark-plot.so"
make -s -C "$HERE" QT=6 JOIN_OUT="$out/build" \
	PLUGIN="$out/plugin-unwind_stack.so" \
	PC_CFLAGS="-I$tree/src $(pkg-config --cflags json-c libtracecmd libtraceevent)" \
	PC_LIBS="-L$out/lib -Wl,-rpath,$tree/lib -lkshark -ljson-c -ltracecmd -ltracefs -ltraceevent" \
	"$out/plugin-unwind_stack.so" >&2
echo "KS_BIN=$tree/bin/kernelshark"
echo "KS_SO=$out/plugin-unwind_stack.so"
