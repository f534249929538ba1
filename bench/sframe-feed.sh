#!/bin/bash
# Benchmark: the user space half of feeding the kernel SFrame sections for
# processes already running (issue 36; decisions.md, System-wide):
# sframe-gen/build/sframe-feed finds the objects of running processes and
# makes each one's section in the registrar's cache (generated on a miss).
#
#   bench/sframe-feed.sh [RUNS]      (default 7)
#
# Starts Debian's own python3.11 and bash (blocked reading a pipe), then
# RUNS times: sframe-feed -p their pids with a fresh cache (cold), then
# again with that cache (warm).  Prints, per object, the CPU ms of each
# (min/median/max) and the section's bytes; then the instructions of one
# cold and one warm run (valgrind's callgrind: the figure to decide on,
# times swing on this shared machine); then one cold and one warm run over
# every process of the machine (objects, bytes: the memory the kernel
# would hold for them all); and a check that the registrar takes the
# feeder's cache files (SFREG_DEBUG: "cached section").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
out=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT

"$here/sframe-gen/deps.sh" >/dev/null
make -s -C "$here/sframe-gen" OUT="$out/gen" all >&2
feed=$out/gen/sframe-feed
py=/usr/bin/python3.11
[ -x "$py" ] || { echo "no $py" >&2; exit 1; }

mkfifo "$out/fifo"
"$py" -c 'import sys; sys.stdin.read()' < "$out/fifo" &
pids+=($!)
/usr/bin/bash -c 'read -r x' < "$out/fifo" &
pids+=($!)
exec 9> "$out/fifo"	# both block in read() until the end
sleep 1
args=()
for p in "${pids[@]}"; do args+=(-p "$p"); done

for i in $(seq "$runs"); do
	SFREG_CACHE_DIR=$out/c$i "$feed" "${args[@]}" | sed 's/^/cold /' >> "$out/runs"
	SFREG_CACHE_DIR=$out/c$i "$feed" "${args[@]}" | sed 's/^/warm /' >> "$out/runs"
done

python3 - "$out/runs" <<'EOF'
import statistics, sys
rows = {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) != 5 or f[1] not in ('gen', 'hit', 'own', 'fail'):
        continue
    mode, what, size, ms, path = f
    r = rows.setdefault(path, {'cold': [], 'warm': [], 'bytes': int(size), 'what': set()})
    r[mode].append(float(ms))
    r['what'].add('%s:%s' % (mode, what))
def s3(v):
    v = sorted(v)
    return '%.2f/%.2f/%.2f' % (v[0], statistics.median(v), v[-1]) if v else '-'
print('%-44s %22s %22s %9s %9s' % ('object', 'cold ms (min/med/max)', 'warm ms (min/med/max)', 'ratio', 'bytes'))
for p, r in sorted(rows.items(), key=lambda x: -x[1]['bytes']):
    c, w = statistics.median(r['cold']), statistics.median(r['warm'])
    print('%-44s %22s %22s %9s %9d' % (p[-44:], s3(r['cold']), s3(r['warm']),
          '%.0fx' % (c / w) if w else '-', r['bytes']))
    if 'cold:gen' not in r['what'] or 'warm:hit' not in r['what']:
        print('  (not generated cold and found warm: %s)' % ' '.join(sorted(r['what'])))
EOF

# instructions: one cold and one warm run under callgrind
ir() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		awk '/Collected :/ { print $NF }'
}
cold_ir=$(SFREG_CACHE_DIR=$out/ir ir "$feed" -q "${args[@]}")
warm_ir=$(SFREG_CACHE_DIR=$out/ir ir "$feed" -q "${args[@]}")
echo "instructions (callgrind), python3.11 and bash: cold $cold_ir, warm $warm_ir," \
	"ratio $(awk -v c="$cold_ir" -v w="$warm_ir" 'BEGIN { printf "%.1f", c / w }')x"

# every process of the machine
SFREG_CACHE_DIR=$out/all "$feed" -q | head -1 | sed 's/^/all processes, cold: /'
SFREG_CACHE_DIR=$out/all "$feed" -q | head -1 | sed 's/^/all processes, warm: /'

# the registrar takes what the feeder stored
SFREG_DEBUG=1 SFREG_CACHE_DIR=$out/c1 LD_AUDIT=$out/gen/libsframe-register.so \
	/usr/bin/bash -c true 2> "$out/reg" || true
n=$(grep -c 'cached section' "$out/reg" || true)
echo "registrar with the feeder's cache (bash -c true): $n objects from it ($(grep -c 'generated section' "$out/reg" || true) generated)"
echo "($runs runs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
