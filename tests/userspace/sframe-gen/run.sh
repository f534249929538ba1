#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of sframe-gen (the .eh_frame -> SFrame generator): builds it, then
#   - oracle: each row it emits for stock Debian objects equals the row of
#     binutils' readelf --debug-dump=frames-interp at that address, and
#     each row it leaves out is one it names a reason for (compare.py);
#   - s390x (the mode for SFrame's s390x ABI): cross-built objects
#     (rig/fetch-cross.sh) against s390x-linux-gnu-readelf the same way,
#     their sections decoded by the specification (s390x-decode.py);
#   - binutils' own .sframe of the SFrame workloads (as --gsframe 2.44)
#     and the generator's rows agree outside the PLTs (vs-binutils.py);
#   - --check (the kernel's rules) passes on the same objects;
#   - live stacks of python3.11, bash, cat and sleep blocked in a system
#     call, walked as the kernel would with the generated sections of
#     every object they map, equal eu-stack's (unwind.py);
#   - sfgen_check() refuses broken sections, each for its reason, and
#     survives random corruption (test-check.c, under ASan + UBSan);
#   - walk: every x86-64 ET_EXEC/ET_DYN with .eh_frame under
#     /usr/lib/x86_64-linux-gnu and /usr/bin, generated and checked by the
#     ASan + UBSan build.  All 1640 took 55 s on the idle 2-core test
#     machine but 158-200 s with the CI run and four builds beside it, over
#     the 3 minutes this suite may take: so by default every 2nd file (in
#     sorted order) plus the named objects; SFGEN_WALK_STEP=1 walks all;
#   - bad input: truncated ELF, not ELF, no .eh_frame, garbage .eh_frame:
#     a message, exit 1, no crash, no output file;
#   - valgrind on libc.so.6.
# Prints "N passed, N failed" last; exits non-zero on failure.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
SG=$REPO/sframe-gen
B=${SFGEN_TEST_OUT:-$HERE/build}
STEP=${SFGEN_WALK_STEP:-2}
FLIPS=${SFGEN_FLIPS:-3000}
PASS=0
FAIL=0

pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
finish() {
	echo
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
	exit $?
}

NAMED=(/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11 /bin/bash /bin/ls
       /lib64/ld-linux-x86-64.so.2 /usr/lib/x86_64-linux-gnu/libstdc++.so.6)

# ---- build ----
"$SG/deps.sh" || { fail "installing packages"; finish; }
rm -rf "$B"
mkdir -p "$B/bad"
if ! make -s -C "$SG" OUT="$B/gen" all asan >"$B/make.log" 2>&1; then
	cat "$B/make.log"
	fail "make sframe-gen"
	finish
fi
pass "make sframe-gen (library, tool, sframe.o, ASan tool)"
TOOL=$B/gen/sframe-gen
ATOOL=$B/gen/asan/sframe-gen
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87

# the library alone, as the preload links it: sframe.o needs libc only
if nm -u "$B/gen/sframe.o" | grep -Eq 'dwarf_|elf_'; then
	fail "sframe.o refers to libdw/libelf: $(nm -u "$B/gen/sframe.o" | grep -E 'dwarf_|elf_' | tr '\n' ' ')"
else
	pass "sframe.o needs no libdw or libelf"
fi

