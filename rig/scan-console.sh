#!/bin/bash
# Scan a guest console log for kernel problems.
#
#   rig/scan-console.sh CONSOLE_LOG
#
# Looks only at kernel messages (lines carrying a printk timestamp
# "[   12.345678]"), so the test's own output cannot trip it.  Fails (exit 1,
# offending lines on stdout) on: panic, Oops, WARNING:, BUG:, kernel BUG at,
# lockdep reports, KASAN/UBSAN, hung tasks, RCU stalls, general protection
# faults, and any "Call Trace" outside an expected region.  A test that
# provokes stack dumps on purpose (sysrq, NMI backtraces) brackets them with
#   echo "ftd-expect: begin <why>" > /dev/kmsg   ...   echo "ftd-expect: end" > /dev/kmsg
# (tests/guest/lib.sh: expect_traces_begin / expect_traces_end).  Inside
# such a region only "Call Trace" is tolerated; everything else still fails.
set -euo pipefail
log=${1:?usage: scan-console.sh CONSOLE_LOG}
[ -f "$log" ] || { echo "no console log $log"; exit 1; }
awk '
BEGIN {
	fatal = "Kernel panic|Oops|WARNING:|BUG:|kernel BUG at|lockdep|possible recursive locking|" \
		"circular locking|inconsistent lock state|KASAN|UBSAN|INFO: task .* blocked for more than|" \
		"rcu: INFO:|self-detected stall|detected stalls|general protection fault|" \
		"Unable to handle kernel|stack-protector|stack guard page|double fault|refcount_t:"
	# Benign messages that match the patterns above.
	benign = "RCU lockdep checking is enabled|Lock dependency validator|" \
		"kasan: KernelAddressSanitizer initialized"
}
{
	sub(/\r$/, "")
	if (!match($0, /\[ *[0-9]+\.[0-9]+\] /))
		next
	msg = substr($0, RSTART + RLENGTH)
	kline[++nk] = $0
	if (msg ~ /ftd-expect: begin/) { expect = 1; next }
	if (msg ~ /ftd-expect: end/) { expect = 0; next }
	if (msg ~ benign)
		next
	if (msg ~ fatal || (!expect && msg ~ /Call Trace/)) {
		hits++
		if (hits <= 20)
			printf "%s:%d: %s\n", name, NR, $0
		if (!first)
			first = nk
	}
}
END {
	if (!hits)
		exit 0
	if (hits > 20)
		printf "... %d offending lines in all\n", hits
	print "--- kernel messages around the first one ---"
	for (i = (first > 5 ? first - 5 : 1); i <= nk && i < first + 45; i++)
		print kline[i]
	exit 1
}' name="$(basename "$log")" "$log"
