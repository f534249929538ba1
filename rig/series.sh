#!/bin/bash
# The kernel series is the one source the rig builds from: patches/series
# names the patches, applied in order to pristine 7.3.4, and they carry
# every file of our change, new files included.  The new files also stand
# in the repo at their tree paths (kernel/, include/, ...), for reading and
# editing; patches/new-files says which patch creates each.  This script
# keeps the two in step.
#
#   rig/series.sh check      the series applies to pristine and gives each
#                            new file exactly as the repo has it (exit 1
#                            and a list of the files that differ if not)
#   rig/series.sh refresh    after editing new files in the repo: rewrite
#                            the patches that create them (apply + export)
#   rig/series.sh apply      the series as one commit per patch in a git
#                            work tree ($CACHE/series; prints its path),
#                            with the repo's new files in the last commits
#                            that touch them.  Edit there, the kernel way
#                            (commit --fixup, rebase -i --autosquash), then
#   rig/series.sh export     write the work tree's commits back as
#                            patches/<part>/*.patch + patches/series (the
#                            parts, the series as posted, are named and
#                            counted in patches/parts), and its new files
#                            back to the repo
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit "${1:-0}"; }
[ $# = 1 ] || usage 2

P=$REPO/patches
tree=$("$here/fetch-kernel.sh")
W=$CACHE/series
gitp() { git -C "$tree" -c user.name=ftd-rig -c user.email=ftd-rig@localhost "$@"; }
gitw() { git -C "$W" -c user.name=ftd-rig -c user.email=ftd-rig@localhost "$@"; }

series_patches() { sed -e 's/#.*//' "$P/series" | awk 'NF { print $1 }'; }
# new_files [PATCH]: the new files (of PATCH), from patches/new-files
new_files() {
	sed -e 's/#.*//' "$P/new-files" | awk -v p="${1:-}" 'NF && (p == "" || $2 == p) { print $1 }'
}

# The pristine tree must be a git repo with tag pristine (build-kernel.sh
# makes it one the first time).
gitp rev-parse -q --verify refs/tags/pristine >/dev/null ||
	die "no tag pristine in $tree: run rig/fetch-kernel.sh once"

check() {
	local idx p f blob want bad=()
	idx=$(mktemp)
	trap 'rm -f "$idx"' RETURN
	GIT_INDEX_FILE=$idx gitp read-tree pristine
	while read -r p; do
		[ -f "$P/$p" ] || die "patches/series names missing patch $p"
		GIT_INDEX_FILE=$idx gitp apply --cached --whitespace=nowarn "$P/$p" ||
			die "patches/$p does not apply to pristine + earlier patches"
	done < <(series_patches)
	while read -r f; do
		blob=$(GIT_INDEX_FILE=$idx gitp ls-files -s -- "$f" | awk '{ print $2 }')
		want=$(git hash-object --no-filters "$REPO/$f" 2>/dev/null || echo missing)
		[ -n "$blob" ] && [ "$blob" = "$want" ] || bad+=("$f")
	done < <(new_files)
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'differs from the series: %s\n' "${bad[@]}"
		echo "(after editing these in the repo, run rig/series.sh refresh)"
		return 1
	fi
	echo "series and repo agree ($(series_patches | wc -l) patches, $(new_files | wc -l) new files)"
}

# last_touch PATCH: the new files whose last change in the series is
# PATCH.  The repo's copy of a new file is its content after the whole
# series, so it goes into the last patch that touches it (a file created by
# 0007 and changed by 0011 is edited in 0011).
last_touch() {
	local f q last
	while read -r f; do
		last=
		while read -r q; do
			grep -q -F -x -e "diff --git a/$f b/$f" "$P/$q" && last=$q
		done < <(series_patches)
		[ "$last" = "$1" ] && echo "$f"
	done < <(new_files)
	return 0
}

apply() {
	local p f
	if git -C "$W" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		[ -z "$(git -C "$W" status --porcelain)" ] ||
			die "$W has uncommitted changes: commit or drop them first"
	else
		rm -rf "$W"
		gitp worktree prune
		gitp worktree add -q --detach "$W" pristine
	fi
	gitw checkout -q -f --detach pristine
	while read -r p; do
		gitw am -q --keep-cr "$P/$p" || { gitw am --abort; die "git am $p failed"; }
		mapfile -t own < <(last_touch "$p")
		[ ${#own[@]} -gt 0 ] || continue
		for f in "${own[@]}"; do
			mkdir -p "$W/$(dirname "$f")"
			install -m "$(stat -c %a "$REPO/$f")" "$REPO/$f" "$W/$f"
		done
		gitw add -f -- "${own[@]}"
		gitw diff --cached --quiet || gitw commit -q --amend --no-edit
	done < <(series_patches)
	echo "$W"
}

# cover_tail COVER N BASE LAST: keep the hand-written cover letter up to
# its "Based on" line; write its patch count, shortlog and diffstat anew
cover_tail() {
	local f=$1 n=$2 base=$3 last=$4 keep
	[ -f "$f" ] || die "no cover letter $f"
	keep=$(awk '{ print } /^Based on / { exit }' "$f")
	grep -q '^Based on ' <<< "$keep" || die "$f has no 'Based on' line"
	{
		sed -e "s|^Subject: \[PATCH [0-9]*/[0-9]*\]|Subject: [PATCH 0/$n]|" <<< "$keep"
		echo
		gitw shortlog "$base..$last"
		gitw diff --stat=72 "$base" "$last"
	} > "$f.new"
	mv "$f.new" "$f"
}

# parts: "DIR COUNT" per posted series, in order (patches/parts)
parts() { sed -e 's/#.*//' "$P/parts" | awk 'NF { print $1, $2 }'; }

export_series() {
	local tmp f c i dir n start=0 total
	local -a commits
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	mapfile -t commits < <(gitw rev-list --reverse pristine..HEAD)
	total=${#commits[@]}
	[ "$total" -gt 0 ] || die "no commits on top of pristine in $W"
	[ "$(parts | awk '{ n += $2 } END { print n + 0 }')" = "$total" ] ||
		die "patches/parts counts $(parts | awk '{ n += $2 } END { print n + 0 }') patches, $W has $total: edit patches/parts"
	# Each part is numbered on its own, as posted; its cover letter
	# (0000-cover-letter.patch) is written by hand and kept.
	: > "$tmp/series"
	while read -r dir n; do
		mkdir -p "$tmp/$dir"
		gitw format-patch -q --no-signature --zero-commit -n -o "$tmp/$dir" \
			"${commits[$start]}^..${commits[$((start + n - 1))]}"
		(cd "$tmp" && ls "$dir"/*.patch) >> "$tmp/series"
		cover_tail "$P/$dir/0000-cover-letter.patch" "$n" \
			"${commits[$start]}^" "${commits[$((start + n - 1))]}"
		start=$((start + n))
	done < <(parts)
	find "$P" -mindepth 2 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	rm -f "$P"/*.patch
	while read -r dir n; do
		mkdir -p "$P/$dir"
		cp "$tmp/$dir"/*.patch "$P/$dir/"
	done < <(parts)
	cp "$tmp/series" "$P/series"
	# Which patch creates each new file, from the work tree's history:
	# patch names follow subjects, which an edit may have changed.
	local -a names
	mapfile -t names < "$P/series"
	{
		sed -n '/^#/p' "$P/new-files"
		while read -r f; do
			c=$(gitw log --format=%H --diff-filter=A pristine..HEAD -- "$f" | tail -1)
			[ -n "$c" ] || die "no commit in $W creates $f"
			for i in "${!commits[@]}"; do
				[ "${commits[$i]}" = "$c" ] && printf '%s %s\n' "$f" "${names[$i]}"
			done
			git -C "$W" show "HEAD:$f" > "$REPO/$f"
		done < <(new_files)
	} > "$tmp/new-files"
	cp "$tmp/new-files" "$P/new-files"
	log "wrote $(wc -l < "$P/series") patches to patches/"
}

case $1 in
check) check ;;
apply) apply ;;
export) export_series ;;
refresh) apply > /dev/null; export_series; check ;;
-h|--help) usage 0 ;;
*) usage 2 ;;
esac
