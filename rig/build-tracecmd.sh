#!/bin/bash
# Build trace-cmd 3.4 (and the libtraceevent 1.8.4 it runs on) for this
# bookworm host and the guest, into $CACHE/tracecmd/prefix.
#
#   rig/build-tracecmd.sh [--force]
#
# Prints the path of the built trace-cmd on stdout; everything else goes
# to stderr.  The sources are Debian's orig tarballs (rig/fetch-tracecmd.sh,
# unpacked in $CACHE/src).  Debian's archive has no libtracefs source, and
# trace-cmd 3.4 wants libtraceevent >= 1.9 and libtracefs >= 1.8, so:
#   - libtraceevent 1.8.4 is built from its tarball and installed into the
#     prefix (headers, libtraceevent.so.1, its plugins, a .pc file);
#   - libtracefs is bookworm's 1.6.4 (libtracefs-dev);
#   - trace-cmd's version checks are lowered on the make command line
#     (LIBTRACEEVENT_MIN_VERSION, LIBTRACEFS_MIN_VERSION: nothing in its
#     sources is edited);
#   - the seven functions neither library has (and tracefs_instance_reset(),
#     which only the utest calls) come from trace-cmd/compat
#     (a static library, linked after -ltracefs; its header is
#     force-included so the calls are declared);
#   - libustack (the join and the symbol lookup that report uses
#     with the series; it does not link libtracecmd) is this repo's,
#     as the static libustack.a,
#     named by a libustack.pc of the prefix: trace-cmd finds it with
#     pkg-config like its other libraries.
# Each build starts from a fresh copy of the pristine trees in
# $CACHE/tracecmd/work/, where trace-cmd/patches/series, if it exists, is
# applied in order (patch -p1): the later trace-cmd series plugs in there;
# libtraceevent/patches/series likewise to libtraceevent (a crash and a
# leak on damaged formats of a trace file).
# The binaries carry an rpath to $CACHE/tracecmd/prefix/lib, so they take
# our libtraceevent and libtracecmd, not bookworm's (same sonames); the
# guest sees the host's file system, so they run there too.
# Cached: nothing is built when $CACHE/tracecmd/.key matches the inputs
# (tarball names, this script, trace-cmd/compat/*, the patch series of
# both).
#   --force   rebuild anyway
#   --stock   build pristine 3.4 instead (no series, no libustack, and
#             the pristine libtraceevent 1.8.4: neither series),
#             into $CACHE/tracecmd/stock/prefix: what the series is
#             compared with (bench/report.sh, tests/rig/tracecmd.sh)
#   --asan    the series built with AddressSanitizer and UBSan (trace-cmd,
#             libtracecmd and libustack's part), into
#             $CACHE/tracecmd/asan/prefix: for damaged-file tests
# With the series, libustack's ustack tool is built against the
# series' libtracecmd too ($P/bin/ustack): its trace.dat reader
# (ustack/file.c, also the KernelShark plugin's) needs the public API of
# patches 0007, 0012 and 0016, and ustack/Makefile stops on any other
# libtracecmd.  Every build of the tool or of libustack-file.a takes
# this prefix: PKG_CONFIG_PATH=$P/lib/pkgconfig (kernelshark/build-ks24.sh
# builds KernelShark against it too).
# trace-cmd's unit tests (utest, `make test`, CUnit) are built too, as
# $D/work/trace-cmd/utest/trace-utest next to the tree's trace-cmd (where
# they look for it); they record, so they run in the guest
# (tests/guest/t-95-utest.sh).  tracefs_instance_reset() (libtracefs
# 1.7), which only they call, is in trace-cmd/compat.
# Environment:
#   FTD_CACHE=DIR    cache root (default /var/cache/ftrace-defer)
#   FTD_JOBS=N       make -j (default: 2)
{
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

force=0
stock=0
asan=0
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	--stock) stock=1 ;;
	--asan) asan=1 ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 0 ;;
	*) die "unknown argument: $a" ;;
	esac
done

