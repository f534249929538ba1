#!/bin/bash
# Build the test kernel: pristine Debian 7.3 source + the series in
# patches/ (rig/series.sh), configured from tinyconfig + kernel-config/*.config.
#
#   rig/build-kernel.sh [--arch x86_64|s390x] [--debug] [--config-only]
#
# Prints the bzImage path on stdout (everything else goes to stderr).
# --arch s390x (or FTD_ARCH=s390x) cross-builds for s390 with the tools of
# rig/fetch-cross.sh, from tinyconfig + kernel-config/s390x.config, in
# build-s390x/ (build-pristine-s390x/ for FTD_NO_OURS=1); the work tree is
# the same as x86_64's.
# Environment:
#   FTD_CACHE=DIR    cache root (default /var/cache/ftrace-defer)
#   FTD_NO_OURS=1    build the pristine tree: skip the series
#                    (work/linux-pristine, build-pristine[-debug])
#   FTD_JOBS=N       make -j (default: nproc)
#   FTD_CCACHE_DIR=DIR  compiler cache (default $CACHE/ccache)
#
# Layout under $CACHE:
#   src/linux-source-7.3   pristine tree, a git repo with tag `pristine`
#   work/linux             git worktree of it = pristine + ours (detached
#                          commit; `git -C $CACHE/work/linux diff pristine`
#                          shows our change)
#   build/, build-debug/   O= build directories (build-s390x/ for s390x) (build-pristine*/ for
#                          FTD_NO_OURS=1, whose work tree is work/linux-pristine)
#   ccache/                CCACHE_DIR (FTD_CCACHE_DIR=DIR shares one
#                          across caches)
# The whole script is one block, read before it runs: editing this file
# while it runs cannot derail it.
{
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit "${1:-0}"; }
debug=0 config_only=0 arch=
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift ;;
	--debug) debug=1 ;;
	--config-only) config_only=1 ;;
	-h|--help) usage 0 ;;
	*) log "unknown argument: $1"; usage 2 ;;
	esac
	shift
done

set_arch "$arch"
[ $debug = 1 ] && [ "$FTD_ARCH" != x86_64 ] && die "--debug is x86_64 only"
t0=$(now)
ensure_cache
need_pkgs gcc make libc6-dev flex bison bc libelf-dev libssl-dev ccache git \
	perl python3 util-linux

# One build at a time: the work tree is shared by both configurations.
exec 9>"$CACHE/.build.lock"
flock 9

tree=$("$here/fetch-kernel.sh")
[ -f "$tree/Makefile" ] || die "no kernel tree at $tree"

gitp() { git -C "$tree" -c user.name=ftd-rig -c user.email=ftd-rig@localhost "$@"; }

# --- 1. the pristine tree becomes a git repo, once ------------------------
# fetch-kernel.sh made it a git repo, with tag pristine
gitp rev-parse -q --verify refs/tags/pristine >/dev/null ||
	die "no tag pristine in $tree (rig/fetch-kernel.sh makes it)"

# --- 2. the work tree: pristine + patches/ + our files --------------------
# FTD_NO_OURS=1 (the stock kernel) has its own work tree and build dirs, so
# switching back and forth rebuilds nothing.
sfx=; [ "${FTD_NO_OURS:-0}" = 1 ] && sfx=-pristine
W=$CACHE/work/linux$sfx
if ! git -C "$W" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	log "creating work tree $W"
	rm -rf "$W"
	gitp worktree prune
	mkdir -p "$CACHE/work"
	gitp worktree add -q --detach "$W" pristine
fi

# The series is the whole change: it creates our new files too.  Their
# copies in the repo (kernel/, include/, ...) must agree with it, so that
# what is read and reviewed is what is built (rig/series.sh).
# Patches in series order (quilt-style: comments, blank lines, options).
series_patches() {
	[ -f "$REPO/patches/series" ] || return 0
	sed -e 's/#.*//' "$REPO/patches/series" | awk 'NF { print $1 }'
}

patches=()
# The debug kernel also gets kernel-config/debug.patch (rig only, never
# posted): the delays that widen the race windows some guest tests need.
extra=()
if [ $debug = 1 ] && [ "${FTD_NO_OURS:-0}" != 1 ] && [ -f "$REPO/kernel-config/debug.patch" ]; then
	extra=("$REPO/kernel-config/debug.patch")
