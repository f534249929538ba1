#!/bin/bash
# Fetch Debian's linux-source-7.3 from trixie-backports into a private apt
# state directory (the host's apt sources and state are not touched) and
# unpack it into $CACHE/src/linux-<version>, made a git repo whose commit
# tagged `pristine` is the source as Debian ships it (the series applies
# to it: rig/series.sh, tests/kernel-static.sh, rig/build-kernel.sh).
# Prints the tree path.  One caller at a time fetches; the others wait.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

pkg=${KPKG:-linux-source-7.3}
ensure_cache
apt_dir=$CACHE/apt
mkdir -p "$CACHE/src"
exec 8>"$CACHE/.fetch-kernel.lock"
flock 8

# The tree becomes a git repo, once (a minute or two)
git_pristine() {
	local tree=$1 ver
	gitp() { git -C "$tree" -c user.name=ftd-rig -c user.email=ftd-rig@localhost "$@"; }
	gitp rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1 && return 0
	ver=$(make -s -C "$tree" kernelversion 2>/dev/null || echo 7.3)
	log "making $tree a git repo (once; takes a minute or two)"
	gitp init -q
	gitp config gc.auto 0
	gitp config core.untrackedCache true
	if ! gitp rev-parse -q --verify HEAD >/dev/null; then
		gitp add -f -A .
		gitp commit -q -m "pristine $ver"
	fi
	gitp tag pristine HEAD
}

stamp=$CACHE/src/.unpacked
if [ -f "$stamp" ] && [ -d "$(cat "$stamp")" ]; then
	git_pristine "$(cat "$stamp")" >&2
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
git_pristine "$tree" >&2
echo "$tree" > "$stamp"
echo "$tree"
