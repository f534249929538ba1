#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each man page of the library (section 3) has a whole program in its
# EXAMPLE section, and that program compiles (-Wall -Wextra -Werror) and
# links against the library, as libtracefs does with its pages.  One
# PASS: or FAIL: line per page; exits 1 on a failure.  The programs are
# left in OUTDIR, named after their pages, for the caller to run.
#
#   check-examples.sh LIBDIR ARCHIVE OUTDIR    e.g. libustack build/libustack.a build/examples

set -u
LIB=${1:?usage: check-examples.sh LIBDIR ARCHIVE OUTDIR}
AR=${2:?usage: check-examples.sh LIBDIR ARCHIVE OUTDIR}
OUT=${3:?usage: check-examples.sh LIBDIR ARCHIVE OUTDIR}
PKGS="libtracefs libtraceevent libtracecmd libdw"
FAILED=0
mkdir -p "$OUT"
read -r -a CF <<<"$(pkg-config --cflags $PKGS)"
read -r -a LD <<<"$(pkg-config --libs $PKGS) -lelf -lstdc++"

n=0
for txt in "$LIB"/Documentation/*.txt; do
	head -1 "$txt" | grep -q '(3)$' || continue
	n=$((n + 1))
	page=$(basename "$txt" .txt)
	"$LIB/Documentation/extract-example.sh" "$txt" > "$OUT/$page.c"
	if ! grep -q '\bmain(' "$OUT/$page.c"; then
		echo "FAIL: example: $page(3) has no program in its EXAMPLE section"
		FAILED=1
	elif gcc -Wall -Wextra -Werror -I"$LIB/include" "${CF[@]}" -o "$OUT/$page" \
		"$OUT/$page.c" "$AR" "${LD[@]}" > "$OUT/$page.log" 2>&1; then
		echo "PASS: example: $page(3)'s EXAMPLE compiles and links"
	else
		echo "FAIL: example: $page(3)'s EXAMPLE: $(grep -m1 -e 'error' "$OUT/$page.log" || head -1 "$OUT/$page.log")"
		FAILED=1
	fi
done
[ $n -gt 0 ] || { echo "FAIL: example: no man page of section 3 in $LIB/Documentation"; FAILED=1; }
exit $FAILED
