#!/bin/bash
# The readers on an s390x recording (suite s390x-readers): the
# big-endian tests/fixtures/s390x/backchain.dat (tests/s390x/record-
# fixture.sh), read on this host by stock trace-cmd, by trace-cmd with our
# libtraceevent plugin (its records as the kernel's text has them), by
# the series' trace-cmd report ($FTD_TRACECMD)
# and by ustack.  The oracle: the kernel's own text of the same trace
# (backchain.trace, recorded in the same run) named with the host's nm,
# which reads the s390x ELF.  Ends with "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
. "$REPO/rig/common.sh"
need_pkgs trace-cmd binutils python3
F=$REPO/tests/fixtures/s390x
dat=$F/backchain.dat
np=0 nf=0
check() {
	local name=$1
	shift
	if "$@"; then echo "PASS s390x-readers/$name"; np=$((np + 1))
	else echo "FAIL s390x-readers/$name"; nf=$((nf + 1)); fi
}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

# The expected names: each user_stack_deferred of the kernel's text, its
# frames named by nm (the first at its address, the others at the call:
# address - 1), one line per stack
python3 - "$F/backchain.trace" "$F/bcmini" > "$w/want" <<'PY'
import bisect, re, subprocess, sys
syms = []
for l in subprocess.run(['nm', '-n', sys.argv[2]], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and f[1] in 'Tt':
        syms.append((int(f[0], 16), f[2]))
addrs = [a for a, _ in syms]
for line in open(sys.argv[1]):
    m = re.search(r'user_stack_deferred: .* frames=\{([^}]*)\}', line)
    if m:
        fr = [int(x, 16) for x in m.group(1).split(',')]
        print(' '.join(syms[bisect.bisect_right(addrs, a if i == 0 else a - 1) - 1][1]
                       for i, a in enumerate(fr)))
PY
want_chain="bc_getppid bc_five bc_four bc_three bc_two bc_one main _start"
check "kernel-text-names-the-chain (nm oracle: $(head -1 "$w/want"))" \
	test "$(sort -u "$w/want")" = "$want_chain"
kwant=$(sed -n 's/^ => \([a-z_]*\)$/\1/p' "$F/backchain.trace" | head -3 | tr '\n' ' ')

# user_names FILE: per <user stack> block of a report, the frame names
# (not the [inlined] lines), one line per block
user_names() {
	awk '/<user stack>/ { if (u != "") print u; u = ""; on = 1; next }
	     on && /^ => .*\[inlined\]/ { next }
	     on && /^ => / { n = $2; sub(/\+0x.*/, "", n); u = u (u == "" ? "" : " ") n; next }
	     on { on = 0; print u; u = "" }
	     END { if (on && u != "") print u }' "$1"
}
kernel_names() {
	awk '/<kernel stack>/ { on = 1; k = ""; next }
	     on && /^ => / { n = $2; sub(/\+0x.*/, "", n); k = k n " "; next }
	     on { on = 0; print k }' "$1" | sort -u
}

# 1. stock trace-cmd reads the big-endian file.  Not its user frames:
# the print format's __print_array() comes out byte-swapped from bookworm's
# libtraceevent 1.7 on a big-endian file (0x10001b6 as 13114763594174562304)
trace-cmd report "$dat" > "$w/stock" 2>&1
check "stock-report-reads-it (3 events, 3 user stacks flags=0x10 depth=8)" \
	bash -c "test \$(grep -c 'sys_enter_getppid:' '$w/stock') = 3 &&
		 test \$(grep -c -E 'user_stack_deferred: .* flags=0x10 depth=8( |\$)' '$w/stock') = 3"
# and, without the plugin, names the kernel frames of each cookie record
# (the kernel's caller[] with %ps; a fixture from a kernel before it had a
# __print_array of numbers that came out byte-swapped, in decimal)
check "stock-report-kernel-frames-named (no decimal frames)" \
	bash -c "test \$(grep -c 'user_stack_cookie: .*kernel=trace_syscall_enter,__do_syscall,system_call' '$w/stock') = 3 &&
		 ! grep -q -E 'user_stack_cookie: .*kernel=.*[0-9]{12}' '$w/stock'"

# 2. our plugin in stock trace-cmd report: each record on its own, user
# frames as addresses (the kernel's text's, in order), kernel frames named
TRACEEVENT_PLUGIN_DIR=$REPO/trace-cmd/plugins trace-cmd report "$dat" > "$w/plugin" 2>&1
# record_frames FILE: per user_stack_deferred, "cookie=X frames={A,...}"
record_frames() {
	awk 'function out() { if (c != "") print c " frames={" f "}"; c = "" }
	     /user_stack_deferred: / { out(); c = $0; sub(/.*user_stack_deferred: */, "", c)
		sub(/ .*/, "", c); f = ""
		if (match($0, /frames=\{[^}]*\}/)) { f = substr($0, RSTART + 8, RLENGTH - 9); out() }
		next }
	     c != "" && /^=> 0x/ { f = f (f == "" ? "" : ",") $2; next }
	     { out() }
	     END { out() }' "$1"
}
plugin_knames() {
	awk '/user_stack_cookie: / { if (k != "") print k; k = ""; on = 1; next }
	     on && /^=> / { n = $2; sub(/\+0x.*/, "", n); k = k n " "; next }
	     { on = 0 }
	     END { if (k != "") print k }' "$1" | sort -u
}
check "plugin-user-frames-as-the-kernel-wrote-them ($(record_frames "$F/backchain.trace" | wc -l) stacks)" \
	test "$(record_frames "$w/plugin")" = "$(record_frames "$F/backchain.trace")"