fi
if [ "${FTD_NO_OURS:-0}" != 1 ]; then
	"$here/series.sh" check >&2 ||
		die "the repo's new kernel files and patches/ disagree: run rig/series.sh refresh"
	mapfile -t patches < <(series_patches)
	if [ ! -f "$REPO/patches/series" ] && ls "$REPO"/patches/*.patch >/dev/null 2>&1; then
		log "warning: patches/*.patch exist but patches/series does not: none applied"
	fi
else
	log "FTD_NO_OURS=1: building the pristine tree"
fi

key=$( {
	echo "prep v2 no_ours=${FTD_NO_OURS:-0}"
	git -C "$tree" rev-parse pristine
	[ -f "$REPO/patches/series" ] && cat "$REPO/patches/series"
	for p in "${patches[@]}"; do
		[ -f "$REPO/patches/$p" ] || die "patches/series names missing patch $p"
		echo "patch $p"; sha256sum < "$REPO/patches/$p"
	done
	for p in "${extra[@]}"; do echo "extra $p"; sha256sum < "$p"; done
} | sha256sum | cut -c1-16)

stamp=$CACHE/work/.prepared$sfx
head=$(git -C "$W" rev-parse HEAD)
dirty=$(git -C "$W" status --porcelain)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key $head" ] && [ -z "$dirty" ]; then
	log "work tree up to date ($key)"
else
	# The repo is the source of truth: edits made in the work tree go.
	[ -z "$dirty" ] || log "warning: discarding edits made in $W:" $(echo "$dirty" | head -20)
	log "preparing work tree: ${#patches[@]} patch(es)"
	export GIT_INDEX_FILE=$CACHE/work/.index.tmp
	rm -f "$GIT_INDEX_FILE"
	gitp read-tree pristine
	for p in "${patches[@]}"; do
		log "  applying patches/$p"
		gitp apply --cached --whitespace=nowarn "$REPO/patches/$p" ||
			die "patch patches/$p does not apply to pristine + earlier patches"
	done
	for p in "${extra[@]}"; do
		log "  applying $p"
		gitp apply --cached --whitespace=nowarn "$p" || die "$p does not apply to the series"
	done
	wtree=$(gitp write-tree)
	commit=$(printf 'ftd work tree %s\n\npatches: %s\n' "$key" \
		"${patches[*]:-none}" | gitp commit-tree "$wtree" -p pristine)
	unset GIT_INDEX_FILE
	rm -f "$CACHE/work/.index.tmp"
	gitp update-ref refs/ftd/work "$commit"
	# checkout rewrites only the files that differ: mtimes of the rest stay.
	git -C "$W" checkout -q -f --detach "$commit"
	git -C "$W" clean -q -fdx
	echo "$key $commit" > "$stamp"
	log "work tree at $(git -C "$W" log -1 --format='%h %s')"
fi

# --- 3. configuration -------------------------------------------------------
if [ "$FTD_ARCH" = s390x ]; then
	B=$CACHE/build$sfx$ASFX
	frags=("$REPO/kernel-config/s390x.config")
elif [ $debug = 1 ]; then
	B=$CACHE/build$sfx-debug
	frags=("$REPO/kernel-config/base.config" "$REPO/kernel-config/debug.config")
else
	B=$CACHE/build$sfx
	frags=("$REPO/kernel-config/base.config")
fi
mkdir -p "$B"
# FTD_CCACHE_DIR lets several caches (one per engineer or branch) share
# one compiler cache.  CCACHE_BASEDIR turns the absolute paths under
# $CACHE into paths relative to the build directory, which are the same
# in every cache (../work/linux/...), so a file compiled in one cache is a
# hit in another.
export CCACHE_DIR=${FTD_CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$CACHE
mkdir -p "$CCACHE_DIR"
[ -f "$CCACHE_DIR/ccache.conf" ] || printf 'max_size = 8G\n' > "$CCACHE_DIR/ccache.conf"

jobs=${FTD_JOBS:-$(nproc)}
# ARCH=x86_64, not the default ARCH=x86: with the latter tinyconfig starts
# 32-bit, and int options (FRAME_WARN...) keep their 32-bit defaults.
cc=gcc cross=()
if [ "$FTD_ARCH" = s390x ]; then
	xdir=$("$here/fetch-cross.sh") || die "no s390x cross toolchain"
	cross=(CROSS_COMPILE="$xdir/usr/bin/s390x-linux-gnu-")
	cc=$xdir/usr/bin/s390x-linux-gnu-gcc
fi
mk=(make -C "$W" O="$B" ARCH="$KARCH" "${cross[@]}" CC="ccache $cc" LOCALVERSION=
    KBUILD_BUILD_USER=ftd KBUILD_BUILD_HOST=rig)
# Options that our kernel change adds: checked only if some Kconfig has them.
optional_if_unknown=(TRACE_UNWIND_USER UNWIND_USER_SFRAME)

cfgkey=$( {
	echo "config v2 ${mk[*]}"; cat "${frags[@]}"
	git -C "$W" ls-files -s | grep -E '(^|/)Kconfig[^/]*$|/configs/tiny'
	"$cc" -dumpfullversion; make --version 2>&1 | sed -n 1p
} | sha256sum | cut -c1-16)

verify_config() {
	local f line opt want have bad=0
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			if [[ $line =~ ^CONFIG_([A-Za-z0-9_]+)=(.*)$ ]]; then
				opt=${BASH_REMATCH[1]}; want=${BASH_REMATCH[2]}
			elif [[ $line =~ ^#\ CONFIG_([A-Za-z0-9_]+)\ is\ not\ set ]]; then
				opt=${BASH_REMATCH[1]}; want=n
			else
				continue
			fi
			have=$(sed -n "s/^CONFIG_$opt=//p" "$B/.config")
			[ -n "$have" ] || have=n
			[ "$have" = "$want" ] && continue
			if [[ " ${optional_if_unknown[*]} " == *" $opt "* ]] &&
			   ! git -C "$W" grep -q -E "^\s*(menu)?config $opt\s*$" -- '*Kconfig*'; then
				log "note: CONFIG_$opt is not in this tree (yet): skipped"
				continue
			fi
			log "config: CONFIG_$opt=$want asked in $(basename "$f"), got $have"
			bad=1
		done < "$f"
	done
	return $bad
}

if [ -f "$B/.config" ] && [ -f "$B/.ftd-config" ] && [ "$(cat "$B/.ftd-config")" = "$cfgkey" ]; then
	log "config up to date ($B/.config)"
else
	log "configuring $B: tinyconfig + ${frags[*]##*/}"
	rm -f "$B/.ftd-config"
	"${mk[@]}" -s tinyconfig >&2
	(cd "$B" && "$W/scripts/kconfig/merge_config.sh" -m -O "$B" "$B/.config" "${frags[@]}") >"$B/merge.log" 2>&1 ||
		{ cat "$B/merge.log" >&2; die "merge_config.sh failed"; }
	"${mk[@]}" -s olddefconfig >&2
	verify_config || die "config fragments not satisfied (see above): fix kernel-config/*.config"
	echo "$cfgkey" > "$B/.ftd-config"
