#!/bin/bash
# The SFrame registrar (sframe-gen/build/libsframe-register.so) on the host:
# its cache and its promise never to change what a program does.  The
# host kernel has no PR_ADD_SFRAME, so every prctl fails here with EINVAL;
# everything before it (headers, build IDs, generation, the cache,
# relocation) runs as in the guest, where tests/guest/t-98-stock.sh checks
# the stacks themselves against eu-stack.
#   tests/userspace/sframe-gen/register.sh     (ends "N passed, N failed")
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../../.." && pwd)
B=${SFGEN_BUILD:-$REPO/sframe-gen/build}
REG=$B/libsframe-register.so
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1 # $2"; fail=$((fail + 1)); }
W=$(mktemp -d)
trap 'chmod -R u+w "$W"; rm -rf "$W"' EXIT
C=$W/cache

# reg ENV... CMD...: run with the registrar as LD_AUDIT, debug lines on
reg() { env SFREG_DEBUG=1 SFREG_CACHE_DIR="$C" LD_AUDIT="$REG" "$@"; }
# build_id FILE: its GNU build ID by binutils' readelf (not our reader)
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }

LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
LS=$(readlink -f /bin/ls)

# 1. cold: one file per object, named by the build ID readelf reads
reg /bin/ls / > /dev/null 2> "$W/cold.err"
n_gen=$(grep -c ': generated section' "$W/cold.err")
if [ -f "$C/$(build_id "$LIBC").sframe" ] && [ -f "$C/$(build_id "$LS").sframe" ] &&
   [ "$n_gen" -ge 4 ]; then
	ok cache-cold-files-by-build-id
else
	bad cache-cold-files-by-build-id "$n_gen generated; $(ls "$C" 2>&1 | tr '\n' ' '); $(head -5 "$W/cold.err")"
fi

# 2. warm: every object from the cache, nothing generated
reg /bin/ls / > /dev/null 2> "$W/warm.err"
if ! grep -q ': generated section' "$W/warm.err" &&
   [ "$(grep -c ': cached section' "$W/warm.err")" = "$n_gen" ]; then
	ok cache-warm-maps-every-object
else
	bad cache-warm-maps-every-object "$(cat "$W/warm.err")"
fi

# 3-5. a damaged, a foreign and a cut file are not used, and are replaced
f=$C/$(build_id "$LIBC").sframe
libc_sum=$(sha256sum < "$f")
damage() { # KIND: break libc's cache file one way
	case $1 in
	flip) printf '\xff\xff\xff\xff' | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") - 40 )) conv=notrunc status=none ;;
	foreign) cp "$C/$(build_id "$LS").sframe" "$f" ;;
	cut) truncate -s $(( $(stat -c %s "$f") / 2 )) "$f" ;;
	empty) : > "$f" ;;
	esac
}
for kind in flip foreign cut empty; do
	damage $kind
	reg /bin/true 2> "$W/$kind.err"
	if grep -q "libc.so.6: generated section" "$W/$kind.err" &&
	   [ "$(sha256sum < "$f")" = "$libc_sum" ]; then
		ok "cache-$kind-file-regenerated"
	else
		bad "cache-$kind-file-regenerated" "$(grep libc "$W/$kind.err")"
	fi
done

# 6. a cache directory others can write to is not used
chmod 777 "$C"
before=$(ls "$C" | wc -l)
rm -f "$C/$(build_id "$(readlink -f /bin/true)").sframe"
reg /bin/true 2> "$W/perm.err"
if [ "$(ls "$C" | wc -l)" = $((before - 1)) ] && ! grep -q ': cached section' "$W/perm.err"; then
	ok cache-dir-writable-by-others-unused
else
	bad cache-dir-writable-by-others-unused "$(cat "$W/perm.err")"
fi
chmod 700 "$C"

# 7. the program's output, exit status and open files are its own
same() { # NAME CMD...: stdout, stderr and status equal with and without
	local name=$1
	shift
	"$@" > "$W/a.out" 2> "$W/a.err" < /dev/null; local ra=$?
	env SFREG_CACHE_DIR="$C" LD_AUDIT="$REG" "$@" > "$W/b.out" 2> "$W/b.err" < /dev/null; local rb=$?
	if [ $ra = $rb ] && cmp -s "$W/a.out" "$W/b.out" && cmp -s "$W/a.err" "$W/b.err"; then
		ok "$name"
	else
		bad "$name" "status $ra/$rb; $(diff "$W/a.out" "$W/b.out" | head -3) $(diff "$W/a.err" "$W/b.err" | head -3)"
	fi
}
same unchanged-ls-output /bin/ls -la /usr/lib
same unchanged-exit-status /bin/sh -c 'exit 7'
same unchanged-stderr /bin/ls /nonexistent
same unchanged-open-files /bin/ls /proc/self/fd/
same unchanged-python3 /usr/bin/python3 -c 'import ctypes, json; print(json.dumps([1, 2]))'

