# Helpers shared by the in-guest SFrame benchmarks (bench-sframe.sh,
# bench-sframe-rows.sh, bench-python.sh and others).  Source after lib.sh; they need CPU and ICLOG.

# bench_insns FROM ID: the instructions the TCG plugin counted on CPU for
# marker ID, from line FROM + 1 of ICLOG on; "-" when it has none
bench_insns() {
	local i
	i=$(tail -n +$(($1 + 1)) "$ICLOG" | grep -m1 "id=$2 ")
	case $i in
	"insn-count vcpu=$CPU id=$2 insns="*) echo "${i##*insns=}" ;;
	*) echo - ;;
	esac
}

# bench_insns_sum FROM ID COUNT: the sum of the COUNT counts of marker ID
# from line FROM + 1 of ICLOG on, on any vCPU; "-" unless there are COUNT,
# all matched (printf: mawk prints a sum past 2^31 as 5.18e+09)
bench_insns_sum() {
	tail -n +$(($1 + 1)) "$ICLOG" | awk -v id="id=$2" -v want=$3 '
		$1 == "insn-count" && $3 == id { n++; if ($4 ~ /^insns=/) s += substr($4, 7); else bad = 1 }
		END { if (n == want && !bad) printf "%.0f\n", s; else print "-" }'
}

# bench_lost INSTANCE_DIR: events the instance's ring buffers lost
# (overrun, commit overrun, dropped)
bench_lost() {
	cat "$1"/per_cpu/cpu*/stats | awk '/^overrun:/ { o += $2 }
		/^commit overrun:/ { o += $3 } /^dropped events:/ { o += $3 }
		END { print o + 0 }'
}

# median: of the numbers on stdin (words); "-" for none
median() { tr ' ' '\n' | grep -x '[0-9][0-9]*' | sort -n |
	awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }

# bench_refuse KEY CHECK: unless CHECK is "ok", add it to why[KEY] (the
# caller's associative array) and set failed=1: KEY gives no row
bench_refuse() {
	[ "$2" = ok ] && return 0
	why[$1]=${why[$1]:-}${why[$1]:+,}$2
	failed=1
}
