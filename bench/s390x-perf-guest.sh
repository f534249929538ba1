#!/bin/sh
# The guest half of bench/s390x-perf.sh (busybox sh, s390x guest, in
# /ftd): bytes per event of stacktrace:defer and of perf record on the
# same event, sys_enter_getppid of bcwork-bc's bench loop (N getppid()
# calls), at user stacks of 3 and 40 frames.  perf's call graphs: dwarf
# (default user stack dump, 8192 bytes), dwarf,SIZE for each SIZE of
# DWARF_SIZES, fp (the kernel's back-chain walk, perf_callchain_user())
# and fp,defer (the deferred callchain of unwind_user, as ours).
# Prints "=== ..." lines for the host.
N=${N:-500}
DWARF_SIZES=${DWARF_SIZES:-}
T=/sys/kernel/tracing
E=$T/events/syscalls/sys_enter_getppid
echo 8192 > $T/buffer_size_kb
echo "=== perf-version $(./perf --version 2>&1)"
# /proc/sys/kernel/perf_event_paranoid exists when the kernel has
# CONFIG_PERF_EVENTS; without it perf_event_open() is not there.
[ -e /proc/sys/kernel/perf_event_paranoid ] && pe=yes || pe=no
echo "=== perf-events $pe"
# every event a sample: no throttling (as tests/guest/bench-guest.sh)
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null
# perf report -D prints every record as "... [0xSIZE]: PERF_RECORD_TYPE":
# the bytes of the sample and deferred callchain records, summed, and
# the records that say data was lost.
recsum='function hex(s,  i, c, v) { v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
	return v }
function size(l,  m) { m = l; sub(/.*\[0x/, "", m); sub(/\].*/, "", m); return hex(m) }
/\[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE/ { s += size($0); n++ }
/\[0x[0-9a-f]+\]: PERF_RECORD_CALLCHAIN_DEFERRED/ { ds += size($0); dn++ }
/\[0x[0-9a-f]+\]: PERF_RECORD_LOST/ { lost++ }
/\[0x[0-9a-f]+\]: PERF_RECORD_THROTTLE/ { thr++ }
END { printf "sample_bytes=%d samples=%d deferred_bytes=%d deferred=%d lost=%d throttle=%d\n",
	s, n, ds, dn, lost, thr }'
# perf script (callchain lines indented, one blank line after each
# sample): the user frames of each sample (those not in the kernel),
# their most common count, the fewest and the most.
depth='function done() { if (insample) { c[u]++; if (min == "" || u < min) min = u; if (u > max) max = u }
	insample = 0; u = 0 }
/^[ \t]*$/ { done(); next }
/^[ \t]/ { if ($0 !~ /\[kernel\.kallsyms\]/) u++; next }
{ done(); insample = 1 }
END { done(); best = -1; for (k in c) if (c[k] > best) { best = c[k]; mode = k }
	printf "frames=%s frames_min=%s frames_max=%d stacks=%d\n", mode == "" ? "-" : mode,
		min == "" ? "-" : min, max, best < 0 ? 0 : best }'

perf_run() { # NAME FRAMES CALLGRAPH MMAP
	rm -f /tmp/perf.data
	./perf record -o /tmp/perf.data -e syscalls:sys_enter_getppid -c 1 -m $4 \
		--no-buildid --call-graph $3 ./bcwork-bc bench $N $2 > /tmp/perf.out 2>&1
	rc=$?
	size=$(cat /tmp/perf.data 2>/dev/null | wc -c)
	s=$(./perf report -D -i /tmp/perf.data 2>/dev/null | awk "$recsum")
	f=$(./perf script -i /tmp/perf.data --no-inline -F comm,ip,sym,dso 2>/dev/null | awk "$depth")
	echo "=== perf $1 $2 rc=$rc cg=$3 file_bytes=$size calls=$N $s $f"
	[ $rc = 0 ] || grep -v '^bench ' /tmp/perf.out | head -6 | sed "s/^/=== perf-out $1 $2 /"
	grep -i 'lost\|throttl' /tmp/perf.out | head -3 | sed "s/^/=== perf-out $1 $2 /"
	# one merged sample, for the record
	./perf script -i /tmp/perf.data --no-inline -F comm,ip,sym,dso 2>/dev/null |
		awk 'NR > 1 && /^[ \t]*$/ { exit } { print }' | head -60 | sed "s/^/=== sample $1 $2 /"
}

for frames in 3 40; do
	# Ours: the trigger alone, as bench/s390x.sh runs it; the ring
	# buffer's per-cpu "bytes" (the written events, headers included).
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 'stacktrace:defer if comm == "bcwork-bc"' > $E/trigger
	echo 1 > $T/tracing_on
	./bcwork-bc bench $N $frames > /dev/null
	echo 0 > $T/tracing_on
	echo '!stacktrace:defer' > $E/trigger
	b=$(cat $T/per_cpu/cpu*/stats | awk '/^bytes:/ { s += $2 } END { print s + 0 }')
	o=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	echo "=== ours $frames bytes=$b overrun=$o calls=$N stacks=$(grep -c ' user_stack_deferred: ' $T/trace) cookies=$(grep -c ' user_stack_cookie: ' $T/trace)"
	grep -m1 ' user_stack_cookie: ' $T/trace | sed "s/^/=== sample ours $frames /"
	grep -m1 ' user_stack_deferred: ' $T/trace | sed "s/^/=== sample ours $frames /"
	echo > $T/trace
	perf_run dwarf $frames dwarf 64M
	for sz in $DWARF_SIZES; do
		perf_run dwarf-$sz $frames dwarf,$sz 128M
	done
	perf_run fp $frames fp 16M
	perf_run fpdefer $frames fp,defer 16M
done
exit 0
