#!/bin/bash
# Tests of the rig itself: where it fetches from, the trace-cmd 3.4 it
# builds (tests/rig/tracecmd.sh), binutils 2.44 and the SFrame workloads
# (tests/rig/sframe.sh) and which accelerator it boots with.
# Ends with "N passed, N failed".
#
#   tests/rig/run.sh
#
# Needs the test kernel (rig/build-kernel.sh; a no-op when it is built).
. "$(dirname "$0")/lib.sh"

# ---- the archive comes from the machine's apt sources -----------------------
# A made-up /etc/apt: the security suite first, a disabled entry, then the
# release suite; the rig must take the release suite's URI.
mk_etc() { rm -rf "$T/etc"; mkdir -p "$T/etc/sources.list.d"; }
mk_etc
cat > "$T/etc/sources.list.d/a.sources" <<'SRC'
Types: deb
URIs: http://mirror.invalid/security
Suites: bookworm-security
Components: main

# a comment between paragraphs
Types: deb
URIs: http://disabled.invalid/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src deb
# a comment inside a paragraph
URIs: http://mirror.invalid/debian/ http://second.invalid/debian
Suites: bookworm bookworm-updates
Components: main contrib
SRC
got=$(FTD_APT_ETC=$T/etc apt_archive_uri)
[ "$got" = http://mirror.invalid/debian ] && pass apt-uri-deb822 ||
	fail apt-uri-deb822 "got '$got'"

mk_etc
cat > "$T/etc/sources.list" <<'SRC'
# deb http://commented.invalid/debian bookworm main
deb http://proxy.invalid:3142/debian-security bookworm-security main
deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://proxy.invalid:3142/debian bookworm main
SRC
got=$(FTD_APT_ETC=$T/etc apt_archive_uri)
[ "$got" = http://proxy.invalid:3142/debian ] && pass apt-uri-one-line ||
	fail apt-uri-one-line "got '$got'"

mk_etc
printf 'deb http://mirror.invalid/debian bookworm contrib\n' > "$T/etc/sources.list"
if got=$(FTD_APT_ETC=$T/etc apt_archive_uri); then
	fail apt-uri-none "found '$got' where no source serves main"
else
	pass apt-uri-none
fi

got=$(FTD_APT_URI=http://override.invalid/d FTD_APT_ETC=$T/etc apt_archive_uri)
[ "$got" = http://override.invalid/d ] && pass apt-uri-override ||
	fail apt-uri-override "got '$got'"

# The repo names no package archive: no URL whose host names a distribution,
# and none of the hosts this machine's apt uses.
hosts=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list.d/*.list 2>/dev/null |
	grep -oE '(https?|ftp)://[^/[:space:]]+' | sed 's|.*://||; s|:.*||' | sort -u)
pat='(https?|ftp)://[^/[:space:]]*(debian|ubuntu)'
for h in $hosts; do pat="$pat|$(printf '%s' "$h" | sed 's/\./\\./g')"; done
hits=$(cd "$REPO" && git ls-files -z | xargs -0 grep -I -l -E "$pat" 2>/dev/null)
[ -z "$hits" ] && pass repo-names-no-archive ||
	fail repo-names-no-archive "archive host in: $(echo $hits)"

# ---- trace-cmd 3.4 built from Debian's sources (tests/rig/tracecmd.sh) -------
# rig/demo.sh's checks read the stack of the event they mean: a recording
# with -T holds sched_process_exec too, whose user stack (the loader's
# _start) came first in the report in most runs of 2026-11
. "$REPO/rig/report-stacks.sh"
rep='     python3-90    [001] .....  4.000100: sched_process_exec:   filename=/usr/bin/python3 pid=90 old_pid=90
  <kernel stack>
  => ftrace_trace_userstack+0x10 (ffffffff81000010)
  <user stack>
  => _start+0x0 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
     python3-90    [001] .....  4.200100: sys_enter_getppid:    
  <kernel stack>
  => ftrace_syscall_enter+0x178 (ffffffff81145e18)
  <user stack>
  => getppid+0xb (/usr/lib/x86_64-linux-gnu/libc.so.6)
  => Py_BytesMain+0x2d (/usr/bin/python3.11)
  => _start+0x2a (/usr/bin/python3.11)
     python3-90    [001] .....  4.200200: sys_exit_getppid:     0x4d'
got=$(user_frames "$rep" sys_enter_getppid | tr '\n' ' ')
[ "$got" = "getppid+0xb Py_BytesMain+0x2d _start+0x2a " ] && pass demo-user-frames-of-event ||
	fail demo-user-frames-of-event "got '$got'"
got=$(user_frames "$rep" sys_exit_getppid)
[ -z "$got" ] && pass demo-user-frames-none || fail demo-user-frames-none "got '$got'"
got=$(event_block "$rep" sys_enter_getppid | wc -l)
[ "$got" = 7 ] && pass demo-event-block || fail demo-event-block "got $got lines"
# a system-wide recording: the event of the task named (the demo's end)
rep2="         sh-70    [000] .....  4.000000: sys_enter_getppid:    
  <user stack>
  => getppid+0xb (/usr/lib/x86_64-linux-gnu/libc.so.6)
  => main+0x1 (/usr/bin/dash)
$rep"
got=$(user_frames "$rep2" sys_enter_getppid python3 | tr '\n' ' ')
got2=$(user_frames "$rep2" sys_enter_getppid python | tr '\n' ' ')
[ "$got" = "getppid+0xb Py_BytesMain+0x2d _start+0x2a " ] && [ -z "$got2" ] &&
	pass demo-user-frames-of-comm || fail demo-user-frames-of-comm "got '$got', and for 'python' '$got2'"

# ---- the benchmarks' reader of their runs (bench/benchtool.py selftest:
# perf.data records, trace dumps, the kept-rule table model) -------------
python3 "$REPO/bench/benchtool.py" selftest > "$T/benchtool.out" 2>&1
line=$(tail -1 "$T/benchtool.out")
if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] && [ "${BASH_REMATCH[2]}" = 0 ]; then
	pass benchtool-selftest
else
	fail benchtool-selftest "$(grep FAIL "$T/benchtool.out" | head -3 | tr '\n' ' ')$line"
fi
# bench/rbpages.py: ring-buffer pages split into records and padding
out=$(python3 "$REPO/bench/rbpages.py" selftest 2>&1)
[ "$out" = "rbpages selftest: ok" ] && pass rbpages-selftest || fail rbpages-selftest "$out"

"$HERE/tracecmd.sh" > "$T/tracecmd.out" 2>&1
grep -vE '^[0-9]+ passed, [0-9]+ failed' "$T/tracecmd.out"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$T/tracecmd.out" | tail -1)
if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
	npass=$((npass + BASH_REMATCH[1])) nfail=$((nfail + BASH_REMATCH[2]))
else
	fail tracecmd "tests/rig/tracecmd.sh ended without a count"
fi

# ---- binutils 2.44 and the SFrame workloads (tests/rig/sframe.sh) -----------
"$HERE/sframe.sh" > "$T/sframe.out" 2>&1
grep -vE '^[0-9]+ passed, [0-9]+ failed' "$T/sframe.out"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$T/sframe.out" | tail -1)
if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
	npass=$((npass + BASH_REMATCH[1])) nfail=$((nfail + BASH_REMATCH[2]))
else
	fail sframe "tests/rig/sframe.sh ended without a count"
fi

# ---- accelerator by proof ----------------------------------------------------
kernel=$("$REPO/rig/build-kernel.sh" 2>"$T/build.log") ||
	{ tail -20 "$T/build.log"; fail kernel-build; finish; }
need_pkgs qemu-system-x86

# The rig's own choice on this machine, for the record.
choose_accel "$kernel" 2>"$T/auto.log"
echo "# this machine: $(sed 's/^\[rig [0-9:]*\] //' "$T/auto.log")"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	grep -qE 'accel: (KVM \(probe boot finished|TCG, KVM probe failed)' "$T/auto.log" &&
		pass accel-auto-probes || fail accel-auto-probes "$(cat "$T/auto.log")"
else
	grep -q 'accel: TCG (no usable /dev/kvm)' "$T/auto.log" &&
		pass accel-auto-probes || fail accel-auto-probes "$(cat "$T/auto.log")"
fi

# A KVM that cannot run the guest.  FTD_KVM_DEV makes the probe run even on
# a machine without /dev/kvm.  Three ways to fail: the real QEMU refuses
# (an unknown CPU model); a stand-in QEMU that aborts as QEMU 7.2 does on
# the broken machines (MSR 0x10a, exit 134); one that runs and prints
# nothing, as their guests hang.
: > "$T/kvm"
cat > "$T/qemu-abort" <<'Q'
#!/bin/sh
echo 'qemu-system-x86_64: error: failed to set MSR 0x10a to 0x0' >&2
echo "kvm_buf_set_msrs: Assertion \`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
kill -ABRT $$
Q
printf '#!/bin/sh\nexec sleep 60\n' > "$T/qemu-hang"
chmod +x "$T/qemu-abort" "$T/qemu-hang"
probe_case() {
	local name=$1 want=$2
	shift 2
	ACCEL=()
	env FTD_KVM_DEV="$T/kvm" FTD_KVM_PROBE_TIMEOUT=5 "$@" \
		bash -c '. "$1"; choose_accel "$2"; echo "ACCEL=${ACCEL[*]}"' _ \
		"$REPO/rig/common.sh" "$kernel" >"$T/$name.out" 2>"$T/$name.log"
	if grep -qxF "ACCEL=${ACCEL_TCG[*]}" "$T/$name.out" &&
	   grep -qF "accel: TCG, KVM probe failed: $want" "$T/$name.log"; then
		pass "accel-fallback-$name"
	else
		fail "accel-fallback-$name" "$(cat "$T/$name.out" "$T/$name.log")"
	fi
}
probe_case cpu-refused 'qemu exited with status 1' FTD_KVM_PROBE_ARGS='-cpu ftd-no-such-model'
probe_case msr-abort 'qemu exited with status 134' FTD_KVM_PROBE_QEMU="$T/qemu-abort"
probe_case silent-hang 'no finished boot within 5s' FTD_KVM_PROBE_QEMU="$T/qemu-hang"

# The fallback boots: a guest command runs under the chosen TCG.
if FTD_KVM_DEV=$T/kvm FTD_KVM_PROBE_ARGS='-cpu ftd-no-such-model' \
	"$REPO/rig/run-guest.sh" --no-build --kernel "$kernel" --quiet --timeout 300 \
	--out "$T/boot" --cmd 'echo ftd-rig-guest-ran > /results/ran' >"$T/boot.log" 2>&1 &&
   grep -q ftd-rig-guest-ran "$T/boot/ran" &&
   grep -q 'accel: TCG, KVM probe failed' "$T/boot.log"; then
	pass accel-fallback-boots
else
	tail -20 "$T/boot.log"
	fail accel-fallback-boots
fi

# Forcing works both ways without a probe.
FTD_ACCEL=tcg choose_accel "$kernel" 2>/dev/null
[ "${ACCEL[*]}" = "${ACCEL_TCG[*]}" ] && pass accel-force-tcg || fail accel-force-tcg
FTD_ACCEL=kvm choose_accel "$kernel" 2>/dev/null
[ "${ACCEL[*]}" = "${ACCEL_KVM[*]}" ] && pass accel-force-kvm || fail accel-force-kvm
(FTD_ACCEL=bogus choose_accel "$kernel") 2>/dev/null && fail accel-bad-value ||
	pass accel-bad-value

finish
