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

updated=
fetch() {
	local pkg=$1 ver=$2 rec dir file sha
	need_pkgs apt debian-archive-keyring
	if [ -z "$updated" ]; then
		local e=() s
		for s in $suites; do e+=("deb-src $s"); done
		private_apt "$apt_dir" "${e[@]}"
		log "apt: updating private source lists ($suites)"
		apt-get "${APT_OPTS[@]}" -q update >&2 || die "apt-get update of $suites failed"
		updated=1
	fi
	# The first source record (any Debian revision) of upstream version
	# VER: its pool directory and the orig tarball's name and SHA-256.
	rec=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null | awk -v ver="$ver" '
		/^Package:/ { v = d = f = h = ""; insha = 0 }
		/^Version:/ { v = $2; sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v) }
		/^Directory:/ { d = $2 }
		/^[A-Za-z0-9-]+:/ { insha = ($1 == "Checksums-Sha256:"); next }
		insha && $3 ~ /\.orig\.tar\./ { h = $1; f = $3 }
		/^$/ { if (v == ver && d != "" && f != "") { print d, f, h; exit } }
		END { if (v == ver && d != "" && f != "") print d, f, h }' | head -1)
	[ -n "$rec" ] || die "no $pkg $ver source in $suites (apt-cache showsrc $pkg lists: $(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null | awk '/^Version:/ { printf "%s ", $2 }'))"
	read -r dir file sha <<<"$rec"
	local uri
	uri=$(apt_archive_uri)/$dir/$file
	log "fetching $uri"
	rm -f "$src/$file.part"
	if ! /usr/lib/apt/apt-helper download-file "$uri" "$src/$file.part" "SHA256:$sha" >&2; then
		rm -f "$src/$file.part"
		die "cannot fetch $file from $uri (the archive does not serve it: a 404 is final; see the apt message above)"
	fi
	mv "$src/$file.part" "$src/$file"
}

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
		fetch "$pkg" "$ver"
		t=$(tarball "$pkg" "$ver")
	fi
	log "unpacking $t"
	rm -rf "$tree"
	tar -C "$src" --no-same-owner -xf "$t"
	[ -d "$tree" ] || die "$t did not unpack to $tree"
	basename "$t" > "$stamp"
	trees+=("$tree")
done
printf '%s\n' "${trees[@]}"
