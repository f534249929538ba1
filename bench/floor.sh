#!/bin/bash
# The floor of a deferred user stack's cost per frame (issue 37 goal 2):
# where the instructions of one more user frame go, for ftrace's
# stacktrace:defer (the frame-pointer walk in task context, one record),
# perf's in-place frame-pointer walk (--call-graph fp) and perf's deferred
# one (fp,defer), read against what no implementation can avoid: one
# walk (two user reads and their checks a frame) and one copy of 8 bytes
# a frame into the record.
#
# One boot of bench/kernel.sh's loop (callchain bench N DEPTH, one
# getppid() a kernel entry, raw_syscalls:sys_enter asking) with the TCG
# plugin's profile on (BENCH_PROF=1), one round of each mode at depths 0
# and 34: 5 and 39 user frames, the frames column of bench/kernel.sh.
# Each function's count is mapped with the System.map of the kernel that
# ran (bench/profile.sh's mapping), and the difference between the two
# depths, divided by the 34 frames, is split in three parts:
#   walk    the user unwinder: unwind_user*, sframe*, the user reads
#           (*get_user*, copy_from_user*), perf_callchain_user
#   record  writing the frames: memcpy, the ring buffer (rb_*,
#           ring_buffer_*), trace_unwind_write*, perf's output
#           (perf_output_*, perf_callchain_deferred*), [user]: none
#   other   the rest (printed by function when it is above 1 a frame)
# The walk alone and the record alone are thus measured in the same run
# as the whole, not in separate synthetic kernels: the floor is the
# cheapest walk part plus the cheapest record part.
#
#   bench/floor.sh [rig/run-guest.sh options, e.g. --no-build --kernel IMG]
#
# BENCH_N (default 2000, perf's loop too), BENCH_CPU, BENCH_PERF (perf,
# default rig/build-perf.sh's), PROF_MAP (System.map, default the rig's
# build; it must be the booted image's).  With PROF_LOG=FILE only maps
# an existing profile of such a run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
ensure_cache

N=${BENCH_N:-2000}
modes="off defer perf-fp perf-fpdefer"
map=${PROF_MAP:-$CACHE/build/System.map}
log_file=${PROF_LOG:-}
if [ -z "$log_file" ]; then
	perf=${BENCH_PERF:-$("$here/rig/build-perf.sh")} || die "no perf (BENCH_PERF)"
	out=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-floor-$$
	mkdir -p "$out"
	BENCH_PROF=1 BENCH_ROUNDS=1 BENCH_PERF=$perf BENCH_N=$N BENCH_PERF_N=$N \
		BENCH_EVENTS=1 BENCH_BYTES=0 BENCH_DEPTHS="0 34" \
		BENCH_MODES="$modes" "$here/bench/kernel.sh" --out "$out" "$@" |
		tee "$out/bench.txt" >&2
	log_file=$out/prof.log
fi
[ -s "$log_file" ] || die "no profile in $log_file"
# the map must be the booted image's: with the default map, the image
# given with --kernel must be the rig's build
if [ -z "${PROF_MAP:-}" ]; then
	img=$CACHE/build/arch/x86/boot/bzImage prev=
	for a in "$@"; do
		[ "$prev" = --kernel ] && img=$a
		prev=$a
	done
	cmp -s "$img" "$CACHE/build/arch/x86/boot/bzImage" ||
		die "$img is not the rig's build: give its System.map as PROF_MAP"
fi
[ -f "$map" ] || die "no System.map at $map"
python3 - "$log_file" "$map" "$N" "$modes" "$here/bench" <<'EOF'
import re, sys

log, mapf, n, modes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
depths, frames = (0, 34), 34
sys.path.insert(0, sys.argv[5])
import profmap
profiles = profmap.profiles(log, profmap.system_map(mapf))
want = len(depths) * len(modes)
if len(profiles) < want:
	sys.exit('floor.sh: %d counts in the profile, want %d (%s at depths 0 and 34)'
		 % (len(profiles), want, ' '.join(modes)))
# one round: per depth, off and then each mode (tests/guest/bench-guest.sh)
profiles = profiles[-want:]
prof = {(d, m): profiles[i * len(modes) + j]
	for i, d in enumerate(depths) for j, m in enumerate(modes)}

WALK = re.compile(r'^(unwind_user|sframe|__get_user|get_user|copy_from_user|'
		  r'_copy_from_user|__copy_user|rep_movs|copy_user|'
		  r'perf_callchain_user|fault_in|__check_object)')
RECORD = re.compile(r'^(memcpy|__memcpy|memmove|rb_|__rb_|ring_buffer_|'
		    r'trace_unwind_write|trace_buffer_|__buffer_unlock|'
		    r'perf_output_|__output_|perf_callchain_deferred|'
		    r'perf_event_callchain_deferred|perf_prepare_sample)')

def part(s):
	if s == '[user]':
		return 'user'
	if WALK.match(s):
		return 'walk'
	if RECORD.match(s):
		return 'record'
	return 'other'

print('user frames %d and %d (depths 0 and 34), N=%d, one round; instructions per '
      'frame: (count at depth 34 - count at depth 0) / %d frames / N' % (5, 39, n, frames))
print('%-14s %8s %8s %8s %8s %8s' % ('mode', 'frame', 'walk', 'record', 'other', 'user'))
slopes = {}
for m in modes[1:]:
	lo, hi = prof[(0, m)], prof[(34, m)]
	# the loop itself (off) does not change with the mode
	per = {s: (hi.get(s, 0) - lo.get(s, 0)) / frames / n for s in set(lo) | set(hi)}
	offd = {s: (prof[(34, 'off')].get(s, 0) - prof[(0, 'off')].get(s, 0)) / frames / n
		for s in set(prof[(0, 'off')]) | set(prof[(34, 'off')])}
	for s, v in offd.items():
		per[s] = per.get(s, 0) - v
	parts = {'walk': 0.0, 'record': 0.0, 'other': 0.0, 'user': 0.0}
	for s, v in per.items():
		parts[part(s)] += v
	slopes[m] = (per, parts)
	print('%-14s %8.1f %8.1f %8.1f %8.1f %8.1f' % (m, sum(parts.values()), parts['walk'],
							 parts['record'], parts['other'], parts['user']))
print()
for m in modes[1:]:
	per, parts = slopes[m]
	print('%s, per frame by function (|x| >= 0.5):' % m)
	for s, v in sorted(per.items(), key=lambda kv: -abs(kv[1])):
		if abs(v) < 0.5:
			break
		print('  %8.1f  %-6s %s' % (v, part(s), s))
	print()
walk = min(slopes[m][1]['walk'] for m in modes[1:])
rec = min(slopes[m][1]['record'] for m in modes[1:] if slopes[m][1]['record'] > 0)
print('floor: the cheapest walk %.1f + the cheapest record %.1f = %.1f instructions a frame'
      % (walk, rec, walk + rec))
for m in modes[1:]:
	print('  %-14s %.1f a frame, %.2fx the floor' % (m, sum(slopes[m][1].values()),
						     sum(slopes[m][1].values()) / (walk + rec)))
EOF
