#!/bin/bash
# Build the assembler and linker of binutils 2.44 (the newest whose complete
# source the Debian archive serves; it writes SFrame version 2, bookworm's
# 2.40 only version 1) for SFrame workloads, and print the directory that
# holds them, for `gcc -B DIR`:
#
#   rig/build-binutils.sh [--force]
#   gcc -B "$(rig/build-binutils.sh)" -O2 -fomit-frame-pointer -Wa,--gsframe ...
#
# Fetched like rig/fetch-tracecmd.sh: the orig tarball of the source
# package binutils 2.44, through a private apt state in $CACHE/apt-binutils
# (the host's apt sources and state are not touched) with a deb-src entry
# for trixie (FTD_BU_SUITES) on the archive the machine's own apt uses
# (apt_archive_uri, rig/common.sh).  The Sources index gives the pool
# directory and SHA-256; apt-helper checks the hash.  Unpacked into
# $CACHE/src/.  Built out of tree in $CACHE/binutils/build (make all-gas
# all-ld only, -j$FTD_JOBS, default 2; about 5 minutes on 2 cores), and
# `as` and `ld` are copied into $CACHE/binutils/bin.  Skipped when
# $CACHE/binutils/.key (the tarball's name and a hash of this script)
# matches; --force rebuilds.  Logs go to stderr, make's output to
# $CACHE/binutils/build.log.
# Environment:
#   FTD_CACHE=DIR          cache root (default /var/cache/ftrace-defer)
#   FTD_BU_SUITES='...'    suites to search (default 'trixie sid')
#   FTD_JOBS=N             make -j (default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

ver=2.44
suites=${FTD_BU_SUITES:-trixie sid}
force=
[ "${1:-}" = --force ] && force=1

ensure_cache
src=$CACHE/src
apt_dir=$CACHE/apt-binutils
top=$CACHE/binutils
bin=$top/bin
mkdir -p "$src" "$top"

tarball() { ls "$src/binutils_$ver".orig.tar.* 2>/dev/null | head -1 || true; }

fetch() {
	local e=() s rec dir file sha uri
	need_pkgs apt debian-archive-keyring
	for s in $suites; do e+=("deb-src $s"); done
	private_apt "$apt_dir" "${e[@]}"
	log "apt: updating private source lists ($suites)"
	apt-get "${APT_OPTS[@]}" -q update >&2 || die "apt-get update of $suites failed"
	# pool directory, orig tarball name and SHA-256 of upstream version $ver
	rec=$(apt-cache "${APT_OPTS[@]}" showsrc binutils 2>/dev/null | awk -v ver="$ver" '
		/^Package:/ { v = d = f = h = ""; insha = 0 }
		/^Version:/ { v = $2; sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v) }
		/^Directory:/ { d = $2 }
		/^[A-Za-z0-9-]+:/ { insha = ($1 == "Checksums-Sha256:"); next }
		insha && $3 ~ /\.orig\.tar\./ { h = $1; f = $3 }
		/^$/ { if (!done && v == ver && d != "" && f != "") { print d, f, h; done = 1 } }
		END { if (!done && v == ver && d != "" && f != "") print d, f, h }')
	[ -n "$rec" ] || die "no binutils $ver source in $suites"
	read -r dir file sha <<<"$rec"
	uri=$(apt_archive_uri)/$dir/$file
	log "fetching $uri"
	rm -f "$src/$file.part"
	if ! /usr/lib/apt/apt-helper download-file "$uri" "$src/$file.part" "SHA256:$sha" >&2; then
		rm -f "$src/$file.part"
		die "cannot fetch $file from $uri"
	fi
	mv "$src/$file.part" "$src/$file"
}

t=$(tarball)
[ -n "$t" ] || { fetch; t=$(tarball); }
key="$(basename "$t") $(sha256sum "$0" | cut -c1-16)"
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
	"$tree/configure" --prefix="$top/prefix" --disable-gdb --disable-gdbserver \
		--disable-sim --disable-gprofng --disable-nls --disable-werror
	make -j"${FTD_JOBS:-2}" MAKEINFO=true all-gas all-ld
) > "$top/build.log" 2>&1 || { tail -30 "$top/build.log" >&2; die "binutils build failed (log: $top/build.log)"; }
cp "$top/build/gas/as-new" "$bin/as"
cp "$top/build/ld/ld-new" "$bin/ld"
"$bin/as" --version | head -1 >&2
echo "$key" > "$top/.key"
log "built in $(elapsed "$start")"
echo "$bin"