# every public function has its man page (in the NAME and, bold, in the SYNOPSIS)
missing=
for fn in $(sed -n 's/^[a-z].*\b\(sfgen_[a-z_]*\)(.*/\1/p' "$SG/include/sframe-gen.h" | sort -u); do
	grep -q "^\(.*[ ,]\)\?$fn\([ ,]\|$\)" "$SG"/Documentation/*.txt &&
		grep -q "\*$fn\*(" "$SG"/Documentation/*.txt || missing="$missing $fn"
done
if [ -z "$missing" ]; then
	pass "every sfgen_ function of sframe-gen.h has a man page"
else
	fail "no man page for:$missing"
fi

# ---- the oracle: readelf ----
for f in "${NAMED[@]}"; do
	if [ ! -e "$f" ]; then
		fail "$f: missing on this machine"
		continue
	fi
	if out=$(python3 "$HERE/compare.py" "$TOOL" "$f" 2>&1); then
		pass "readelf agrees: $out"
	else
		fail "readelf disagrees: $out"
	fi
done

# -o onto what is not a regular file writes into it and leaves it as it
# is: a FIFO here (the tool once renamed its temporary file over
# /dev/null, as root, and the device became a file)
rm -f "$B/out.fifo" "$B/fifo.data"
if mkfifo "$B/out.fifo"; then
	# bounded: a tool that renames over the FIFO never opens it, and
	# the reader would wait for a writer for ever
	timeout 20 cat "$B/out.fifo" > "$B/fifo.data" &
	cat_pid=$!
	timeout 20 "$TOOL" /bin/true -o "$B/out.fifo" 2>"$B/fifo.err"
	rc=$?
	wait "$cat_pid"
	if [ $rc = 0 ] && [ -p "$B/out.fifo" ] && "$TOOL" /bin/true -o "$B/true.sframe" &&
	   cmp -s "$B/fifo.data" "$B/true.sframe"; then
		pass "-o onto a FIFO: the section goes through it, the FIFO stays one"
	else
		fail "-o onto a FIFO: rc $rc, $(stat -c %F "$B/out.fifo" 2>&1), $(head -2 "$B/fifo.err")"
	fi
	rm -f "$B/out.fifo"
fi

# ---- flexible FDEs: a DRAP frame (gcc -mforce-drap), readelf as the oracle ----
# Its CFA is *(rbp - 16) and rbp is saved at *(rbp + 0): flexible rules
# by default, the old reasons (cfa-reg, cfa-expr, fp) with --no-flex.
if gcc -O2 -fomit-frame-pointer -mforce-drap -Wall -Wextra -Werror -shared -fPIC \
	-o "$B/libdrap.so" "$HERE/drap.c" 2>"$B/drap.log"; then
	if out=$(python3 "$HERE/compare.py" "$TOOL" "$B/libdrap.so" 2>&1) &&
	   "$TOOL" "$B/libdrap.so" --dump | grep -q ' cfa=\*(r6-[0-9]*) fp=\*(r6+0) ra=cfa-8$'; then
		pass "DRAP frame as flexible FDEs, readelf agrees: ${out#"$B/"}"
	else
		fail "DRAP frame: $out $("$TOOL" "$B/libdrap.so" --dump 2>&1 | grep -c '\*(')"
	fi
	if out=$(python3 "$HERE/compare.py" "$TOOL" "$B/libdrap.so" --no-flex 2>&1) &&
	   ! "$TOOL" "$B/libdrap.so" --dump --no-flex | grep -q '\*('; then
		pass "--no-flex: the DRAP rows without a rule, readelf agrees: ${out#"$B/"}"
	else
		fail "--no-flex: $out"
	fi
	if "$TOOL" "$B/libdrap.so" -o "$B/libdrap.sframe" && "$TOOL" "$B/libdrap.so" --check >/dev/null; then
		pass "DRAP frame: the section with flexible FDEs passes --check"
	else
		fail "DRAP frame: --check refuses the section"
	fi
else
	fail "building libdrap.so: $(head -3 "$B/drap.log")"
fi

# ---- s390x: cross-built objects, the cross readelf as the oracle ----
# bcwork (tests/s390x) static without -mbackchain at -O2 (glibc's own
# assembly included: _start's undefined r14, FP kept in FPRs) and at -O0
# with a frame pointer (CFA from r11); s390x-cfi.S's rows that compiled
# code rarely has, as a shared object.  Each: compare.py against
# s390x-linux-gnu-readelf, s390x-decode.py (the specification's encoding,
# read without sframe-gen's reader) equal to --dump, and --check.
if XDIR=$("$REPO/rig/fetch-cross.sh" 2>"$B/fetch-cross.log"); then
	X=$XDIR/usr/bin/s390x-linux-gnu-
	mkdir -p "$B/s390x"
	S390X=()
	xcc() {
		local out=$1
		shift
		if "${X}gcc" -g -Wall -Wextra -Werror "$@" -o "$B/s390x/$out" 2>"$B/s390x/$out.log"; then
			S390X+=("$B/s390x/$out")
		else
			fail "s390x: building $out: $(head -3 "$B/s390x/$out.log")"
		fi
	}
	xcc bcwork-O2 -static -O2 -I"$REPO/tests/workload" "$REPO/tests/s390x/bcwork.c"
	xcc bcwork-O0-fp -static -O0 -fno-omit-frame-pointer -I"$REPO/tests/workload" \
		"$REPO/tests/s390x/bcwork.c"
	xcc libcfi.so -shared -nostdlib -fPIC "$HERE/s390x-cfi.S"
	for f in "${S390X[@]}"; do
		n=s390x/${f##*/}
		if out=$(python3 "$HERE/compare.py" "$TOOL" "$f" "${X}readelf" 2>&1); then
			pass "$n: s390x-linux-gnu-readelf agrees: ${out#"$f": }"
		else
			fail "$n: s390x-linux-gnu-readelf disagrees: $out"
		fi
		if "$TOOL" "$f" -o "$f.sframe" 2>"$f.err" &&
		   python3 "$HERE/s390x-decode.py" "$f.sframe" >"$f.spec" 2>>"$f.err" &&
		   "$TOOL" "$f" --dump >"$f.dump" 2>>"$f.err" && cmp -s "$f.spec" "$f.dump"; then
			pass "$n: the section read by the specification's s390x rules gives --dump's $(wc -l <"$f.dump") rows"
		else
			fail "$n: s390x-decode.py and --dump differ: $(head -3 "$f.err") $(diff "$f.spec" "$f.dump" 2>&1 | head -4)"
		fi
		if out=$("$ATOOL" "$f" --check --stats 2>&1); then
			pass "$n: --check: $(echo "$out" | grep -E '^(fres|rows_outermost|coverage):' | tr '\n' ' ')"
		else
			fail "$n: --check: $(echo "$out" | head -3)"
		fi
	done