# programs that use ptrace themselves: strace and gdb, the registrar in
# their environment and their tracee's
command -v strace > /dev/null && same unchanged-under-strace strace -f -o /dev/null /bin/echo hi ||
	bad unchanged-under-strace "strace is not installed"
gdbbt() { "$@" gdb -q -nx -batch -ex run -ex bt --args /usr/bin/python3 -c \
	'import os; os.kill(os.getpid(), 11)' 2>&1 | grep -o ' in [A-Za-z_]* ' | tr -d '\n'; }
a=$(gdbbt env) b=$(gdbbt env SFREG_CACHE_DIR="$C" LD_AUDIT="$REG")
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	ok unchanged-gdb-backtrace
else
	bad unchanged-gdb-backtrace "without: '$a' with: '$b'"
fi

# 8. silent without SFREG_DEBUG, even when it cannot do anything
mkdir -p "$W/alone" && cp "$REG" "$W/alone/"
out=$(env SFREG_CACHE_DIR="$W/c2" LD_AUDIT="$W/alone/libsframe-register.so" /bin/true 2>&1)
rc=$?
if [ $rc = 0 ] && [ -z "$out" ]; then
	ok silent-without-generator
else
	bad silent-without-generator "rc $rc, '$out'"
fi
# and with SFREG_DEBUG it says why
out=$(env SFREG_DEBUG=1 SFREG_CACHE_DIR="$W/c2" LD_AUDIT="$W/alone/libsframe-register.so" /bin/true 2>&1)
grep -q 'no generator' <<< "$out" && ok debug-says-no-generator ||
	bad debug-says-no-generator "'$out'"

# 9. SFREG_DISABLE: nothing read, nothing written
env SFREG_DISABLE=1 SFREG_DEBUG=1 SFREG_CACHE_DIR="$W/c3" LD_AUDIT="$REG" /bin/true 2> "$W/dis.err"
if [ ! -e "$W/c3" ] && [ ! -s "$W/dis.err" ]; then
	ok disable-does-nothing
else
	bad disable-does-nothing "$(cat "$W/dis.err")"
fi

# 10. LD_AUDIT sees dlopen(): python3's ctypes loads _ctypes and libffi late
reg /usr/bin/python3 -c 'import ctypes' 2> "$W/dl.err"
grep -q 'libffi.so[.0-9]*: ' "$W/dl.err" && ok audit-sees-dlopen ||
	bad audit-sees-dlopen "$(cat "$W/dl.err")"
# as LD_PRELOAD it takes the objects loaded at start only (documented)
env SFREG_DEBUG=1 SFREG_CACHE_DIR="$C" LD_PRELOAD="$REG" /usr/bin/python3 -c 'import ctypes' 2> "$W/pre.err"
if grep -q 'libc.so.6: ' "$W/pre.err" && ! grep -q 'libffi' "$W/pre.err"; then
	ok preload-start-objects-only
else
	bad preload-start-objects-only "$(cat "$W/pre.err")"
fi

# 12. the loads it writes to SFREG_MAPS_MARKER (trace-cmd record -T gives
# it the instance's trace_marker; a plain file here): dlwork loads
# libdlwork-a.so, unloads it, loads libdlwork-b.so, and with "keep" exits
# with b loaded.  A dlclose() is a close line; the loader's closes at
# exit (_dl_fini(), before exit_group()) are not: b stays mapped until
# exit_group(), and a frame in it on the exit path must be named (issue
# 38 item 3; before: a close for b at exit).  Oracles: dlwork's own
# dlinfo() bases, readelf's build IDs.
mkdir -p "$W/dl"
for l in a b; do
	gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DDLW_PREFIX=dl${l}_ \
		-o "$W/dl/libdlwork-$l.so" "$REPO/tests/workload/dlwork_lib.c"
