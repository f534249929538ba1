#!/bin/bash
# Host-side checks of the kernel change: the series applies to a pristine
# 7.3 tree, and checkpatch --strict from that tree finds no error and no
# warning in the series or in the new files.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/common.sh"
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1 # $2"; fail=$((fail + 1)); }

need_pkgs patch perl python3-ply python3-git git
tree=$("$REPO/rig/fetch-kernel.sh") || die "no kernel source"
new_files=(kernel/trace/trace_unwind_user.c include/trace/events/unwind.h
	   include/linux/trace_unwind_user_types.h
	   Documentation/trace/deferred-user-stacks.rst
	   tools/testing/selftests/ftrace/test.d/trigger/trigger-stacktrace-defer.tc
	   tools/testing/selftests/ftrace/test.d/event/userstacktrace-defer.tc)
mapfile -t series < <(sed -e 's/#.*//' "$REPO/patches/series" | awk 'NF { print $1 }')

# Every new file is in the checkout and tracked: the rig copies what it
# finds, and a file that git ignores is missing from a fresh clone.
missing=()
for f in "${new_files[@]}"; do
	if [ ! -f "$REPO/$f" ] ||
	   { git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1 &&
	     ! git -C "$REPO" ls-files --error-unmatch "$f" >/dev/null 2>&1; }; then
		missing+=("$f")
	fi
done
[ ${#missing[@]} = 0 ] && ok "new-files-tracked (${#new_files[@]} files)" ||
	ko "new-files-tracked" "missing or not tracked by git: ${missing[*]}"

# Apply in a scratch copy of the files the series touches
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" archive pristine | tar -x -C "$tmp" $(cat "$REPO"/patches/*.patch |
	sed -n 's|^--- a/||p' | sort -u) 2>/dev/null
applied=1
for p in "${series[@]}"; do
	if ! (cd "$tmp" && patch -p1 -s --dry-run < "$REPO/patches/$p" >/dev/null &&
	      patch -p1 -s < "$REPO/patches/$p"); then
		applied=0
		ko "series-applies: $p" "does not apply to pristine 7.3 + earlier patches"
	fi
done
[ $applied = 1 ] && ok "series-applies-to-pristine (${#series[@]} patches)"

# From inside the tree, as one would before posting
# Debian's python3 has python3-ply for spdxcheck.py
cp() { (cd "$tree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict "$@"); }
for p in "${series[@]}"; do
	out=$(cp "$REPO/patches/$p" 2>&1)
	if grep -qE '^(ERROR|WARNING):' <<< "$out"; then
		ko "checkpatch: $p" "$(grep -E '^(ERROR|WARNING):' <<< "$out" | head -3 | tr '\n' ' ')"
	else
		ok "checkpatch: $p"
	fi
done
for f in "${new_files[@]}"; do
	out=$(cp -f "$REPO/$f" 2>&1)
	if grep -qE '^(ERROR|WARNING):' <<< "$out"; then
		ko "checkpatch: $f" "$(grep -E '^(ERROR|WARNING):' <<< "$out" | head -3 | tr '\n' ' ')"
	else
		ok "checkpatch: $f"
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
