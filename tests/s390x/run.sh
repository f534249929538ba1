#!/bin/bash
# The s390x suite: deferred user stacks walked by the back chain, in an
# s390x guest (rig/run-guest.sh --arch s390x, TCG), one boot.
#
#   tests/s390x/run.sh [--kernel BZIMAGE] [--out DIR] [--show]
#
# Cross-builds tests/s390x/bcwork.c static with and without -mbackchain,
# bcmini.c (no libc, a zero back chain at _start; rig/fetch-cross.sh) and
# bcmix (an SFrame part and a back-chain-only part), generates the SFrame
# sections of bcwork-nobc and bcmix from their .eh_frame with sframe-gen
# (its s390x mode), builds the s390x kernel when needed
# (rig/build-kernel.sh --arch s390x), boots it with the two programs and
# tests/s390x/guest.sh, which records a trace per case, and checks the
# traces on the host with tests/s390x/check.py: frame names come from the
# cross nm and addr2line.  Ends with "N passed, N failed"; exit 1 on any
# failure.  --kernel boots another image (a kernel without the s390
# series, patches/4-s390, shows the suite failing); --show prints the
# named user stacks too
# (rig/demo.sh --arch s390x).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
. "$REPO/rig/common.sh"

kernel= out= show=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--out) out=$2; shift ;;
	--show) show=(--show) ;;
	*) echo "usage: $0 [--kernel BZIMAGE] [--out DIR] [--show]" >&2; exit 2 ;;
	esac
	shift
done

t0=$(now)
ensure_cache
fail_all() { echo "FAIL s390x/$1 # $2"; echo "0 passed, 1 failed"; exit 1; }
xdir=$("$REPO/rig/fetch-cross.sh") || fail_all cross-toolchain "rig/fetch-cross.sh failed"
X=$xdir/usr/bin/s390x-linux-gnu-

# the corruptions of bcwork-nobc.sframe, checked by check.py (sfbad-KIND)
SFBAD="bad-magic bad-abi bad-version fixed-ra bad-offsets fde-past-end unsorted fre-past-end"
w=$(mktemp -d "${TMPDIR:-/tmp}/ftd-s390x.XXXXXX")
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/guest"
cf=(-static -O2 -g -Wall -Wextra -Werror -I"$REPO/tests/workload")
"${X}gcc" "${cf[@]}" -mbackchain -o "$w/guest/bcwork-bc" "$here/bcwork.c" &&
"${X}gcc" "${cf[@]}" -o "$w/guest/bcwork-nobc" "$here/bcwork.c" &&
"${X}gcc" -static -nostdlib -O2 -g -mbackchain -fno-stack-protector -Wall -Wextra \
	-Werror -o "$w/guest/bcmini" "$here/bcmini.c" &&
"${X}gcc" "${cf[@]}" -c -o "$w/bcmix.o" "$here/bcmix.c" &&
"${X}gcc" "${cf[@]}" -mbackchain -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-c -o "$w/bcmix-bc.o" "$here/bcmix-bc.c" &&
"${X}gcc" -static -o "$w/guest/bcmix" "$w/bcmix.o" "$w/bcmix-bc.o" ||
	fail_all build-workload "cross gcc failed on tests/s390x/bcwork.c, bcmini.c or bcmix*.c"
# the guest gets them stripped (smaller initramfs); the host names their frames
for b in bcwork-bc bcwork-nobc bcmini bcmix; do
	cp "$w/guest/$b" "$w/$b"
	"${X}strip" "$w/guest/$b"
done
# bcwork-nobc's SFrame section, which the guest registers (bcwork sframe FILE)
"$REPO/sframe-gen/deps.sh" > "$w/sframe-gen.log" 2>&1 &&
	make -s -C "$REPO/sframe-gen" OUT="$w/sframe-gen" all >> "$w/sframe-gen.log" 2>&1 &&
	"$w/sframe-gen/sframe-gen" "$w/bcwork-nobc" -o "$w/guest/bcwork-nobc.sframe" \
		>> "$w/sframe-gen.log" 2>&1 ||
	fail_all sframe-gen "sframe-gen on bcwork-nobc failed: $(tail -3 "$w/sframe-gen.log")"
# bcmix's: its SFrame part only (bcmix-bc.c has no .eh_frame), and libc
"$w/sframe-gen/sframe-gen" "$w/bcmix" -o "$w/guest/bcmix.sframe" >> "$w/sframe-gen.log" 2>&1 ||
	fail_all sframe-gen "sframe-gen on bcmix failed: $(tail -3 "$w/sframe-gen.log")"
# corrupt copies of it (tests/workload/sframe-tool.py, which reads the
# big-endian section): the prctl refuses the header and FDE table ones;
# the FREs of getppid, the first function an unwind looks up, past the
# end: accepted, dropped at the first unwind
for k in $SFBAD; do
	python3 "$REPO/tests/workload/sframe-tool.py" corrupt "$w/guest/bcwork-nobc.sframe" \
		"$k" "$w/guest/sfbad-$k.sframe" --func getppid --syms "$w/bcwork-nobc" \
		--nm "${X}nm" >> "$w/sframe-gen.log" 2>&1 ||
		fail_all sframe-corrupt "sframe-tool.py corrupt $k: $(tail -3 "$w/sframe-gen.log")"
done
install -m 0755 "$here/guest.sh" "$w/guest/guest.sh"

if [ -z "$kernel" ]; then
	kernel=$("$REPO/rig/build-kernel.sh" --arch s390x) ||
		fail_all kernel-build "rig/build-kernel.sh --arch s390x failed"
fi
[ -n "$out" ] || out=$CACHE/runs/s390x-$(date +%Y%m%d-%H%M%S)-$$
log "s390x: booting $kernel"
"$REPO/rig/run-guest.sh" --arch s390x --kernel "$kernel" --add "$w/guest" \
	--cmd 'sh ./guest.sh' --out "$out" --timeout 600 --quiet > "$w/guest.summary"
grc=$?
if [ $grc = 0 ]; then
	echo "PASS s390x/guest-boot-clean"
else
	echo "FAIL s390x/guest-boot-clean # rig/run-guest.sh: $(tail -1 "$w/guest.summary"); see $out"
fi
python3 "$here/check.py" "${show[@]}" --mix "$w/bcmix" "$out/output.log" "$w/bcwork-bc" "$w/bcwork-nobc" "$w/bcmini" "$X" \
	"$w/guest/bcwork-nobc.sframe" $SFBAD > "$w/check.out"
cat "$w/check.out" | grep -v '^[0-9]* passed, [0-9]* failed$'
np=$(grep -c '^PASS ' "$w/check.out")
nf=$(grep -c '^FAIL ' "$w/check.out")
if [ $grc = 0 ]; then np=$((np + 1)); else nf=$((nf + 1)); fi
log "s390x suite: $(elapsed "$t0"); guest output in $out"
echo "$np passed, $nf failed"
[ "$nf" = 0 ]
