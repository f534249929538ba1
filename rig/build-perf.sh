#!/bin/bash
# Build perf from the kernel work tree, for the guest.
#
#   rig/build-perf.sh [--arch x86_64|s390x] [--force]
#
# Builds tools/perf of $CACHE/work/linux (the 7.3 tree rig/build-kernel.sh
# prepares; `rig/build-kernel.sh --config-only` makes it when it is
# missing) out of tree into $CACHE/perf, without the Python, Perl, Rust
# and LLVM parts.  Prints the perf binary path on stdout (everything else
# goes to stderr).  Cached: nothing is built when $CACHE/perf/.key names
# the tree of tools/ in the work tree's commit (our patches do not touch
# tools/, so a new series does not rebuild perf).  --force rebuilds.
#
# --arch s390x cross-builds a static perf for the s390x guest into
# $CACHE/perf-s390x, with the cross compiler of rig/fetch-cross.sh and
# bookworm's s390x libdw, libelf, libtraceevent, zlib, lzma, bzip2 and zstd
# (the -dev .debs and their libraries, fetched through the same private
# apt state and unpacked with dpkg -x into $CACHE/sysroot-s390x; nothing
# is installed).  libdw gives perf its DWARF unwinding (--call-graph
# dwarf; no libunwind).  Only the perf binary is built: the dlfilter .so
# files would link against the cross libc.so, whose linker script names
# absolute paths of an installed cross libc.  Everything optional is off
# (Python, Perl, slang, GTK, numa, audit, crypto, libcap, BPF, capstone,
# debuginfod, LLVM, Rust).
# Environment:
#   FTD_CACHE=DIR    cache root (default /var/cache/ftrace-defer)
#   FTD_JOBS=N       make -j (default: nproc)
# Holds $CACHE/.build.lock while building, as build-kernel.sh does: that
# script resets and cleans the work tree.
{
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

force=0 arch=${FTD_ARCH:-x86_64}
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1 ;;
	--arch) arch=${2:-}; shift ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
	shift
done
case $arch in x86_64|s390x) ;; *) die "--arch: x86_64 or s390x, not '$arch'" ;; esac

t0=$(now)
ensure_cache
W=$CACHE/work/linux
O=$CACHE/perf
[ $arch = x86_64 ] || O=$CACHE/perf-$arch
if ! git -C "$W" rev-parse -q --verify HEAD >/dev/null 2>&1 || [ ! -f "$W/tools/perf/Makefile" ]; then
	log "no work tree at $W: rig/build-kernel.sh --config-only"
	"$here/build-kernel.sh" --config-only >/dev/null
fi
[ -f "$W/tools/perf/Makefile" ] || die "no tools/perf in $W"

# The tree of tools/ (perf, its libraries, tools/include) at the work
# tree's commit, plus the build options: the cache key.
opts=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_RUST=1 NO_LIBLLVM=1)
target=()
if [ $arch = s390x ]; then
	S=$CACHE/sysroot-s390x
	opts+=(ARCH=s390 CROSS_COMPILE=s390x-linux-gnu- PKG_CONFIG="$CACHE/pkg-config-s390x"
		EXTRA_CFLAGS="-I$S/usr/include" LDFLAGS="-static -L$S/usr/lib/s390x-linux-gnu"
		DWARFLIBS="-ldw -lelf -lz -llzma -lbz2 -lzstd -ldl"
		NO_SLANG=1 NO_GTK2=1 NO_LIBNUMA=1 NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBCAP=1
		NO_DEMANGLE=1 NO_JVMTI=1 NO_LIBBABELTRACE=1 NO_LIBPFM4=1 NO_SDT=1 NO_CAPSTONE=1
		NO_LIBDEBUGINFOD=1 NO_LIBUNWIND=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_SHELLCHECK=1)
	target=("$O/perf")
fi
key=$( { git -C "$W" rev-parse HEAD:tools; echo "${opts[*]}"; } | sha256sum | cut -c1-16)
bin=$O/perf
if [ $force = 0 ] && [ -x "$bin" ] && [ "$(cat "$O/.key" 2>/dev/null)" = "$key" ]; then
	log "perf up to date ($key)"
	echo "$bin"
	exit 0
fi

if [ $arch = x86_64 ]; then
	need_pkgs gcc make flex bison pkg-config libelf-dev libdw-dev libtraceevent-dev \
		libzstd-dev libcap-dev
else
	need_pkgs make flex bison pkg-config
	xdir=$("$here/fetch-cross.sh")
	export PATH="$xdir/usr/bin:$PATH"
	# The s390x libraries perf links, as .debs through the private apt
	# state of rig/fetch-cross.sh, unpacked into the sysroot.
	apt_dir=$CACHE/apt-s390x
	private_apt "$apt_dir" 'deb bookworm'
	aopts=("${APT_OPTS[@]}" -o 'APT::Architectures::=s390x')
	libs=(libelf-dev libelf1 libdw-dev libdw1 libtraceevent-dev libtraceevent1 zlib1g-dev
		zlib1g liblzma-dev liblzma5 libbz2-dev libbz2-1.0 libzstd-dev libzstd1)
	if [ "$(cat "$S/.done" 2>/dev/null)" != "${libs[*]}" ]; then
		[ -d "$apt_dir/lists" ] && ls "$apt_dir"/lists/*s390x_Packages >/dev/null 2>&1 ||
			apt-get "${aopts[@]}" -q update >&2 || die "apt-get update failed"
		mkdir -p "$apt_dir/perf-debs"
		(cd "$apt_dir/perf-debs" && apt-get "${aopts[@]}" -q download "${libs[@]/%/:s390x}" >&2) ||
			die "apt-get download of the s390x libraries failed"
		rm -rf "$S"; mkdir -p "$S"
		for d in "$apt_dir"/perf-debs/*_s390x.deb; do dpkg-deb -x "$d" "$S"; done
		echo "${libs[*]}" > "$S/.done"
	fi
	# pkg-config for the sysroot (perf asks it for libdw's version and
	# libtraceevent's flags).
	printf '#!/bin/sh\nPKG_CONFIG_LIBDIR=%s PKG_CONFIG_SYSROOT_DIR=%s exec pkg-config "$@"\n' \
		"$S/usr/lib/s390x-linux-gnu/pkgconfig:$S/usr/share/pkgconfig" "$S" > "$CACHE/pkg-config-s390x"
	chmod +x "$CACHE/pkg-config-s390x"
fi

exec 9>"$CACHE/.build.lock"
flock 9
mkdir -p "$O"
rm -f "$O/.key"
log "building perf from $W ($key) into $O"
make -C "$W/tools/perf" O="$O" -j"${FTD_JOBS:-$(nproc)}" "${opts[@]}" "${target[@]}" \
	>"$O/build.log" 2>&1 || { tail -40 "$O/build.log" >&2; die "perf build failed (log: $O/build.log)"; }
[ -x "$bin" ] || die "perf build left no $bin"
echo "$key" > "$O/.key"
if [ $arch = x86_64 ]; then
	log "perf built in $(elapsed "$t0"): $("$bin" --version)"
else
	! s390x-linux-gnu-readelf -l "$bin" | grep -q INTERP || die "$bin is not statically linked"
	log "perf for $arch built in $(elapsed "$t0") (static)"
fi
echo "$bin"
exit 0
}
