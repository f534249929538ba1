#!/bin/bash
# Build perf from the kernel work tree, for the guest.
#
#   rig/build-perf.sh [--force]
#
# Builds tools/perf of $CACHE/work/linux (the 7.3 tree rig/build-kernel.sh
# prepares; `rig/build-kernel.sh --config-only` makes it when it is
# missing) out of tree into $CACHE/perf, without the Python, Perl, Rust
# and LLVM parts.  Prints the perf binary path on stdout (everything else
# goes to stderr).  Cached: nothing is built when $CACHE/perf/.key names
# the tree of tools/ in the work tree's commit (our patches do not touch
# tools/, so a new series does not rebuild perf).  --force rebuilds.
# Environment:
#   FTD_CACHE=DIR    cache root (default /var/cache/ftrace-defer)
#   FTD_JOBS=N       make -j (default: nproc)
# Holds $CACHE/.build.lock while building, as build-kernel.sh does: that
# script resets and cleans the work tree.
{
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

force=0
case ${1:-} in
--force) force=1 ;;
'') ;;
-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 0 ;;
*) die "unknown argument: $1" ;;
esac

t0=$(now)
ensure_cache
W=$CACHE/work/linux
O=$CACHE/perf
if ! git -C "$W" rev-parse -q --verify HEAD >/dev/null 2>&1 || [ ! -f "$W/tools/perf/Makefile" ]; then
	log "no work tree at $W: rig/build-kernel.sh --config-only"
	"$here/build-kernel.sh" --config-only >/dev/null
fi
[ -f "$W/tools/perf/Makefile" ] || die "no tools/perf in $W"

# The tree of tools/ (perf, its libraries, tools/include) at the work
# tree's commit, plus the build options: the cache key.
opts=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_RUST=1 NO_LIBLLVM=1)
key=$( { git -C "$W" rev-parse HEAD:tools; echo "${opts[*]}"; } | sha256sum | cut -c1-16)
bin=$O/perf
if [ $force = 0 ] && [ -x "$bin" ] && [ "$(cat "$O/.key" 2>/dev/null)" = "$key" ]; then
	log "perf up to date ($key)"
	echo "$bin"
	exit 0
fi

need_pkgs gcc make flex bison pkg-config libelf-dev libdw-dev libtraceevent-dev \
	libzstd-dev libcap-dev

exec 9>"$CACHE/.build.lock"
flock 9
mkdir -p "$O"
rm -f "$O/.key"
log "building perf from $W ($key) into $O"
make -C "$W/tools/perf" O="$O" -j"${FTD_JOBS:-$(nproc)}" "${opts[@]}" \
	>"$O/build.log" 2>&1 || { tail -40 "$O/build.log" >&2; die "perf build failed (log: $O/build.log)"; }
[ -x "$bin" ] || die "perf build left no $bin"
echo "$key" > "$O/.key"
log "perf built in $(elapsed "$t0"): $("$bin" --version)"
echo "$bin"
exit 0
}
