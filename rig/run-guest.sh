#!/bin/bash
# Boot the test kernel under QEMU (KVM when a probe boot proves it works,
# else TCG) and run one command in the guest.
#
#   rig/run-guest.sh [--arch x86_64|s390x] [--debug] [--timeout SECS]
#                    [--cmd 'guest command'] [--add DIR] [--out DIR]
#                    [--no-build] [--kernel BZIMAGE] [--smp N]
#                    [--mem SIZE] [--append 'kernel args'] [--quiet]
#                    [--qemu-arg ARG]... [--modules DIR]
#
# The guest sees the host's own userspace (host / shared read-only over 9p,
# under a writable tmpfs overlay), so the command runs with the host's bash,
# python3, trace-cmd...; the repo is at the same path as on the host
# ($FTD_REPO, also the working directory).  Results go to /results in the
# guest ($FTD_RESULTS) = DIR on the host (default $CACHE/runs/<time>; the
# newest run is linked as $CACHE/runs/latest).
#
# Default command: $REPO/tests/guest/run-all.sh.  The last line on stdout is
# "N passed, N failed[, N skipped]" from $OUT/results.txt, where each rig
# check that failed counts as a failed test rig/<check>.  Exit status: 0 only when
# the guest command exited 0, the guest did not time out, and the console
# log shows no kernel warning, bug, oops, lockdep or KASAN report.
# --qemu-arg adds one argument to QEMU's command line (repeat it for
# more), e.g. --qemu-arg -plugin --qemu-arg /path/insn-count.so,out=FILE.
# --modules DIR (x86_64) puts DIR's kernel modules into the initramfs
# under /modules; /init loads those named in DIR/order, in that order,
# before it mounts the host's root: a kernel that has 9p and overlayfs as
# modules (Debian's own, rig/fetch-debian-kernel.sh) boots the rig's way.
#
# --arch s390x (or FTD_ARCH=s390x) boots the s390x kernel of
# build-kernel.sh --arch s390x in qemu-system-s390x -M s390-ccw-virtio
# (TCG).  The host's programs cannot run there, so nothing is shared: the
# initramfs holds busybox for s390x (rig/fetch-cross.sh), /init
# (rig/guest-init-s390x.sh), the command as /ftd/cmd.sh (busybox sh; it
# is required) and the files of --add DIR under /ftd, the working
# directory.  The command's output, its exit code and the guest's dmesg
# come back over the console (output.log, exit-code, dmesg.log in DIR);
# its lines "PASS name" / "FAIL name" / "SKIP name" make results.txt.
# The whole script is one block, read before it runs: editing this file
# while it runs cannot derail it.
{
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit "${1:-0}"; }
debug=0 timeout= cmd= out= build=1 kernel= smp=2 mem= append= quiet=0
arch= add= modules=
qemu_extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift ;;
	--add) add=$2; shift ;;
	--debug) debug=1 ;;
	--timeout) timeout=$2; shift ;;
	--cmd) cmd=$2; shift ;;
	--out) out=$2; shift ;;
	--no-build) build=0 ;;
	--kernel) kernel=$2; build=0; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--quiet) quiet=1 ;;
	--qemu-arg) qemu_extra+=("$2"); shift ;;
	--modules) modules=$2; shift ;;
	-h|--help) usage 0 ;;
	*) log "unknown argument: $1"; usage 2 ;;
	esac
	shift
done
if [ $debug = 1 ]; then
	: "${timeout:=3600}" "${mem:=4G}"
else
	# the whole suite took 290 s on an idle host
	: "${timeout:=1200}" "${mem:=2G}"
fi
set_arch "$arch"
if [ "$FTD_ARCH" = s390x ]; then
	[ -n "$cmd" ] || die "--arch s390x needs --cmd"
	[ $debug = 0 ] || die "--debug is x86_64 only"
	[ -z "$add" ] || [ -d "$add" ] || die "--add $add: not a directory"
else
	[ -z "$add" ] || die "--add is for --arch s390x (x86_64 guests see the host)"
	[ -z "$modules" ] || [ -f "$modules/order" ] || die "--modules $modules: no order file"
fi
: "${cmd:=$REPO/tests/guest/run-all.sh}"

ensure_cache
if [ "$FTD_ARCH" = s390x ]; then
	need_pkgs qemu-system-misc gcc libc6-dev coreutils
else
	need_pkgs qemu-system-x86 busybox-static python3 gcc libc6-dev coreutils
fi

