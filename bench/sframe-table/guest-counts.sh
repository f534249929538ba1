#!/bin/bash
# measurement-only: the kept-rule table on (dbg_rules=1) and bypassed (0) in one boot,
# plus in-kernel counters of table hits/misses and inline row lookups
R=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
P=/sys/module/sframe/parameters
T=/sys/kernel/tracing
WL=$R/tests/workload
counts() { # LABEL CMD...: run CMD traced (stacktrace:defer on getppid), print counters
	local label=$1; shift
	echo 0 > $P/dbg_hit; echo 0 > $P/dbg_miss; echo 0 > $P/dbg_row
	[ -d $T/instances/cnt ] && rmdir $T/instances/cnt
	mkdir $T/instances/cnt; echo 16384 > $T/instances/cnt/buffer_size_kb
	echo stacktrace:defer > $T/instances/cnt/events/syscalls/sys_enter_getppid/trigger
	"$@" > /dev/null
	echo '!stacktrace:defer' > $T/instances/cnt/events/syscalls/sys_enter_getppid/trigger
	n=$(grep -c user_stack_deferred: $T/instances/cnt/trace)
	rmdir $T/instances/cnt
	h=$(cat $P/dbg_hit) m=$(cat $P/dbg_miss) r=$(cat $P/dbg_row)
	awk -v l="$label" -v h=$h -v m=$m -v r=$r -v n=$n 'BEGIN {
		printf "COUNT %-34s stacks %5d table-hit %7d table-miss %7d row-inline %7d  table hit rate %.3f  of all lookups: hit %.3f row %.3f miss %.3f\n",
		l, n, h, m, r, (h + m) ? h / (h + m) : 0, h / (h + m + r), r / (h + m + r), m / (h + m + r) }'
}
echo 2 > $P/decode
for rules in 1 0; do
	echo $rules > $P/dbg_rules
	for a in 64 256 1024 4096; do
		counts "rules=$rules rotate A=$a D=16" env LD_PRELOAD=$WL/libsframe-preload.so $WL/sfchain-big bench 300 16 $((a / 16))
	done
	counts "rules=$rules cold big D=32" env LD_PRELOAD=$WL/libsframe-preload.so $WL/sfchain-big bench 300 32 1 cold
done
echo 1 > $P/decode
echo 1 > $P/dbg_rules
$R/bench/sframe-table/guest-rows.sh
