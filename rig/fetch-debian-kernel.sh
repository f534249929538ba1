#!/bin/bash
# Fetch Debian's own prebuilt kernel of the source the series applies to
# (linux-source-7.3 from trixie-backports: its upstream version, flavour
# amd64) and the modules the rig's guest needs to mount its root: 9p over
# virtio and overlayfs (Debian builds them as modules; rig/guest-init.sh
# loads whatever the initramfs carries under /modules, in the order of
# /modules/order).
#
#   rig/fetch-debian-kernel.sh      prints the vmlinuz path; the modules
#                                   are in its directory's modules/
#
# This is the stock kernel of guest-vanilla (rig/test-all.sh): the kernel
# Debian users run, built by Debian, not by us, so it is both a better
# oracle of "a kernel without our change" and 30 minutes of a cold run's
# CPU that no longer goes into building one (decisions.md).  The series'
# pristine build (FTD_NO_OURS=1 rig/build-kernel.sh) stays for the
# benchmarks, which compare like-configured kernels.
#
# Packages come through the same private apt state as the kernel source
# ($CACHE/apt, rig/fetch-kernel.sh); the host's apt is not touched.
# Layout: $CACHE/debian-kernel/<version>/{vmlinuz,config,modules/}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

ensure_cache
need_pkgs apt dpkg xz-utils binutils debian-archive-keyring
exec 8>"$CACHE/.fetch-kernel.lock"
flock 8

apt_dir=$CACHE/apt
private_apt "$apt_dir" 'deb trixie-backports' 'deb trixie'
lists_fresh() { ls "$apt_dir"/lists/*trixie-backports*Packages* >/dev/null 2>&1; }
if ! lists_fresh; then
	log "apt: updating private lists for trixie-backports"
	apt-get "${APT_OPTS[@]}" -q update >&2 || die "apt-get update failed"
fi
# The upstream version of the source the series applies to, e.g. 7.3.4
srcver=$(apt-cache "${APT_OPTS[@]}" show linux-source-7.3 2>/dev/null |
	 awk '/^Version:/ { v = $2 } END { sub(/-.*/, "", v); print v }')
[ -n "$srcver" ] || die "apt knows no linux-source-7.3 in trixie-backports"
# Debian's package names carry the ABI: linux-binary-7.3.4+deb13-amd64
abi=$(apt-cache "${APT_OPTS[@]}" pkgnames linux-binary- 2>/dev/null |
      sed -n "s/^linux-binary-\(${srcver//./\\.}+[^-]*\)-amd64$/\1/p" | sort -V | tail -1)
[ -n "$abi" ] || die "no linux-binary-$srcver*-amd64 in trixie-backports"
top=$CACHE/debian-kernel/$abi
if [ -f "$top/.done" ] && [ -f "$top/vmlinuz" ]; then
	echo "$top/vmlinuz"
	exit 0
fi

rm -rf "$top"
mkdir -p "$top/debs" "$top/x" "$top/modules"
log "apt: downloading Debian's kernel $abi-amd64 (image and modules)"
(cd "$top/debs" && apt-get "${APT_OPTS[@]}" -q download \
	"linux-binary-$abi-amd64" "linux-modules-$abi-amd64" "linux-base-$abi-amd64" >&2) ||
	die "cannot download Debian's kernel $abi-amd64"
for d in "$top"/debs/*.deb; do
	dpkg-deb -x "$d" "$top/x"
done
M=$top/x/usr/lib/modules/$abi-amd64
[ -f "$M/vmlinuz" ] && [ -f "$M/modules.order" ] || die "$M: no vmlinuz or modules.order"
cp "$M/vmlinuz" "$top/vmlinuz.tmp"
cp "$M/config" "$top/config" 2>/dev/null || true

# The modules asked for and, depth first, what each depends on (the
# "depends=" of its .modinfo: the package has no modules.dep, depmod makes
# that at install time).  modules.order names them by path.
modpath() {
	local p
	p=$(awk -v n="$1" '{ m = $0; sub(/.*\//, "", m); sub(/\.ko$/, "", m); gsub(/-/, "_", m) }
		m == n { print; exit }' "$M/modules.order")
	[ -n "$p" ] || die "$1 is not a module of $abi-amd64"
	ls "$M/$p"* | head -1
}
declare -A seen
order=()
want() {
	local name=${1//-/_} f ko dep
	[ -n "${seen[$name]:-}" ] && return 0
	seen[$name]=1
	f=$(modpath "$name")
	ko=$top/modules/${f##*/}
	case $f in
	*.xz) ko=${ko%.xz}; xz -dc "$f" > "$ko" ;;
	*.zst) ko=${ko%.zst}; zstd -qdc "$f" > "$ko" ;;
	*.gz) ko=${ko%.gz}; gzip -dc "$f" > "$ko" ;;
	*) cp "$f" "$ko" ;;
	esac
	objcopy -O binary -j .modinfo "$ko" "$ko.modinfo"
	for dep in $(tr '\0' '\n' < "$ko.modinfo" | sed -n 's/^depends=//p' | tr ',' ' '); do
		want "$dep"
	done
	rm -f "$ko.modinfo"
	order+=("${ko##*/}")
}
for name in 9pnet_virtio 9p overlay; do
	want "$name"
done
printf '%s\n' "${order[@]}" > "$top/modules/order"
log "Debian's kernel $abi-amd64: modules $(tr '\n' ' ' < "$top/modules/order")"
rm -rf "$top/x" "$top/debs"
mv "$top/vmlinuz.tmp" "$top/vmlinuz"
touch "$top/.done"
echo "$top/vmlinuz"