# --- kernel -----------------------------------------------------------------
if [ -z "$kernel" ]; then
	if [ $build = 1 ]; then
		bflag=(); [ $debug = 1 ] && bflag=(--debug)
		kernel=$("$here/build-kernel.sh" "${bflag[@]}") || die "kernel build failed"
	else
		sfx=; [ "${FTD_NO_OURS:-0}" = 1 ] && sfx=-pristine
		kernel=$CACHE/build$sfx$ASFX/$KIMAGE
		[ $debug = 1 ] && kernel=$CACHE/build$sfx-debug/$KIMAGE
	fi
fi
[ -f "$kernel" ] || die "no kernel image $kernel (run rig/build-kernel.sh)"

# --- initramfs: static busybox + rig/guest-init.sh as /init -------------------
# (s390x: busybox for s390x + rig/guest-init-s390x.sh, which installs the
# applet links itself: the host cannot run that busybox to list them)
if [ "$FTD_ARCH" = s390x ]; then
	bb=$("$here/fetch-cross.sh")/busybox init=$here/guest-init-s390x.sh
else
	bb=/bin/busybox init=$here/guest-init.sh
fi
[ -x "$bb" ] || die "no $bb (busybox-static)"
ird=$CACHE/initramfs
mkdir -p "$ird"
# gen_init_cpio (from the kernel source) makes device nodes without root.
gic=$("$here/fetch-kernel.sh")/usr/gen_init_cpio.c
[ -f "$gic" ] || die "no $gic"
irkey=$( { echo "initramfs v1 $FTD_ARCH"; cat "$init" "$gic" "$bb"; } |
	sha256sum | cut -c1-16)
initrd=$ird/initramfs$ASFX-$irkey.cpio.gz
gen_cpio=$ird/gen_init_cpio-$(sha256sum < "$gic" | cut -c1-16)
if [ ! -x "$gen_cpio" ]; then
	gcc -O2 -o "$gen_cpio.$$" "$gic" || die "cannot build gen_init_cpio"
	mv "$gen_cpio.$$" "$gen_cpio"
fi
if [ ! -f "$initrd" ]; then
	log "building initramfs $initrd"
	tmp=$ird/tmp.$$	# runs may build it at the same time
	mkdir -p "$tmp"
	# s390x: busybox and our files only; x86-64: the host's root comes
	# over 9p, busybox's applets are the guest's tools until it is mounted
	dirs="/bin /dev /proc /sys /tmp /host /rw /newroot"
	[ "$FTD_ARCH" = s390x ] && dirs="/bin /dev /proc /sys /tmp /ftd"
	{
		for d in $dirs; do
			echo "dir $d 0755 0 0"
		done
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "nod /dev/null 0666 0 0 c 1 3"
		echo "file /bin/busybox $bb 0755 0 0"
		echo "file /init $init 0755 0 0"
		[ "$FTD_ARCH" = s390x ] ||
			"$bb" --list | grep -vx busybox | while read -r a; do
				echo "slink /bin/$a busybox 0777 0 0"
			done
	} > "$tmp/list"
	"$gen_cpio" "$tmp/list" | gzip -1 > "$tmp/initramfs.cpio.gz"
	mv "$tmp/initramfs.cpio.gz" "$initrd"
	rm -rf "$tmp"
	# old ones of this architecture (the key is 16 hex digits)
	find "$ird" -maxdepth 1 -name "initramfs$ASFX-????????????????.cpio.gz" \
		! -name "${initrd##*/}" -mmin +60 -delete
fi

# --- output directory and the command file -----------------------------------
if [ -z "$out" ]; then
	out=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$$
	mkdir -p "$out"
	ln -sfn "$out" "$CACHE/runs/latest"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $out in *[[:space:],]*) die "--out path must not contain spaces or commas: $out" ;; esac
rm -rf "$out/.ftd"
rm -f "$out"/{console.log,console-problems.log,output.log,dmesg.log,exit-code,qemu.log,agent.log,result,timings,results.txt}
mkdir -p "$out/.ftd/agent"
q() { printf '%q' "$1"; }
if [ "$FTD_ARCH" = s390x ]; then
	# The command and the --add files go into a second cpio archive, after
	# the cached one: the kernel unpacks both.
	cat > "$out/.ftd/cmd.sh" <<EOF
