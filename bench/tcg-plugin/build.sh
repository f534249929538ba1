#!/bin/bash
# Build the QEMU TCG plugin bench/tcg-plugin/insn-count.c into the rig
# cache and print the path of the .so.
#
#   bench/tcg-plugin/build.sh
#
# The plugin is built against qemu-plugin.h of the QEMU that is installed
# (bookworm's qemu-system-x86, 7.2): the header is taken from Debian's
# source package "qemu" of that version, fetched like the kernel source
# (rig/fetch-kernel.sh) through a private apt state in $CACHE/apt-qemu
# (the host's apt setup is untouched), from the archive the machine's own
# apt uses (apt_archive_uri, rig/common.sh).  Only
# include/qemu/qemu-plugin.h is extracted; it is kept in
# $CACHE/tcg-plugin/<version>/ and the source package files are deleted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../rig/common.sh"

ensure_cache
dir=$CACHE/tcg-plugin
apt_dir=$CACHE/apt-qemu
mkdir -p "$dir"

# Source version of the installed QEMU (binary NMUs such as +b3 have no
# source of their own: ${source:Version} drops them).
need_pkgs qemu-system-x86 gcc libc6-dev
srcver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
ver=${srcver#*:}				# 7.2+dfsg-7+deb12u18
upver=${ver%-*}					# 7.2+dfsg
hdr=$dir/$ver/qemu-plugin.h

fetch_header() {
	need_pkgs apt dpkg-dev tar xz-utils debian-archive-keyring
	private_apt "$apt_dir" 'deb-src bookworm' 'deb-src bookworm-updates'
	local apt_opts=("${APT_OPTS[@]}")
	mkdir -p "$apt_dir/src"
	log "apt: updating private source lists for bookworm"
	apt-get "${apt_opts[@]}" -q update >&2
	# The installed version when the archive still has it, else the
	# archive's 7.2: the plugin API does not change within a release.
	local want=qemu=$srcver
	if ! (cd "$apt_dir/src" && apt-get "${apt_opts[@]}" -q source -d "$want" >&2); then
		log "apt: qemu $srcver not in the archive; taking its current qemu source"
		(cd "$apt_dir/src" && apt-get "${apt_opts[@]}" -q source -d qemu >&2)
	fi
	local orig
	orig=$(ls "$apt_dir"/src/qemu_"$upver".orig.tar.* 2>/dev/null | head -1)
	[ -n "$orig" ] || die "no qemu_$upver.orig tarball in $apt_dir/src (is the archive's qemu another upstream version?)"
	log "extracting include/qemu/qemu-plugin.h from $orig"
	local tmp=$dir/tmp.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" --no-same-owner -xf "$orig" --wildcards '*/include/qemu/qemu-plugin.h'
	local h
	h=$(find "$tmp" -path '*/include/qemu/qemu-plugin.h' | head -1)
	[ -n "$h" ] || die "no include/qemu/qemu-plugin.h in $orig"
	mkdir -p "$dir/$ver"
	mv "$h" "$hdr"
	rm -rf "$tmp" "$apt_dir/src"
}

[ -f "$hdr" ] || fetch_header

so=$dir/$ver/insn-count.so
src=$here/insn-count.c
if [ ! -f "$so" ] || [ "$src" -nt "$so" ] || [ "$hdr" -nt "$so" ]; then
	log "building $so"
	gcc -O2 -Wall -Wextra -Werror -fPIC -shared -I"$dir/$ver" \
		-o "$so.tmp" "$src"
	mv "$so.tmp" "$so"
fi
echo "$so"
