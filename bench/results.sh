#!/bin/bash
# Regenerate bench/results.md: run the benchmarks on the current tree and
# write what they printed, with the date, the commit, the kernel series,
# the machine and the commands, and the hand-written notes on the goals
# (bench/results-notes.md: the measured reason and the next step of each
# goal missed) after them.  Documents quote bench/results.md instead of
# copying numbers.
#
#   bench/results.sh [--only "kernel floor sframe sframe-rows python-real cxx-real startup report join"]
#                    [--keep] [--kernel BZIMAGE] [--reuse RUNDIR "NAMES"]
#   bench/results.sh --notes    (only the notes: bench/results-notes.md)
#
# Default: all nine (kernel.sh, floor.sh, sframe.sh, sframe-rows.sh, python-real.sh,
# cxx-real (python-real.sh with BENCH_WORKLOAD=cc1plus: g++ compiling),
# startup.sh: one TCG boot each; report.sh records its traces in one boot the first time, then
# runs on the host; join.sh on the host).  Not by default: munmap
# (bench/munmap.sh on the one image, its rows without a before column).  The image booted is a copy of
# the rig's build of the tree's series (rig/copy-kernel.sh --build), or
# --kernel BZIMAGE, which must have the key file rig/copy-kernel.sh
# writes beside it (BZIMAGE.key); either way an image built from another
# series than the tree's is refused, and the file and each section name
# the series key the benchmarks ran on.  --keep: the sections of the
# benchmarks not run are kept from the existing file, each still saying
# what it ran on (older files: their header's lines).  A benchmark that
# fails (lost data, a refused row, a failed boot) is written with its
# exit status and its output as it is, and the command exits 1.
# RESULTS_OUT=FILE writes elsewhere (default bench/results.md).
# --reuse RUNDIR "NAMES": the benchmarks NAMES are not run again but taken
# from an earlier run of this script ($CACHE/runs/...-results-PID: their
# outputs and exit status), e.g. to rerun one host benchmark without the
# TCG boots; the kernel image must be the one that run booted, and the
# file says which were reused.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
ensure_cache

only="kernel floor sframe sframe-rows python-real cxx-real startup report join" kernel= reuse_dir= reuse= keep=0
dest=${RESULTS_OUT:-$here/bench/results.md}
# --notes: only put the current bench/results-notes.md in place of the
# notes of an existing results file (the measurements stay as they were)
if [ "${1:-}" = --notes ]; then
	[ -f "$dest" ] || die "no $dest"
	awk '/^## The goals, read with these tables/ { exit } { print }' "$dest" > "$dest.tmp"
	cat "$here/bench/results-notes.md" >> "$dest.tmp"
	mv "$dest.tmp" "$dest"
	log "notes of $dest replaced by bench/results-notes.md"
	exit 0
fi
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift ;;
	--reuse) reuse_dir=$2 reuse=$3; shift 2 ;;
	--kernel) kernel=$2; shift ;;
	--keep) keep=1 ;;
	*) die "unknown argument: $1" ;;
	esac
	shift
done
runs=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-results-$$
mkdir -p "$runs"
# a copy: a rebuild in the shared cache cannot change the image under us
if [ -z "$kernel" ]; then
	"$here/rig/copy-kernel.sh" --build "$runs/bzImage" || die "no kernel of the tree's series"
else
	[ -f "$kernel" ] || die "no kernel image $kernel"
	[ -f "$kernel.key" ] || die "$kernel has no $kernel.key (rig/copy-kernel.sh writes both)"
	cp "$kernel" "$runs/bzImage"
	cp "$kernel.key" "$runs/bzImage.key"
fi
kernel=$runs/bzImage
kkey=$(cat "$kernel.key")
tkey=$("$here/rig/copy-kernel.sh" --key) || die "cannot compute the tree's series key"
[ "$kkey" = "$tkey" ] || die "the image was built from series key $kkey, the tree's is $tkey"
commit=$(git -C "$here" rev-parse --short=12 HEAD)
dirty=$(git -C "$here" status --porcelain -- bench tests patches kernel-config | grep -c . || true)
series_hash=$(cat "$here"/patches/series $(sed "s|^|$here/patches/|" "$here/patches/series") | sha256sum | cut -c1-16)
npatch=$(grep -c . "$here/patches/series")

declare -A status cmdline
run_one() { # NAME CMD...
	local name=$1
	shift
	cmdline[$name]="$*"
	log "results: $name: $*"
	set +e
	"$@" > "$runs/$name.out" 2> "$runs/$name.err"
	status[$name]=$?
	set -e
	echo "${status[$name]}" > "$runs/$name.status"
	echo "$*" > "$runs/$name.cmd"
	log "results: $name exited ${status[$name]}"
}
# reuse_one NAME: an earlier run's outputs, status and command
reuse_one() {
	local name=$1
	[ -f "$reuse_dir/$name.out" ] && [ -f "$reuse_dir/$name.status" ] ||
		die "$reuse_dir has no finished $name"
	cp -a "$reuse_dir/$name.out" "$reuse_dir/$name.err" "$runs/"
	[ -d "$reuse_dir/$name" ] && cp -a "$reuse_dir/$name" "$runs/"
	status[$name]=$(cat "$reuse_dir/$name.status")
	cmdline[$name]="$(cat "$reuse_dir/$name.cmd") (reused from $reuse_dir)"
	log "results: $name reused from $reuse_dir (exit ${status[$name]})"
}
if [ -n "$reuse_dir" ]; then
	cmp -s "$reuse_dir/bzImage" "$kernel" ||
		die "--reuse: $reuse_dir booted another kernel than $kernel"