# Generated by rig/run-guest.sh; run by /init with busybox sh in /ftd.
export FTD_ARCH=s390x FTD_DEBUG=0
$cmd
EOF
	{
		echo "file /ftd/cmd.sh $out/.ftd/cmd.sh 0755 0 0"
		if [ -n "$add" ]; then
			(cd "$add" && find . -mindepth 1 | sort) | while read -r f; do
				f=${f#./}
				if [ -d "$add/$f" ]; then
					echo "dir /ftd/$f 0755 0 0"
				else
					echo "file /ftd/$f $(cd "$add" && pwd)/$f $(stat -c %a "$add/$f") 0 0"
				fi
			done
		fi
	} > "$out/.ftd/cpio.list"
	"$gen_cpio" "$out/.ftd/cpio.list" | gzip -1 > "$out/.ftd/run.cpio.gz"
	cat "$initrd" "$out/.ftd/run.cpio.gz" > "$out/.ftd/initramfs.cpio.gz"
	initrd=$out/.ftd/initramfs.cpio.gz
else
if [ -n "$modules" ]; then
	# The modules go into a second cpio archive, after the cached one
	modules=$(cd "$modules" && pwd)
	{
		echo "dir /modules 0755 0 0"
		echo "file /modules/order $modules/order 0644 0 0"
		while read -r m; do
			[ -f "$modules/$m" ] || die "--modules: no $modules/$m"
			echo "file /modules/$m $modules/$m 0644 0 0"
		done < "$modules/order"
	} > "$out/.ftd/cpio.list"
	"$gen_cpio" "$out/.ftd/cpio.list" | gzip -1 > "$out/.ftd/modules.cpio.gz"
	cat "$initrd" "$out/.ftd/modules.cpio.gz" > "$out/.ftd/initramfs.cpio.gz"
	initrd=$out/.ftd/initramfs.cpio.gz
fi
cat > "$out/.ftd/cmd.sh" <<EOF
# Generated by rig/run-guest.sh; run by /init with bash in the guest.
export FTD_RESULTS=/results
export FTD_REPO=$(q "$REPO")
# the cache of the kernel booted: t-10 runs the selftests of its work tree
export FTD_CACHE=$(q "$CACHE")
export FTD_HOST_OUT=$(q "$out")
export FTD_DEBUG=$debug
export FTD_AGENT_DIR=\$FTD_RESULTS/.ftd/agent
cd "\$FTD_REPO" || exit 125
$cmd
EOF
fi

# --- the host agent: guest requests (NMIs) over the QEMU monitor --------------
mon=$out/monitor.sock
[ ${#mon} -lt 100 ] || mon=$(mktemp -u /tmp/ftd-mon.XXXXXX)
rm -f "$mon"
agent_pid=
cleanup() {
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null || true
	rm -f "$mon"
}
trap cleanup EXIT

# --- boot ----------------------------------------------------------------------
# acpi=noirq: PCI interrupts routed by the BIOS table instead of ACPI AML.
# Same result, but on the KASAN + lockdep kernel the AML for the two virtio
# devices' links took 27 s each under TCG (boot 69 s -> 14 s).
# KVM only when a probe boot proves it runs a guest (choose_accel in
# rig/common.sh); FTD_ACCEL=kvm|tcg forces either.
if [ "$FTD_ARCH" = s390x ]; then
# TCG only (no s390x host); one thread for the vCPUs as on x86_64.  The
# console is SCLP's VT220 line (ttysclp0), which does not wrap long lines.
qemu=("$QEMU_BIN" -machine s390-ccw-virtio -accel tcg,thread=single -cpu max
      -smp "$smp" -m "$mem" -nodefaults -no-user-config -display none -no-reboot
      -kernel "$kernel" -initrd "$initrd"
      -append "console=ttysclp0 panic=-1 loglevel=4 $append"
      -chardev stdio,id=con0 -device sclpconsole,chardev=con0
      "${qemu_extra[@]}")
log "accel: TCG (s390x guest)"
else
choose_accel "$kernel"
# The debug kernel's tests hold an RCU reader open on purpose (20 s in
# t-60's widened window, kernel-config/debug.patch); under TCG on a
# loaded host that took over the 21 s stall limit (2026-11-29): the
# limit is the largest the kernel takes, so a reader that never ends
# is still reported
[ $debug = 1 ] && append="rcupdate.rcu_cpu_stall_timeout=300 $append"
# and no 5-level paging under TCG: upstream's KASAN reports an interrupt
# in identify_cpu()'s window (LA57 cleared before alternatives) as a wild
# access, in 2 debug boots of 12 (Documentation/rig.md); other guests
# keep LA57
if [ $debug = 1 ]; then
	for i in "${!ACCEL[@]}"; do
		[ "${ACCEL[$i]}" = max ] && [ "${ACCEL[$((i - 1))]}" = -cpu ] && ACCEL[$i]=max,la57=off
	done
fi
qemu=(qemu-system-x86_64 "${ACCEL[@]}" -smp "$smp" -m "$mem"
      -nodefaults -no-user-config -display none -no-reboot
      -kernel "$kernel" -initrd "$initrd"
      -append "console=ttyS0 panic=-1 acpi=noirq ftd.hostout=$out $append"
      -serial stdio
      -monitor "unix:$mon,server=on,wait=off"
      -virtfs "local,id=hostroot,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
      -virtfs "local,id=ftdout,path=$out,mount_tag=ftdout,security_model=none,multidevs=remap"
      "${qemu_extra[@]}")
fi
printf '%q ' "${qemu[@]}" > "$out/qemu.cmdline"; echo >> "$out/qemu.cmdline"

log "booting $kernel, ${smp} CPUs, $mem, timeout ${timeout}s; results in $out"
t0=$(now)
if [ "$FTD_ARCH" = x86_64 ]; then
	python3 "$here/host-agent.py" "$out/.ftd/agent" "$mon" 2>"$out/agent.log" &
	agent_pid=$!
fi
set +e
if [ $quiet = 1 ]; then
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>"$out/qemu.log" |
		sed -u 's/\r$//' > "$out/console.log"
else
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>"$out/qemu.log" |
		sed -u 's/\r$//' | tee "$out/console.log"
fi
qrc=${PIPESTATUS[0]}
set -e
t1=$(now)

# s390x: the console carries what the 9p share carries on x86_64
if [ "$FTD_ARCH" = s390x ]; then
	c=$out/console.log
	awk '/^ftd-init: running the command$/ || /^ftd-init: ready after .*running the command$/ { on = 1; next }
	     /^ftd-init: command exited with status [0-9]+ at / { exit }
	     on' "$c" > "$out/output.log"
	sed -n 's/^ftd-init: command exited with status \([0-9]*\) at .*/\1/p' "$c" | head -1 > "$out/exit-code"
	[ -s "$out/exit-code" ] || rm -f "$out/exit-code"
	awk '/^ftd-init: dmesg end$/ { exit } on; /^ftd-init: dmesg begin$/ { on = 1 }' "$c" > "$out/dmesg.log"
	grep -E '^(PASS|FAIL|SKIP) ' "$out/output.log" > "$out/results.txt" || true
fi

# --- verdict -------------------------------------------------------------------
# Each problem is also a failed test "rig/<what>" in results.txt, so that the
# closing "N passed, N failed" line counts it.
res=$out/results.txt
problems=()
problem() { problems+=("$2"); echo "FAIL rig/$1 # $2" >> "$res"; }
guest_fails=$(grep -c '^FAIL ' "$res" 2>/dev/null || true)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	problem timeout "guest timed out after ${timeout}s and was killed"
elif [ "$qrc" != 0 ]; then
	problem qemu "qemu exited with status $qrc: $(tr '\n' ' ' < "$out/qemu.log")"
fi
if [ -f "$out/exit-code" ]; then
	grc=$(cat "$out/exit-code")
	if [ "$grc" != 0 ]; then
		# failures the tests recorded already account for a non-zero status
		if [ "${guest_fails:-0}" -gt 0 ]; then
			problems+=("guest command exited with status $grc")
		else
			problem exit-status "guest command exited with status $grc"
		fi
	fi
else
	grc=missing
	problem finished "guest command exit code missing (it did not finish)"
fi
if ! "$here/scan-console.sh" "$out/console.log" > "$out/console-problems.log"; then
	cat "$out/console-problems.log" >&2
	problem kernel-log "kernel problems in console log (see above, and $out/console-problems.log)"
fi

boot=n/a
if [ -f "$out/.ftd/started" ]; then
	boot=$(elapsed "$t0" "$(stat -c %.Y "$out/.ftd/started" 2>/dev/null || stat -c %Y "$out/.ftd/started")")
fi
total=$(elapsed "$t0" "$t1")
printf 'boot_to_command=%s\ntotal=%s\nexit_code=%s\nqemu_status=%s\n' \
	"$boot" "$total" "$grc" "$qrc" > "$out/timings"
log "start to guest command: $boot; total: $total"
np=0 nf=0 ns=0
if [ -f "$res" ]; then
	np=$(grep -c '^PASS ' "$res" || true)
	nf=$(grep -c '^FAIL ' "$res" || true)
	ns=$(grep -c '^SKIP ' "$res" || true)
fi
summary="$np passed, $nf failed"
[ "$ns" -gt 0 ] && summary+=", $ns skipped"
if [ ${#problems[@]} -gt 0 ]; then
	for p in "${problems[@]}"; do log "FAIL: $p"; done
	echo FAIL > "$out/result"
	log "results in $out"
	echo "$summary"
	exit 1
fi
echo PASS > "$out/result"
log "PASS; results in $out"
echo "$summary"
exit
}
