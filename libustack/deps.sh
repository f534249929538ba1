#!/bin/bash
# Install the Debian packages that libustack, its tool, its tests and its
# benchmark need, when they are missing (libtracecmd-dev: the man pages'
# examples; the library needs none, the tool the series' libtracecmd,
# which rig/build-tracecmd.sh builds).  Run as root (or with sudo).
set -e
PKGS="gcc make pkg-config binutils libtracefs-dev libtraceevent-dev
libtracecmd-dev libdw-dev libelf-dev g++ trace-cmd valgrind clang
libclang-rt-14-dev asciidoc-base xmlto docbook-xml docbook-xsl python3"
missing=
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