done
gcc -O1 -g -o "$W/dl/dlwork" "$REPO/tests/workload/dlwork.c" -ldl
for mode in keep close; do
	: > "$W/dl/marker.$mode"
	env SFREG_DISABLE=1 SFREG_MAPS_MARKER="$W/dl/marker.$mode" LD_AUDIT="$REG" \
		"$W/dl/dlwork" 1 $mode > "$W/dl/out.$mode" 2>&1
	base=$(awk '$1 == "a" { print $2 }' "$W/dl/out.$mode")
	bb=$(awk '$1 == "b" { print $2 }' "$W/dl/out.$mode")
	{
		echo "open base=$base build_id=$(build_id "$W/dl/libdlwork-a.so") path=$W/dl/libdlwork-a.so"
		echo "close base=$base"
		echo "open base=$bb build_id=$(build_id "$W/dl/libdlwork-b.so") path=$W/dl/libdlwork-b.so"
		[ $mode = close ] && echo "close base=$bb"
	} > "$W/dl/want.$mode"
	# the line's ABI (libustack's ustack.h, USTACK_MAP_*): version 1, the
	# process and the thread that wrote it (dlwork has one thread)
	pid=$(awk '$1 == "pid" { print $2 }' "$W/dl/out.$mode")
	sed -E "s/^ustack_map: (open|close) v=1 pid=$pid tid=$pid /\\1 /; s/ segs=[^ ]*//" "$W/dl/marker.$mode" > "$W/dl/got.$mode"
	if [ -n "$base" ] && diff "$W/dl/want.$mode" "$W/dl/got.$mode" > "$W/dl/diff.$mode"; then
		ok "maps-lines-dlclose-$mode"
	else
		bad "maps-lines-dlclose-$mode" "$(tr '\n' ' ' < "$W/dl/diff.$mode") $(head -3 "$W/dl/out.$mode")"
	fi
done

# 11. valgrind: no error in the registrar (as LD_PRELOAD, cold then warm)
if command -v valgrind > /dev/null; then
	for run in cold warm; do
		[ $run = cold ] && rm -rf "$W/vg"
		if valgrind -q --trace-children=yes --error-exitcode=9 --leak-check=no \
			env SFREG_CACHE_DIR="$W/vg" LD_PRELOAD="$REG" /bin/true > "$W/vg.out" 2>&1; then
			ok "valgrind-clean-$run"
		else
			bad "valgrind-clean-$run" "$(head -20 "$W/vg.out")"
		fi
	done
else
	bad valgrind-clean "valgrind is not installed"
fi

# 12. sframe-feed (the system-wide feeder's user space half): the objects
# of a running process, once per file, into the registrar's cache; the
# registrar then generates nothing; each file's section is what
# sframe-gen writes for it; a second run takes all from the cache
FEED=$B/sframe-feed
F=$W/feed
sleep 30 &
sp=$!
SFREG_CACHE_DIR=$F "$FEED" -p $sp -p $sp > "$W/feed.out" 2>&1
SFREG_CACHE_DIR=$F "$FEED" -p $sp > "$W/feed2.out" 2>&1
kill $sp; wait $sp 2>/dev/null
env SFREG_DEBUG=1 SFREG_CACHE_DIR="$F" LD_AUDIT="$REG" /bin/sleep 0 2> "$W/feed-reg.err"
"$B/sframe-gen" "$LIBC" -o "$W/libc.sframe" 2>/dev/null
lsz=$(awk -v l="$LIBC" '$1 == "gen" && $4 == l { print $2 }' "$W/feed.out")
if [ "$(grep -c '^gen ' "$W/feed.out")" -ge 2 ] && ! grep -q '^fail ' "$W/feed.out" &&
   [ "$(grep -c "^gen .* $LIBC\$" "$W/feed.out")" = 1 ] &&
   [ "$lsz" = "$(stat -c %s "$W/libc.sframe")" ] &&
   [ -f "$F/$(build_id "$LIBC").sframe" ] &&
   ! grep -q '^gen ' "$W/feed2.out" && grep -q '^hit ' "$W/feed2.out" &&
   grep -q 'libc.so.6: cached section' "$W/feed-reg.err" &&
   ! grep -q ': generated section' "$W/feed-reg.err" &&
   grep -q 'none attached' "$W/feed.out"; then
	ok feed-fills-the-registrars-cache
else
	bad feed-fills-the-registrars-cache "libc $lsz bytes, sframe-gen $(stat -c %s "$W/libc.sframe"); $(cat "$W/feed.out" "$W/feed2.out" "$W/feed-reg.err" | tr '\n' ' ')"
fi
# bad arguments: exit 2, nothing read; a process that is gone: exit 1
SFREG_CACHE_DIR=$F "$FEED" -p nope > /dev/null 2>&1; r1=$?
SFREG_CACHE_DIR=$F "$FEED" -p $sp > /dev/null 2>&1; r2=$?
[ $r1 = 2 ] && [ $r2 = 1 ] && ok feed-bad-input || bad feed-bad-input "exit $r1 for -p nope, $r2 for a gone pid"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
