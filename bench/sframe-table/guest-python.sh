#!/bin/bash
# measurement-only: python3-real with the kept-rule table on (dbg_rules=1) and bypassed (0),
# decode=1 (default) and decode=2, in one boot; counters of table hits/misses and inline row lookups
R=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
P=/sys/module/sframe/parameters
for dec in 1 2; do
	for rules in 1 0; do
		echo $dec > $P/decode
		echo $rules > $P/dbg_rules
		echo 0 > $P/dbg_hit; echo 0 > $P/dbg_miss; echo 0 > $P/dbg_row
		echo "=== python3-real decode=$dec dbg_rules=$rules"
		BENCH_ROUNDS=1 $R/tests/guest/bench-python-real.sh
		h=$(cat $P/dbg_hit) m=$(cat $P/dbg_miss) r=$(cat $P/dbg_row)
		awk -v l="decode=$dec rules=$rules" -v h=$h -v m=$m -v r=$r 'BEGIN {
			printf "COUNT python3-real %-18s table-hit %7d table-miss %7d row-inline %7d  table hit rate %.3f  of all lookups: hit %.3f row %.3f miss %.3f\n",
			l, h, m, r, (h + m) ? h / (h + m) : 0, h / (h + m + r), r / (h + m + r), m / (h + m + r) }'
	done
done
echo 1 > $P/decode
echo 1 > $P/dbg_rules
