#!/bin/bash
# Fetch the upstream sources of trace-cmd 3.4 and libtraceevent 1.8.4: the
# orig tarballs of Debian's source packages, through a private apt state in
# $CACHE/apt-tracecmd (the host's apt sources and state are not touched),
# from the archive the machine's own apt uses (apt_archive_uri,
# rig/common.sh).  Unpacks them into $CACHE/src/.  Prints the two trees,
# trace-cmd first, one per line (logs go to stderr).
#
#   rig/fetch-tracecmd.sh
#
# Only the orig tarballs are fetched: the archive may lack the .dsc and the
# Debian packaging (so `apt-get source` would fail), and we want pristine
# upstream code anyway.  Each file's name, pool directory and SHA-256 come
# from the Sources index of the suite that has the version (sid for
# trace-cmd 3.4, trixie for libtraceevent 1.8.4 at the time of writing;
# all of FTD_TC_SUITES are searched) and apt-helper checks the hash.
# Idempotent: when both trees are unpacked (or both tarballs are in
# $CACHE/src) nothing is fetched.  A missing file (404) is final.
# Environment:
#   FTD_CACHE=DIR        cache root (default /var/cache/ftrace-defer)
#   FTD_TC_SUITES='...'  suites to search (default 'sid trixie trixie-backports')
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# source package, upstream version, top directory inside the tarball
pkgs=("trace-cmd 3.4 trace-cmd-v3.4" "libtraceevent 1.8.4 libtraceevent-1.8.4")
suites=${FTD_TC_SUITES:-sid trixie trixie-backports}

ensure_cache
src=$CACHE/src
apt_dir=$CACHE/apt-tracecmd
mkdir -p "$src"

# tarball PKG VER: the orig tarball already in $CACHE/src, if any
tarball() { ls "$src/$1_$2".orig.tar.* 2>/dev/null | head -1 || true; }

trees=()
for p in "${pkgs[@]}"; do
	read -r pkg ver top <<<"$p"
	tree=$src/$top
	stamp=$tree/.ftd-unpacked
	t=$(tarball "$pkg" "$ver")
	if [ -f "$stamp" ] && [ -n "$t" ] && [ "$(cat "$stamp")" = "$(basename "$t")" ]; then
		trees+=("$tree")
		continue
	fi
	if [ -z "$t" ]; then
		t=$(fetch_orig "$apt_dir" "$suites" "$pkg" "$ver" "$src")
	fi
	log "unpacking $t"
	rm -rf "$tree"
	tar -C "$src" --no-same-owner -xf "$t"
	[ -d "$tree" ] || die "$t did not unpack to $tree"
	basename "$t" > "$stamp"
	trees+=("$tree")
done
printf '%s\n' "${trees[@]}"