fi
for b in $only; do
	if [[ " $reuse " == *" $b "* ]]; then
		reuse_one "$b"
		continue
	fi
	case $b in
	kernel) run_one kernel env BENCH_PERF="${BENCH_PERF:-}" "$here/bench/kernel.sh" --no-build \
		--kernel "$kernel" --quiet --out "$runs/kernel" ;;
	sframe) run_one sframe "$here/bench/sframe.sh" --no-build --kernel "$kernel" --quiet \
		--out "$runs/sframe" ;;
	sframe-rows) run_one sframe-rows "$here/bench/sframe-rows.sh" --no-build --kernel "$kernel" \
		--quiet --out "$runs/sframe-rows" ;;
	python-real) run_one python-real env BENCH_PERF="${BENCH_PERF:-}" "$here/bench/python-real.sh" \
		--no-build --kernel "$kernel" --quiet --out "$runs/python-real" ;;
	cxx-real) run_one cxx-real env BENCH_WORKLOAD=cc1plus BENCH_PERF="${BENCH_PERF:-}" \
		"$here/bench/python-real.sh" --no-build --kernel "$kernel" --quiet \
		--out "$runs/cxx-real" ;;
	floor) run_one floor env BENCH_PERF="${BENCH_PERF:-}" PROF_MAP="${PROF_MAP:-}" \
		"$here/bench/floor.sh" --no-build --kernel "$kernel" --quiet ;;
	startup) run_one startup "$here/bench/startup.sh" --no-build --kernel "$kernel" --quiet \
		--out "$runs/startup" ;;
	report) run_one report "$here/bench/report.sh" --no-build --kernel "$kernel" ;;
	join) run_one join "$here/bench/join.sh" ;;
	munmap) run_one munmap "$here/bench/munmap.sh" --no-build --kernel "$kernel" --quiet \
		--out "$runs/munmap" ;;
	*) die "unknown benchmark $b" ;;
	esac
done

# what a guest benchmark printed is its output.log; the host ones, stdout
body() { # NAME
	case $1 in
	kernel|sframe|sframe-rows|python-real|cxx-real|startup) cat "$runs/$1/output.log" 2>/dev/null || echo "(no output.log: see $runs/$1)" ;;
	*) cat "$runs/$1.out" ;;
	esac
}
qemu_v=$(qemu-system-x86_64 --version | head -1)
# --keep: the sections of the existing file not run now, whole (## NAME to
# the next ## heading), with what they ran on
declare -A kept
kept_names=
if [ $keep = 1 ] && [ -f "$dest" ]; then
	prov=$(awk '/^Generated by/ { sub(/^Generated by /, ""); g = $0 }
		/^- commit:/ { c = $0 } /^- kernel:/ { k = $0 }
		/^## / { exit } END { printf "%s %s %s", g, c, k }' "$dest")
	for b in $(sed -n 's/^## \([a-z-]*\)$/\1/p' "$dest"); do
		[[ " $only " == *" $b "* ]] && continue
		kept[$b]=$(awk -v b="## $b" '$0 == b { on = 1; next } on && /^## / { exit } on && !s && /^$/ { next } on { s = 1; print }' "$dest")
		grep -q '^Ran on series key' <<< "${kept[$b]}" ||
			kept[$b]=$(printf '(kept from the earlier file: %s)\n%s' "$prov" "${kept[$b]}")
		kept_names+=" $b"
	done
fi
{
	echo "# Benchmark results"
	echo
	echo "Generated by \`bench/results.sh --only \"$only\"$([ $keep = 1 ] && echo " --keep")\` on $(date -u '+%Y-%m-%d %H:%M UTC')$([ -n "${BENCH_N:-}" ] && echo ", BENCH_N=$BENCH_N")$([ -n "${BENCH_ROUNDS:-}" ] && echo ", BENCH_ROUNDS=$BENCH_ROUNDS")."
	echo "Do not edit: rerun the command. The notes on the goals come from"
	echo "[results-notes.md](results-notes.md)."
	echo
	echo "- commit: \`$commit\`$([ "$dirty" = 0 ] || echo " plus $dirty uncommitted files under bench/, tests/, patches/, kernel-config/")"
	echo "- kernel: series key \`$kkey\` (rig/copy-kernel.sh), the series in \`patches/\` ($npatch patches; sha256 of \`series\` and the patches $series_hash), bzImage sha256 $(sha256sum "$kernel" | cut -c1-16)"
	[ -z "$kept_names" ] || echo "- kept from the file before (not run again):$kept_names"
	echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- guest: $qemu_v, TCG (instruction counts need the TCG plugin), 2 vCPUs"
	echo "- runs: \`$runs\`"
	echo
	for b in $only; do
		echo "## $b"
		echo
		echo "Ran on series key \`$kkey\`, commit \`$commit\`, $(date -u '+%Y-%m-%d %H:%M UTC')."
		echo "Command: \`${cmdline[$b]//$here\//}\`, exit status ${status[$b]}."
		echo
		echo '```'
		body $b
		echo '```'
		echo
	done
	for b in $kept_names; do
		echo "## $b"
		echo
		echo "${kept[$b]}"
	done
	if [ -f "$here/bench/results-notes.md" ]; then
		cat "$here/bench/results-notes.md"
	fi
} > "$dest.tmp"
mv "$dest.tmp" "$dest"
log "wrote $dest"
rc=0
for b in $only; do [ "${status[$b]}" = 0 ] || rc=1; done
exit $rc
