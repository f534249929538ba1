#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ustack tool on the trace.dat fixtures recorded on the booted kernel
# (tests/fixtures/, see its README).  usage: test-fixtures.sh USTACK FIXDIR BUILD
set -u
USTACK=$1
FIX=$2
B=$3/fixtures
mkdir -p "$B"
VG=()
[ -z "${NO_VALGRIND:-}" ] && VG=(valgrind -q --leak-check=full
	--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect
	--error-exitcode=99)
CHAIN="work_inner work_middle work_outer main"

# Every event of the workload (comm callchain*) with a complete user stack
# has the chain in order; print how many events and how many complete.
check_chain() {
	awk -v chain="$CHAIN" '
		function done() {
			if (!ev) return
			if (callchain && status == "complete") {
				complete++
				if (index(got, want) == 0) bad++
			}
		}
		BEGIN { want = chain; gsub(/ /, ",", want) }
		/^[^ ]/ { done(); ev = 1; got = ""; callchain = ($1 ~ /^callchain/);
			  status = ""; for (i = 1; i <= NF; i++) if ($i ~ /^status=/) { split($i, s, "[=,]"); status = s[2] } ; next }
		/^  u / { split($2, a, "+"); got = got (got ? "," : "") a[1] }
		END { done(); printf "%d %d\n", complete, bad }
	' "$1"
}

for f in "$FIX"/*.dat; do
	name=$(basename "$f" .dat)
	"${VG[@]}" "$USTACK" "$f" >"$B/$name.out" 2>"$B/$name.err"
	rc=$?
	if [ "$rc" = 99 ] || [ "$rc" -gt 2 ]; then
		cat "$B/$name.err"
		echo "FAIL: fixture $name: ustack exit $rc"
		continue
	fi
	read -r complete bad < <(check_chain "$B/$name.out")
	kframes=$(grep -c '^  k ' "$B/$name.out")
	if [ "$complete" -gt 0 ] && [ "$bad" = 0 ] && [ "$kframes" -gt 0 ]; then
		echo "PASS: fixture $name: $complete complete workload events, kernel then user frames $CHAIN (exit $rc)"
	elif grep -q '^callchain' "$B/$name.out"; then
		echo "FAIL: fixture $name: complete=$complete bad=$bad kernel frames=$kframes"
		head -40 "$B/$name.out"
		cat "$B/$name.err"
	else
		echo "PASS: fixture $name: read, no workload events ($(grep -c status= "$B/$name.out") events, exit $rc)"
	fi
	"${VG[@]}" "$USTACK" --folded "$f" >"$B/$name.folded" 2>>"$B/$name.err"
	rc=$?
	if [ "$rc" -le 2 ] && ! grep -vq '^[^ ]* [0-9][0-9]*$' "$B/$name.folded"; then
		echo "PASS: fixture $name: folded output well formed ($(wc -l <"$B/$name.folded") stacks)"
	else
		echo "FAIL: fixture $name: folded output (exit $rc)"
		head -5 "$B/$name.folded"
	fi
done
