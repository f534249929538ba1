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
	for k in bad-magic bad-version bad-abi fixed-ra bad-offsets fde-past-end unsorted fre-past-end fre-unsorted; do
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
	v3kind flex-plain 'sf_lib_middle .* type=1 '
	v3kind new-type 'sf_lib_middle .* type=2 '
	v3kind bad-flags '^magic=0xdee2 version=3 flags=0x7 '
	v3kind attr-past-end 'sf_lib_middle .* BAD: attributes past the end$'
	v3kind fre-past-end 'sf_lib_middle .* fres=16 .* BAD: FREs past the end$'
	# The flexible copy says the good copy's rules in flexible words: the
	# generator's strict reader (sframe-gen --dump-own, which refuses a
	# malformed flexible FRE) reads both, with the version 3 section in
	# place of .sframe, as the same rows (r7 is SP; a flexible FP is
	# printed as a load)
	own() { # KIND: the rows of KIND's version 3 copy, by sframe-gen
		objcopy --remove-section .sframe --rename-section .sframe_v3=.sframe \
			"$T/v3-$1.so" "$T/v3-$1-own.so" &&
			"$REPO/sframe-gen/build/sframe-gen" "$T/v3-$1-own.so" --dump-own
	}
	if make -s -C "$REPO/sframe-gen" >"$T/sg.log" 2>&1 &&
	   $TOOL v3 "$WL/libsfwork.so" "$T/v3-good.so" &&
	   own good > "$T/own-good" && own flex > "$T/own-flex"; then
		sed -e 's/cfa=r7+/cfa=sp+/' -e 's/fp=\*(cfa\(-[0-9]*\))/fp=cfa\1/' "$T/own-flex" > "$T/own-flex.n"
		nflex=$(grep -c 'cfa=r7+' "$T/own-flex")
		[ "$nflex" -gt 0 ] && cmp -s "$T/own-good" "$T/own-flex.n" &&
			pass "v3-flex-same-rules: $nflex rows in flexible words" ||
			fail v3-flex-same-rules "$nflex flexible rows; $(diff "$T/own-good" "$T/own-flex.n" | head -3 | tr '\n' ' ')"
	else
		fail v3-flex-same-rules "$(tail -3 "$T/sg.log" "$T/own-flex" 2>&1 | tr '\n' ' ')"
	fi
	# flex-plain: a flexible FDE whose first word is no register-based CFA
	own flex-plain > "$T/own-plain" 2>&1 &&
		fail v3-flex-plain-refused "read: $(head -2 "$T/own-plain" | tr '\n' ' ')" ||
		pass "v3-flex-plain-refused: $(head -1 "$T/own-plain")"
	$TOOL v3 "$WL/libsfwork.so" "$T/v3-unsorted.so" --kind unsorted &&
		$TOOL dump "$T/v3-unsorted.so" --section .sframe_v3 | awk 'NR > 1 { print $1 }' > "$T/v3-starts" &&
		! sort -c "$T/v3-starts" 2>/dev/null && pass v3-unsorted || fail v3-unsorted "starts still sorted"
else
	fail workloads-built "$(tail -5 "$T/make.log")"
fi
finish
