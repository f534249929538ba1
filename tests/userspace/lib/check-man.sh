#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fails when a public function of ustack.h has no man page: each must
# appear in the NAME and, in bold, in the SYNOPSIS of a
# Documentation/*.txt page; or no kernel-doc block where it is defined.
# usage: check-man.sh LIBDIR
LIB=${1:-$(dirname "$0")/../../../libustack}
H=$LIB/include/ustack.h
fns=$(grep -v '^[[:space:]]*/\?\*' "$H" | sed -n 's/.*\b\(ustack_[a-z0-9_]*\)(.*/\1/p' | sort -u)
[ -n "$fns" ] || { echo "no functions found in $H"; exit 1; }
missing=0
n=0
for f in $fns; do
	n=$((n + 1))
	if ! grep -lq "^\(.*[ ,]\)\?$f\([ ,]\|$\)" "$LIB"/Documentation/*.txt ||
	   ! grep -q "\*$f\*(" "$LIB"/Documentation/*.txt; then
		echo "no man page for $f"
		missing=$((missing + 1))
	fi
done
# and a kernel-doc block ("/**", " * NAME - what it does", params,
# return value) right above its definition, as in libtracefs
documented=$(awk '
	/^\/\*\*$/ { inblk = 1; name = ""; next }
	inblk && name == "" && match($0, /^ \* ustack_[a-z0-9_]+ - /) {
		name = substr($0, 4, RLENGTH - 6); next }
	inblk && /^ \*\/$/ { inblk = 0; after = name; left = 2; next }
	after != "" && left-- > 0 && index($0, after "(") { print after; after = "" }
	left <= 0 { after = "" }' "$LIB"/src/*.c "$H" | sort -u)
nodoc=0
for f in $fns; do
	if ! grep -qx "$f" <<<"$documented"; then
		echo "no /** */ block above the definition of $f"
		nodoc=$((nodoc + 1))
	fi
done
echo "$n public functions, $missing without a man page, $nodoc without a /** */ block"
[ $missing = 0 ] && [ $nodoc = 0 ]
