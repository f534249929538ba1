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
mkdir -p "$apt_dir"/{lists/partial,archives/partial,etc/preferences.d} "$CACHE/src"

apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
	  -o "Dir::Etc::SourceParts=/nonexistent"
	  -o "Dir::Etc::Preferences=/nonexistent"
	  -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
	  -o "Dir::State::Lists=$apt_dir/lists"
	  -o "Dir::State::status=/dev/null"
	  -o "Dir::Cache=$apt_dir"
	  -o "Dir::Cache::archives=$apt_dir/archives"
	  -o "APT::Default-Release=trixie-backports"
	  -o "Debug::NoLocking=1")

stamp=$CACHE/src/.unpacked
if [ -f "$stamp" ] && [ -d "$(cat "$stamp")" ]; then
	cat "$stamp"
	exit 0
fi

need_pkgs apt dpkg tar xz-utils debian-archive-keyring
# The archive is the one this machine's apt already uses (rig/common.sh).
archive=$(apt_archive_uri) ||
	die "no Debian archive found in /etc/apt sources (set FTD_APT_URI to one)"
log "apt: archive $archive (from the machine's apt sources)"
cat > "$apt_dir/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive trixie-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive trixie main
SRC
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
