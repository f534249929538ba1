#!/bin/bash
# measurement-only: the sframe-rows bench with the kept-rule table on
# (dbg_rules=1) and bypassed (0), in one boot; used by guest.sh and
# guest-counts.sh
R=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
P=/sys/module/sframe/parameters
for rules in 1 0; do
	echo $rules > $P/dbg_rules
	echo "=== sframe-rows with dbg_rules=$rules"
	BENCH_N=300 BENCH_ROUNDS=1 BENCH_NOIDX=0 BENCH_INSN_LOG=$FTD_RESULTS/insn-count.log $R/tests/guest/bench-sframe-rows.sh
done
echo 1 > $P/dbg_rules
