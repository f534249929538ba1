#!/bin/busybox sh
# /init of the test initramfs built by rig/run-guest.sh (PID 1, busybox).
# See Documentation/rig.md.  It:
#  - loads the modules under /modules, if any (run-guest.sh --modules);
#  - mounts the host's / (9p tag hostroot, read-only) under an overlay whose
#    upper layer is a tmpfs, so the guest sees the host's userspace and may
#    write anywhere (writes are thrown away at poweroff);
#  - mounts the host output dir (9p tag ftdout, read-write) at /results;
#  - mounts proc, sys, dev, devpts, /dev/shm, tracefs, debugfs, /run (the
#    host's /tmp stays visible, writable through the overlay);
#  - runs /results/.ftd/cmd.sh with /bin/bash chrooted into that root,
#    output to the console and to /results/output.log;
#  - writes the exit code to /results/exit-code, dmesg to /results/dmesg.log,
#    syncs and powers off.
export PATH=/bin
say() { echo "ftd-init: $*"; }
halt() { sync; poweroff -f; sleep 10; }	# PID 1 must never exit
fail() { say "FATAL: $*"; halt; }

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null

# A kernel with 9p and overlayfs as modules (Debian's own): the initramfs
# carries them (run-guest.sh --modules), dependencies first
if [ -f /modules/order ]; then
	while read -r m; do
		insmod /modules/$m || fail "cannot load module $m"
	done < /modules/order
fi

hostout=
for w in $(cat /proc/cmdline); do
	case $w in ftd.hostout=*) hostout=${w#ftd.hostout=} ;; esac
done

N=/newroot
o9p=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /host /rw $N
mount -t 9p -o $o9p,ro,cache=loose hostroot /host || fail "cannot mount the host root (9p)"
mount -t tmpfs -o mode=0755 rw /rw && mkdir -p /rw/upper /rw/work
if mount -t overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work overlay $N; then
	res=/results
	mkdir -p $N$res
else
	# Fallback: read-only root; the results share sits at its host path.
	say "overlay failed: the root is the read-only host filesystem"
	mount --bind /host $N || fail "cannot bind the host root"
	res=$hostout
	[ -n "$res" ] && [ -d $N$res ] || fail "no results directory"
fi
mount -t 9p -o $o9p,cache=mmap ftdout $N$res || fail "cannot mount the results share (9p)"

mount -t proc proc $N/proc
mount -t sysfs sys $N/sys
mount -t tracefs tracefs $N/sys/kernel/tracing || say "warning: no tracefs"
mount -t debugfs debugfs $N/sys/kernel/debug 2>/dev/null
mount -t devtmpfs dev $N/dev
mkdir -p $N/dev/pts $N/dev/shm
# what udev would add: bash process substitution needs /dev/fd
ln -sfn /proc/self/fd $N/dev/fd
ln -sfn /proc/self/fd/0 $N/dev/stdin
ln -sfn /proc/self/fd/1 $N/dev/stdout
ln -sfn /proc/self/fd/2 $N/dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $N/dev/pts
mount -t tmpfs -o mode=1777 shm $N/dev/shm
mount -t tmpfs -o mode=0755 run $N/run
hostname ftd-guest
# loopback up, for tests that ping 127.0.0.1 (stock ftracetest hist cases)
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null ||
	say "warning: no loopback"

F=$N$res/.ftd
[ -f $F/cmd.sh ] || fail "no $res/.ftd/cmd.sh"
# The host substitutes the real results path if the fallback was taken.
[ "$res" = /results ] || sed -i "s|^export FTD_RESULTS=.*|export FTD_RESULTS='$res'|" $F/cmd.sh

say "ready after $(cut -d' ' -f1 /proc/uptime) s of guest uptime, $(nproc) CPUs; running the command"
echo ready > $F/started
set -o pipefail
chroot $N /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 /bin/bash $res/.ftd/cmd.sh 2>&1 </dev/null |
	tee $N$res/output.log
rc=$?
set +o pipefail
echo $rc > $N$res/exit-code
say "command exited with status $rc at $(cut -d' ' -f1 /proc/uptime) s"
dmesg > $N$res/dmesg.log
halt