else
	fail "s390x: rig/fetch-cross.sh failed: $(tail -3 "$B/fetch-cross.log")"
fi

# ---- binutils' own .sframe (as --gsframe 2.44, tests/workload) ----
WL=$REPO/tests/workload
SFW=(libsfwork.so sfwork sfwork-static sfwork-dlopen sfwork-shallow libsframe-preload.so)
if make -s -C "$WL" sframe >"$B/workload.log" 2>&1; then
	python3 "$HERE/vs-binutils.py" "$TOOL" "${SFW[@]/#/$WL/}" >"$B/vs-binutils.out" 2>&1
	rc=$?
	cat "$B/vs-binutils.out"
	PASS=$((PASS + $(grep -c '^PASS:' "$B/vs-binutils.out")))
	FAIL=$((FAIL + $(grep -c '^FAIL:' "$B/vs-binutils.out")))
	[ "$rc" != 0 ] && ! grep -q '^FAIL:' "$B/vs-binutils.out" && fail "vs-binutils.py exited $rc"
else
	fail "building the SFrame workloads (binutils 2.44): $(tail -3 "$B/workload.log")"
fi

# ---- binutils 2.46's own .sframe: version 3, flexible FDEs (an oracle) ----
# gas 2.46 (rig/build-binutils.sh --version 2.46) writes SFrame version 3
# by default, and for a DRAP frame (drap.c, -mforce-drap) a flexible FDE.
# Nobody here wrote it: the reader (--dump-own) must take its sections,
# and their rows must equal the generator's from the same objects'
# .eh_frame (vs-binutils.py); drap_sort's FDE must be flexible in both,
# with the same rows.  Then one word of gas's flexible FRE is changed
# (the CFA offset): the comparison must see it.
V3=$B/v3
mkdir -p "$V3"
if BU46=$("$REPO/rig/build-binutils.sh" --version 2.46 2>"$V3/build.log") &&
   "$BU46/as" --version | head -1 | grep -q ' 2\.46'; then
	v3cc() {
		local out=$1
		shift
		gcc -B "$BU46/" -O2 -g -fomit-frame-pointer -Wa,--gsframe -Wall -Wextra -Werror \
			-fPIC -shared "$@" -o "$V3/$out" 2>"$V3/$out.log" ||
			{ fail "gas 2.46: building $out: $(head -3 "$V3/$out.log")"; return 1; }
	}
	V3OBJ=()
	v3cc libsfwork.so -D_GNU_SOURCE "$WL/sframe_lib.c" && V3OBJ+=("$V3/libsfwork.so")
	v3cc libdrap.so -mforce-drap "$HERE/drap.c" && V3OBJ+=("$V3/libdrap.so")
	for f in "${V3OBJ[@]}"; do
		n=v3/${f##*/}
		# the header of the PT_GNU_SFRAME segment ld 2.46 wrote: magic,
		# version 3, flags with FDE_SORTED (0x1; 2.46 adds FUNC_START_PCREL, 0x4)
		hdr=$(readelf -lW "$f" | awk '$1 == "GNU_SFRAME" { print $2 }')
		magic=$(od -An -tx1 -j $((${hdr:-0})) -N4 "$f" | tr -d ' ')
		if [ -n "$hdr" ] && [ "${magic:0:6}" = e2de03 ] && [ $((16#${magic:6:2} & 1)) = 1 ] &&
		   "$TOOL" "$f" --dump-own >"$f.own" 2>"$f.own.err" && [ -s "$f.own" ]; then
			pass "$n: gas 2.46's section is version 3 (header $magic) and --dump-own reads its $(wc -l <"$f.own") rows"
		else
			fail "$n: gas 2.46's section: header '$magic', --dump-own: $(head -2 "$f.own.err" 2>/dev/null)"
		fi
	done
	if [ ${#V3OBJ[@]} -gt 0 ]; then
		python3 "$HERE/vs-binutils.py" "$TOOL" "${V3OBJ[@]}" >"$V3/vs-binutils.out" 2>&1
		rc=$?
		sed 's/^\(PASS\|FAIL\): /\1: gas 2.46: /' "$V3/vs-binutils.out"
		PASS=$((PASS + $(grep -c '^PASS:' "$V3/vs-binutils.out")))
		FAIL=$((FAIL + $(grep -c '^FAIL:' "$V3/vs-binutils.out")))
		[ "$rc" != 0 ] && ! grep -q '^FAIL:' "$V3/vs-binutils.out" && fail "vs-binutils.py (2.46) exited $rc"
	fi
	# drap_sort: a flexible FDE in gas's section (CFA loaded through rbp)
	# and in the generator's, the same rows over the whole function
	D=$V3/libdrap.so
	if [ -f "$D.own" ]; then
		read -r ds dn < <(nm -S "$D" | awk '$4 == "drap_sort" { print $1, $2 }')
		# the rows start in [a, e): 16 hex digits each, compared as strings
		dsa=$(printf %016x $((16#${ds:-0}))) dse=$(printf %016x $((16#${ds:-0} + 16#${dn:-0})))
		inside() { awk -v a="$dsa" -v e="$dse" '"" $1 >= a && "" $1 < e'; }
		# a flexible CFA from r7 (rsp) or r6 (rbp), not loaded, is the
		# sp+N or fp+N of a default FRE (vs-binutils.py): gas writes the
		# whole function as one flexible FDE, the generator its first
		# row as a default FDE
		spfp() { sed -E 's/ cfa=r7([+-])/ cfa=sp\1/; s/ cfa=r6([+-])/ cfa=fp\1/'; }
		inside <"$D.own" | spfp >"$V3/drap.gas"
		"$TOOL" "$D" --dump 2>&1 | inside | spfp >"$V3/drap.gen"
		if [ -n "$ds" ] && grep -q ' cfa=\*(r6-[0-9]*)' "$V3/drap.gas" && cmp -s "$V3/drap.gas" "$V3/drap.gen"; then
			pass "v3/libdrap.so: drap_sort's flexible FDE, gas 2.46's $(wc -l <"$V3/drap.gas") rows equal the generator's ($(grep -m1 -o 'cfa=\*([^)]*) .*' "$V3/drap.gas"))"
		else
			fail "v3/libdrap.so: drap_sort ${ds:-not found}: gas $(grep -c '\*(' "$V3/drap.gas") flexible rows of $(wc -l <"$V3/drap.gas"): $(diff "$V3/drap.gas" "$V3/drap.gen" | head -6 | tr '\n' ' ')"
		fi
		# the comparison can fail: gas's flexible CFA *(r6 - N) made
		# *(r6 - N - 8) in a copy (FRE info 0x0a: five 1-byte words, the
		# first the control word 0x33: r6, loaded, register-based)
		if want=$(python3 - "$D" "$V3/libdrap-bad.so" <<'EOF2'
import re, subprocess, sys
src, dst = sys.argv[1:]
data = bytearray(open(src, 'rb').read())
for line in subprocess.run(['readelf', '-SW', src], stdout=subprocess.PIPE,
                           universal_newlines=True).stdout.splitlines():
    f = line.replace('[ ', '[').split()
    if len(f) > 6 and f[1] == '.sframe':
        off, size = int(f[4], 16), int(f[5], 16)
sec = bytes(data[off:off + size])
m = re.search(rb'\x0a\x33([\x88-\xff])', sec)
if not m:
    sys.exit('no flexible FRE with CFA = *(r6 - N) in .sframe')
old = m.group(1)[0] - 256
data[off + m.start(1)] = (old - 8) & 0xff
open(dst, 'wb').write(data)
print('cfa=*(r6%d)' % (old - 8))
EOF2
)
		then
			python3 "$HERE/vs-binutils.py" "$TOOL" "$V3/libdrap-bad.so" >"$V3/vs-bad.out" 2>&1
			if grep -q '^FAIL:.*mismatch' "$V3/vs-bad.out" && grep -qF "binutils \"$want" "$V3/vs-bad.out"; then
				pass "v3/libdrap.so with gas's flexible CFA made $want: the comparison fails ($(grep -o '[0-9]* mismatches' "$V3/vs-bad.out"))"
			else
				fail "v3/libdrap.so altered ($want): the comparison did not see it: $(head -3 "$V3/vs-bad.out")"
			fi
		else
			fail "v3/libdrap.so: cannot alter gas's flexible FRE"
		fi
	fi
else
	fail "rig/build-binutils.sh --version 2.46: $(tail -3 "$V3/build.log")"
fi

# ---- --check, and the stats ----
for f in "${NAMED[@]}"; do
	[ -e "$f" ] || continue
	if out=$("$ATOOL" "$f" --check --stats 2>&1); then
		pass "--check $f: $(echo "$out" | grep -E '^(fdes_out|fres|coverage):' | tr '\n' ' ')"
	else
		fail "--check $f: $out"
	fi
done

# the section written by -o is the one on standard output, and readable
L=/lib/x86_64-linux-gnu/libc.so.6
if "$TOOL" "$L" -o "$B/libc.sframe" && "$TOOL" "$L" >"$B/libc.stdout" &&
   cmp -s "$B/libc.sframe" "$B/libc.stdout" && [ ! -e "$B/libc.sframe.tmp" ] &&
   [ "$(od -An -tx1 -N4 "$B/libc.sframe" | tr -d ' ')" = "e2de0301" ]; then
	pass "-o writes the section (magic 0xdee2, version 3, FDE_SORTED), same bytes as stdout"
else
	fail "-o and stdout differ, or the header is not e2 de 03 01"
fi

# ---- live stacks: the kernel's walk with the generated sections vs eu-stack ----
python3 "$HERE/unwind.py" "$TOOL" >"$B/unwind.out" 2>&1
rc=$?
cat "$B/unwind.out"
PASS=$((PASS + $(grep -c '^PASS:' "$B/unwind.out")))
FAIL=$((FAIL + $(grep -c '^FAIL:' "$B/unwind.out")))
if [ "$rc" != 0 ] && ! grep -q '^FAIL:' "$B/unwind.out"; then
	fail "unwind.py exited $rc"
fi

# ---- broken sections ----
if gcc -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I"$SG/include" -I"$SG/src" -o "$B/test-check" "$HERE/test-check.c" \
	"$SG/src/gen.c" "$SG/src/sframe.c" -ldw -lelf 2>"$B/test-check.log"; then
	"$B/test-check" "$L" "$FLIPS" >"$B/test-check.out" 2>&1
	rc=$?
	cat "$B/test-check.out"
	PASS=$((PASS + $(grep -c '^PASS:' "$B/test-check.out")))
	FAIL=$((FAIL + $(grep -c '^FAIL:' "$B/test-check.out")))
	if [ "$rc" != 0 ] && ! grep -q '^FAIL:' "$B/test-check.out"; then
		fail "test-check exited $rc"
	fi
else
	cat "$B/test-check.log"
	fail "building test-check"
fi

# ---- bad input ----
# bad NAME FILE WHY: the ASan tool must say WHY, exit 1, leave no output
bad() {
	local name=$1 file=$2 why=$3 out=$B/bad/$1.sframe rc
	"$ATOOL" "$file" -o "$out" >"$B/bad/$name.stdout" 2>"$B/bad/$name.err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "^sframe-gen: $file: .*$why" "$B/bad/$name.err" &&
	   ! grep -Eq 'AddressSanitizer|runtime error|LeakSanitizer' "$B/bad/$name.err" &&
	   [ ! -e "$out" ] && [ ! -e "$out.tmp" ]; then
		pass "bad input $name: exit 1, $(head -1 "$B/bad/$name.err")"
	else
		fail "bad input $name: exit $rc, output file $( [ -e "$out" ] && echo left || echo none): $(head -3 "$B/bad/$name.err")"
	fi
}
head -c 4096 "$L" >"$B/bad/trunc-4k.so"
head -c $(( $(stat -c %s "$L") / 2 )) "$L" >"$B/bad/trunc-half.so"
echo "not an ELF object" >"$B/bad/text"
: >"$B/bad/empty"
objcopy -R .eh_frame -R .eh_frame_hdr /bin/ls "$B/bad/no-eh-frame"
# .eh_frame overwritten with random bytes, and after its first CIE only
python3 - "$B/bad" <<'EOF'
import random, struct, subprocess, sys
d = sys.argv[1]
data = bytearray(open('/bin/ls', 'rb').read())
for line in subprocess.run(['readelf', '-SW', '/bin/ls'], stdout=subprocess.PIPE,
                           universal_newlines=True).stdout.splitlines():
    f = line.replace('[ ', '[').split()
    if len(f) > 6 and f[1] == '.eh_frame':
        off, size = int(f[4], 16), int(f[5], 16)
rnd = random.Random(18)
g = bytearray(data)
g[off:off + size] = bytes(rnd.randrange(256) for _ in range(size))
open(d + '/garbage-eh-frame', 'wb').write(g)
cie = struct.unpack_from('<I', data, off)[0] + 4
g = bytearray(data)
g[off + cie:off + size] = bytes(rnd.randrange(256) for _ in range(size - cie))
open(d + '/garbage-after-cie', 'wb').write(g)
EOF
bad trunc-4k "$B/bad/trunc-4k.so" truncated
bad trunc-half "$B/bad/trunc-half.so" truncated
bad text "$B/bad/text" "not an ELF object"
bad empty "$B/bad/empty" "not an ELF object"
bad no-eh-frame "$B/bad/no-eh-frame" "no .eh_frame section"
bad garbage-eh-frame "$B/bad/garbage-eh-frame" ".eh_frame malformed"
bad garbage-after-cie "$B/bad/garbage-after-cie" ".eh_frame malformed"
bad missing "$B/bad/does-not-exist" "No such file"
bad relocatable "$(gcc -print-file-name=crtbegin.o)" "not an executable or shared object"

# ---- valgrind ----
if command -v valgrind >/dev/null; then
	if valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect "$TOOL" "$L" --check --stats \
		-o "$B/libc-vg.sframe" >"$B/valgrind.out" 2>&1; then
		pass "valgrind clean: sframe-gen $L --check --stats -o"
	else
		fail "valgrind: $(grep -v '^[a-z_]*:' "$B/valgrind.out" | head -20)"
	fi
else
	fail "valgrind not installed"
fi

# ---- walk ----
python3 "$HERE/walk.py" "$ATOOL" "$STEP" /usr/lib/x86_64-linux-gnu /usr/bin -- "${NAMED[@]}" \
	>"$B/walk.out" 2>&1
rc=$?
grep -v '^[0-9]* passed' "$B/walk.out"
if [ "$rc" = 0 ] && grep -q '^[1-9][0-9]* passed, 0 failed' "$B/walk.out"; then
	pass "walk: $(tail -1 "$B/walk.out")"
else
	fail "walk: exit $rc, $(tail -1 "$B/walk.out")"
fi

finish