check "plugin-kernel-stacks-named ($kwant)" test "$(plugin_knames "$w/plugin")" = "$kwant"

# 3. the series' trace-cmd report
if [ -n "${FTD_TRACECMD:-}" ] && [ -x "$FTD_TRACECMD" ]; then
	"$FTD_TRACECMD" report "$dat" > "$w/series" 2>&1
	check "series-report-user-stacks-named" \
		test "$(user_names "$w/series")" = "$(cat "$w/want")"
	check "series-report-kernel-stacks-named" test "$(kernel_names "$w/series")" = "$kwant"
else
	echo "FAIL s390x-readers/series-report # no \$FTD_TRACECMD (rig/build-tracecmd.sh)"
	nf=$((nf + 1))
fi

# 4. ustack, built here, so that the suite does not rely on an earlier
# one's build: the user frames and the kernel frames (s390x kernel text
# lies at 0x3ffe..., where x86-64 has user space: the trace's own
# architecture says which rules hold).  Its trace.dat reader needs the
# series' libtracecmd: $FTD_TRACECMD's prefix, else rig/build-tracecmd.sh's
tc=${FTD_TRACECMD:-}
[ -x "$tc" ] || tc=$("$REPO/rig/build-tracecmd.sh" 2> "$w/tracecmd.log") || cat "$w/tracecmd.log"
PKG_CONFIG_PATH=$(dirname "$(dirname "$tc")")/lib/pkgconfig \
	make -s -C "$REPO/libustack" > "$w/ustack-make.log" 2>&1 || cat "$w/ustack-make.log"
"$REPO/libustack/build/ustack" --tracer-frames "$dat" > "$w/ustack" 2> "$w/ustack.err"
urc=$?
cat "$w/ustack.err" >> "$w/ustack"
kn=$(awk '/status=/ { on = 1; k = ""; next }
	  on && /^  k / { n = $2; sub(/\+0x.*/, "", n); k = k n " "; next }
	  on && /^  u / { on = 0; print k }' "$w/ustack" | sort -u)
check "ustack-kernel-stacks-named ($kwant)" test "$kn" = "$kwant"
check "ustack-exit-0-no-damage-warning (was 3: 9 implausible kernel frames)" \
	bash -c "test $urc = 0 && ! grep -q 'looks damaged' '$w/ustack.err'"
awk '/status=complete/ { if (u != "") print u; u = ""; next }
     /^  u / { n = $2; sub(/\+0x.*/, "", n); u = u (u == "" ? "" : " ") n }
     END { if (u != "") print u }' "$w/ustack" > "$w/ustack.names"
check "ustack-user-stacks-named (3 complete)" \
	bash -c "test \$(grep -c 'status=complete' '$w/ustack') = 3 &&
		 diff -q '$w/ustack.names' '$w/want' > /dev/null"
echo "$np passed, $nf failed"
[ $nf = 0 ]
