#!/bin/bash
# Cost of generating SFrame from .eh_frame (sframe-gen): CPU time of one
# cold generation in a fresh process (bench/sframe-gen-time.c calls
# sfgen_from_fd() once; the file itself is in the page cache after the
# first run), min/median/max over BENCH_RUNS runs (default 7), and the
# second generation in the same process beside it; bytes of the section
# beside the .eh_frame it comes from.
#
#   bench/sframe-gen.sh [FILE...]   (default: libc.so.6, python3.11)
#
# Goal (issue 18): cold libc.so.6 within 50 ms.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-7}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$here/sframe-gen/deps.sh"
make -s -C "$here/sframe-gen" OUT="$out/gen" all
gcc -O2 -Wall -Wextra -Werror -I"$here/sframe-gen/include" -o "$out/time" \
	"$here/bench/sframe-gen-time.c" -L"$out/gen" -lsframe-gen -Wl,-rpath,"$out/gen"

stat3() {	# min median max of the numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { printf "%.1f %.1f %.1f\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
}

printf '%-28s %22s %22s %10s %10s %7s\n' object "cold ms (min/med/max)" \
	"warm ms (min/med/max)" ".eh_frame" ".sframe" ratio
for f in "${files[@]}"; do
	: >"$out/runs"
	for _ in $(seq "$runs"); do
		"$out/time" "$f" >>"$out/runs"
	done
	read -r cmin cmed cmax < <(awk '{ print $1 }' "$out/runs" | stat3)
	read -r wmin wmed wmax < <(awk '{ print $2 }' "$out/runs" | stat3)
	read -r _ _ sf eh < <(tail -1 "$out/runs")
	printf '%-28s %22s %22s %10d %10d %7.2f\n' "$(basename "$f")" "$cmin/$cmed/$cmax" \
		"$wmin/$wmed/$wmax" "$eh" "$sf" "$(awk -v a="$sf" -v b="$eh" 'BEGIN { print a / b }')"
done
echo "($runs runs each, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); ratio = .sframe / .eh_frame bytes)"
