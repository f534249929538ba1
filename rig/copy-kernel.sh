#!/bin/bash
# Copy the rig's kernel image to DEST with its series key beside it
# (DEST.key), so a benchmark boots a file no rebuild can change and says
# which series it ran (bench/results.sh refuses an image whose key is not
# the tree's).
#
#   rig/copy-kernel.sh [--build] DEST
#   rig/copy-kernel.sh --key     (print the key of the tree's series)
#
# The key is rig/build-kernel.sh's: a hash of the pristine tree's commit,
# patches/series and every patch it names.  The image is
# $CACHE/build/arch/x86/boot/bzImage, the build of the work tree commit
# recorded in build/.ftd-built, whose subject names the key it was
# prepared from; the copy is refused when that is not the tree's key
# (another series was built since) or when the image changed during the
# copy.  --build runs rig/build-kernel.sh first (which waits for its lock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# series_key PRISTINE: as rig/build-kernel.sh computes it (FTD_NO_OURS=0)
series_key() {
	{
		echo "prep v2 no_ours=0"
		echo "$1"
		[ -f "$REPO/patches/series" ] && cat "$REPO/patches/series"
		sed -e 's/#.*//' "$REPO/patches/series" | awk 'NF { print $1 }' |
		while read -r p; do
			echo "patch $p"; sha256sum < "$REPO/patches/$p"
		done
	} | sha256sum | cut -c1-16
}
W=$CACHE/work/linux B=$CACHE/build
img=$B/arch/x86/boot/bzImage
# the key the image was built from: "COMMIT ..." in .ftd-built, the
# subject of COMMIT "ftd work tree KEY"
built_key() {
	local c
	c=$(cut -d' ' -f1 "$B/.ftd-built" 2>/dev/null) || return 1
	git -C "$W" log -1 --format=%s "$c" 2>/dev/null | sed -n 's/^ftd work tree \([0-9a-f]*\)$/\1/p'
}
tree_key() {
	local c pristine
	c=$(cut -d' ' -f1 "$B/.ftd-built" 2>/dev/null) || die "no kernel build in $B"
	pristine=$(git -C "$W" rev-parse "$c^") || die "no work tree commit $c"
	series_key "$pristine"
}

case ${1:-} in
--key) tree_key; exit 0 ;;
--build) "$here/build-kernel.sh" > /dev/null; shift ;;
esac
dest=${1:?usage: rig/copy-kernel.sh [--build] DEST}
[ -f "$img" ] || die "no kernel image $img: rig/build-kernel.sh"
k1=$(built_key) || true
[ -n "$k1" ] || die "$img: no record of what it was built from ($B/.ftd-built)"
want=$(tree_key)
[ "$k1" = "$want" ] || die "$img was built from series key $k1, the tree's is $want: rig/build-kernel.sh"
s1=$(sha256sum < "$img")
cp "$img" "$dest.tmp"
[ "$(sha256sum < "$dest.tmp")" = "$s1" ] && [ "$(built_key)" = "$k1" ] ||
	{ rm -f "$dest.tmp"; die "$img changed during the copy"; }
mv "$dest.tmp" "$dest"
echo "$k1" > "$dest.key"
log "copied $img (series key $k1) to $dest"
