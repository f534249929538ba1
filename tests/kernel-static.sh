#!/bin/bash
# Host-side checks of the kernel change: the series is posted in parts
# (patches/parts) with a cover letter each, applies to a pristine
# 7.3 tree and carries every new file as the repo has it, and checkpatch
# --strict from that tree finds no error and no warning in the series or
# in the new files.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/common.sh"
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1 # $2"; fail=$((fail + 1)); }

need_pkgs patch perl python3-ply python3-git git
tree=$("$REPO/rig/fetch-kernel.sh") || die "no kernel source"
mapfile -t new_files < <(sed -e 's/#.*//' "$REPO/patches/new-files" | awk 'NF { print $1 }')
mapfile -t series < <(sed -e 's/#.*//' "$REPO/patches/series" | awk 'NF { print $1 }')

# The change is posted as the series of patches/parts, in order: each
# directory holds its patches numbered 1/N..N/N and a cover letter 0/N,
# and the series file lists them part by part.
want=() bad=
while read -r dir n; do
	cover=$REPO/patches/$dir/0000-cover-letter.patch
	got=$(printf '%s\n' "${series[@]}" | grep -c "^$dir/")
	if [ "$got" != "$n" ]; then
		bad+=" $dir: $got patches listed, parts says $n;"
	elif ! grep -q "^Subject: \[PATCH 0*0/0*$n\]" "$cover" 2>/dev/null; then
		bad+=" $dir: no cover letter 0/$n;"
	elif ! grep -q "^Subject: \[PATCH 0*$n/0*$n\]" "$REPO/patches/$(printf '%s\n' "${series[@]}" | grep "^$dir/" | tail -1)"; then
		bad+=" $dir: its last patch is not $n/$n;"
	fi
	want+=($(printf '%s\n' "${series[@]}" | grep "^$dir/"))
done < <(sed -e 's/#.*//' "$REPO/patches/parts" | awk 'NF { print $1, $2 }')
[ "${want[*]}" != "${series[*]}" ] && bad+=" the series file is not the parts in order;"
[ -z "$bad" ] && ok "series-parts ($(sed -e 's/#.*//' "$REPO/patches/parts" | awk 'NF { printf "%s%s", s, $1; s = " " }'))" ||
	ko "series-parts" "$bad"

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

# The series alone is the change: it creates every new file, exactly as
# the repo's copy at its tree path reads
if out=$("$REPO/rig/series.sh" check 2>&1); then
	ok "series-carries-new-files: $(tail -1 <<< "$out")"
else
	ko "series-carries-new-files" "$(grep differs <<< "$out" | tr '\n' ' ')"
fi

# Apply in a scratch copy of the files the series touches
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" archive pristine | tar -x -C "$tmp" $(cd "$REPO/patches" && cat "${series[@]}" |
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
# checkpatch asks "does MAINTAINERS need updating?" of every patch that
# adds a file and leaves MAINTAINERS alone.  For our new files the answer
# is no: each falls under the TRACING entry already (Documentation/trace/*,
# include/linux/trace*.h, include/trace/, kernel/trace/, the ftrace
# selftests), except arch/s390/include/asm/unwind_user.h, under S390
# ARCHITECTURE, and kernel/unwind/* and the prctl's doc and kselftest,
# under USERSPACE STACK UNWINDING.  So that warning, and only it, is answered by asking
# get_maintainer.pl for each file the patch adds; any file outside its
# entry fails the check (Documentation/decisions.md).
covered_by_tracing() {
	local f want
	for f in $(sed -n 's|^+++ b/||p' "$1" | sort -u); do
		grep -q -A1 "^+++ b/$f\$" "$1" || continue
		grep -B3 "^+++ b/$f\$" "$1" | grep -q '^--- /dev/null' || continue
		printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' \
			"$f" "$f" "$f" > "$tmp/one.patch"
		# an architecture's own header is its maintainers' (s390: the
		# back chain's frame layout, s390 series patch 2)
		want=TRACING
		case $f in
		arch/s390/*) want='S390 ARCHITECTURE' ;;
		kernel/unwind/*|Documentation/userspace-api/sframe.rst|tools/testing/selftests/prctl/sframe-test.c|\
		tools/testing/selftests/prctl/sframe-file-test.c)
			want='USERSPACE STACK UNWINDING' ;;
		esac
		(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-email --subsystem --no-rolestats "$tmp/one.patch" 2>/dev/null) |
			grep -qx "$want" || { echo "$f is not under $want in MAINTAINERS"; return 1; }
	done
}
# The pristine tree has no upstream history, so checkpatch warns "Unknown
# commit id" for every Fixes: tag.  That warning is answered by
# tests/upstream-commits.txt: each Fixes: tag must name an id listed there
# and quote its subject exactly; any other tag fails the check.
fixes_known() {
	local id subj
	while read -r id subj; do
		grep -q -v '^#' <<< "$id" || continue
		grep -q -x -F -e "$id $subj" <(sed -e '/^#/d' "$REPO/tests/upstream-commits.txt") ||
			{ echo "Fixes: $id (\"$subj\") is not in tests/upstream-commits.txt"; return 1; }
	done < <(sed -n 's/^Fixes: \([0-9a-f]\{12\}\) ("\(.*\)")$/\1 \2/p' "$1")
	if grep '^Fixes:' "$1" | grep -v -q '^Fixes: [0-9a-f]\{12\} (".*")$'; then
		echo "a Fixes: tag is not '<12-hex id> (\"subject\")'"
		return 1
	fi
}
for p in "${series[@]}"; do
	out=$(cp "$REPO/patches/$p" 2>&1)
	bad=$(grep -E '^(ERROR|WARNING):' <<< "$out" |
		grep -v '^WARNING: added, moved or deleted file(s), does MAINTAINERS need updating?' |
		grep -v "^WARNING: Unknown commit id '[0-9a-f]*', maybe rebased or not pulled?")
	if grep -q '^WARNING: Unknown commit id' <<< "$out" &&
	   ! why=$(fixes_known "$REPO/patches/$p"); then
		ko "checkpatch: $p" "$why"
	elif [ -n "$bad" ]; then
		ko "checkpatch: $p" "$(head -3 <<< "$bad" | tr '\n' ' ')"
	elif grep -q '^WARNING: added, moved or deleted file' <<< "$out" &&
	     ! why=$(covered_by_tracing "$REPO/patches/$p"); then
		ko "checkpatch: $p" "$why"
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