t0=$(now)
ensure_cache
mapfile -t trees < <("$here/fetch-tracecmd.sh")
[ ${#trees[@]} = 2 ] || die "rig/fetch-tracecmd.sh did not give two source trees"
tc_src=${trees[0]} tep_src=${trees[1]}

D=$CACHE/tracecmd
[ $stock = 1 ] && D=$CACHE/tracecmd/stock
[ $asan = 1 ] && D=$CACHE/tracecmd/asan
san=
[ $asan = 1 ] && san="-fsanitize=address,undefined -fno-omit-frame-pointer"
P=$D/prefix
W=$D/work
compat=$REPO/trace-cmd/compat
pdir=$REPO/trace-cmd/patches
jobs=${FTD_JOBS:-2}
bin=$P/bin/trace-cmd

# The patches named in trace-cmd/patches/series and in
# libtraceevent/patches/series, in order ('#' comments and blank lines
# skipped); none with --stock.
tep_pdir=$REPO/libtraceevent/patches
patches=() tep_patches=()
if [ $stock = 0 ]; then
	patch_series "$pdir" patches
	patch_series "$tep_pdir" tep_patches
fi

# Earlier versions of this script let those install targets write
# /etc/ld.so.conf.d/trace.conf: take our prefixes out of it again.
unconf=/etc/ld.so.conf.d/trace.conf
if grep -q -e "^$CACHE/" -e '^/tmp/tccache/' "$unconf" 2>/dev/null; then
	log "removing the rig's prefixes from $unconf"
	grep -v -e "^$CACHE/" -e '^/tmp/tccache/' "$unconf" > "$CACHE/trace.conf.new" || true
	if [ -s "$CACHE/trace.conf.new" ]; then
		as_root cp "$CACHE/trace.conf.new" "$unconf"
	else
		as_root rm -f "$unconf"
	fi
	rm -f "$CACHE/trace.conf.new"
	as_root ldconfig
fi

key=$( {
	cat "$tc_src/.ftd-unpacked" "$tep_src/.ftd-unpacked"
	sha256sum "$0" "$compat"/*.[ch] "$REPO"/libustack/src/*.[ch] "$REPO"/ustack/*.[ch] "$REPO"/ustack/Makefile \
		"$REPO"/libustack/include/*.h "$REPO"/libustack/Makefile |
		cut -d' ' -f1
	[ $stock = 0 ] && [ -f "$pdir/series" ] && sha256sum "$pdir/series" | cut -d' ' -f1
	[ $stock = 0 ] && [ -f "$tep_pdir/series" ] && sha256sum "$tep_pdir/series" | cut -d' ' -f1
	echo "stock=$stock asan=$asan"
	for p in "${patches[@]}"; do sha256sum "$p" | cut -d' ' -f1; done
	echo libtraceevent
	for p in "${tep_patches[@]}"; do sha256sum "$p" | cut -d' ' -f1; done
} | sha256sum | cut -c1-16)

# The SFrame registrar that the series' record -T runs a command with
# (trace-cmd patch 0009), and the feeder it runs without one (0020):
# $P/lib/sframe, with the generator beside them.
# Installed on every run, not part of the key: it is this checkout's.
install_sframe_register() {
	[ $stock = 0 ] || return 0
	# not with trace-cmd's CFLAGS (its compat header) exported above
	env -u CFLAGS -u LDFLAGS make -s -C "$REPO/sframe-gen" >&2 ||
		die "cannot build sframe-gen"
	mkdir -p "$P/lib/sframe"
	install -m 644 "$REPO/sframe-gen/build/libsframe-register.so" \
		"$REPO/sframe-gen/build/libsframe-gen.so" "$P/lib/sframe/"
	install -m 755 "$REPO/sframe-gen/build/sframe-feed" "$P/lib/sframe/"
}

if [ $force = 0 ] && [ -x "$bin" ] && [ "$(cat "$D/.key" 2>/dev/null)" = "$key" ]; then
	log "trace-cmd up to date ($key)"
	install_sframe_register
	echo "$bin"
	exit 0
fi

need_pkgs gcc g++ make pkg-config patch libtracefs-dev libzstd-dev zlib1g-dev libcunit1-dev \
	libdw-dev libelf-dev
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc" && export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

# $D.lock sits beside $D: its parent may not exist yet (--stock first)
mkdir -p "$(dirname "$D")"
exec 9>"$D.lock"
flock 9
# another run may have built the same inputs while this one waited
if [ $force = 0 ] && [ -x "$bin" ] && [ "$(cat "$D/.key" 2>/dev/null)" = "$key" ]; then
	log "trace-cmd built meanwhile ($key)"
	install_sframe_register
	echo "$bin"
	exit 0
fi
mkdir -p "$D"
rm -f "$D/.key"
log "building trace-cmd 3.4 + libtraceevent 1.8.4 ($key) into $P"

# Fresh copies of the pristine trees, the patches applied.
rm -rf "$W" "$P"
mkdir -p "$W" "$P"
cp -a "$tep_src" "$W/libtraceevent"
cp -a "$tc_src" "$W/trace-cmd"
for p in "${tep_patches[@]}"; do
	log "applying libtraceevent/patches/$(basename "$p")"
	patch -d "$W/libtraceevent" -p1 --batch --forward --quiet < "$p" >&2 ||
		die "libtraceevent/patches/$(basename "$p") does not apply to libtraceevent 1.8.4"
done
for p in "${patches[@]}"; do
	log "applying trace-cmd/patches/$(basename "$p")"
	patch -d "$W/trace-cmd" -p1 --batch --forward --quiet < "$p" >&2 ||
		die "trace-cmd/patches/$(basename "$p") does not apply to trace-cmd 3.4"
done

blog=$D/build.log
: > "$blog"
run() { # run STEP CMD...: its output to build.log; on failure, the tail
	log "$1"
	shift
	"$@" >>"$blog" 2>&1 || { tail -40 "$blog" >&2; die "failed (log: $blog)"; }
}

# 1. libtraceevent 1.8.4 (with libtraceevent/patches unless --stock) into
# the prefix (libraries, headers, plugins, .pc).
# LDCONFIG=false: the install targets of libtraceevent and libtracecmd
# otherwise append the prefix to /etc/ld.so.conf.d/trace.conf (as root),
# and every program on the machine, bookworm's trace-cmd and KernelShark
# too, would then load these libraries instead of Debian's.
# -j1: its Makefile makes libtraceevent.a and libtraceevent.so in two
# sub-makes of src/ that compile the same objects; in parallel, one could
# link an object the other was still writing (undefined trace_seq_*
# symbols at trace-cmd's link: CI's failed run of stop 28, and a cold run
# on 2026-11-28).  About twenty files: seconds.
run "libtraceevent 1.8.4" \
	make -C "$W/libtraceevent" -j1 CC="$cc" prefix="$P" libdir_relative=lib \
	pkgconfig_dir="$P/lib/pkgconfig" LDCONFIG=false install
export PKG_CONFIG_PATH=$P/lib/pkgconfig
pkg-config --exact-version 1.8.4 libtraceevent ||
	die "pkg-config does not find libtraceevent 1.8.4 in $P/lib/pkgconfig"

# 2. the compatibility library, against those headers.  Hidden symbols:
# libtracecmd.so and trace-cmd each get a private copy, and no shared
# object exports a stub under a libtraceevent or libtracefs name.
mkdir -p "$D/compat"
read -r -a tep_cflags <<<"$(pkg-config --cflags libtraceevent)"
run "trace-cmd/compat" \
	$cc -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror "${tep_cflags[@]}" \
	-c "$compat/tc-compat.c" -o "$D/compat/tc-compat.o"
rm -f "$D/compat/libtccompat.a"
run "libtccompat.a" ar rcs "$D/compat/libtccompat.a" "$D/compat/tc-compat.o"

# 3. libustack's join and symbols, static, for report (the series'
# libustack, required since patch 0002; NO_USTACK=1 would print the stack
# records as they are)
U=$D/ustack
# from scratch: objects made from another checkout (another clone using
# the same cache) may be newer than this one's sources, and make would
# keep them
rm -rf "$U"
# The library needs no libtracecmd (no package cycle): report hands it
# the saved maps and the execs from its own handles.
if [ $stock = 0 ]; then
	run "libustack: libustack.a" \
		make -C "$REPO/libustack" CC="$cc" OUT="$U" CFLAGS="-O2 -g $san" static
	! nm -u "$U/libustack.a" | grep -c ' tracecmd_' > /dev/null ||
		die "libustack.a uses libtracecmd: $(nm -u "$U/libustack.a" | grep -m1 ' tracecmd_')"
fi
uver=$(awk '$1 == "VERSION" { print $3 }' "$REPO/libustack/Makefile")
[ $stock = 0 ] && cat > "$P/lib/pkgconfig/libustack.pc" <<EOF
Name: libustack
Description: deferred user stacks: the join and the symbols (static)
Version: $uver
Requires: libtraceevent libtracefs
Cflags: -I$REPO/libustack/include
Libs: -L$U -lustack -ldw -lelf -lstdc++
EOF

# 4. trace-cmd 3.4.  Command-line variables override the Makefile's
# (also in its sub-makes); CFLAGS goes through the environment because the
# Makefile appends to it (a command-line CFLAGS would drop -DHAVE_ZSTD...).
tc_make=(make -C "$W/trace-cmd" -j"$jobs" CC="$cc" prefix="$P" libdir_relative=lib
	pkgconfig_dir="$P/lib/pkgconfig" NO_PYTHON=1 LDCONFIG=false
	LIBTRACEEVENT_MIN_VERSION=1.8 LIBTRACEFS_MIN_VERSION=1.6
	LIBTRACEFS_LDLAGS="$(pkg-config --libs libtracefs) -L$D/compat -ltccompat")
export CFLAGS="-g -O2 -Wall $san -include $compat/tc-compat.h"
[ -n "$san" ] && export LDFLAGS="$san"
# all_cmd before libs: trace-cmd links libtracecmd.a (its Makefile's
# choice); with libtracecmd.so already built it would also record a
# needless NEEDED on it, depending on the order -j ran things.
run "trace-cmd 3.4" "${tc_make[@]}" all_cmd
run "trace-cmd 3.4: libtracecmd" "${tc_make[@]}" libs
run "trace-cmd 3.4: install" "${tc_make[@]}" install_cmd install_libs
run "trace-cmd 3.4: utest" "${tc_make[@]}" test
[ -x "$W/trace-cmd/utest/trace-utest" ] || die "the build left no utest/trace-utest"
[ -x "$bin" ] || die "the build left no $bin"

# 5. the ustack tool (ustack/; its trace.dat reader, file.c) against this
# libtracecmd, the one it requires (the saved maps' public API, patches
# 0007, 0012, 0016): $P/bin/ustack.
if [ $stock = 0 ]; then
	rm -rf "$D/ext"
	run "libustack and ustack against this libtracecmd" \
		make -C "$REPO/libustack" CC="$cc" OUT="$D/ext" CFLAGS="-O2 -g $san" \
		LDFLAGS="-Wl,-rpath,$P/lib $san" all
	# grep reads all of nm's output: grep -q would quit at the match and,
	# under pipefail, nm's SIGPIPE failed the check (seen on the ASan build)
	nm -u "$D/ext/ustack" | grep -c ' tracecmd_proc_addr_map_build_id$' > /dev/null ||
		die "ustack did not take the series' tracecmd_proc_addr_map_*() from $P"
	install -m 755 "$D/ext/ustack" "$P/bin/ustack"
fi
ver=$("$bin" --version 2>&1 | awk '/version/ { print; exit }') || true
case $ver in
*"version 3.4"*) ;;
*) die "$bin does not run or is not 3.4: '$ver' (ldd: $(ldd "$bin" 2>&1 | tr '\n' ' '))" ;;
esac
install_sframe_register
echo "$key" > "$D/.key"
log "trace-cmd built in $(elapsed "$t0"): $ver"

echo "$bin"
exit 0
}
