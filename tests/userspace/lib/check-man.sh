#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fails when a public function of ustack.h has no man page: each must
# appear in the NAME and, in bold, in the SYNOPSIS of a
# Documentation/*.txt page.  usage: check-man.sh LIBDIR
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
echo "$n public functions, $missing without a man page"
[ $missing = 0 ]
