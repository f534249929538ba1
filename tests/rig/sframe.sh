#!/bin/bash
# The SFrame toolchain and workloads, checked on the host (no VM).  Ends
# with "N passed, N failed".  Run by tests/rig/run.sh.
#
#   tests/rig/sframe.sh
#
#  - rig/build-binutils.sh builds (a no-op when built) an `as` that says
#    2.44, and a second run rebuilds nothing;
#  - gcc -B DIR -O2 -fomit-frame-pointer -Wa,--gsframe gives a program with
#    a PT_GNU_SFRAME segment holding SFrame version 2, FDEs sorted
#    (tests/workload/sframe-tool.py reads it); bookworm's own assembler
#    writes version 1, which the kernel refuses;
#  - i386 has no SFrame: gas refuses --gsframe with --32 (the -m32 skip);
#  - the SFrame workloads (make -C tests/workload sframe): every function
#    on their chain has an FDE and no frame-pointer setup;
#  - every kind of corruption of sframe-tool.py changes the file;
#  - sframe-tool.py v3 writes a version 3 copy of libsfwork.so's section
#    into its .sframe_v3 room that reads back (index entries, attributes)
#    as the same functions with the same FREs, and each of its kinds
#    changes what it should.
. "$(dirname "$0")/lib.sh"
WL=$REPO/tests/workload
TOOL="python3 $WL/sframe-tool.py"

if bin=$("$REPO/rig/build-binutils.sh" 2>"$T/bu.log"); then
	"$bin/as" --version | head -1 | grep -q '2\.44' &&
		pass binutils-built || fail binutils-built "$("$bin/as" --version | head -1)"
else
	fail binutils-built "$(tail -5 "$T/bu.log")"
	finish
fi
start=$(date +%s)
"$REPO/rig/build-binutils.sh" >/dev/null 2>&1 && [ $(($(date +%s) - start)) -lt 5 ] &&
	pass binutils-cached || fail binutils-cached "second run took $(($(date +%s) - start)) s"

printf 'int f(int x) { volatile int a[4]; a[x & 3] = x; return a[1]; }\nint main(int c, char **v) { (void)v; return f(c); }\n' > "$T/t.c"
if gcc -B "$bin/" -O2 -fomit-frame-pointer -Wa,--gsframe -o "$T/t" "$T/t.c" 2>"$T/cc.log"; then
	out=$($TOOL check "$T/t" main,f 2>&1) && pass "gsframe-v2: $out" || fail gsframe-v2 "$out"
else
	fail gsframe-v2 "$(cat "$T/cc.log")"
fi
if gcc -O2 -Wa,--gsframe -o "$T/t40" "$T/t.c" 2>/dev/null; then
	$TOOL dump "$T/t40" > "$T/t40.dump" 2>&1
	grep -q 'version=1 ' "$T/t40.dump" &&
		pass bookworm-as-writes-v1 || fail bookworm-as-writes-v1 "$(head -1 "$T/t40.dump")"
else
	pass "bookworm-as-writes-v1 # no --gsframe at all"
fi
gcc -m32 -B "$bin/" -O2 -Wa,--gsframe -c -o "$T/t32.o" "$T/t.c" 2>"$T/m32.log"
grep -q '.sframe not supported for target' "$T/m32.log" &&
	pass no-sframe-for-i386 || fail no-sframe-for-i386 "$(cat "$T/m32.log")"

if make -s -C "$WL" sframe >"$T/make.log" 2>&1; then
	pass workloads-built
	lib=sf_lib_leaf,sf_lib_middle,sf_lib_outer,sf_lib_deep
	for c in "libsfwork.so $lib" "sfwork main,sf_outer,sf_middle" \
		 "sfwork-dlopen main,sf_outer,sf_middle" \
		 "sfwork-shallow main" \
		 "sfwork-static main,sf_outer,sf_middle,$lib" \
		 "libsframe-preload.so dlopen"; do
		set -- $c
		out=$($TOOL check "$WL/$1" "$2" 2>&1) && pass "workload-$1: $out" || fail "workload-$1" "$out"
	done
	for k in bad-magic bad-version bad-offsets fde-past-end unsorted fre-past-end fre-unsorted; do
		$TOOL corrupt "$WL/libsfwork.so" $k "$T/$k.so" && ! cmp -s "$WL/libsfwork.so" "$T/$k.so" &&
			pass "corrupt-$k" || fail "corrupt-$k"
	done
	# version 3: the same functions, sizes, FRE counts, info bytes and FREs
	if $TOOL v3 "$WL/libsfwork.so" "$T/v3.so" 2>"$T/v3.log"; then
		$TOOL dump "$WL/libsfwork.so" | tail -n +2 > "$T/v2.dump"
		$TOOL dump "$T/v3.so" --section .sframe_v3 > "$T/v3.dump"
		head -1 "$T/v3.dump" | grep -q 'version=3 flags=0x5 ' &&
			tail -n +2 "$T/v3.dump" | cmp -s - "$T/v2.dump" &&
			grep -q sf_lib_middle "$T/v2.dump" &&
			pass "v3-same-as-v2: $(head -1 "$T/v3.dump")" ||
			fail v3-same-as-v2 "$(diff "$T/v2.dump" <(tail -n +2 "$T/v3.dump") | head -5; head -1 "$T/v3.dump")"
	else
		fail v3-same-as-v2 "$(cat "$T/v3.log")"
	fi
	# each kind, as the dump reads it back
	v3kind() { # KIND PATTERN: the dump of KIND's copy matches PATTERN
		$TOOL v3 "$WL/libsfwork.so" "$T/v3-$1.so" --kind "$1" &&
			$TOOL dump "$T/v3-$1.so" --section .sframe_v3 > "$T/v3-$1.dump" 2>&1
		grep -qE "$2" "$T/v3-$1.dump" && pass "v3-$1" ||
			fail "v3-$1" "no /$2/ in: $(head -3 "$T/v3-$1.dump")"
	}
	v3kind flex 'sf_lib_middle .* type=1 '
	v3kind bad-flags '^magic=0xdee2 version=3 flags=0x7 '
	v3kind attr-past-end 'sf_lib_middle .* BAD: attributes past the end$'
	v3kind fre-past-end 'sf_lib_middle .* fres=16 .* BAD: FREs past the end$'
	$TOOL v3 "$WL/libsfwork.so" "$T/v3-unsorted.so" --kind unsorted &&
		$TOOL dump "$T/v3-unsorted.so" --section .sframe_v3 | awk 'NR > 1 { print $1 }' > "$T/v3-starts" &&
		! sort -c "$T/v3-starts" 2>/dev/null && pass v3-unsorted || fail v3-unsorted "starts still sorted"
else
	fail workloads-built "$(tail -5 "$T/make.log")"
fi
finish
