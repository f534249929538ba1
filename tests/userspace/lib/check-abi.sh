#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The shared library's ABI is what include/ustack.h declares, no more and
# no less: its exported functions (nm -D) are the header's (as the
# compiler reads it: gcc -aux-info, its static inline helpers left out),
# all in LIBUSTACK_1.0, the first release (data/LIBUSTACK_1.0.txt), the
# version script lists exactly them, the soname is libustack.so.1 and the Makefile's VERSION
# is the header's.  Prints PASS:/FAIL: lines, exits 1 on a failure.
#
#   check-abi.sh LIBDIR SO      e.g. libustack build/libustack.so.1

set -u
LIB=${1:?usage: check-abi.sh LIBDIR SO}
SO=${2:?usage: check-abi.sh LIBDIR SO}
H=$LIB/include/ustack.h
MAP=$LIB/src/libustack.map
FAILED=0
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

pass() { echo "PASS: abi: $*"; }
fail() { echo "FAIL: abi: $*"; FAILED=1; }

# one name a line, sorted; what differs, on one line
differ() { diff "$1" "$2" | sed -n 's/^\([<>]\) /\1/p' | tr '\n' ' '; }

# the header's functions: declarations (NC) in ustack.h, not definitions
# (NF: the static inline helpers, compiled into the caller)
# shellcheck disable=SC2046
if ! echo '#include "ustack.h"' |
	gcc -x c - -fsyntax-only -aux-info "$W/aux" -I"$LIB/include" \
	$(pkg-config --cflags libtracefs libtraceevent) 2>"$W/gcc.err"; then
	fail "the header does not compile: $(head -1 "$W/gcc.err")"
	exit 1
fi
grep -F "/ustack.h:" "$W/aux" | grep ':NC \*/' |
	sed -n 's/.*[ *]\(ustack_[a-z0-9_]*\) (.*/\1/p' | sort -u > "$W/declared"
[ -s "$W/declared" ] || fail "no function found in $H"

# what the shared library exports: functions (T), and nothing else but
# its version node (A); no weak function (its messages go through
# libtraceevent's tep_vprint(), which a program overrides)
nm -D --defined-only "$SO" > "$W/nm" 2>"$W/nm.err" || fail "nm -D $SO: $(head -1 "$W/nm.err")"
awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' "$W/nm" | sort -u > "$W/exported"
awk '$2 != "T" && $2 != "A" { print $3 }' "$W/nm" > "$W/other"
if cmp -s "$W/declared" "$W/exported" && [ ! -s "$W/other" ]; then
	pass "the $(wc -l < "$W/exported") exported functions are the header's"
else
	fail "exported (>) and declared (<) differ: $(differ "$W/declared" "$W/exported")$(tr '\n' ' ' < "$W/other")"
fi

# the version nodes: the library has had no release before 1.0, so one
# node, LIBUSTACK_1.0, holding every exported function, and that node is
# the first release's list (data/LIBUSTACK_1.0.txt; a later minor version
# adds a node inheriting the one before and leaves this list as it is)
REL=$(dirname "$0")/data/LIBUSTACK_1.0.txt
objdump -p "$SO" | awk '/^Version definitions:/ { v = 1; next }
	v && /^$/ { exit } v && NF == 4 && $2 == "0x00" { print $4 }' > "$W/nodes"
readelf -W --dyn-syms "$SO" | awk '$7 != "UND" && $8 ~ /^ustack_/ { print $8 }' > "$W/dyn"
grep -v -E '@@LIBUSTACK_1\.[0-9]+$' "$W/dyn" > "$W/unversioned"
sed -n 's/@@LIBUSTACK_1\.0$//p' "$W/dyn" | sort -u > "$W/in10"
minor=$(awk '$2 == "USTACK_VERSION_MINOR" { print $3 }' "$H")
want=$(for m in $(seq 0 "${minor:-0}"); do echo "LIBUSTACK_1.$m"; done)
if [ "$(cat "$W/nodes")" = "$want" ] && [ ! -s "$W/unversioned" ]; then
	pass "version nodes $(echo $want), holding every exported function"
else
	fail "version nodes: $(tr '\n' ' ' < "$W/nodes")(want $(echo $want)); in none: $(tr '\n' ' ' < "$W/unversioned")"
fi
if cmp -s "$REL" "$W/in10"; then
	pass "LIBUSTACK_1.0 is the first release's list ($(wc -l < "$REL") functions)"
else
	fail "LIBUSTACK_1.0 differs from the first release's list (<), now (>): $(differ "$REL" "$W/in10")"
fi

# the version script names each function (no wildcard)
sed -e 's|/\*.*\*/||' "$MAP" | awk '/\*/ && !/^[[:space:]]*\*;/ { next }
	/^[[:space:]]*ustack_[a-z0-9_]*;/ { sub(/;.*/, ""); print $1 }' | sort -u > "$W/listed"
if cmp -s "$W/declared" "$W/listed" && ! grep -q 'ustack_[a-z0-9_]*\*' "$MAP"; then
	pass "$(basename "$MAP") lists exactly the header's functions"
else
	fail "$(basename "$MAP") (>) and the header (<) differ: $(differ "$W/declared" "$W/listed")"
fi

soname=$(objdump -p "$SO" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libustack.so.1 ] && pass "soname $soname" || fail "soname '$soname', not libustack.so.1"

ver=$(sed -n 's/^VERSION[[:space:]]*=[[:space:]]*//p' "$LIB/Makefile")
hver=$(awk '$2 == "USTACK_VERSION_MAJOR" { M = $3 } $2 == "USTACK_VERSION_MINOR" { m = $3 }
	END { print M "." m }' "$H")
case $ver in
"$hver".*) pass "Makefile VERSION $ver, header $hver" ;;
*) fail "Makefile VERSION $ver, header USTACK_VERSION_MAJOR.MINOR $hver" ;;
esac

exit $FAILED
