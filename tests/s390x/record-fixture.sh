#!/bin/bash
# Record the s390x fixture: tests/fixtures/s390x/backchain.dat and the
# program it traced, bcmini (tests/s390x/bcmini.c, built -mbackchain
# without libc), beside it.  Boots the s390x kernel (rig/run-guest.sh
# --arch s390x) with tests/s390x/record-guest.sh, then assembles the
# trace.dat on the host (tests/userspace/lib/mktrace.py --guest-log).
# Not part of test-all: the fixture is kept in the repo, as the x86-64
# ones are.
#
#   tests/s390x/record-fixture.sh [--kernel BZIMAGE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
. "$REPO/rig/common.sh"
kernel=
[ "${1:-}" = --kernel ] && kernel=$2
xdir=$("$REPO/rig/fetch-cross.sh")
X=$xdir/usr/bin/s390x-linux-gnu-
dest=$REPO/tests/fixtures/s390x
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/guest" "$dest"
"${X}gcc" -static -nostdlib -O2 -g -mbackchain -fno-stack-protector \
	-Wall -Wextra -Werror -o "$w/guest/bcmini" "$here/bcmini.c"
install -m 0755 "$here/record-guest.sh" "$w/guest/"
[ -n "$kernel" ] || kernel=$("$REPO/rig/build-kernel.sh" --arch s390x)
"$REPO/rig/run-guest.sh" --arch s390x --kernel "$kernel" --add "$w/guest" \
	--cmd 'sh ./record-guest.sh' --out "$w/run" --quiet --timeout 600 >/dev/null ||
	die "the recording boot failed (see $w/run, kept)"
python3 "$here/../userspace/lib/mktrace.py" --guest-log "$w/run/output.log" "$dest/backchain.dat"
cp "$w/guest/bcmini" "$dest/bcmini"
grep '^=== trace ' "$w/run/output.log" | sed 's/^=== trace //' > "$dest/backchain.trace"
log "recorded $dest/backchain.dat ($(grep -c user_stack_deferred "$dest/backchain.trace") user stacks)"
