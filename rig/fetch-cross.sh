#!/bin/bash
# The s390x cross toolchain and guest userspace, unpacked into the cache
# without installing anything for the foreign architecture:
#
#   rig/fetch-cross.sh            prints the prefix DIR; then
#     DIR/usr/bin/s390x-linux-gnu-{gcc,nm,addr2line,objdump,...}
#     DIR/busybox                 busybox-static for s390x
#
# Debian's gcc-s390x-linux-gnu and its s390x-cross dependencies, the cross
# binutils and busybox-static:s390x are fetched as .deb files through a
# private apt state ($CACHE/apt-s390x, rig/common.sh private_apt: the
# machine's own archive, suite bookworm) and unpacked with dpkg -x into
# $CACHE/cross-s390x.  Installing gcc-s390x-linux-gnu with apt would remove
# gcc-multilib (the two conflict in bookworm), which the x86-64 suites need.
# The host libraries the cross tools link against (libisl, libmpc,
# libbinutils...) are installed with apt when missing: they are the host's
# own packages.  The compiler finds cc1, as, ld and the s390x libc relative
# to its own path, so the unpacked tree works where it lies; the cross
# binutils get a wrapper each for their own libbfd/libopcodes (below).
# One caller at a time; later calls print DIR at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

ensure_cache
dir=$CACHE/cross-s390x
want="cross v2"
[ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$want" ] && { echo "$dir"; exit 0; }
exec 7>"$CACHE/.fetch-cross.lock"
flock 7
[ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$want" ] && { echo "$dir"; exit 0; }

t0=$(now)
need_pkgs apt dpkg debian-archive-keyring
apt_dir=$CACHE/apt-s390x
private_apt "$apt_dir" 'deb bookworm'
opts=("${APT_OPTS[@]}" -o 'APT::Architectures::=s390x')
log "apt: updating private lists (bookworm, amd64 + s390x)"
apt-get "${opts[@]}" -q update >&2 || die "apt-get update failed"

roots=(gcc-s390x-linux-gnu binutils-s390x-linux-gnu libc6-dev-s390x-cross)
mapfile -t deps < <(apt-cache "${opts[@]}" depends --recurse --no-recommends \
	--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
	"${roots[@]}" | grep -v '^ ' | grep -v '^<' | sort -u)
cross=() host=()
for p in "${deps[@]}"; do
	case $p in
	*s390x*|gcc-*-cross-base) cross+=("$p") ;;
	*) host+=("$p") ;;
	esac
done
[ ${#cross[@]} -ge 5 ] || die "apt found too few cross packages: ${cross[*]}"
need_pkgs "${host[@]}"

debs=$apt_dir/debs
mkdir -p "$debs"
log "apt: downloading ${#cross[@]} cross packages and busybox-static:s390x"
(cd "$debs" && apt-get "${opts[@]}" -q download "${cross[@]}" busybox-static:s390x >&2) ||
	die "apt-get download failed"

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
for d in "$debs"/*.deb; do
	case ${d##*/} in busybox-static_*) continue ;; esac
	dpkg-deb -x "$d" "$dir.tmp"
done
bbdir=$(mktemp -d)
dpkg-deb -x "$(ls "$debs"/busybox-static_*_s390x.deb | tail -1)" "$bbdir"
install -m 0755 "$bbdir/bin/busybox" "$dir.tmp/busybox"
rm -rf "$bbdir"

# The cross binutils link against their own libbfd/libopcodes, unpacked
# to usr/lib/x86_64-linux-gnu where the loader does not look: each such
# tool becomes a wrapper that sets LD_LIBRARY_PATH and runs the binary,
# moved to usr/lib/ftd-real.  The symlinks in usr/s390x-linux-gnu/bin
# (where gcc finds as and ld) reach the wrappers.
u=$dir.tmp/usr/bin
mkdir -p "$dir.tmp/usr/lib/ftd-real"
for f in "$u"/s390x-linux-gnu-*; do
	[ -L "$f" ] && continue
	readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*-s390x\.so' || continue
	mv "$f" "$dir.tmp/usr/lib/ftd-real/"
	cat > "$f" <<'EOF'
#!/bin/sh
# rig/fetch-cross.sh: run the unpacked cross tool with its libraries
w=$(readlink -f "$0")
r=${w%/bin/*}
LD_LIBRARY_PATH=$r/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec "$r/lib/ftd-real/${w##*/}" "$@"
EOF
	chmod 0755 "$f"
done
[ -x "$u/s390x-linux-gnu-gcc" ] || die "no s390x-linux-gnu-gcc in the unpacked packages"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$want" > "$dir/.done"
log "cross toolchain in $dir ($(elapsed "$t0"))"
echo "$dir"