fi

if [ $config_only = 1 ]; then
	log "config only: $B/.config"
	echo "$B/.config"
	exit 0
fi

# --- 4. build ---------------------------------------------------------------
# -Werror for all C (so certainly for kernel/trace).
kcflags=-Werror
img=$B/$KIMAGE
# Nothing changed since the last good build (same work tree commit, clean
# as checked above, same config, same image): skip even make's no-op walk,
# which costs 10-15 s.  FTD_FORCE_MAKE=1 runs make anyway.
built_key() {
	echo "$(git -C "$W" rev-parse HEAD) $cfgkey $kcflags $(stat -c %Y "$img" 2>/dev/null)"
}
if [ "${FTD_FORCE_MAKE:-0}" != 1 ] && [ -f "$img" ] && [ -f "$B/.ftd-built" ] &&
   [ "$(cat "$B/.ftd-built")" = "$(built_key)" ]; then
	log "kernel up to date; total $(elapsed "$t0"); kernel $(cat "$B/include/config/kernel.release")"
	echo "$img"
	exit 0
fi
rm -f "$B/.ftd-built"
log "building bzImage in $B (-j$jobs); follow with: tail -f $B/build.log"
tb=$(now)
set +e
"${mk[@]}" -j"$jobs" KCFLAGS="$kcflags" bzImage > "$B/build.log" 2>&1
rc=$?
set -e
if [ $rc != 0 ]; then
	grep -E -B2 -A6 'error:|Error [0-9]|\*\*\*' "$B/build.log" | tail -60 >&2
	die "kernel build failed (rc $rc); full log: $B/build.log"
fi
grep -E 'warning:' "$B/build.log" >&2 || true
[ -f "$img" ] || die "no $img after build"
built_key > "$B/.ftd-built"
log "make took $(elapsed "$tb"); total $(elapsed "$t0"); kernel $(cat "$B/include/config/kernel.release")"
echo "$img"
exit
}
