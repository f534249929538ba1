#!/bin/bash
# Where the instructions of a traced event go: bench/kernel.sh's loop in
# one boot, one round of each mode, with the TCG plugin's profile on
# (BENCH_PROF=1), then its blocks mapped to kernel functions with the
# System.map of the kernel that ran.  Prints per mode the functions that
# ran most, in instructions per traced event, and the functions whose
# count differs most between pairs of modes (defer against stacktrace,
# defer against defer-first): the measured answer to "what does
# stacktrace:defer add to stacktrace, and where".
#
#   bench/profile.sh [rig/run-guest.sh options, e.g. --no-build]
#
# BENCH_N (default 10000; perf's loops too), BENCH_DEPTH and BENCH_CPU as
# for bench/kernel.sh; PROF_MODES (default "off none stacktrace defer
# defer-first"; perf-* modes use rig/build-perf.sh's perf or BENCH_PERF),
# PROF_EVENTS (asking events per entry, default 4), PROF_DIFFS (pairs
# A:B, default "defer:stacktrace defer:defer-first stacktrace:none");
# PROF_TOP (default 25) rows per table; PROF_MAP the System.map (default
# the one of the kernel build the rig boots).
# With PROF_LOG=FILE PROF_N=N, only maps an existing profile.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/rig/common.sh"
ensure_cache

modes=${PROF_MODES:-"off none stacktrace defer defer-first"}
events=${PROF_EVENTS:-4}
diffs=${PROF_DIFFS:-"defer:stacktrace defer:defer-first stacktrace:none"}
N=${BENCH_N:-10000}
perf=0
case " $modes " in *" perf-"*) perf=${BENCH_PERF:-} ;; esac
map=${PROF_MAP:-$CACHE/build/System.map}
log_file=${PROF_LOG:-}
if [ -z "$log_file" ]; then
	out=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-profile-$$
	mkdir -p "$out"
	# one depth, the 4-event set, no short runs: one count per mode,
	# in the order of $modes
	BENCH_PROF=1 BENCH_ROUNDS=1 BENCH_PERF=$perf BENCH_N=$N BENCH_PERF_N=$N \
		BENCH_EVENTS=$events \
		BENCH_BYTES=0 BENCH_DEPTHS="${BENCH_DEPTH:-0}" \
		BENCH_MODES="$modes" "$here/bench/kernel.sh" --out "$out" "$@" |
		tee "$out/bench.txt" >&2
	log_file=$out/prof.log
else
	N=${PROF_N:?PROF_N: the loop length of that run}
fi
[ -s "$log_file" ] || die "no profile in $log_file"
[ -f "$map" ] || die "no System.map at $map"
python3 - "$log_file" "$map" "$N" "$modes" "${PROF_TOP:-25}" "$events" "$diffs" "$here/bench" <<'EOF'
import sys

log, mapf, n, modes, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
	sys.argv[4].split(), int(sys.argv[5])
events, diffs = int(sys.argv[6]), [d.split(':') for d in sys.argv[7].split()]
sys.path.insert(0, sys.argv[8])
import profmap
profiles = profmap.profiles(log, profmap.system_map(mapf))
if len(profiles) < len(modes):
	sys.exit('profile.sh: %d counts in the profile, want one per mode (%s)'
		 % (len(profiles), ' '.join(modes)))
# one round: the counts come in the order of the modes
prof = dict(zip(modes, profiles[-len(modes):]))
ev = events * n	# traced events per syscall, times the loop

def per_event(m, s):
	return prof[m].get(s, 0) / ev

for m in modes:
	if m == 'off':
		continue
	tot = sum(prof[m].values()) - sum(prof['off'].values())
	print('%s: %.1f insn/event above off; top functions (insn/event):'
	      % (m, tot / ev))
	for s, v in sorted(prof[m].items(), key=lambda kv: -kv[1])[:top]:
		print('  %9.1f  %s' % (v / ev, s))
	print()

def diff(a, b):
	syms = set(prof[a]) | set(prof[b])
	d = sorted(((per_event(a, s) - per_event(b, s), s) for s in syms),
		   key=lambda x: -abs(x[0]))
	tot = sum(x[0] for x in d)
	print('%s - %s: %+.1f insn/event; largest differences:' % (a, b, tot))
	for v, s in d[:top]:
		print('  %+9.1f  %s' % (v, s))
	print()

for a, b in diffs:
	diff(a, b)
EOF
