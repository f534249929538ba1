# Sourced by the tests of tests/rig/: the rig's helpers (rig/common.sh),
# PASS/FAIL lines and their counts, a scratch directory $T removed at
# exit, and finish, which prints "N passed, N failed" and exits with the
# verdict.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../rig/common.sh"
npass=0 nfail=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1${2:+ # $2}"; nfail=$((nfail + 1)); }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
finish() { echo "$npass passed, $nfail failed"; [ $nfail = 0 ]; exit; }
