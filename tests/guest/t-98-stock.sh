#!/bin/bash
# Stock Debian programs, used as they are (no frame pointers, no .sframe):
# with the registrar (sframe-gen/build/libsframe-register.so, SFrame made
# from each object's .eh_frame), the deferred user stack of a task blocked
# in a syscall must equal what eu-stack (elfutils, CFI through ptrace)
# sees of the same task at the same point, frame by frame down to _start
# or the thread start.  Without it (the negative twin) the stack is cut.
# sframe-gen/Documentation/sframe-gen.txt and Documentation/sframe.md.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
SG=$REPO/sframe-gen/build
REG=$SG/libsframe-register.so
SC="python3 $REPO/tests/guest/stockcheck.py"
CACHE_DIR=$(mktemp -d /tmp/sfcache.XXXXXX)
reset_tracing

# stock NAME WANT SYSCALL FD MODE COMM CMD...: trigger stacktrace:defer on
# SYSCALL's entry for COMM on FD in instance NAME, run CMD blocked there
# (MODE --stdin or --stdout), compare with eu-stack (WANT same|short)
stock() {
	local name=$1 want=$2 sc=$3 fd=$4 mode=$5 comm=$6
	shift 6
	mkinst "$name" &&
	trig "$name" "syscalls/sys_enter_$sc" \
		"stacktrace:defer if fd == $fd && comm == \"$comm\"" || return 1
	echo 1 > "$(idir "$name")/tracing_on"
	check "$* against eu-stack ($want)" $SC --trace "$(idir "$name")/trace" \
		--syscall "$sc" --fd "$fd" "$mode" --want "$want" \
		--keep "$TRACES" -- "$@" || return 1
	save "$name" "$name" > /dev/null
	echo '!stacktrace:defer' > "$(idir "$name")/events/syscalls/sys_enter_$sc/trigger"
}

# the registrar as LD_AUDIT: every object, dlopen()ed ones too
WITH=(env SFREG_CACHE_DIR="$CACHE_DIR" LD_AUDIT="$REG")

t_begin stock-tools-present
for f in "$REG" "$SG/libsframe-gen.so" /usr/bin/eu-stack /usr/bin/python3 \
	 /bin/bash /bin/ls /usr/bin/apt-cache; do
	[ -e "$f" ] || { t_fail "$f is missing"; break; }
done && t_pass

PY=/usr/bin/python3
t_begin stock-python3-whole
stock pyreg same read 0 --stdin python3 "${WITH[@]}" $PY -c 'import sys; sys.stdin.read(1)' &&
t_pass
t_begin stock-python3-without-registrar-short
stock pyfp short read 0 --stdin python3 $PY -c 'import sys; sys.stdin.read(1)' &&
t_pass

# the cache made by the first run serves the second: same stack
t_begin stock-python3-warm-cache
ls "$CACHE_DIR"/*.sframe > /dev/null 2>&1 || t_fail "nothing cached in $CACHE_DIR" &&
stock pywarm same read 0 --stdin python3 "${WITH[@]}" $PY -c 'import sys; sys.stdin.read(1)' &&
t_pass

t_begin stock-python3-thread-whole
stock pythr same read 0 --stdin python3 "${WITH[@]}" $PY -c \
	'import sys, threading; t = threading.Thread(target=sys.stdin.read, args=(1,)); t.start(); t.join()' &&
t_pass

t_begin stock-bash-whole
stock bashreg same read 0 --stdin bash "${WITH[@]}" /bin/bash -c 'read x' && t_pass
t_begin stock-bash-without-registrar-short
stock bashfp short read 0 --stdin bash /bin/bash -c 'read x' && t_pass

t_begin stock-ls-whole
stock lsreg same write 1 --stdout ls "${WITH[@]}" /bin/ls -lR /usr/share && t_pass
t_begin stock-ls-without-registrar-short
stock lsfp short write 1 --stdout ls /bin/ls -lR /usr/share && t_pass

# C++ (apt is Debian's, libstdc++)
t_begin stock-cxx-apt-cache-whole
stock aptreg same write 1 --stdout apt-cache "${WITH[@]}" /usr/bin/apt-cache dump && t_pass
t_begin stock-cxx-apt-cache-without-registrar-short
stock aptfp short write 1 --stdout apt-cache /usr/bin/apt-cache dump && t_pass

# The registrar as LD_PRELOAD (what /etc/ld.so.preload gives): the
# objects loaded at start
t_begin stock-python3-preload-whole
stock pypre same read 0 --stdin python3 env SFREG_CACHE_DIR="$CACHE_DIR" \
	LD_PRELOAD="$REG" $PY -c 'import sys; sys.stdin.read(1)' && t_pass

# perf's fp,defer walks with the same kernel unwinder: the same sections
# give it the whole stack (needs FTD_PERF, rig/build-perf.sh)
PERF=${FTD_PERF:-}
perf_user() { # ENV...: the user frames of perf's first getppid sample of python3
	rm -f "$CACHE_DIR/perf.data"
	"$PERF" record -q -e syscalls:sys_enter_getppid --call-graph fp,defer \
		-o "$CACHE_DIR/perf.data" -- env "$@" $PY -c 'import os; os.getppid()' \
		> /dev/null 2>&1 &&
	"$PERF" script -i "$CACHE_DIR/perf.data" 2>/dev/null |
		awk '/sys_enter_getppid/ { s++; next }
		     s == 1 && NF >= 2 && !/kernel.kallsyms/ { f = $2; sub(/\+0x[0-9a-f]+$/, "", f); print f }'
}
t_begin stock-perf-fp-defer-whole
if [ -z "$PERF" ] || ! [ -x "$PERF" ]; then
	t_fail "no perf: FTD_PERF='$PERF' (rig/test-all.sh builds it with rig/build-perf.sh)"
else
	got=$(perf_user SFREG_CACHE_DIR="$CACHE_DIR" LD_AUDIT="$REG")
	lost=$(perf_user X=1)
	check "perf fp,defer with the registrar reaches Py_BytesMain and _start: $(echo $got)" \
		bash -c "grep -qx Py_BytesMain <<< '$got' && grep -qx _start <<< '$got'" &&
	check "and without it is cut: $(echo $lost)" test "$(wc -l <<< "$lost")" -le 2 &&
	t_pass
fi

# A sample of generated sections through the kernel's own checks: every
# object python3 maps importing these modules (its extension modules and
# the libraries they bring: libssl, libcrypto, libsqlite3, libffi, libz,
# liblzma, libbz2, libexpat...) is registered, none refused
t_begin stock-many-objects-registered
mods="ssl, sqlite3, ctypes, lzma, bz2, zlib, decimal, json, hashlib, xml.parsers.expat, select, mmap, socket, curses, readline, uuid"
"${WITH[@]}" SFREG_DEBUG=1 $PY -c "import $mods" 2> "$TRACES/many.err"
n=$(grep -c ': generated section registered\|: cached section registered' "$TRACES/many.err")
bad=$(grep -v ' registered$' "$TRACES/many.err" | head -5)
if [ "$n" -ge 20 ] && [ -z "$bad" ]; then
	echo "  ok: $n objects registered"
	t_pass
else
	t_fail "$n objects registered; not: $bad"
fi

t_begin stock-registrar-quiet
out=$("${WITH[@]}" /bin/true 2>&1) && [ -z "$out" ] && t_pass ||
	t_fail "the registrar printed '$out' or /bin/true failed"

rm -rf "$CACHE_DIR"
t_summary
