#!/bin/bash
# Build the assembler and linker of binutils (2.44 by default) for SFrame
# workloads, and print the directory that holds them, for `gcc -B DIR`:
#
#   rig/build-binutils.sh [--version VER] [--force]
#   gcc -B "$(rig/build-binutils.sh)" -O2 -fomit-frame-pointer -Wa,--gsframe ...
#
# 2.44 (the default) writes SFrame version 2 (bookworm's 2.40 only version
# 1); 2.46 and later write version 3 (`--version 2.46`, the independent
# oracle of the version 3 reader: tests/userspace/sframe-gen/run.sh).
# Fetched like rig/fetch-tracecmd.sh: the orig tarball of the source
# package binutils VER, through a private apt state in $CACHE/apt-binutils
# (the host's apt sources and state are not touched) with deb-src entries
# for trixie and sid (FTD_BU_SUITES) on the archive the machine's own apt
# uses (fetch_orig and apt_archive_uri, rig/common.sh).  Unpacked into
# $CACHE/src/.  Built out of tree in $CACHE/binutils/build for 2.44 and
# $CACHE/binutils-VER/build for any other version (make all-gas all-ld
# only, -j$FTD_JOBS, default 2; about 5 minutes on 2 cores), and `as` and
# `ld` are copied into its bin/.  Skipped when its .key (the tarball's
# name and the recipe's version) matches; --force rebuilds.  Logs go to
# stderr, make's output to build.log beside bin/.
# Environment:
#   FTD_CACHE=DIR          cache root (default /var/cache/ftrace-defer)
#   FTD_BINUTILS_VERSION=V the version when --version is not given (2.44)
#   FTD_BU_SUITES='...'    suites to search (default 'trixie sid')
#   FTD_JOBS=N             make -j (default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

ver=${FTD_BINUTILS_VERSION:-2.44}
suites=${FTD_BU_SUITES:-trixie sid}
force=
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1 ;;
	--version) [ $# -ge 2 ] || die "--version needs a version"; ver=$2; shift ;;
	--version=*) ver=${1#--version=} ;;
	*) die "unknown argument '$1' (usage: $0 [--version VER] [--force])" ;;
	esac
	shift
done
[[ $ver =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]] || die "version '$ver': want N.N or N.N.N"

ensure_cache
src=$CACHE/src
apt_dir=$CACHE/apt-binutils
# 2.44 keeps the directory of before (tests/workload's SFRAME_BIN)
if [ "$ver" = 2.44 ]; then top=$CACHE/binutils; else top=$CACHE/binutils-$ver; fi
bin=$top/bin
mkdir -p "$src" "$top"
# one build of a version at a time (rig/test-all.sh builds 2.46 in the
# background while a suite may ask for it)
exec 9>"$top/.lock"
flock 9

tarball() { ls "$src/binutils_$ver".orig.tar.* 2>/dev/null | head -1 || true; }

t=$(tarball)
if [ -z "$t" ]; then
	need_pkgs apt debian-archive-keyring
	t=$(fetch_orig "$apt_dir" "$suites" binutils "$ver" "$src")
fi
# What decides the build: the tarball and the recipe below (bump it when
# configure's options or the make targets change)
recipe=as-ld-2
key="$(basename "$t") $recipe"
if [ -z "$force" ] && [ -f "$top/.key" ] && [ "$(cat "$top/.key")" = "$key" ] &&
   [ -x "$bin/as" ] && [ -x "$bin/ld" ]; then
	echo "$bin"
	exit 0
fi

tree=$src/binutils-$ver
if ! [ -f "$tree/.ftd-unpacked" ] || [ "$(cat "$tree/.ftd-unpacked")" != "$(basename "$t")" ]; then
	log "unpacking $t"
	rm -rf "$tree"
	tar -C "$src" --no-same-owner -xf "$t"
	[ -x "$tree/configure" ] || die "$t did not unpack to $tree"
	basename "$t" > "$tree/.ftd-unpacked"
fi

need_pkgs gcc make bison flex texinfo zlib1g-dev
rm -rf "$top/build" "$bin" "$top/.key"
mkdir -p "$top/build" "$bin"
start=$(now)
log "building binutils $ver (as, ld) in $top/build, log in $top/build.log"
(
	cd "$top/build"
	# -O0 -g0: the tools assemble and link a few small test files, where
	# their speed does not matter, and a cold CI run pays for compiling
	# them (two versions); what they write does not depend on it
	CFLAGS="-O0 -g0" CXXFLAGS="-O0 -g0" "$tree/configure" --prefix="$top/prefix" \
		--disable-gdb --disable-gdbserver --disable-sim --disable-gprofng \
		--disable-nls --disable-werror --disable-plugins
	make -j"${FTD_JOBS:-2}" MAKEINFO=true all-gas all-ld
) > "$top/build.log" 2>&1 || { tail -30 "$top/build.log" >&2; die "binutils build failed (log: $top/build.log)"; }
cp "$top/build/gas/as-new" "$bin/as"
cp "$top/build/ld/ld-new" "$bin/ld"
"$bin/as" --version | head -1 >&2
echo "$key" > "$top/.key"
log "built in $(elapsed "$start")"
echo "$bin"
