#!/bin/bash
# Fetch Debian's linux-source-7.3 from trixie-backports into a private apt
# state directory (the host's apt sources and state are not touched) and
# unpack it into $CACHE/src/linux-<version>.  Prints the tree path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

pkg=${KPKG:-linux-source-7.3}
ensure_cache
apt_dir=$CACHE/apt
mkdir -p "$CACHE/src"

stamp=$CACHE/src/.unpacked
if [ -f "$stamp" ] && [ -d "$(cat "$stamp")" ]; then
	cat "$stamp"
	exit 0
fi

need_pkgs apt dpkg tar xz-utils debian-archive-keyring
# The archive is the one this machine's apt already uses (rig/common.sh).
private_apt "$apt_dir" 'deb trixie-backports' 'deb trixie'
apt_opts=("${APT_OPTS[@]}" -o "APT::Default-Release=trixie-backports")
log "apt: updating private lists for trixie-backports"
apt-get "${apt_opts[@]}" -q update >&2
deb=$(ls "$apt_dir"/archives/${pkg}_*.deb 2>/dev/null | tail -1 || true)
if [ -z "$deb" ]; then
	log "apt: downloading $pkg"
	(cd "$apt_dir/archives" && apt-get "${apt_opts[@]}" -q download "$pkg" >&2)
	deb=$(ls "$apt_dir"/archives/${pkg}_*.deb | tail -1)
fi
log "unpacking $deb"
tmp=$CACHE/src/deb.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
dpkg-deb -x "$deb" "$tmp"
tarball=$(ls "$tmp"/usr/src/linux-source-*.tar.* | head -1)
base=$(basename "$tarball"); base=${base%.tar.*}
rm -rf "$CACHE/src/$base"
tar -C "$CACHE/src" -xf "$tarball"
rm -rf "$tmp"
tree=$CACHE/src/$base
echo "$tree" > "$stamp"
echo "$tree"
